"""Trends and comparisons over a series of yearly values, checked by arithmetic.

A *series* is what one chunk states as ``<value> in <year>`` at least twice: a record
read from structured data ("ABB ROE: 21.4% in 2022; 28.6% in 2023; 24.1% in 2024.")
or a sentence ("Sales were $12 million in 2022 and $15 million in 2023."). A claim
that reasons over such a series is checked against it, for the chunk about the same
thing (at least half of the claim's other content words, read after the alignment
step, so "MSFT ROE" is "Microsoft's return on equity"):

* **from / to**: "fell from 28.6% in 2023 to 24.1% in 2024": both values must be the
  series' for those years (or, without years, two of its values in that order) and
  the direction word must be the direction of the change;
* **by**: "increased by 5 points from 2022 to 2023": the difference (in points, or in
  per cent of the first value when the claim says "%" of a non-percentage);
* **multiples**: "doubled / tripled / halved between 2022 and 2024" (within 10%);
* **comparisons**: "higher in 2023 than in 2024", "lower ... than ...";
* **extremes**: "the highest / lowest / largest / smallest / peak ... in 2023".

A hedge ("about", "roughly", "nearly") widens the tolerance as for single values
(:func:`nli_faith.text.equivalence.equivalent`), and by 10% for multiples and differences.
Where no series of the claim's subject holds the claim's years, the rule says nothing
and the model's verdict stands.

Example:
    >>> t = judge_trend("ABB's ROE fell from 28.6% in 2023 to 24.1% in 2024.",
    ...                 ["ABB ROE: 21.4% in 2022; 28.6% in 2023; 24.1% in 2024."])
    >>> t.verdict, t.chunk
    ('yes', 0)
    >>> judge_trend("ABB's ROE rose from 28.6% in 2023 to 24.1% in 2024.",
    ...             ["ABB ROE: 21.4% in 2022; 28.6% in 2023; 24.1% in 2024."]).verdict
    'no'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from nli_faith.text.align import align_premise
from nli_faith.text.equivalence import equivalent
from nli_faith.text.lexical import content_words
from nli_faith.text.quantities import Quantity, extract_quantities

__all__ = ["TrendJudgement", "judge_trend", "series"]

_UP = r"rose|rise|rises|rising|increased|increases|increase|grew|grow|grows|growing|climbed|jumped|went up|improved|gained|expanded|surged|soared|doubled|tripled|quadrupled|higher|greater|larger|more|highest|largest|biggest|peak|peaked|maximum"  # noqa: E501
_DOWN = r"fell|fall|falls|falling|declined|declines|decline|decreased|decreases|decrease|dropped|drop|drops|went down|slipped|shrank|shrunk|slid|sank|worsened|contracted|halved|lower|less|smaller|fewer|lowest|smallest|minimum"  # noqa: E501
_UP_RE = re.compile(rf"\b(?:{_UP})\b", re.I)
_DOWN_RE = re.compile(rf"\b(?:{_DOWN})\b", re.I)
_FROM_TO_RE = re.compile(r"\bfrom\b(?P<a>.{1,40}?)\bto\b(?P<b>.{1,40})", re.I)
_BY_RE = re.compile(r"\bby\s+(?:about |around |roughly |nearly |almost |some )?(?P<n>[\d.]+)\s*"
                    r"(?P<unit>percentage points?|points?|pp|%|percent)", re.I)  # fmt: skip
_MULTIPLE_RE = re.compile(r"\b(?P<m>doubled|tripled|quadrupled|halved)\b", re.I)
_COMPARE_RE = re.compile(
    r"\b(?P<cmp>higher|greater|larger|bigger|more|lower|smaller|less|fewer)\b.{0,40}?\bthan\b",
    re.I,
)
_EXTREME_RE = re.compile(
    r"\b(?P<ext>highest|largest|biggest|peak|peaked|maximum|lowest|smallest|minimum)\b", re.I
)
_HEDGE_RE = re.compile(r"\b(?:about|around|roughly|nearly|almost|approximately|some)\b", re.I)
_MULTIPLES = {"doubled": 2.0, "tripled": 3.0, "quadrupled": 4.0, "halved": 0.5}
_TREND_WORDS = frozenset(
    (_UP + "|" + _DOWN + "|from|to|by|than|point|percentage|year|compared").split("|")
)


@dataclass(frozen=True)
class TrendJudgement:
    verdict: str  # "yes" or "no"
    chunk: int
    note: str


def series(text: str) -> dict[int, Quantity]:
    """``{year: value}`` for every ``<value> in <year>`` of ``text``."""
    qs = extract_quantities(text)
    out: dict[int, Quantity] = {}
    for a, b in zip(qs, qs[1:]):
        if a.kind == "quantity" and b.kind == "year" and text[a.end : b.start].strip() == "in":
            out.setdefault(int(b.value), a)
    return out


def _fmt(year: int, q: Quantity, text: str) -> str:
    return f"{text[q.start : q.end]} in {year}"


def _topic(claim: str) -> frozenset[str]:
    return frozenset(
        w
        for w in content_words(claim)
        if not any(ch.isdigit() for ch in w) and w not in _TREND_WORDS
    )


def judge_trend(claim: str, chunks: Sequence[str]) -> TrendJudgement | None:
    """Check a trend or comparison claim against the series of ``chunks``; None when the
    claim is no such claim or no series of its subject holds its years."""
    kinds = [rx for rx in (_FROM_TO_RE, _BY_RE, _MULTIPLE_RE, _COMPARE_RE, _EXTREME_RE)]
    if not any(rx.search(claim) for rx in kinds):
        return None
    cq = extract_quantities(claim, include_one=False)
    years = [int(q.value) for q in cq if q.kind == "year"]
    values = [q for q in cq if q.kind == "quantity"]
    topic = _topic(claim)
    names = _names(claim)
    best = None
    for j, text in enumerate(chunks):
        s = series(text)
        if len(s) < 2 or not all(y in s for y in years):
            continue
        said = content_words(align_premise(text, claim))
        if not names <= said:  # "Siemens' ROE" is not read from "ABB ROE"
            continue
        share = len(topic & said) / len(topic) if topic else 1.0
        if share >= 0.5 and (best is None or (share, len(s)) > best[0]):
            best = ((share, len(s)), j, s, text)
    if best is None:
        return None
    _, j, s, text = best
    return _judge(claim, years, values, j, s, text)


_CAPITALISED_RE = re.compile(r"\b[A-Z][\w&-]*")


def _names(claim: str) -> frozenset[str]:
    """The claim's capitalised words (names of what the series must be about)."""
    return (
        frozenset(w for m in _CAPITALISED_RE.finditer(claim) for w in content_words(m.group(0)))
        - _TREND_WORDS
    )


def _direction(text: str) -> int:
    up, down = bool(_UP_RE.search(text)), bool(_DOWN_RE.search(text))
    return 0 if up == down else (1 if up else -1)


def _judge(claim, years, values, j, s, text) -> TrendJudgement | None:
    hedged = bool(_HEDGE_RE.search(claim))
    ordered = sorted(s)
    m = _FROM_TO_RE.search(claim)
    if m and len(values) >= 2 and not _BY_RE.search(claim):
        a, b = values[0], values[1]
        if len(years) >= 2:
            y1, y2 = years[0], years[1]
        else:  # "from 28.6% to 24.1%": the years whose values these are, in order
            found = [
                (y1, y2)
                for y1 in ordered
                for y2 in ordered
                if y1 < y2 and equivalent(a, s[y1]) and equivalent(b, s[y2])
            ]
            if not found:
                return TrendJudgement(
                    "no", j, f"the series ({_show(s, text)}) has no change from {a.number} to "
                    f"{b.number}"
                )  # fmt: skip
            y1, y2 = found[-1]
        return _check_change(claim, y1, y2, a, b, j, s, text)
    if len(years) >= 2:
        y1, y2 = years[0], years[1]
    elif len(years) == 1:
        y1, y2 = None, years[0]
    else:
        y1, y2 = ordered[0], ordered[-1]
    v1, v2 = (s[y1] if y1 is not None else None), s[y2]
    shown = _show(s, text)
    by = _amount_after_by(claim, values)
    if by is not None and y1 is not None and by.dimension == v1.dimension:
        diff = v2.base - v1.base
        tol = by.base * (0.1 if hedged else 0.01)
        sign = _direction(claim)
        ok = abs(abs(diff) - by.base) <= tol and (sign == 0 or sign * diff > 0)
        return _verdict(ok, j, f"{_fmt(y1, v1, text)} to {_fmt(y2, v2, text)} ({shown})")
    mb = _BY_RE.search(claim)
    if mb and y1 is not None:
        n = float(mb.group("n"))
        unit = mb.group("unit").lower()
        diff = v2.value - v1.value
        tol = 0.1 * n if hedged else 0.05 + 0.005 * n
        if unit in ("%", "percent") and v1.dimension != "percent":
            change = diff / v1.value * 100 if v1.value else float("inf")
            ok = abs(abs(change) - n) <= max(tol, 0.5)
        else:
            ok = abs(abs(diff) - n) <= tol or (
                unit in ("%", "percent") and v1.value and abs(abs(diff / v1.value * 100) - n) <= 0.5
            )
        sign = _direction(claim)
        ok = ok and (sign == 0 or sign * diff > 0)
        return _verdict(ok, j, f"{_fmt(y1, v1, text)} to {_fmt(y2, v2, text)} ({shown})")
    mm = _MULTIPLE_RE.search(claim)
    if mm and y1 is not None:
        want = _MULTIPLES[mm.group("m").lower()]
        ratio = v2.value / v1.value if v1.value else float("inf")
        ok = abs(ratio - want) <= want * (0.2 if hedged else 0.1)
        return _verdict(
            ok, j, f"{_fmt(y1, v1, text)} to {_fmt(y2, v2, text)} is x{ratio:.2f} ({shown})"
        )
    mc = _COMPARE_RE.search(claim)
    if mc and y1 is not None:
        sign = 1 if _UP_RE.search(mc.group("cmp")) else -1
        ok = sign * (v1.value - v2.value) > 0
        return _verdict(ok, j, f"{_fmt(y1, v1, text)} against {_fmt(y2, v2, text)} ({shown})")
    me = _EXTREME_RE.search(claim)
    if me and y1 is None:
        up = bool(_UP_RE.search(me.group("ext")))
        pick = max if up else min
        top = pick(s, key=lambda y: s[y].value)
        ok = s[top].value == v2.value
        word = "highest" if up else "lowest"
        return _verdict(ok, j, f"the {word} value is {_fmt(top, s[top], text)} ({shown})")
    return None


def _amount_after_by(claim: str, values: list[Quantity]) -> Quantity | None:
    """The amount in "by $6 million" (not points or per cent: see ``_BY_RE``)."""
    for q in values:
        before = claim[: q.start].rstrip().lower()
        if before.endswith("by") and q.dimension != "percent" and not _BY_RE.search(claim):
            return q
    return None


def _check_change(claim, y1, y2, a, b, j, s, text) -> TrendJudgement:
    shown = _show(s, text)
    if y1 not in s or y2 not in s:
        return None
    if not equivalent(a, s[y1]) or not equivalent(b, s[y2]):
        return TrendJudgement(
            "no", j, f"the series states {_fmt(y1, s[y1], text)} and {_fmt(y2, s[y2], text)}"
            f" ({shown})"
        )  # fmt: skip
    change = s[y2].value - s[y1].value
    sign = _direction(claim[: claim.lower().find("from")] or claim)
    if sign and sign * change <= 0:
        word = "a rise" if change > 0 else "a fall" if change < 0 else "no change"
        return TrendJudgement(
            "no", j, f"{_fmt(y1, s[y1], text)} to {_fmt(y2, s[y2], text)} is {word}, not what "
            f"the claim says ({shown})"
        )  # fmt: skip
    return TrendJudgement(
        "yes", j, f"{_fmt(y1, s[y1], text)} to {_fmt(y2, s[y2], text)}, as claimed ({shown})"
    )


def _verdict(ok: bool, j: int, detail: str) -> TrendJudgement:
    return TrendJudgement("yes" if ok else "no", j, ("as claimed: " if ok else "not so: ") + detail)


def _show(s: dict[int, Quantity], text: str) -> str:
    return "; ".join(_fmt(y, s[y], text) for y in sorted(s))
