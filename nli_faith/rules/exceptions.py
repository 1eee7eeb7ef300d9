"""An exception overrides the rule: a more specific statement decides over a general one.

"Items may be returned within 30 days." supports "Electronics can be returned within
30 days." to an NLI model; "Exceptions: Electronics have a 14-day return window."
says otherwise, and it is the statement about electronics. For a claim the model
supports by chunk ``J``, a chunk ``K`` *overrides* ``J`` when:

* the claim names its subject with words ``J`` lacks and ``K`` holds (``subject``:
  "electronics", "premium members", "the 2024 model"); numbers that name (years, IDs)
  count as words, amounts do not;
* ``K`` holds at least two thirds of the claim's other content words outside its
  amounts (it speaks of the same thing: "returned" / "return"), so a statement about shipping
  electronics does not override a rule about returning them;
* and ``K`` says otherwise: it states an amount of the same kind as the claim's
  (days, dollars, a count) and none equal to it (a bound that differs in value is
  not support), or it negates ("not", "no", "never", "cannot", "excluded").

The claim is then ``no``, with ``K`` as its evidence. A ``K`` that agrees (the same
amount) leaves the verdict alone.

A window is no support for another window either (:func:`differing_bound`): "can be
returned within 30 days" is not what "a 14-day return window" says, though 14 is
within 30.

Example:
    >>> chunks = ["Items may be returned within 30 days.",
    ...           "Exceptions: Electronics have a 14-day return window."]
    >>> judge_exception("Electronics can be returned within 30 days.", chunks, 0).verdict
    'no'
    >>> judge_exception("Books can be returned within 30 days.", chunks, 0) is None
    True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from nli_faith.text.equivalence import equivalent
from nli_faith.text.lexical import content_words
from nli_faith.text.quantities import Quantity, extract_quantities

__all__ = ["ExceptionJudgement", "differing_bound", "judge_exception"]

_NEGATION_RE = re.compile(
    r"\b(?:not|no|never|cannot|can't|won't|isn't|aren't|excluded|exempt|ineligible|"
    r"non-refundable|nonrefundable|except)\b",
    re.I,
)
_SUFFIX_RE = re.compile(r"(?:ing|ed|es|s)$")


@dataclass(frozen=True)
class ExceptionJudgement:
    verdict: str  # "no"
    chunk: int
    note: str


@lru_cache(maxsize=16384)
def _stem(word: str) -> str:
    return _SUFFIX_RE.sub("", word) if len(word) > 4 else word


def _has(word: str, words: frozenset[str]) -> bool:
    """Does ``words`` hold ``word``: the same stem, or, both stems of 4 letters or more,
    one the start of the other ("refund" / "refundable")?"""
    w = _stem(word)
    stems, long_stems, starts = _stem_index(words)
    if w in stems:
        return True
    if len(w) < 4:
        return False
    return w in starts or any(w[:n] in long_stems for n in range(4, len(w) + 1))


@lru_cache(maxsize=4096)
def _stem_index(
    words: frozenset[str],
) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The stems of ``words``, those of 4 letters or more, and every start of 4 letters
    or more of those: what :func:`_has` looks a word up in (a text's words are asked
    about by every claim)."""
    stems = frozenset(_stem(h) for h in words)
    long_stems = frozenset(s for s in stems if len(s) >= 4)
    starts = frozenset(s[:n] for s in long_stems for n in range(4, len(s) + 1))
    return stems, long_stems, starts


def _amounts(qs: Sequence[Quantity]) -> list[Quantity]:
    return [q for q in qs if q.kind == "quantity" and q.dimension]


def _words_outside_amounts(text: str) -> frozenset[str]:
    pieces, pos = [], 0
    for q in extract_quantities(text, include_one=False):
        if q.kind == "quantity":
            pieces.append(text[pos : q.start])
            pos = q.end
    pieces.append(text[pos:])
    return content_words(" ".join(pieces))


def _negates(text: str, rest: frozenset[str]) -> bool:
    """Whether a negation in ``text`` bears on the claim's predicate: one of the claim's
    words outside its subject and its names follows it within a few words ("cannot be
    returned", "not entitled to paid leave"); "no plans to replace Luis Enrique" does not
    negate "the club is happy with Luis Enrique"."""
    for m in _NEGATION_RE.finditer(text):
        if m.group(0).lower() == "no" and re.match(r"\.?\s?\d", text[m.end() :]):
            continue  # "World No 1", "No. 5": a rank, not a negation
        if m.group(0).lower() in (
            "excluded",
            "exempt",
            "ineligible",
            "non-refundable",
            "nonrefundable",
        ):
            return True
        after = content_words(" ".join(text[m.end() :].split()[:_NEGATION_REACH]))
        if any(_has(w, after) for w in rest):
            return True
    return False


#: How many words after a negation may name what it negates.
_NEGATION_REACH = 3


def _predicate_words(claim: str, rest: frozenset[str]) -> frozenset[str]:
    """``rest`` without the words the claim writes capitalised (names)."""
    names = {w.lower() for w in re.findall(r"\b[A-Z][\w'-]*", claim[1:])}
    return frozenset(w for w in rest if w not in names)


def _same(q: Quantity, c: Quantity) -> bool:
    """The same amount; an upper bound ("within 30 days", "up to $500") must be the same
    bound. A hedge ("about 30 days", "nearly 40%") allows its tolerance, and a lower bound
    ("more than 100 bodies") holds an exact amount above it ("116 bodies"), not another
    bound ("orders over $75")."""
    if q.hedge in ("approx", "below") or (q.hedge in ("min", "above") and not c.hedge):
        return equivalent(q, c)
    return abs(q.base - c.base) <= 1e-6 * max(abs(q.base), 1.0)


def judge_exception(
    claim: str, chunks: Sequence[str], support: int | str
) -> ExceptionJudgement | None:
    """Does a chunk more specific than the supporting one (``chunks[support]``, or the
    text ``support``) decide against ``claim``? The answer's ``chunk`` indexes ``chunks``."""
    words = _words_outside_amounts(claim)
    general = content_words(chunks[support] if isinstance(support, int) else support)
    subject = frozenset(w for w in words if not _has(w, general))
    rest = words - subject
    if not subject or not rest or not any(_has(w, general) for w in rest):
        return None
    claimed = _amounts(extract_quantities(claim, include_one=False))
    for k, text in enumerate(chunks):
        if k == support or text == support:
            continue
        have = content_words(text)
        if not all(_has(w, have) for w in subject):
            continue
        if 3 * sum(_has(w, have) for w in rest) < 2 * len(rest):
            continue
        stated = _amounts(extract_quantities(text))
        differing = [
            q
            for q in claimed
            if any(c.dimension == q.dimension for c in stated)
            and not any(_same(q, c) for c in stated if c.dimension == q.dimension)
        ]
        named = ", ".join(sorted(subject))
        if differing:
            q = differing[0]
            other = next(c for c in stated if c.dimension == q.dimension)
            return ExceptionJudgement(
                "no",
                k,
                f'a statement about "{named}" in particular gives '
                f'"{text[other.start : other.end]}", not "{claim[q.start : q.end]}"; '
                "the specific statement decides over the general one",
            )
        if _negates(text, _predicate_words(claim, rest)) and not _NEGATION_RE.search(claim):
            return ExceptionJudgement(
                "no",
                k,
                f'a statement about "{named}" in particular negates it; the specific '
                "statement decides over the general one",
            )
    return None


def differing_bound(claim: str, support: str) -> str | None:
    """Why ``support`` does not support ``claim``'s time window ("within 30 days"), when
    it states only windows of another length; else None."""
    for q in _amounts(extract_quantities(claim, include_one=False)):
        if q.hedge != "max" or q.dimension != "time":
            continue
        stated = [c for c in _amounts(extract_quantities(support)) if c.dimension == "time"]
        if stated and not any(_same(q, c) for c in stated):
            c = stated[0]
            return (
                f'the supporting statement gives "{support[c.start : c.end]}", not '
                f'"{claim[q.start : q.end]}": a bound that differs in value is not support'
            )
    return None
