"""A contradiction shows its conflict: what in the claim differs from its evidence.

A small NLI model gives high contradiction probabilities to faithful paraphrases
("Delivery costs nothing for purchases above $50." against "We provide complimentary
delivery on purchases over $50.": 0.99) and to near-verbatim copies. A claim is
contradicted when something in it differs from what the evidence says about the same
thing; :func:`find_conflict` looks for such an *aligned conflict* between a claim and its
contradicting evidence:

* **number**: a quantity stated with another value for the same measure
  (:func:`nli_faith.rules.numbers.quantity_mismatch`, which matches quantities by what
  they measure), or a number of the claim the evidence lacks where the evidence states
  another of the same kind (a year against another year, a bare number against another);
* **date**: a month or weekday of the claim the evidence lacks, where it names another;
* **negation**: one side negated ("not", "never", "no longer", "n't") and the other not;
* **antonym**: a word of the claim whose opposite the evidence uses instead
  ("increased" / "decreased", "before" / "after"; :data:`ANTONYMS`);
* **entity**: a name of the claim the evidence lacks, where the evidence names another
  in its place (right after or right before the same word, or both opening the sentence).

:func:`conflict_note` is what the scorer adds to each model contradiction
(``ClaimVerdict.decision_note``): the conflict, or that none shows. It does not change the
verdict: measured on the development answers (``python -m benchmarks run rag_dev``),
setting aside the contradictions that show no conflict removed as many right ``no``
verdicts as wrong ones.

Example:
    >>> find_conflict("The warranty lasts thirty-six months.",
    ...               "The device is covered for a period of twenty-four months.")
    "number: 'thirty-six months' against 'twenty-four months'"
    >>> find_conflict("Delivery costs nothing for purchases above $50.",
    ...               "We provide complimentary delivery on purchases over $50.") is None
    True
    >>> find_conflict("Sales increased in 2020.", "Sales decreased in 2020.")
    "antonym: 'increased' against 'decreased'"
"""

from __future__ import annotations

import re
from functools import lru_cache

from nli_faith.rules.numbers import quantity_mismatch
from nli_faith.text.equivalence import _differs
from nli_faith.text.lexical import content_words
from nli_faith.text.quantities import extract_quantities

__all__ = ["ANTONYMS", "UNEXPLAINED", "conflict_note", "coverage", "find_conflict"]

#: How the note of a contradiction that shows no conflict begins.
UNEXPLAINED = "contradiction without a conflict"


#: Word pairs of opposite meaning (each word as it is written; both orders checked).
ANTONYMS: tuple[tuple[str, str], ...] = tuple(
    tuple(p.split("/"))  # type: ignore[misc]
    for p in (
        "increase/decrease increased/decreased increases/decreases increasing/decreasing "
        "rise/fall rose/fell rises/falls rising/falling risen/fallen grew/shrank grow/shrink "
        "higher/lower highest/lowest high/low more/less most/least larger/smaller "
        "largest/smallest large/small bigger/smaller biggest/smallest longer/shorter "
        "longest/shortest long/short older/younger oldest/youngest before/after "
        "earlier/later earliest/latest early/late first/last above/below over/under "
        "maximum/minimum max/min gain/loss gained/lost profit/loss win/lose won/lost "
        "wins/loses victory/defeat include/exclude includes/excludes included/excluded "
        "including/excluding allow/prohibit allowed/prohibited allows/prohibits "
        "permitted/forbidden accept/reject accepted/rejected accepts/rejects "
        "approve/reject approved/rejected buy/sell bought/sold buys/sells open/closed "
        "opened/closed start/end started/ended begin/end began/ended import/export "
        "imports/exports imported/exported positive/negative true/false male/female "
        "men/women man/woman north/south east/west northern/southern eastern/western "
        "inside/outside internal/external domestic/foreign public/private "
        "success/failure successful/unsuccessful succeeded/failed possible/impossible "
        "legal/illegal always/never all/none same/different strong/weak stronger/weaker "
        "rich/poor cheap/expensive cheaper/pricier hot/cold warm/cool wet/dry light/heavy "
        "lighter/heavier fast/slow faster/slower quickly/slowly easy/difficult "
        "easier/harder safe/dangerous safer/riskier born/died birth/death alive/dead "
        "up/down upper/lower left/right entrance/exit arrive/depart arrived/departed "
        "full/empty present/absent mandatory/optional required/optional "
        "increase/cut raised/lowered raise/lower add/remove added/removed "
        "support/oppose supported/opposed supports/opposes agree/disagree "
        "agreed/disagreed".split()
    )
)
_OPPOSITE: dict[str, frozenset[str]] = {}
for _a, _b in ANTONYMS:
    _OPPOSITE[_a] = _OPPOSITE.get(_a, frozenset()) | {_b}
    _OPPOSITE[_b] = _OPPOSITE.get(_b, frozenset()) | {_a}

_WORD_RE = re.compile(r"[A-Za-z]+(?:['’][a-z]+)?")
_NEGATION_RE = re.compile(
    r"\b(?:not|never|no longer|neither|nor|cannot)\b|n['’]t\b|\bno\s+(?!one\b)(?=\w)",
    re.IGNORECASE,
)
#: "no" in these means "free" or "none", not a negated statement: "no charge", "no cost".
_NO_AS_FREE_RE = re.compile(
    r"\b(?:no|without)\s+(?:extra\s+|additional\s+)?(?:charge|cost|fee|fees|charges)\b",
    re.IGNORECASE,
)
_MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)
_DATE_WORDS = _MONTHS - {"may"}  # "may" is mostly the verb
#: "May" capitalised after a word of the sentence is the month (or a name): a date here
_MAY_RE = re.compile(r"(?<=[A-Za-z0-9,]\s)May\b")
_NAME_RE = re.compile(r"\b[A-Z][\w&'’-]*(?:\s+[A-Z][\w&'’-]*)*")
#: A possessive ending a word: "Siemens'", "ABC's"
_POSSESSIVE_RE = re.compile(r"['’]s?$")
_NOT_NAMES = frozenset(
    "I The A An This That These Those It Its He She They We You Our Their His Her "
    "In On At For From By With As If When While After Before During Since Until "
    "Passage Document Source Context Article Text Answer Question".split()
)


def _dates(text: str, words: set[str]) -> set[str]:
    """The months and weekdays of ``text`` (``words``: its words, lower-cased)."""
    return (words & _DATE_WORDS) | ({"may"} if _MAY_RE.search(text) else set())


def _negated(text: str) -> bool:
    """Is ``text`` a negated statement (an odd count of negations, "no charge" aside)?"""
    text = _NO_AS_FREE_RE.sub(" ", text)
    return len(_NEGATION_RE.findall(text)) % 2 == 1


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD_RE.findall(text)}


_SENTENCE_START_RE = re.compile(r"(?:^|[.!?:;•\n\d)\]\"“])\s*$")


def _name_spans(text: str) -> list[tuple[str, int, int]]:
    """Capitalised names of ``text``, lower-cased, without possessives, with where they
    stand; a capitalised stop word ("The", "In"), a month or weekday (the date check's,
    "May" included) or a word such as "Passage" is no name."""
    from nli_faith.text.lexical import _stop_words

    stop = _stop_words()
    out = []
    for m in _NAME_RE.finditer(text):
        raw = m.group(0).split()
        initial = m.start() == 0 or _SENTENCE_START_RE.search(text[: m.start()]) is not None
        if initial and len(raw) == 1 and not _POSSESSIVE_RE.search(raw[0]):
            continue  # "Check the router", "Finally, ...": a capital that starts a sentence
        words = [_POSSESSIVE_RE.sub("", w) for w in raw]
        words = [w for w in words if w and w not in _NOT_NAMES and w.lower() not in stop
                 and w.lower() not in _MONTHS]  # fmt: skip
        if words:
            out.append((" ".join(words).lower(), m.start(), m.end()))
    return out


def _neighbours(text: str, spans: list[tuple[str, int, int]], name: str) -> set[str]:
    """The words right before and right after each place ``name`` stands in ``text``
    (``^`` where it opens the text: the subject of a one-sentence claim and of its
    aligned evidence sentence)."""
    out = set()
    for n, start, end in spans:
        if n != name:
            continue
        before = _WORD_RE.findall(text[:start])[-1:] or ["^"]
        after = _WORD_RE.findall(text[end:])[:1]
        out.update(_POSSESSIVE_RE.sub("", w.lower()) for w in before + after)
    return out


def _plain(text: str) -> str:
    """``text`` lower-cased without possessives, to look a name up in."""
    return re.sub(r"['’]s?(?!\w)", "", text.lower())


def _entity_conflict(claim: str, evidence: str) -> str | None:
    """A name of the claim the evidence lacks, where the evidence names another in its
    place: right after or right before the same word ("designed by Gustave Eiffel" against
    "designed by John Roebling"), or both opening their sentence."""
    c_spans, e_spans = _name_spans(claim), _name_spans(evidence)
    plain_c, plain_e = _plain(claim), _plain(evidence)
    c_names, e_names = {n for n, _, _ in c_spans}, {n for n, _, _ in e_spans}
    missing = sorted(n for n in c_names - e_names if n not in plain_e)
    other = {n: _neighbours(evidence, e_spans, n)
             for n in sorted(e_names - c_names) if n not in plain_c}  # fmt: skip
    for name in missing:
        around = _neighbours(claim, c_spans, name)
        for rival, its in other.items():
            if around & its and not _same_entity(name, rival):
                return f"entity: {name!r} against {rival!r}"
    return None


def _same_entity(a: str, b: str) -> bool:
    """Is one name a shorter form of the other: each of its words, in order, the start of
    one of the other's ("pam veasey" of "pamela renea veasey")?

    Example:
        >>> _same_entity("kim clijsters", "kim antonie lode clijsters")
        True
        >>> _same_entity("marie curie", "pierre curie")
        False
    """
    short, long_ = sorted((a.split(), b.split()), key=len)
    k = 0
    for word in short:
        while k < len(long_) and not long_[k].startswith(word):
            k += 1
        if k == len(long_):
            return False
        k += 1
    return True


_SENTENCE_END_RE = re.compile(r"(?<=[.!?;•])\s+|\n+|\s+(?=\d{1,2}\.?\s{1,2}[A-Z])")


def aligned_sentence(claim: str, evidence: str) -> str:
    """The sentence of ``evidence`` that holds most of the claim's content words (the
    first of equals): the part a conflict must be found in.

    Example:
        >>> aligned_sentence("Mule deer have a black tail tip.",
        ...                  "Deer are common. Mule deer have a black tip on the tail.")
        'Mule deer have a black tip on the tail.'
    """
    parts = [p for p in _SENTENCE_END_RE.split(evidence) if p and p.strip()]
    if len(parts) <= 1:
        return evidence
    words = content_words(claim)
    return max(parts, key=lambda p: len(words & content_words(p)))


def coverage(claim: str, evidence: str) -> float:
    """Share of the claim's content words that ``evidence`` holds (1.0 for none).

    Example:
        >>> coverage("The sky is blue today.", "Today the sky is grey.")
        0.6666666666666666
    """
    words = content_words(claim)
    return len(words & content_words(evidence)) / len(words) if words else 1.0


@lru_cache(maxsize=8192)
def find_conflict(claim: str, evidence: str) -> str | None:
    """What in ``claim`` differs from ``evidence`` (a short description), or None."""
    if quantity_mismatch([claim], [evidence])[0, 0] > 0:
        have, claimed = extract_quantities(evidence), extract_quantities(claim, include_one=False)
        for q in claimed:
            if q.kind == "quantity" and q.dimension and _differs(q, have):
                said = [c for c in have if c.kind == "quantity" and c.dimension == q.dimension]
                r = next((c for c in said if _differs(c, claimed)), said[0])  # one it lacks
                return f"number: {claim[q.start : q.end]!r} against {evidence[r.start : r.end]!r}"
        return "number: a quantity with another value"
    evidence = aligned_sentence(claim, evidence)  # the other checks: against its closest part
    if (n := _number_conflict(claim, evidence)) is not None:
        return n
    cw, ew = _words(claim), _words(evidence)
    c_dates, e_dates = _dates(claim, cw), _dates(evidence, ew)
    if c_dates - e_dates and e_dates - c_dates:
        return f"date: {sorted(c_dates - e_dates)[0]!r} against {sorted(e_dates - c_dates)[0]!r}"
    if _negated(claim) != _negated(evidence):
        side = "the claim" if _negated(claim) else "the evidence"
        return f"negation: {side} is negated, the other is not"
    for w in sorted(cw - ew):
        if opposite := sorted((_OPPOSITE.get(w, frozenset()) & ew) - cw):
            return f"antonym: {w!r} against {opposite[0]!r}"
    return _entity_conflict(claim, evidence)


def _number_conflict(claim: str, evidence: str) -> str | None:
    """A number (a year, a bare number) of the claim missing from the evidence, which
    states another of the same kind."""
    qs = extract_quantities(claim, include_one=False)
    if not qs:
        return None
    es = extract_quantities(evidence)
    have = {q.number for q in es} | {f"{q.value:g}" for q in es}
    for q in qs:
        if q.number in have or f"{q.value:g}" in have or q.kind in ("id", "clock"):
            continue
        rivals = [e for e in es if e.kind == q.kind and e.dimension == q.dimension]
        if rivals:
            r = rivals[0]
            return f"number: {claim[q.start : q.end]!r} against {evidence[r.start : r.end]!r}"
    return None


def conflict_note(claim: str, evidence: str) -> str:
    """What a model contradiction of ``claim`` by ``evidence`` rests on: its aligned
    conflict, or that none shows (then the contradiction is the model's alone; on the
    development data, such contradictions were as often right as the others, so the
    verdict is kept and only explained)."""
    found = find_conflict(claim, evidence)
    if found is not None:
        return f"conflict: {found}"
    return (
        f"{UNEXPLAINED}: the evidence states no other number, date, name, negation or "
        f"opposite word (it holds {coverage(claim, evidence):.0%} of the claim's content "
        "words); the contradiction is the model's reading"
    )
