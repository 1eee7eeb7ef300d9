"""Content-word overlap between claims and chunks: a pure function over texts.

A chunk can contradict a claim only if it talks about the same thing. NLI
models, small ones above all, give high contradiction probabilities to
premises that merely sit beside the claim (a table-of-contents heading, an
unrelated sentence); requiring a share of the claim's content words to
appear in the chunk keeps such pairs from turning ``idk`` into ``no``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

_WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)
_POSSESSIVE_RE = re.compile(r"(?<=\w)['\u2019]s\b")


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


@lru_cache(maxsize=16384)
def _stem(word: str) -> str:
    """A crude plural stem: "employees" -> "employee", "policies" -> "policy"."""
    if len(word) <= 3:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@lru_cache(maxsize=16384)
def content_words(text: str) -> frozenset[str]:
    """Lower-cased, stemmed words of ``text`` that are not stop words.

    Cached: the pre-filter, early exit and the contradiction gate all ask for the same
    chunks' words within one request.

    Example:
        >>> sorted(content_words("The sessions expire after 15 minutes."))
        ['15', 'expire', 'minute', 'session']
    """
    stop = _stop_words()
    text = _POSSESSIVE_RE.sub("", text.lower())  # "Apple's" -> "apple" (not "apple", "s")
    return frozenset(_stem(w) for w in _WORD_RE.findall(text) if w not in stop)


def overlap_mask(claims: Sequence[str], chunks: Sequence[str], *, min_share: float) -> np.ndarray:
    """``mask[i, j]`` is True when chunk ``j`` holds at least ``min_share`` of claim ``i``'s
    content words (a claim with no content words is matched by every chunk)."""
    mask = np.ones((len(claims), len(chunks)), dtype=bool)
    if min_share <= 0:
        return mask
    chunk_words = [content_words(c) for c in chunks]
    for i, claim in enumerate(claims):
        words = content_words(claim)
        if words:
            need = min_share * len(words)
            mask[i] = [len(words & have) >= need for have in chunk_words]
    return mask
