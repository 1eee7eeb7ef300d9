"""Which passage a value belongs to: a claim's number found next to something else.

A small NLI model reads "Tier Gold: 4 lounge visits." as support for "The Silver tier
includes 4 lounge visits.", and "Standard delivery takes 3 to 5 days" as support for
"Orders ship within 5 business days." The number is in the chunk, so the number check
passes; but it belongs to another row, year or line. What gives it away is the rest of
the context: a passage about the claim's own subject states the same quantity with
another value ("Tier Silver: 2 lounge visits.", "Orders ship within 2 business days",
found by :func:`nli_faith.rules.numbers.quantity_mismatch`).

The rule, for a claim some chunk contradicts that way: each side's *context* is the
passages holding its value (segments between line breaks, semicolons and full stops: a
line, a table row's field, a sentence) and the passages just before them that state no
quantity of the claim's kind (a heading, a table row's first field, the sentence naming
the subject: "Silver members get extra perks. They receive 4 lounge visits."). What
counts in a context is the claim's *key words*: its content words outside its
quantities, less the verbs that only relate a subject to its value ("takes", "costs",
"includes"), plus the years it names. A chunk may not support
the claim when the key words of its context are a strict subset of those of a rival's
context: the rival speaks of everything the chunk does about the claim, and of more
("Tier Silver" where the chunk has only "Tier"; "2023" where it has only "revenue").
The mismatch then makes the claim ``no``.

Example:
    >>> claim = "Orders ship within 5 business days."
    >>> chunks = ["Orders ship within 2 business days", "Standard delivery takes 3 to 5 days"]
    >>> from nli_faith.rules.numbers import quantity_mismatch
    >>> misattributed([claim], chunks, quantity_mismatch([claim], chunks)).tolist()
    [[False, True]]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from nli_faith.text.equivalence import equivalent
from nli_faith.text.quantities import Quantity, extract_quantities

__all__ = ["key_words", "misattributed", "segments"]

#: Passage boundaries: a line break, a semicolon, a full stop that ends a sentence.
_BOUNDARY_RE = re.compile(r"\n|;|\.(?=\s|$)")


def segments(text: str) -> list[tuple[int, int]]:
    """Character spans of the passages of ``text`` (see the module doc).

    Example:
        >>> t = "AAPL revenue: $394.3 billion in 2022; $383.3 billion in 2023."
        >>> [t[s:e].strip() for s, e in segments(t)]
        ['AAPL revenue: $394.3 billion in 2022', '$383.3 billion in 2023']
    """
    out, start = [], 0
    for m in _BOUNDARY_RE.finditer(text):
        if text[start : m.start()].strip():
            out.append((start, m.start()))
        start = m.end()
    if text[start:].strip():
        out.append((start, len(text)))
    return out


def _claim_quantities(claim: str) -> list[Quantity]:
    return [
        q
        for q in extract_quantities(claim, include_one=False)
        if q.kind == "quantity" and q.dimension
    ]


#: Verbs that relate a subject to its value: they say nothing of *which* thing it is.
RELATION_VERBS = frozenset(
    "be have get take cost include weigh measure last offer provide receive reach require "
    "need give contain come run stand total amount number rise fall grow increase decrease "
    "drop climb gain lose earn pay charge allow support hold serve employ see reach".split()
)


def key_words(claim: str, quantities: Sequence[Quantity] | None = None) -> frozenset[str]:
    """The claim's content words outside its quantities and relation verbs, and its years.

    Example:
        >>> sorted(key_words("Apple's revenue was 394.3 billion dollars in 2023."))
        ['2023', 'apple', 'revenue']
        >>> sorted(key_words("The refund takes 5 business days."))
        ['refund']
    """
    from nli_faith.text.lexical import content_words

    qs = _claim_quantities(claim) if quantities is None else quantities
    pieces, pos = [], 0
    for q in sorted(qs, key=lambda q: q.start):
        pieces.append(claim[pos : q.start])
        pos = q.end
    pieces.append(claim[pos:])
    words = {
        w
        for w in content_words(" ".join(pieces))
        if not any(ch.isdigit() for ch in w) and _verb_stem(w) not in RELATION_VERBS
    }
    years = {q.number for q in extract_quantities(claim) if q.kind == "year" and q.number}
    return frozenset(words | (years & content_words(claim)))


def _verb_stem(word: str) -> str:
    """ "takes" / "costs" are stemmed to "take" / "cost" already; "weighed" -> "weigh"."""
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)]
    return word


def _context_words(
    key: frozenset[str], text: str, holds: Callable[[Quantity], bool], dimensions: set[str]
) -> frozenset[str] | None:
    """``key`` words in the passages of ``text`` holding a quantity ``holds`` picks, and in
    the passages just before each that state nothing in ``dimensions`` (a heading, the
    subject's sentence, a table row's first field); ``None`` when no passage holds one."""
    from nli_faith.text.lexical import content_words

    stated = [q for q in extract_quantities(text) if q.kind == "quantity"]
    found = [q for q in stated if holds(q)]
    quantities = [q for q in stated if q.dimension in dimensions]
    if not found:
        return None
    spans = segments(text)
    has_quantity = [any(s <= q.start < e for q in quantities) for s, e in spans]
    words: set[str] = set()
    for k, (s, e) in enumerate(spans):
        if not any(s <= q.start < e for q in found):
            continue
        words |= content_words(text[s:e])
        back = k - 1
        while back >= 0 and not has_quantity[back]:  # the heading or subject above it
            words |= content_words(text[spans[back][0] : spans[back][1]])
            back -= 1
    return frozenset(key & words)


def misattributed(claims: Sequence[str], chunks: Sequence[str], mismatch: np.ndarray) -> np.ndarray:
    """``mask[i, j]`` is True when the key words around claim ``i``'s values in chunk ``j``
    are a strict subset of those around another value in a chunk stating one of its
    quantities differently (``mismatch[i, k] > 0``, from
    :func:`~nli_faith.rules.numbers.quantity_mismatch`): such a chunk must not support it.
    """
    out = np.zeros((len(claims), len(chunks)), dtype=bool)
    mismatch = np.asarray(mismatch)
    if not mismatch.size:
        return out
    for i in np.flatnonzero((mismatch > 0).any(axis=1)):
        qs = _claim_quantities(claims[i])
        key = key_words(claims[i], qs)
        if not qs or not key:
            continue

        def other_value(c: Quantity, qs: list[Quantity] = qs) -> bool:
            return any(c.dimension == q.dimension for q in qs) and not any(
                equivalent(q, c) for q in qs
            )

        def same_value(c: Quantity, qs: list[Quantity] = qs) -> bool:
            return any(equivalent(q, c) for q in qs)

        dims = {q.dimension for q in qs}
        rivals = [
            _context_words(key, chunks[k], other_value, dims)
            for k in np.flatnonzero(mismatch[i] > 0)
        ]
        rivals = [r for r in rivals if r]
        if not rivals:
            continue
        for j in np.flatnonzero(mismatch[i] <= 0):
            have = _context_words(key, chunks[j], same_value, dims)
            if have is not None and any(have < r for r in rivals):
                out[i, j] = True
    return out
