"""Which passage a value belongs to: a claim's number found next to something else.

A small NLI model reads "Tier Gold: lounge visits 4." as support for "The Silver tier
includes 4 lounge visits.", and "Standard delivery takes 3 to 5 days" as support for
"Orders ship within 5 business days." The number is in the chunk, so the number check
passes; but it belongs to another row, year or line. What gives it away is the rest of
the context: a passage about the claim's own subject states the same quantity with
another value ("Tier Silver, lounge visits: 2.", "Orders ship within 2 business days",
found by :func:`nli_faith.text.numerals.quantity_mismatch`).

The rule, for a claim some chunk contradicts that way: a chunk may support the claim
only if the passages holding the claim's values in it (segments between line breaks,
semicolons and full stops: a line, a table row's field, a sentence) speak of the claim's
subject at least as much as the passages that state the other value. "Speak of" is the
share of the claim's *key words* they contain: its content words outside its quantities,
plus the years it names ("revenue in 2023"). A chunk that loses is not allowed to
support the claim; the mismatch then makes it ``no``.

Example:
    >>> claim = "Orders ship within 5 business days."
    >>> chunks = ["Orders ship within 2 business days", "Standard delivery takes 3 to 5 days"]
    >>> from nli_faith.text.numerals import quantity_mismatch
    >>> misattributed([claim], chunks, quantity_mismatch([claim], chunks)).tolist()
    [[False, True]]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from nli_faith.text.numerals import Quantity, equivalent, extract_quantities

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


def key_words(claim: str, quantities: Sequence[Quantity] | None = None) -> frozenset[str]:
    """The claim's content words outside its quantities, and the years it names.

    Example:
        >>> sorted(key_words("Apple's revenue was 394.3 billion dollars in 2023."))
        ['2023', 'apple', 'revenue']
    """
    from nli_faith.text.lexical import content_words

    qs = _claim_quantities(claim) if quantities is None else quantities
    pieces, pos = [], 0
    for q in sorted(qs, key=lambda q: q.start):
        pieces.append(claim[pos : q.start])
        pos = q.end
    pieces.append(claim[pos:])
    words = {w for w in content_words(" ".join(pieces)) if not any(ch.isdigit() for ch in w)}
    years = {q.number for q in extract_quantities(claim) if q.kind == "year" and q.number}
    return frozenset(words | (years & content_words(claim)))


def _share(key: frozenset[str], text: str, holds: Callable[[Quantity], bool]) -> float | None:
    """Share of ``key`` in the passages of ``text`` holding a quantity ``holds`` picks
    (``None`` when no passage holds one)."""
    from nli_faith.text.lexical import content_words

    found = [q for q in extract_quantities(text) if q.kind == "quantity" and holds(q)]
    if not found:
        return None
    words: set[str] = set()
    for s, e in segments(text):
        if any(s <= q.start < e for q in found):
            words |= content_words(text[s:e])
    return len(key & words) / len(key)


def misattributed(claims: Sequence[str], chunks: Sequence[str], mismatch: np.ndarray) -> np.ndarray:
    """``mask[i, j]`` is True when chunk ``j`` holds claim ``i``'s values only in passages
    that share fewer of the claim's key words than the passages of a chunk stating one of
    its quantities with another value (``mismatch[i, k] > 0``, from
    :func:`~nli_faith.text.numerals.quantity_mismatch`): such a chunk must not support it.
    """
    out = np.zeros((len(claims), len(chunks)), dtype=bool)
    mismatch = np.asarray(mismatch)
    for i in np.flatnonzero((mismatch > 0).any(axis=1)) if mismatch.size else []:
        qs = _claim_quantities(claims[i])
        key = key_words(claims[i], qs)
        if not qs or not key:
            continue

        def other_value(c: Quantity, qs: list[Quantity] = qs) -> bool:
            return any(c.dimension == q.dimension and not equivalent(q, c) for q in qs)

        def same_value(c: Quantity, qs: list[Quantity] = qs) -> bool:
            return any(equivalent(q, c) for q in qs)

        rival = max(
            (_share(key, chunks[k], other_value) or 0.0) for k in np.flatnonzero(mismatch[i] > 0)
        )
        for j in np.flatnonzero(mismatch[i] <= 0):
            share = _share(key, chunks[j], same_value)
            if share is not None and share < rival:
                out[i, j] = True
    return out
