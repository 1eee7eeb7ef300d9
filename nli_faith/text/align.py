"""Premise alignment: say in the premise what the claim says, where both mean the same.

A small NLI model reads "within 72 hours" against "within three days" as a
contradiction, and "AAPL revenue" against "Apple's revenue" as a different company.
Before a (chunk, claim) pair goes to the model, the chunk's wording of what the two
state alike is replaced by the claim's:

* **quantities** equivalent under :func:`nli_faith.text.equivalence.equivalent` whose
  stated numbers differ (other units, a hedged claim within its tolerance): "72 hours"
  reads "three days", "39.6%" reads "nearly 40%" for the claim "nearly 40%". The same
  number spelled otherwise ("$50" / "fifty dollars") is left as it is, and a hedged
  context value ("about 40%") is never made exact;
* **abbreviations**: an all-capitals word of the chunk whose letters after the first run, in order,
  through a capitalised name of the claim that the chunk does not contain, starting
  with the same letter ("AAPL" / "Apple", "TSLA" / "Tesla", "WHO" / "World Health
  Organization"); a two-letter one only as the name's initials ("US" / "United States");
* **glossary terms** (:mod:`nli_faith.text.glossary`): a metric abbreviation or a
  ticker of the chunk that the claim spells out ("ROE" / "return on equity", "KO" /
  "Coca-Cola"), and the other way round ("return on equity" reads "ROE" when the
  claim says "ROE").

Only the text the model reads changes; evidence keeps pointing at the original chunk.

Example:
    >>> align_premise("Refunds are processed within 72 hours.", "Refunds arrive within three days.")
    'Refunds are processed within three days.'
    >>> align_premise("AAPL revenue: $383.3 billion in 2023.",
    ...               "Apple's revenue was 383.3 billion dollars in 2023.")
    'Apple revenue: $383.3 billion in 2023.'
"""

from __future__ import annotations

import re
from functools import lru_cache

from nli_faith.text.equivalence import equivalent
from nli_faith.text.glossary import METRICS, TICKERS
from nli_faith.text.quantities import extract_quantities

__all__ = ["align_premise"]

_ACRONYM_RE = re.compile(r"\b[A-Z][A-Z&]{1,5}\b")
_NAME_RE = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:of\s+|and\s+|for\s+|&\s+)?[A-Z][a-z]+)*")
_LEADING_ARTICLE_RE = re.compile(r"^(?:The|A|An|This|That|These|Those)\s+")
#: Capitalised units, currencies and common words that are not names of anything.
_NOT_ACRONYMS = frozenset(
    "USD EUR GBP JPY KB MB GB TB AM PM OK ID FAQ PDF URL API HTML JSON CSV FY Q".split()
)


@lru_cache(maxsize=16384)
def align_premise(premise: str, hypothesis: str) -> str:
    """``premise`` with the hypothesis's wording of equivalent quantities and names."""
    edits = (
        _quantity_edits(premise, hypothesis)
        + _glossary_edits(premise, hypothesis)
        + _alias_edits(premise, hypothesis)
    )
    if not edits:
        return premise
    out, pos = [], 0
    for start, end, text in sorted(edits):
        if start < pos:
            continue  # overlapping edits: the first wins
        out.append(premise[pos:start])
        out.append(text)
        pos = end
    out.append(premise[pos:])
    return "".join(out)


def _quantity_edits(premise: str, hypothesis: str) -> list[tuple[int, int, str]]:
    claimed = [q for q in extract_quantities(hypothesis, include_one=False) if q.kind == "quantity"]
    if not claimed:
        return []
    edits = []
    used: set[int] = set()
    for q in claimed:
        surface = hypothesis[q.start : q.end]
        for k, c in enumerate(extract_quantities(premise)):
            if k in used or c.kind != "quantity" or (c.hedge and c.hedge != q.hedge):
                continue
            if equivalent(q, c):
                used.add(k)
                # the same number merely spelled otherwise ("$50" / "fifty dollars") is left
                # alone: the model reads that well, and rewriting it measured worse; a
                # fraction word ("a quarter", "half": no number) is not a spelling of "25%"
                fraction = not q.number and q.dimension == "percent"
                if fraction or abs(q.value - c.value) > 1e-9 * max(abs(q.value), 1.0):
                    if q.start == 0 and c.start > 0 and surface[:1].isupper():
                        surface = surface[0].lower() + surface[1:]
                    edits.append((c.start, c.end, surface))
                break
    return edits


def _alias_edits(premise: str, hypothesis: str) -> list[tuple[int, int, str]]:
    if not _ACRONYM_RE.search(premise):
        return _reverse_alias_edits(premise, hypothesis)
    names = [_LEADING_ARTICLE_RE.sub("", m.group(0)) for m in _NAME_RE.finditer(hypothesis)]
    if not names:
        return []
    premise_low = premise.lower()
    edits = []
    for m in _ACRONYM_RE.finditer(premise):
        short = m.group(0)
        if short in _NOT_ACRONYMS or re.search(rf"\b{re.escape(short)}\b", hypothesis):
            continue
        fits = [n for n in names if n.lower() not in premise_low and _abbreviates(short, n)]
        if fits:
            edits.append((m.start(), m.end(), max(fits, key=len)))
    return edits


def _reverse_alias_edits(premise: str, hypothesis: str) -> list[tuple[int, int, str]]:
    """The claim's abbreviation ("MSFT") for a name of the premise ("Microsoft") that the
    claim does not spell out."""
    shorts = [
        m.group(0)
        for m in _ACRONYM_RE.finditer(hypothesis)
        if m.group(0) not in _NOT_ACRONYMS and m.group(0) not in premise
    ]
    if not shorts:
        return []
    hyp_low = hypothesis.lower()
    edits = []
    for m in _NAME_RE.finditer(premise):
        name = _LEADING_ARTICLE_RE.sub("", m.group(0))
        if name.lower() in hyp_low:
            continue
        fits = [s for s in shorts if _abbreviates(s, name)]
        if fits:
            start = m.end() - len(name)
            edits.append((start, m.end(), fits[0]))
    return edits


def _abbreviates(short: str, name: str) -> bool:
    """Is ``short`` ("AAPL") an abbreviation of ``name`` ("Apple")?"""
    letters = short.replace("&", "").lower()
    words = [w for w in name.split() if w.lower() not in ("of", "and", "for", "&")]
    initials = "".join(w[0] for w in words).lower()
    if letters == initials:
        return True
    if len(letters) < 3 or len(name) <= len(letters) or name[0].lower() != letters[0]:
        return False
    it = iter(name.lower())  # the first letter may repeat: "AAPL" / "Apple"
    return all(ch in it for ch in letters[1:])


def _term_re(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w/&.]){re.escape(term)}(?![\w/&])")


def _premise_re(short: str) -> re.Pattern[str]:
    """How a premise may write an abbreviation: a metric of three letters or more in any
    case (CSV headers are often lower case: "roe", "eps"), anything else as written."""
    if short in METRICS and short.isalpha() and len(short) >= 3:
        return re.compile(_term_re(short).pattern, re.IGNORECASE)
    return _term_re(short)


_GLOSSARY = [
    (
        _term_re(short),
        _premise_re(short),
        tuple(re.compile(rf"\b{re.escape(f)}\b", re.I) for f in fulls),
        short,
        (short.lower(), *(f.lower() for f in fulls)),
    )
    for short, fulls in {**METRICS, **TICKERS}.items()
]


@lru_cache(maxsize=4096)
def _glossary_in(hypothesis: str) -> tuple:
    """The glossary entries the hypothesis may name (a cheap superset: each entry whose
    short or full form occurs in it, in any case); a claim meets many premises."""
    low = hypothesis.lower()
    return tuple(e for e in _GLOSSARY if any(t in low for t in e[4]))


def _glossary_edits(premise: str, hypothesis: str) -> list[tuple[int, int, str]]:
    """Glossary abbreviations of the premise that the hypothesis spells out, and back."""
    edits = []
    for short_re, premise_re, full_res, short, _ in _glossary_in(hypothesis):
        in_hyp = short_re.search(hypothesis)
        for full_re in full_res:
            said = full_re.search(hypothesis)
            if said and not in_hyp and not full_re.search(premise):
                edits.extend(
                    (m.start(), m.end(), said.group(0)) for m in premise_re.finditer(premise)
                )
                break
            if in_hyp and not short_re.search(premise):
                edits.extend((m.start(), m.end(), short) for m in full_re.finditer(premise))
    return edits
