"""Counts over what the context enumerates: "the three trials" against two described.

A claim that counts things ("three trials", "both studies", "all four hospitals") goes
beyond the context when the context enumerates another number of them without ever
stating a count. The things the context enumerates, for the claim's counted noun:

* ordinals: "the first trial", "the second trial" (the highest ordinal is the count);
* labels: "Trial A", "Study 2", "Phase II" (distinct labels);
* names: "the Oslo, Bergen and Tromso hospitals", "the Lisbon branch" (distinct names).

When the context states a count of that noun itself ("Three trials were run."), this
rule says nothing: the number check compares the two. Otherwise a claim whose count
differs from the enumerated one (two or more) is ``no``; one whose count is the
enumerated one, with every other content word of the claim in the one chunk that
enumerates them all ("Patients were recruited at three hospitals." against "... at the
Oslo, Bergen and Tromso hospitals."), is ``yes``. A number that names ("Trial
3", "the 2021 trials") is no count.

Example:
    >>> ctx = ["The first trial found a 10% drop.", "The second trial found a 7% drop."]
    >>> judge_count("The three trials all showed a drop.", ctx).verdict
    'no'
    >>> judge_count("Trial 3 showed a drop.", ctx) is None
    True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from nli_faith.text.lexical import content_words
from nli_faith.text.quantities import extract_quantities

__all__ = ["CountJudgement", "judge_count"]

_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4, "5th": 5,
    "6th": 6,
}  # fmt: skip
_BOTH_RE = re.compile(r"\bboth\s+(?:of\s+the\s+)?(?:\w+\s+)?(?P<noun>[a-z]+s)\b", re.I)
_NAME = r"[A-Z][\w\u00c0-\u024f-]+"


@dataclass(frozen=True)
class CountJudgement:
    verdict: str  # "yes" or "no"
    chunk: int
    note: str


def _singular(noun: str) -> str:
    noun = noun.lower()
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    if noun.endswith(("ches", "shes", "sses", "xes")):
        return noun[:-2]
    return noun[:-1] if noun.endswith("s") and not noun.endswith("ss") else noun


_WORD_RE = re.compile(r"\s*(?:[a-z-]+\s+)??([a-z]+s)\b", re.I)


def _noun_after(text: str, end: int) -> str:
    """The counted noun after a number: "three trials" -> "trial"."""
    m = _WORD_RE.match(text, end)
    return _singular(m.group(1)) if m else ""


def _claimed_counts(claim: str) -> list[tuple[int, str]]:
    """``(count, singular noun)`` for each counted noun of the claim."""
    out = []
    for q in extract_quantities(claim, include_one=False):
        if q.kind == "quantity" and q.dimension.startswith("count:") and not q.hedge:
            if float(q.value).is_integer() and 2 <= q.value <= 20:
                out.append((int(q.value), _noun_after(claim, q.end)))
    out.extend((2, _singular(m.group("noun"))) for m in _BOTH_RE.finditer(claim))
    return out


def _enumerated(noun: str, text: str, *, implied: bool = True) -> set[str]:
    """The instances of ``noun`` that ``text`` names, by ordinal, label or name; with
    ``implied``, "the second trial" also stands for a first one."""
    n = re.escape(noun)
    plural = rf"{n}(?:s|es)?"
    found: set[str] = set()
    for m in re.finditer(rf"\b(?P<o>{'|'.join(_ORDINALS)})\s+(?:\w+\s+)?{plural}\b", text, re.I):
        k = _ORDINALS[m.group("o").lower()]
        found |= {f"#{i}" for i in range(1 if implied else k, k + 1)}
    for m in re.finditer(rf"(?i:\b{n})\s+(?P<l>[A-Z]|\d{{1,2}}|[IVX]{{1,4}})\b", text):
        found.add(f"label {m.group('l')}")
    listed = rf"(?P<names>{_NAME}(?:,\s*{_NAME})*,?\s+and\s+(?:the\s+)?{_NAME})\s+{plural}\b"
    for m in re.finditer(listed, text):
        found |= {f"name {x}" for x in re.split(r",\s*|\s+and\s+(?:the\s+)?", m.group("names"))}
    for m in re.finditer(rf"\b(?i:the)\s+(?P<name>{_NAME})\s+{n}\b", text):
        found.add(f"name {m.group('name')}")
    return {f for f in found if f.strip()}


def _words_outside_counts(claim: str) -> frozenset[str]:
    pieces, pos = [], 0
    for q in extract_quantities(claim, include_one=False):
        if q.kind == "quantity":
            pieces.append(claim[pos : q.start])
            pos = q.end
    pieces.append(claim[pos:])
    return frozenset(_singular(w) for w in content_words(" ".join(pieces)))


def _stated_count(noun: str, texts: Sequence[str]) -> bool:
    return any(
        q.kind == "quantity" and _noun_after(t, q.end) == noun
        for t in texts
        for q in extract_quantities(t)
        if q.dimension.startswith("count:")
    )


def judge_count(claim: str, chunks: Sequence[str]) -> CountJudgement | None:
    """``no`` when the claim counts what the context enumerates otherwise, ``yes`` when
    one statement enumerates as many and says the rest; else None."""
    counts = [(n, noun) for n, noun in _claimed_counts(claim) if noun]
    if not counts:
        return None
    for n, noun in counts:
        if _stated_count(noun, chunks):
            continue  # the context counts them itself: the number check decides
        seen: set[str] = set()
        where = -1
        for j, text in enumerate(chunks):
            mine = _enumerated(noun, text)
            if mine - seen:
                where = j if where < 0 or len(mine) > len(seen) else where
            seen |= mine
        whole = [
            j for j, t in enumerate(chunks) if len(_enumerated(noun, t, implied=False)) == len(seen)
        ]
        if len(seen) == n >= 2 and whole:
            j = whole[0]
            words = _words_outside_counts(claim) - {noun}
            have = content_words(chunks[j])
            if words and all(w in have or _singular(w) in have for w in words):
                return CountJudgement(
                    "yes", j, f"the context names {n} {noun}(s), as claimed, in one statement"
                )
        if len(seen) >= 2 and len(seen) != n:
            return CountJudgement(
                "no",
                where,
                f"the context describes {len(seen)} {noun}(s), not {n}: an aggregate beyond "
                "the context",
            )
    return None
