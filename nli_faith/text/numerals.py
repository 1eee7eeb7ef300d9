"""Numbers in text, in digits or in words, normalised so that "$50" and "fifty" match.

Used by the number check (a claim whose number is absent from a chunk is not
supported by that chunk), by the pre-filter's keep-list and by the synthetic
training data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
WORD_VALUE: dict[str, int] = {w: i for i, w in enumerate(UNITS)} | {
    w: i * 10 for i, w in enumerate(TENS) if w != "_"
}
WORD_VALUE["dozen"] = 12

#: Spelled-out numbers 0-99: "seven", "thirty", "thirty-six", "thirty six", "dozen".
NUMBER_WORD_RE = re.compile(
    r"\b(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
    r"(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
    r"|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|dozen)\b",
    re.IGNORECASE,
)
#: Numbers in digits, with thousands separators and decimals: 24, 1,200, 3.5.
DIGITS_RE = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.,])\d+(?:\.\d+)?")


def words_to_number(text: str) -> int:
    """ "thirty-six" -> 36."""
    return sum(WORD_VALUE[p] for p in re.split(r"[- ]", text.lower()) if p)


def number_to_words(n: int) -> str | None:
    """36 -> "thirty-six"; None outside 0..99."""
    if 0 <= n < 20:
        return UNITS[n]
    if 20 <= n < 100:
        tens, unit = divmod(n, 10)
        return TENS[tens] + (f"-{UNITS[unit]}" if unit else "")
    return None


#: List and section markers at the start of a line ("1. ", "5.6 ", "3) "): not quantities.
_MARKER_RE = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?\(?(?:\d+[.)](?=[ \t])|\d+(?:\.\d+)+(?=[ \t]+[A-Z]))",
    re.MULTILINE,
)


def _norm_digits(text: str) -> str:
    text = text.replace(",", "")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.lstrip("0") or "0"


@lru_cache(maxsize=16384)
def extract_numbers(text: str, *, include_one: bool = True) -> frozenset[str]:
    """Normalised numbers in ``text``: ``{"1200", "3.5", "36"}``.

    Cached: the pre-filter's anchors and the number check read the same chunks.

    "one" is as often a pronoun as a number; ``include_one=False`` skips the
    word (the digit 1 is always kept). List and section numbers at the start of
    a line ("5.6 Session Management") are markers, not quantities, and are skipped.

    Example:
        >>> sorted(extract_numbers("Thirty-six months, $1,200.50 and 3.50%"))
        ['1200.5', '3.5', '36']
    """
    text = _MARKER_RE.sub(" ", text)
    found = {_norm_digits(m.group(0)) for m in DIGITS_RE.finditer(text)}
    for m in NUMBER_WORD_RE.finditer(text):
        word = m.group(0).lower()
        if word == "one" and not include_one:
            continue
        found.add(str(words_to_number(word)))
    return frozenset(found)


def number_support_mask(claims: list[str], chunks: list[str]) -> np.ndarray:
    """``mask[i, j]`` is True unless claim ``i`` states a number that chunk ``j`` lacks.

    A chunk that never mentions "36" cannot support "thirty-six months",
    however close its wording. Equivalent forms count (:func:`quantity_support_mask`):
    "72 hours" supports "three days".
    """
    return quantity_support_mask(claims, chunks)


# --------------------------------------------------------------------------- quantities
#
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
#: A chunk can contradict a claim by a differing quantity only if it holds at least this
#: share of the claim's other content words (words that are not numbers or units).
MISMATCH_MIN_SHARE = 0.5

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
    masked = _MARKER_RE.sub(lambda m: " " * len(m.group(0)), text)
    out: list[Quantity] = []
    for m in _NUMBER_CORE_RE.finditer(masked):
        q = _quantity(masked, m, include_one)
        if q is not None:
            out.append(q)
    return tuple(out)


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


def _within(
    claimed: Quantity,
    stated: float,
    claimed_value: float,
    tol: float,
    *,
    stated_hedge: str | None = None,
) -> bool:
    """Does ``stated`` (the context's value) make ``claimed`` true? ``tol``: absolute slack
    of the comparison (months and years against days), in the common unit.

    Two bounds of the same kind state a limit each: "within 30 days" is not made true by
    "within 14 days" (a refund window of 14 days is not one of 30), so they must be equal.
    """
    a, b = claimed_value, stated
    slack = abs(a) * APPROX_TOLERANCE
    exact = abs(a - b) <= tol + 1e-9 * max(abs(a), abs(b), 1.0)
    h = claimed.hedge
    if h in ("below", "above", "min", "max") and stated_hedge == h:
        return exact
    if h == "approx":
        return abs(a - b) <= slack + 1e-9
    if h == "below":
        return a - slack - tol - 1e-9 <= b <= a + tol + 1e-9
    if h == "above":
        return a - tol - 1e-9 <= b <= a + slack + tol + 1e-9
    if h == "min":
        return b >= a - tol - 1e-9
    if h == "max":
        return b <= a + tol + 1e-9
    return exact


def _comparable(q: Quantity, c: Quantity) -> tuple[float, float, float] | None:
    """``(claimed, stated, absolute tolerance)`` in a common unit, or None when they measure
    different things."""
    if q.measured and c.measured:
        if q.dimension != c.dimension:
            return None
        tol = 0.0
        if q.dimension == "time" and q.unit != c.unit:
            if {UNIT_TABLE[q.unit][1], UNIT_TABLE[c.unit][1]} & _CALENDAR_FACTORS:
                tol = CALENDAR_SLACK_DAYS * _DAY  # months and years are not whole days
        return q.base, c.base, tol
    return q.value, c.value, 0.0


def equivalent(claimed: Quantity, stated: Quantity) -> bool:
    """Does the context's ``stated`` quantity make the claim's ``claimed`` one true?

    Same value after units and scale words (72 hours = 3 days, 1.5 million =
    1,500,000, a quarter = 25%); a hedged claim within its tolerance: "about" +/-10%,
    "nearly"/"almost" up to 10% below, "just over" up to 10% above, "over"/"at least"
    any value above, "under"/"up to"/"within" any value below. Names and years
    (``kind`` other than ``"quantity"``) match the same number only.

    Example:
        >>> a, = extract_quantities("nearly 40%"); b, = extract_quantities("39.6%")
        >>> equivalent(a, b), equivalent(b, a)
        (True, False)
    """
    if claimed.kind != "quantity" or stated.kind != "quantity":
        if claimed.kind == "quantity" and claimed.dimension != stated.dimension:
            return False  # "2023%" or "4411 items" is not stated by a year or an ID
        return bool(claimed.number) and claimed.number == stated.number
    pair = _comparable(claimed, stated)
    if pair is None:
        return False
    if not claimed.number and not claimed.hedge and claimed.dimension == "percent":
        return abs(pair[0] - pair[1]) <= 0.5  # "two thirds" = 66.7%, "a third" = 33%
    return _within(claimed, pair[1], pair[0], pair[2], stated_hedge=stated.hedge)


def _supported(q: Quantity, have: tuple[Quantity, ...], have_numbers: frozenset[str]) -> bool:
    if q.number and q.number in have_numbers and not (q.hedge or q.measured):
        # an amount ("4411 items", "2023%") is not stated by an ID or a year that
        # happens to be the same number ("Order #4411", "in 2023")
        return not (q.kind == "quantity" and q.dimension) or any(
            c.number == q.number and (c.kind not in ("id", "year") or c.dimension == q.dimension)
            for c in have
        )
    return any(equivalent(q, c) for c in have)


def quantity_support_mask(claims: list[str], chunks: list[str]) -> np.ndarray:
    """``mask[i, j]`` is True unless claim ``i`` states a quantity that chunk ``j`` does not
    state in an equivalent form (see :func:`equivalent`).

    Example:
        >>> quantity_support_mask(["It ships within three days."],
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
            share = len(words & said) / len(words) if words else 1.0
            if share >= MISMATCH_MIN_SHARE and any(_differs(q, have) for q in qs):
                mask[i, j] = max(share, 1e-3)
    return mask


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


def _differs(q: Quantity, have: tuple[Quantity, ...]) -> bool:
    same = [c for c in have if c.kind == "quantity" and c.dimension == q.dimension]
    if not same:
        return False
    # "300 employees in Germany and 500 in France" states 500 too, without the noun
    if any(c.kind == "quantity" and equivalent(q, c) for c in have):
        return False
    for c in same:
        if c.hedge:  # the context is itself vague: only a clear gap counts
            lo, hi = c.value * (1 - APPROX_TOLERANCE), c.value * (1 + APPROX_TOLERANCE)
            if lo <= q.value <= hi:
                return False
    return True
