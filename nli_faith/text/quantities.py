"""Quantities: a number with what it counts ("72 hours", "$383.3 billion", "nearly 40%").

:func:`extract_quantities` finds them with their unit, scale, hedge and kind (an amount, an
identifier, a year); :mod:`nli_faith.text.equivalence` compares two of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from nli_faith.text.numerals import (
    _MARKER_RE,
    NUMBER_WORD_RE,
    NUMBER_WORDS,
    _norm_digits,
    may_hold_number,
    pattern_matches,
    words_to_number,
)

# A quantity is a number with what it counts: "72 hours", "$383.3 billion", "nearly 40%",
# "a quarter", "1.5 million users". Two quantities are *equivalent* when they state the
# same value once units and scale words are resolved (72 hours = 3 days, 18 months =
# 1.5 years, 1.5 million = 1,500,000, $50 = fifty dollars, a quarter = 25%), or when a
# hedged one ("about 40%", "nearly 40%", "over 1,000") holds the other's value within
# its tolerance (see :func:`equivalent`). Identifiers (iPhone 15, Section 4.2, COVID-19,
# #1234), years, times of day and list markers are not quantities: they only ever match
# the same number, and never count as a differing value.
#
# The unit table is our own on purpose: pint converts units but knows nothing of hedges,
# number words, fractions or identifiers, and quantulum3 brings a trained classifier and
# its dependencies for the same few dozen units; what is needed here is small and exact.

#: A hedged number ("about 40%") holds values within this share of it; "nearly" and
#: "almost" from below only (39.6% is "nearly 40%", 40.4% is not), "just over" from above.
APPROX_TOLERANCE = 0.10
#: Calendar conversions are approximate (a month is 28-31 days): an amount in months or
#: years equals one in days or weeks within this many days (30 days = 1 month, 90 days =
#: 3 months, 52 weeks = 1 year; 103 weeks is not 24 months, which is 104.3 weeks).
CALENDAR_SLACK_DAYS = 2.5

_HEDGES: dict[str, str] = {
    **dict.fromkeys(
        ["about", "around", "approximately", "approx", "approx.", "roughly", "circa", "ca.",
         "~", "some", "close to", "an estimated", "estimated"],
        "approx",
    ),
    **dict.fromkeys(["nearly", "almost", "just under", "just below", "not quite"], "below"),
    **dict.fromkeys(["just over", "just above", "slightly more than", "a little over"], "above"),
    **dict.fromkeys(
        ["over", "more than", "above", "greater than", "in excess of", "upwards of",
         "at least", "exceeding", "no less than", "no fewer than", "beyond"],
        "min",
    ),
    **dict.fromkeys(
        ["under", "less than", "below", "fewer than", "up to", "at most", "within",
         "no more than", "not more than", "a maximum of", "maximum of", "max"],
        "max",
    ),
}  # fmt: skip
_HEDGE_RE = re.compile(
    r"(?:^|(?<=[\s(]))(?P<hedge>"
    + "|".join(re.escape(h) for h in sorted(_HEDGES, key=len, reverse=True))
    + r")\s*$",
    re.IGNORECASE,
)

#: unit word -> (dimension, factor to the dimension's base unit)
_HOUR, _DAY = 1.0, 24.0
UNIT_TABLE: dict[str, tuple[str, float]] = {
    **dict.fromkeys(["second", "seconds", "sec", "secs"], ("time", 1 / 3600)),
    **dict.fromkeys(["minute", "minutes", "min", "mins"], ("time", 1 / 60)),
    **dict.fromkeys(["hour", "hours", "hr", "hrs", "h"], ("time", _HOUR)),
    **dict.fromkeys(["day", "days", "calendar day", "calendar days"], ("time", _DAY)),
    **dict.fromkeys(["week", "weeks", "wk", "wks"], ("time", 7 * _DAY)),
    **dict.fromkeys(["fortnight", "fortnights"], ("time", 14 * _DAY)),
    **dict.fromkeys(["month", "months", "mo", "mos"], ("time", 365 * _DAY / 12)),
    **dict.fromkeys(["year", "years", "yr", "yrs"], ("time", 365 * _DAY)),
    **dict.fromkeys(["decade", "decades"], ("time", 3650 * _DAY)),
    **dict.fromkeys(
        ["business day", "business days", "working day", "working days"], ("workdays", 1.0)
    ),
    **dict.fromkeys(["mm", "millimetre", "millimetres", "millimeter", "millimeters"],
                    ("length", 1e-3)),
    **dict.fromkeys(["cm", "centimetre", "centimetres", "centimeter", "centimeters"],
                    ("length", 1e-2)),
    **dict.fromkeys(["metre", "metres", "meter", "meters"], ("length", 1.0)),
    **dict.fromkeys(["km", "kilometre", "kilometres", "kilometer", "kilometers"], ("length", 1e3)),
    **dict.fromkeys(["mile", "miles", "mi"], ("length", 1609.344)),
    **dict.fromkeys(["ft", "foot", "feet"], ("length", 0.3048)),
    **dict.fromkeys(["inch", "inches"], ("length", 0.0254)),
    **dict.fromkeys(["mg", "milligram", "milligrams"], ("mass", 1e-6)),
    **dict.fromkeys(["g", "gram", "grams"], ("mass", 1e-3)),
    **dict.fromkeys(["kg", "kilogram", "kilograms", "kilo", "kilos"], ("mass", 1.0)),
    **dict.fromkeys(["tonne", "tonnes", "metric ton", "metric tons"], ("mass", 1e3)),
    **dict.fromkeys(["lb", "lbs"], ("mass", 0.45359237)),
    **dict.fromkeys(["oz", "ounce", "ounces"], ("mass", 0.028349523)),
    **dict.fromkeys(["kb", "kilobyte", "kilobytes"], ("data", 1e3)),
    **dict.fromkeys(["mb", "megabyte", "megabytes"], ("data", 1e6)),
    **dict.fromkeys(["gb", "gigabyte", "gigabytes"], ("data", 1e9)),
    **dict.fromkeys(["tb", "terabyte", "terabytes"], ("data", 1e12)),
    **dict.fromkeys(["%", "percent", "per cent", "pct"], ("percent", 1.0)),
    **dict.fromkeys(["percentage point", "percentage points", "pp"], ("points", 1.0)),
    **dict.fromkeys(["dollar", "dollars", "usd", "us dollars", "bucks"], ("currency:USD", 1.0)),
    **dict.fromkeys(["cent", "cents"], ("currency:USD", 0.01)),
    **dict.fromkeys(["euro", "euros", "eur"], ("currency:EUR", 1.0)),
    **dict.fromkeys(["gbp", "pounds sterling", "sterling"], ("currency:GBP", 1.0)),
    **dict.fromkeys(["yen", "jpy"], ("currency:JPY", 1.0)),
}  # fmt: skip
_CURRENCY_PREFIX = {
    "$": "currency:USD",
    "us$": "currency:USD",
    "usd": "currency:USD",
    "\u20ac": "currency:EUR",
    "eur": "currency:EUR",
    "\u00a3": "currency:GBP",
    "gbp": "currency:GBP",
    "\u00a5": "currency:JPY",
}
_CALENDAR_FACTORS = frozenset(
    (UNIT_TABLE["month"][1], UNIT_TABLE["year"][1], UNIT_TABLE["decade"][1])
)
SCALE_WORDS = {
    "hundred": 1e2,
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "k": 1e3,
    "mn": 1e6,
    "mln": 1e6,
    "m": 1e6,
    "bn": 1e9,
    "b": 1e9,
    "tn": 1e12,
}
#: Abbreviated scales ("$1.5m", "3bn") count only right after the digits or after a
#: currency amount; "5 m" alone is five metres.
_SHORT_SCALES = frozenset(("k", "m", "b", "bn", "mn", "mln", "tn"))
_FRACTIONS = {
    "half": 0.5,
    "a half": 0.5,
    "one half": 0.5,
    "a third": 1 / 3,
    "one third": 1 / 3,
    "one-third": 1 / 3,
    "two thirds": 2 / 3,
    "two-thirds": 2 / 3,
    "a quarter": 0.25,
    "one quarter": 0.25,
    "one-quarter": 0.25,
    "three quarters": 0.75,
    "three-quarters": 0.75,
    "a fifth": 0.2,
    "one fifth": 0.2,
    "one-fifth": 0.2,
    "a tenth": 0.1,
    "one tenth": 0.1,
}
#: Words before a number that make it a name or a label, not a quantity.
ID_LABELS = frozenset(
    (
        "section sections sec chapter chapters article articles art page pages p pp step "
        "steps room rooms version v model models form forms item items id no number "
        "figure fig table tables level tier phase stage type class gate platform line "
        "route flight order ticket case issue pr build release rule clause paragraph "
        "para exhibit appendix annex grade series gen generation iphone ipad windows "
        "ios android python java office"
    ).split()
)
#: Capitalised words that may stand before a quantity without naming it ("In 2023", "Over 40").
_NOT_NAMES = frozenset(
    (
        "in on at by for from to of about over under around nearly almost some since until "
        "before after during between and or the a an with than only just up down roughly "
        "approximately exactly more less fewer all each every top first last total "
        "within after per is was are were be it its this that these those there here we "
        "they he she you i our their his her costs cost takes take lasts last"
    ).split()
)
_COUNT_STOP = frozenset(
    (
        "of to and or in on at by for from the a an per each than as is was are were be "
        "with that which who this these those its their our his her it into onto over under "
        "more less most least times time"
    ).split()
)

_NUMBER_CORE_RE = re.compile(
    r"(?P<digits>(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.,])\d+(?:\.\d+)?)"
    r"|(?P<frac>\b(?:(?:a|one|two|three)[- ])?(?:half|thirds?|quarters?|fifth|tenth)\b)"
    r"|(?P<words>\b(?:a|an)\s+(?:hundred|thousand|million|billion|dozen)\b|"
    + NUMBER_WORD_RE.pattern
    + r"(?:\s+hundred\b)?)",
    re.IGNORECASE,
)
#: The words a match of :data:`_NUMBER_CORE_RE` without a digit holds as a whole word.
_QUANTITY_WORDS = NUMBER_WORDS | frozenset(
    "half third thirds quarter quarters fifth tenth hundred thousand million billion".split()
)
#: The first word of a match of :data:`_NUMBER_CORE_RE` that starts with a letter.
_START_WORDS = _QUANTITY_WORDS | frozenset(("a", "an"))
_AFTER_RE = re.compile(
    r"(?P<scale>\s?(?:hundred|thousand|million|billion|trillion)\b|(?:k|m|mn|mln|bn|b|tn)\b"
    r"|\s(?:k|m|mn|mln|bn|b|tn)\b(?=\s*(?:dollars|euros|usd|eur|\b)))?"
    r"(?P<pct>\s?%|\s?(?:percent|per cent|pct)\b)?",
    re.IGNORECASE,
)
_UNIT_WORD_RE = re.compile(
    r"[\s-]?(?P<unit>"
    + "|".join(re.escape(u) for u in sorted(UNIT_TABLE, key=len, reverse=True) if u != "%")
    + r")\b",
    re.IGNORECASE,
)
#: "half an hour", "a quarter of a mile": a fraction of one unit.
_FRACTION_UNIT_RE = re.compile(
    r"\s+(?:of\s+)?(?:an?\s+)" + _UNIT_WORD_RE.pattern[len(r"[\s-]?") :], re.IGNORECASE
)
_COUNT_RE = re.compile(r"\s(?P<noun>[a-z]{3,})\b")
_CLOCK_RE = re.compile(r"\s?(?:a\.?m\.?|p\.?m\.?)(?![a-z])|:\d\d", re.IGNORECASE)
_GLUED_RE = re.compile(r"[A-Za-z]")
_CURRENCY_BEFORE_RE = re.compile(r"(?P<cur>US\$|\$|\u20ac|\u00a3|\u00a5|\b(?:USD|EUR|GBP)\s?)$")
_WORD_BEFORE_RE = re.compile(r"(?P<word>[#]|[A-Za-z][\w'.]*)[ \t]?(?:#|No\.?\s?)?$")


@dataclass(frozen=True)
class Quantity:
    """A number as a statement uses it.

    ``value`` has scale words applied ("1.5 million" -> 1500000.0); ``base`` is the
    value in the base unit of ``dimension`` (hours, metres, kg, bytes, percent, a
    currency) or ``value`` when there is none. ``kind`` is ``"quantity"``, or
    ``"year"``, ``"id"`` or ``"clock"`` for numbers that name rather than measure.
    ``text[start:end]`` is the whole mention, hedge and unit included.
    """

    value: float
    base: float
    dimension: str  # "time", "length", "percent", "currency:USD", "count:user", "" ...
    unit: str  # the unit word as canonical key ("hours", "%"), "" if none
    hedge: str  # "", "approx", "below", "above", "min", "max"
    kind: str
    start: int
    end: int
    number: str  # the normalised number as written ("1200.5"), for exact matching

    @property
    def measured(self) -> bool:
        """Has a measured unit (not a counted noun): time, length, money, percent..."""
        return bool(self.dimension) and not self.dimension.startswith("count:")


def _word_value(word: str) -> float:
    w = " ".join(word.lower().replace("-", " ").split())
    if w.startswith(("a ", "an ")):
        return {"hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9, "dozen": 12.0}[
            w.split()[1]
        ]
    if w.endswith(" hundred"):
        return words_to_number(w[: -len(" hundred")]) * 100.0
    return float(words_to_number(w))


def _fraction_value(word: str) -> float:
    w = " ".join(word.lower().split())
    if w in _FRACTIONS:
        return _FRACTIONS[w]
    w = w.replace(" ", "-")
    return _FRACTIONS.get(w, _FRACTIONS.get(w.replace("-", " "), 0.5))


def _fmt(x: float) -> str:
    return _norm_digits(f"{x:.6f}")


@lru_cache(maxsize=16384)
def extract_quantities(text: str, *, include_one: bool = True) -> tuple[Quantity, ...]:
    """Every number of ``text`` with its unit, scale, hedge and kind (cached per text).

    Example:
        >>> [(q.base, q.dimension, q.hedge) for q in extract_quantities("within 3 days")]
        [(72.0, 'time', 'max')]
        >>> [(q.value, q.dimension) for q in extract_quantities("$1.5 million and half")]
        [(1500000.0, 'currency:USD'), (50.0, 'percent')]
        >>> [q.kind for q in extract_quantities("The iPhone 15 launched in 2023.")]
        ['id', 'year']
    """
    if not may_hold_number(text, _QUANTITY_WORDS):
        return ()
    masked = _MARKER_RE.sub(lambda m: " " * len(m.group(0)), text)
    out: list[Quantity] = []
    for m in number_matches(masked):
        q = _quantity(masked, m, include_one)
        if q is not None:
            out.append(q)
    return tuple(out)


def number_matches(text: str) -> Iterator[re.Match]:
    """``_NUMBER_CORE_RE.finditer(text)``, tried only where a match can start: at a run of
    digits or at a run of letters that is one of :data:`_START_WORDS`."""
    return pattern_matches(_NUMBER_CORE_RE, text, _START_WORDS)


def _quantity(text: str, m: re.Match, include_one: bool) -> Quantity | None:
    start, end = m.span()
    core = m.group(0)
    fraction = m.group("frac") is not None
    if m.group("digits"):
        number = _norm_digits(core)
        value = float(core.replace(",", ""))
    elif fraction:
        value, number = _fraction_value(core), ""
    else:
        if core.lower() == "one" and not include_one and not _UNIT_WORD_RE.match(text, end):
            return None
        value = _word_value(core)
        number = _fmt(value)
    before = text[max(0, start - 40) : start]
    dimension, unit = "", ""
    cur = _CURRENCY_BEFORE_RE.search(before) if not fraction else None
    if cur:
        dimension = _CURRENCY_PREFIX[cur.group("cur").strip().lower()]
        start -= len(cur.group(0))
        before = before[: len(before) - len(cur.group(0))]
    kind = "quantity"
    after = _AFTER_RE.match(text, end) if not fraction else None
    scale = 1.0
    if after and after.group("scale"):
        word = after.group("scale").strip().lower()
        if word not in _SHORT_SCALES or dimension or not after.group("scale")[0].isspace():
            scale = SCALE_WORDS[word]
            end = after.end("scale")
    if after and after.group("pct"):
        dimension, unit = "percent", "%"
        end = after.end("pct")
    factor = 1.0
    if not dimension or dimension.startswith("currency"):
        u = (_FRACTION_UNIT_RE if fraction else _UNIT_WORD_RE).match(text, end)
        if u and not (dimension and not UNIT_TABLE[u.group("unit").lower()][0].startswith("cur")):
            unit = u.group("unit").lower()
            dim, factor = UNIT_TABLE[unit]
            dimension = dimension or dim
            end = u.end()
    if fraction and not dimension:  # "half" alone is 50%; "half a day" is 12 hours
        dimension, unit, value = "percent", "%", value * 100
    noun = _count_noun(text, end) if not dimension else ""
    if m.group("digits") and not dimension:
        glued = end < len(text) and _GLUED_RE.match(text, end)
        clock = _CLOCK_RE.match(text, end)
        if glued or text[end : end + 1] == "-" and _GLUED_RE.match(text, end + 1):
            kind = "id"  # "15th", "5G", "A-123", "19-nCoV"
        elif clock:
            kind = "clock"
        elif start > 0 and text[start - 1] in "-#/" and start > 1 and text[start - 2].isalnum():
            kind = "id"  # "COVID-19", "ISO/27001"
        elif scale == 1.0 and "." not in core and "," not in core and 1800 <= value <= 2199:
            kind = "year"  # "the 2024 season", "in 2000"; but see the hedge below
    if kind == "quantity" and noun:
        dimension = "count:" + noun
    hedge = ""
    h = _HEDGE_RE.search(before)
    if h:
        hedge = _HEDGES[h.group("hedge").lower()]
        start -= len(before) - h.start("hedge")
        if kind == "year":  # "over 2000 people": a hedged number is a count, not a year
            kind, dimension = "quantity", ("count:" + noun) if noun else ""
    elif kind == "quantity" and not cur and _is_label(before):
        kind = "id"
    value *= scale
    return Quantity(
        value=value,
        base=value * factor,
        dimension=dimension,
        unit=unit,
        hedge=hedge,
        kind=kind,
        start=start,
        end=end,
        number=number if scale == 1.0 or not number else _fmt(value),
    )


def _count_noun(text: str, end: int) -> str:
    """The noun a number counts ("5 employees" -> "employee"), or ""."""
    count = _COUNT_RE.match(text, end)
    noun = count.group("noun").lower() if count else ""
    if not noun or noun in _COUNT_STOP or noun.endswith(("ed", "ly", "ing")):
        return ""
    return noun[:-1] if noun.endswith("s") and len(noun) > 3 else noun


def _is_label(before: str) -> bool:
    """Does the word right before a number name it ("Section 4", "iPhone 15", "#12")?"""
    w = _WORD_BEFORE_RE.search(before)
    if not w:
        return False
    word = w.group("word")
    if word == "#" or before.rstrip().endswith("#"):
        return True
    low = word.lower().rstrip(".")
    if low in ID_LABELS:
        return True
    if low in _NOT_NAMES or low in _HEDGES:
        return False
    return word[0].isupper() or any(c.isupper() for c in word[1:])
