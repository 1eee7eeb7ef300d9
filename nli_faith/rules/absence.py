"""Absence claims ("X is not mentioned"): is any part of the context about X?

A chunk is *about* X when it holds every content word of X (a word matches a chunk
word with the same stem, or one that starts with it: "watching" / "watch", "prices" /
"pricing"); a few words name a kind of value rather than a word ("price", "cost",
"fee" match any amount of money, "year" and "date" any year). The claim is:

* ``yes`` when no chunk holds even half of X's content words;
* ``no`` when one chunk holds all of them (that chunk is the evidence);
* ``idk`` in between: some words of X appear, not all in one place.

Example:
    >>> judge_absence("Watching stories", ["Factors include diet and sleep."]).verdict
    'yes'
    >>> judge_absence("prices", ["A ticket costs $15."]).verdict
    'no'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from nli_faith.text.context_statements import GENERIC_WORDS
from nli_faith.text.lexical import content_words
from nli_faith.text.quantities import extract_quantities

__all__ = ["AbsenceJudgement", "judge_absence"]

#: Words that stand for a kind of value: (word stems, test on a chunk's quantities).
_VALUE_WORDS = {
    "money": (("price", "cost", "fee", "fare", "charge", "pricing", "amount"), "currency"),
    "year": (("year", "date"), "year"),
}
_SUFFIX_RE = re.compile(r"(?:ing|ed|es|s|er|ly)$")


@dataclass(frozen=True)
class AbsenceJudgement:
    verdict: str  # "yes", "no" or "idk"
    chunk: int  # the chunk about X (for "no"), else -1
    note: str


def _stem(word: str) -> str:
    return _SUFFIX_RE.sub("", word) if len(word) > 4 else word


def _matches(word: str, have: frozenset[str]) -> bool:
    w = _stem(word)
    return any(h == word or _stem(h) == w or (len(w) >= 4 and h.startswith(w)) for h in have)


def _value_kind(word: str) -> str | None:
    for stems, kind in _VALUE_WORDS.values():
        if any(word.startswith(s) for s in stems):
            return kind
    return None


def _holds(word: str, text: str, have: frozenset[str]) -> bool:
    if _matches(word, have):
        return True
    kind = _value_kind(word)
    if kind is None:
        return False
    qs = extract_quantities(text)
    if kind == "currency":
        return any(q.dimension.startswith("currency") for q in qs)
    return any(q.kind == "year" for q in qs)


def judge_absence(about: str, chunks: Sequence[str]) -> AbsenceJudgement:
    """Judge "``about`` is not in the context" against the context's ``chunks``."""
    words = sorted(w for w in content_words(about) if w not in GENERIC_WORDS)
    if not words:
        return AbsenceJudgement("idk", -1, f'nothing in "{about}" to look for')
    best, best_j, best_found = 0, -1, []
    for j, text in enumerate(chunks):
        have = content_words(text)
        found = [w for w in words if _holds(w, text, have)]
        if len(found) > best:
            best, best_j, best_found = len(found), j, found
    if best == len(words):
        return AbsenceJudgement(
            "no", best_j, f'the context does mention "{about}" (it holds {", ".join(words)})'
        )
    if best * 2 >= len(words) and best:
        return AbsenceJudgement(
            "idk",
            best_j,
            f'part of "{about}" appears in the context ({", ".join(best_found)}), not all of it',
        )
    return AbsenceJudgement("yes", -1, f'no part of the context is about "{about}"')
