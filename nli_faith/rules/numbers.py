"""The number rules: a chunk that lacks a claim's quantity cannot support it, and a chunk
that states the same quantity with another value, about the same thing, contradicts it.

Quantities are read and compared by :mod:`nli_faith.text.quantities` and
:mod:`nli_faith.text.equivalence`; these masks over claims x chunks feed the verdicts.
"""

from __future__ import annotations

import re

import numpy as np

from nli_faith.text.equivalence import _differs, _supported
from nli_faith.text.quantities import Quantity, extract_quantities

#: A chunk can contradict a claim by a differing quantity only if it holds at least this
#: share of the claim's other content words (words that are not numbers or units).
MISMATCH_MIN_SHARE = 0.5


def number_support_mask(claims: list[str], chunks: list[str]) -> np.ndarray:
    """``mask[i, j]`` is True unless claim ``i`` states a quantity that chunk ``j`` does not
    state in an equivalent form (see :func:`~nli_faith.text.equivalence.equivalent`).

    A chunk that never mentions "36" cannot support "thirty-six months", however close
    its wording; "72 hours" supports "three days".

    Example:
        >>> number_support_mask(["It ships within three days."],
        ...                       ["It ships within 72 hours.", "It ships in 5 days."]).tolist()
        [[True, False]]
    """
    mask = np.ones((len(claims), len(chunks)), dtype=bool)
    claim_q = [extract_quantities(c, include_one=False) for c in claims]
    if not any(claim_q):
        return mask
    chunk_q = [extract_quantities(c) for c in chunks]
    chunk_n = [frozenset(q.number for q in qs if q.number) for qs in chunk_q]
    for i, qs in enumerate(claim_q):
        if qs:
            mask[i] = [all(_supported(q, have, n) for q in qs) for have, n in zip(chunk_q, chunk_n)]
    return mask


def quantity_mismatch_mask(claims: list[str], chunks: list[str]) -> np.ndarray:
    """``mask[i, j]`` is True when chunk ``j`` states one of claim ``i``'s quantities with a
    different value: same unit (or the same counted noun), none of the chunk's values of
    that unit equivalent, and at least :data:`MISMATCH_MIN_SHARE` of the claim's other
    content words in the chunk. Years, names and bare numbers never mismatch.
    (:func:`quantity_mismatch` gives the topic-word share of each such pair instead.)

    Example:
        >>> quantity_mismatch_mask(["The device is covered for thirty-six months."],
        ...                        ["The device is covered for twenty-four months.",
        ...                         "The battery lasts twenty-four months."]).tolist()
        [[True, False]]
    """
    return quantity_mismatch(claims, chunks) > 0


def quantity_mismatch(claims: list[str], chunks: list[str]) -> np.ndarray:
    """:func:`quantity_mismatch_mask` as scores: the share of the claim's other content
    words found in the chunk where the mask is True (1.0 for a claim with no other
    content word), 0 elsewhere; the best-matching contradicting chunk is the evidence."""
    from nli_faith.text.lexical import content_words

    mask = np.zeros((len(claims), len(chunks)), dtype=np.float32)
    claim_q = [
        [
            q
            for q in extract_quantities(c, include_one=False)
            if q.kind == "quantity" and q.dimension
        ]
        for c in claims
    ]
    if not any(claim_q):
        return mask
    from nli_faith.text.align import align_premise

    chunk_q = [extract_quantities(c) for c in chunks]
    chunk_words = [content_words(c) for c in chunks]
    abbreviated = [_ABBREVIATION_RE.search(c) is not None for c in chunks]
    for i, qs in enumerate(claim_q):
        if not qs:
            continue
        words = _topic_words(claims[i], qs, content_words)
        for j, have in enumerate(chunk_q):
            said = chunk_words[j]
            if words and abbreviated[j] and not words <= said:  # "MSFT ROE" is "Microsoft's
                said = content_words(align_premise(chunks[j], claims[i]))  # return on equity"
            share = _measure_share(words, said)
            if share >= MISMATCH_MIN_SHARE and any(_differs(q, have) for q in qs):
                mask[i, j] = max(share, 1e-3)
    return mask


def _measure_share(words: frozenset[str], said: frozenset[str]) -> float:
    """Share of the claim's topic words the chunk names, itself or by a word naming the
    same measured thing (:data:`~nli_faith.text.glossary.MEASURES`: "warranty" is named
    by "covered"), so quantities are matched by what they measure."""
    if not words:
        return 1.0
    from nli_faith.text.glossary import measure_of

    return sum(1 for w in words if w in said or measure_of(w) & said) / len(words)


_ABBREVIATION_RE = re.compile(r"\b[A-Z][A-Za-z&/.]*[A-Z]\b")


def _topic_words(text: str, qs: list[Quantity], content_words) -> frozenset[str]:
    """The claim's content words outside its quantities."""
    pieces, pos = [], 0
    for q in qs:
        pieces.append(text[pos : q.start])
        pos = q.end
    pieces.append(text[pos:])
    rest = content_words(" ".join(pieces))
    return frozenset(w for w in rest if not any(ch.isdigit() for ch in w))
