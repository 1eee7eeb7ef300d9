"""Statements and records: how structured data reads as sentences, and block titles."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A record with more fields than this gets no whole-record statement (only per field):
#: a long premise is where a small NLI model is least reliable.
MAX_RECORD_FIELDS = 8
#: Longest title (characters) taken from the label before a block.
_MAX_TITLE_CHARS = 100


@dataclass(frozen=True)
class Statement:
    """One sentence read from structured data; ``source[start:end]`` is where it sits.

    ``part`` marks a statement about one field of a record that also has a whole-record
    statement: chunking scores it alone but does not put it in windows twice.
    """

    text: str
    start: int
    end: int
    part: bool = False


@dataclass(frozen=True)
class StructuredBlock:
    """A block of structured data: ``kind`` is ``"json"``, ``"table"``, ``"html"``,
    ``"csv"`` or ``"keyvalue"``; ``source[start:end]`` covers it and its title."""

    kind: str
    start: int
    end: int
    statements: tuple[Statement, ...]


_PERIOD_RE = re.compile(
    r"(?:FY|CY)?\s?(?:1[89]|20)\d\d(?:[-/ ]?(?:Q[1-4]|H[12]))?|(?:Q[1-4]|H[12])[ -/]?(?:FY)?"
    r"(?:1[89]|20)?\d\d|(?:1[89]|20)\d\d-\d\d(?:-\d\d)?",
    re.IGNORECASE,
)
_CAMEL_RE = re.compile(r"(?<=[a-z])(?=[A-Z])")

_CURRENCY = {
    "usd": "$",
    "us$": "$",
    "$": "$",
    "dollars": "$",
    "eur": "\u20ac",
    "\u20ac": "\u20ac",
    "euros": "\u20ac",
    "gbp": "\u00a3",
    "\u00a3": "\u00a3",
    "jpy": "\u00a5",
    "\u00a5": "\u00a5",
}
_SCALE = {
    "k": "thousand",
    "thousand": "thousand",
    "thousands": "thousand",
    "000s": "thousand",
    "m": "million",
    "mn": "million",
    "mm": "million",
    "mln": "million",
    "million": "million",
    "millions": "million",
    "b": "billion",
    "bn": "billion",
    "billion": "billion",
    "billions": "billion",
    "tn": "trillion",
    "trillion": "trillion",
    "trillions": "trillion",
}
_UNIT_PAREN_RE = re.compile(r"\s*[(\[]([^()\[\]]{1,30})[)\]]\s*$")
NUMBER_VALUE_RE = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class ValueFormat:
    """How values of a block read: "$" + value + " billion" + "%"."""

    prefix: str = ""
    suffix: str = ""

    def apply(self, value: str) -> str:
        if not NUMBER_VALUE_RE.fullmatch(value.strip()):
            return value
        return f"{self.prefix}{value.strip()}{self.suffix}"


def split_title(title: str) -> tuple[str, ValueFormat]:
    """ "AAPL revenue (USD bn)" -> ("AAPL revenue", ValueFormat("$", " billion"))."""
    m = _UNIT_PAREN_RE.search(title)
    if not m:
        return title, ValueFormat()
    prefix, scale, rest = "", "", []
    for tok in re.split(r"[\s,/]+", m.group(1).strip()):
        low = tok.lower()
        if not low:
            continue
        if low in _CURRENCY and not prefix:
            prefix = _CURRENCY[low]
        elif low in _SCALE and not scale:
            scale = _SCALE[low]
        elif low in ("%", "percent", "pct"):
            rest.append("%")
        elif low.isalpha() and len(low) > 2 and not rest:
            rest.append(" " + tok)  # a unit word: "(hours)" -> "72 hours"
        else:
            return title, ValueFormat()  # something we do not understand: keep the brackets
    suffix = (" " + scale if scale else "") + "".join(rest)
    if not prefix and not suffix:
        return title, ValueFormat()
    return title[: m.start()].rstrip(), ValueFormat(prefix, suffix)


def humanise_key(key: str) -> str:
    """'annual_fee' / 'annualFee' / 'Annual fee' -> 'annual fee' (names keep their case)."""
    key = _CAMEL_RE.sub(" ", key.replace("_", " ").replace("-", " ") if " " not in key else key)
    key = " ".join(key.split())
    if key[:1].isupper() and not key[1:2].isupper():
        key = key[0].lower() + key[1:]
    return key


def is_period(key: str) -> bool:
    return bool(_PERIOD_RE.fullmatch(key.strip()))


_WHOLE_NUMBER_RE = re.compile(r"\d{1,3}(?:,\d{3})*|\d+")
#: Plural field names whose values are amounts, scores or dates, not counts of the thing.
_NOT_COUNTED = frozenset(
    "fees costs prices assets earnings savings revenues expenses sales profits losses "
    "ratings scores series years rates points goals totals sums amounts".split()
)


def _counted(key: str, value: str) -> bool:
    """A bare number under a plural noun ("lounge visits", "employees") reads as a count:
    "4 lounge visits", as a sentence would say it (and as the number check reads it)."""
    last = humanise_key(key).split()[-1:] or [""]
    word = last[0].lower()
    return (
        bool(_WHOLE_NUMBER_RE.fullmatch(value.strip()))
        and word not in _NOT_COUNTED
        and len(word) > 3
        and word.isalpha()
        and word.endswith("s")
        and not word.endswith(("ss", "us", "is"))
    )


def _field(key: str, value: str) -> str:
    if is_period(key):
        return f"{value} in {key}"
    if _counted(key, value):
        return f"{value} {humanise_key(key)}"
    return f"{humanise_key(key)} {value}"


def join_title(title: str, text: str) -> str:
    return f"{title}: {text}" if title else text[:1].upper() + text[1:]


def sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def record_statements(
    title: str,
    fields: list[tuple[str, str, int, int]],
    start: int,
    end: int,
    *,
    unit: ValueFormat = ValueFormat(),  # noqa: B008 - frozen
) -> list[Statement]:
    """Statements of one record: ``fields`` are ``(key, value, start, end)``."""
    fields = [(k, unit.apply(v), s, e) for k, v, s, e in fields if v.strip()]
    if not fields:
        return []
    if len(fields) == 1:  # the statement names the record too: it spans the whole record
        k, v, _, _ = fields[0]
        return [Statement(sentence(_one_field(title, k, v)), start, end)]
    out: list[Statement] = []
    if len(fields) <= MAX_RECORD_FIELDS:
        body = "; ".join(_field(k, v) for k, v, _, _ in fields)
        out.append(Statement(sentence(join_title(title, body)), start, end))
    part = bool(out)
    for k, v, s, e in fields:
        out.append(Statement(sentence(_one_field(title, k, v)), s, e, part=part))
    return out


def _one_field(title: str, key: str, value: str) -> str:
    if is_period(key) or _counted(key, value):
        return join_title(title, _field(key, value))
    if title:
        return f"{title}, {humanise_key(key)}: {value}"
    return f"{key[:1].upper()}{key[1:]}: {value}"


def join_parts(a: str, b: str) -> str:
    return f"{a} {b}".strip() if a and b else (a or b)


_SENTENCE_END_RE = re.compile(r"[.!?][\"')\]]*\s+")
_LABEL_TAIL_RE = re.compile(r"[\s:=\-\u2013\u2014]*$")
_MD_DECOR_RE = re.compile(r"^[\s>#*_\-+\u2022]*|[\s*_]*$")


def _clean_label(label: str) -> str:
    label = " ".join(re.sub(r"<[^>]*>", " ", label).split())  # HTML tags around a title
    label = _MD_DECOR_RE.sub("", label)
    label = _LABEL_TAIL_RE.sub("", label)
    label = _MD_DECOR_RE.sub("", label)
    return label if len(label) <= _MAX_TITLE_CHARS and any(c.isalnum() for c in label) else ""


def title_before(text: str, pos: int) -> tuple[str, int]:
    """The label before ``pos`` on its line, or the label line above; and where it starts.

    Returns ``("", pos)`` when there is none.
    """
    line_start = text.rfind("\n", 0, pos) + 1
    head = text[line_start:pos]
    if head.strip():
        ends = list(_SENTENCE_END_RE.finditer(head))
        cut = ends[-1].end() if ends else 0
        label = _clean_label(head[cut:])
        if label:
            return label, line_start + cut + (len(head[cut:]) - len(head[cut:].lstrip()))
        return "", pos
    # the line above: a heading, or a short label ending in ":" or without punctuation;
    # across one blank line, a heading only
    prev_end = line_start - 1
    while prev_end > 0 and text[prev_end - 1] in " \t\r\n":
        prev_end -= 1
    if prev_end <= 0:
        return "", pos
    prev_start = text.rfind("\n", 0, prev_end) + 1
    line = text[prev_start:prev_end]
    gap = text[prev_end:line_start].count("\n")
    stripped = line.strip()
    if not stripped or gap > 2:
        return "", pos
    is_heading = stripped.startswith("#") or (
        stripped.startswith(("**", "__")) and stripped.rstrip(":").endswith(("**", "__"))
    )
    short_label = len(stripped.split()) <= 8 and not stripped.endswith((".", "!", "?", "|"))
    if is_heading or (gap == 1 and (short_label or stripped.endswith(":"))):
        label = _clean_label(stripped)
        if label:
            return label, prev_start + (len(line) - len(line.lstrip()))
    return "", pos
