"""Structured data inside a text, read as short sentences an NLI model understands.

Retrieved contexts often hold data rather than prose: a JSON object pasted after a
label, a Markdown or HTML table, a CSV block, a run of ``key: value`` lines. An NLI
model trained on sentences reads ``{"2022": 1.31, "2023": 1.81}`` poorly; it reads
"TSLA deliveries: 1.31 million in 2022; 1.81 million in 2023." well. This module finds
such blocks and *linearises* them into :class:`Statement` objects, each with the
character span of the original text it was read from, so evidence still points at the
real JSON or table.

Rules (the same for a context and for an answer):

* **JSON** objects and arrays (parsed by :mod:`json`; a block that does not parse is
  left as text). The label before it on its line ("AAPL revenue (USD bn): {...}"), or
  a line ending in ":" just above, is the *title*. An object of scalars is a
  *record*: one statement for the whole record and, when it has several fields, one
  per field. Nested objects extend the title with their key; arrays of objects are
  records each; arrays of scalars are one list statement.
* **Tables**: Markdown pipe tables (a header row, then a ``|---|`` separator row),
  HTML ``<table>`` (parsed by :mod:`html.parser`) and CSV / TSV blocks (at least a
  header and two rows with the same number of fields, parsed by :mod:`csv`). Each
  data row is a record whose fields are named by the header; the header and the
  separator rows are never statements of their own.
* ``key: value`` **lines**: two or more consecutive short ``key: value`` lines (a
  key of at most five words, a short value) form one record, titled by the heading
  or label line above them.

How a record reads: ``"{title}: {field} {value}; {field} {value}."``; a field whose
name is a year or a period ("2023", "Q3 2024", "FY2023") reads as ``"{value} in
{field}"``. A unit in the title's brackets ("(USD bn)", "(millions)", "(%)") moves to
the values: ``"AAPL revenue: $383.3 billion in 2023."``. One field alone reads
``"{title}, {field}: {value}."``.

Example:
    >>> text = 'TSLA deliveries (millions): {"2022": 1.31, "2023": 1.81}'
    >>> [s.text for s in structured_statements(text)]  # doctest: +NORMALIZE_WHITESPACE
    ['TSLA deliveries: 1.31 million in 2022; 1.81 million in 2023.',
     'TSLA deliveries: 1.31 million in 2022.', 'TSLA deliveries: 1.81 million in 2023.']
    >>> linearise("| Tier | Annual fee | Lounge visits |\\n|---|---|---|\\n| Gold | $120 | 4 |")
    'Tier Gold: annual fee $120; lounge visits 4.'
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from html.parser import HTMLParser

__all__ = [
    "MAX_RECORD_FIELDS",
    "Statement",
    "StructuredBlock",
    "linearise",
    "structured_blocks",
    "structured_statements",
]

#: A record with more fields than this gets no whole-record statement (only per field):
#: a long premise is where a small NLI model is least reliable.
MAX_RECORD_FIELDS = 8
#: Longest title (characters) taken from the label before a block.
_MAX_TITLE_CHARS = 100
#: ``key: value`` lines: longest key (words) and value (characters).
_KV_MAX_KEY_WORDS = 5
_KV_MAX_VALUE_CHARS = 80


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


# --------------------------------------------------------------------------- public API


@lru_cache(maxsize=4096)
def structured_blocks(text: str) -> tuple[StructuredBlock, ...]:
    """The structured blocks of ``text``, sorted and disjoint (cached per text).

    Malformed JSON, a table without a separator row, a single ``key: value`` line:
    none of these is a block; the text is left as it is.

    Example:
        >>> [b.kind for b in structured_blocks('Plain text. Data: {"a": 1, "b": 2}')]
        ['json']
        >>> structured_blocks('Not JSON: {"a": 1,}')
        ()
    """
    if not _maybe_structured(text):
        return ()
    found: list[StructuredBlock] = []
    for finder in (_html_blocks, _markdown_tables, _json_blocks, _csv_blocks, _kv_blocks):
        taken = [(b.start, b.end) for b in found]
        found.extend(b for b in finder(text) if b.statements and not _overlaps(b, taken))
    return tuple(sorted(found, key=lambda b: b.start))


def structured_statements(text: str) -> list[Statement]:
    """Every statement of every structured block of ``text``, in order."""
    return [s for b in structured_blocks(text) for s in b.statements]


def linearise(text: str) -> str:
    """``text`` with each structured block replaced by its whole-record statements.

    The form the scorer's NLI model reads structured data in; use it to build training
    or test premises from JSON or tables. Text outside blocks is kept as it is.

    Example:
        >>> linearise('AAPL revenue (USD bn): {"2022": 394.3, "2023": 383.3}')
        'AAPL revenue: $394.3 billion in 2022; $383.3 billion in 2023.'
        >>> linearise("Gold tier\\nAnnual fee: $120\\nLounge visits: 4")
        'Gold tier: annual fee $120; lounge visits 4.'
    """
    out: list[str] = []
    pos = 0
    for block in structured_blocks(text):
        out.append(text[pos : block.start])
        out.append(" ".join(s.text for s in block.statements if not s.part))
        pos = block.end
    out.append(text[pos:])
    return "".join(out)


# --------------------------------------------------------------------------- records


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
_NUMBER_VALUE_RE = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True)
class _Unit:
    """How values of a block read: "$" + value + " billion" + "%"."""

    prefix: str = ""
    suffix: str = ""

    def apply(self, value: str) -> str:
        if not _NUMBER_VALUE_RE.fullmatch(value.strip()):
            return value
        return f"{self.prefix}{value.strip()}{self.suffix}"


def _split_title(title: str) -> tuple[str, _Unit]:
    """ "AAPL revenue (USD bn)" -> ("AAPL revenue", _Unit("$", " billion"))."""
    m = _UNIT_PAREN_RE.search(title)
    if not m:
        return title, _Unit()
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
            return title, _Unit()  # something we do not understand: keep the brackets
    suffix = (" " + scale if scale else "") + "".join(rest)
    if not prefix and not suffix:
        return title, _Unit()
    return title[: m.start()].rstrip(), _Unit(prefix, suffix)


def _humanise_key(key: str) -> str:
    """'annual_fee' / 'annualFee' / 'Annual fee' -> 'annual fee' (names keep their case)."""
    key = _CAMEL_RE.sub(" ", key.replace("_", " ").replace("-", " ") if " " not in key else key)
    key = " ".join(key.split())
    if key[:1].isupper() and not key[1:2].isupper():
        key = key[0].lower() + key[1:]
    return key


def _is_period(key: str) -> bool:
    return bool(_PERIOD_RE.fullmatch(key.strip()))


def _field(key: str, value: str) -> str:
    return f"{value} in {key}" if _is_period(key) else f"{_humanise_key(key)} {value}"


def _join_title(title: str, text: str) -> str:
    return f"{title}: {text}" if title else text[:1].upper() + text[1:]


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _record(
    title: str,
    fields: list[tuple[str, str, int, int]],
    start: int,
    end: int,
    *,
    unit: _Unit = _Unit(),  # noqa: B008 - frozen
) -> list[Statement]:
    """Statements of one record: ``fields`` are ``(key, value, start, end)``."""
    fields = [(k, unit.apply(v), s, e) for k, v, s, e in fields if v.strip()]
    if not fields:
        return []
    if len(fields) == 1:
        k, v, s, e = fields[0]
        return [Statement(_sentence(_one_field(title, k, v)), s, e)]
    out: list[Statement] = []
    if len(fields) <= MAX_RECORD_FIELDS:
        body = "; ".join(_field(k, v) for k, v, _, _ in fields)
        out.append(Statement(_sentence(_join_title(title, body)), start, end))
    part = bool(out)
    for k, v, s, e in fields:
        out.append(Statement(_sentence(_one_field(title, k, v)), s, e, part=part))
    return out


def _one_field(title: str, key: str, value: str) -> str:
    if _is_period(key):
        return _join_title(title, f"{value} in {key}")
    if title:
        return f"{title}, {_humanise_key(key)}: {value}"
    return f"{key[:1].upper()}{key[1:]}: {value}"


# --------------------------------------------------------------------------- titles


_SENTENCE_END_RE = re.compile(r"[.!?][\"')\]]*\s+")
_LABEL_TAIL_RE = re.compile(r"[\s:=\-\u2013\u2014]*$")
_MD_DECOR_RE = re.compile(r"^[\s>#*_\-+\u2022]*|[\s*_]*$")


def _clean_label(label: str) -> str:
    label = " ".join(re.sub(r"<[^>]*>", " ", label).split())  # HTML tags around a title
    label = _MD_DECOR_RE.sub("", label)
    label = _LABEL_TAIL_RE.sub("", label)
    label = _MD_DECOR_RE.sub("", label)
    return label if len(label) <= _MAX_TITLE_CHARS and any(c.isalnum() for c in label) else ""


def _title_before(text: str, pos: int) -> tuple[str, int]:
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


# --------------------------------------------------------------------------- JSON


_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


@dataclass
class _Node:
    value: object  # dict / list / scalar as parsed
    start: int
    end: int
    members: list[tuple[str, _Node, int]]  # (key, node, key start) for objects; ("", node) lists


def _walk(text: str, pos: int) -> _Node:
    """Spans of every member of the (valid) JSON value at ``pos``, using json's scanner."""
    ch = text[pos]
    if ch == "{":
        members: list[tuple[str, _Node, int]] = []
        i = _skip(text, pos + 1)
        if text[i] == "}":
            return _Node({}, pos, i + 1, [])
        while True:
            key_start = i
            key, i = json.decoder.scanstring(text, i + 1)
            i = _skip(text, _skip(text, i) + 1)  # past ':'
            node = _walk(text, i)
            members.append((key, node, key_start))
            i = _skip(text, node.end)
            if text[i] == "}":
                return _Node({k: n.value for k, n, _ in members}, pos, i + 1, members)
            i = _skip(text, i + 1)  # past ','
    if ch == "[":
        items: list[tuple[str, _Node, int]] = []
        i = _skip(text, pos + 1)
        if text[i] == "]":
            return _Node([], pos, i + 1, [])
        while True:
            node = _walk(text, i)
            items.append(("", node, node.start))
            i = _skip(text, node.end)
            if text[i] == "]":
                return _Node([n.value for _, n, _ in items], pos, i + 1, items)
            i = _skip(text, i + 1)
    value, end = _DECODER.raw_decode(text, pos)
    return _Node(value, pos, end, [])


def _skip(text: str, i: int) -> int:
    while text[i] in _WS:
        i += 1
    return i


def _scalar_text(text: str, node: _Node) -> str:
    v = node.value
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return ""
    if isinstance(v, (int, float)):
        return text[node.start : node.end]  # as written: "391.0", not 391.0's repr
    return str(v).strip()


def _is_scalar(node: _Node) -> bool:
    return not isinstance(node.value, (dict, list))


def _json_statements(
    text: str, node: _Node, title: str, start: int, unit: _Unit
) -> list[Statement]:
    if isinstance(node.value, dict):
        scalars = [(k, n, ks) for k, n, ks in node.members if _is_scalar(n)]
        out: list[Statement] = []
        label = _label_field(scalars, text)
        fields = [(k, _scalar_text(text, n), ks, n.end) for k, n, ks in scalars if k != label[0]]
        rec_title = _join_parts(title, label[1])
        out.extend(_record(rec_title, fields, min(start, node.start), node.end, unit=unit))
        for k, n, _ in node.members:
            if not _is_scalar(n):
                sub = _join_parts(rec_title, _humanise_key(k) if not _is_period(k) else k)
                out.extend(_json_statements(text, n, sub, n.start, unit))
        return out
    if isinstance(node.value, list):
        if all(_is_scalar(n) for _, n, _ in node.members):
            values = [_scalar_text(text, n) for _, n, _ in node.members]
            values = [unit.apply(v) for v in values if v]
            if not values:
                return []
            listed = (
                values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]
            )
            return [
                Statement(_sentence(_join_title(title, listed)), min(start, node.start), node.end)
            ]
        out = []
        for _, n, _ in node.members:
            out.extend(_json_statements(text, n, title, n.start, unit))
        return out
    value = unit.apply(_scalar_text(text, node))
    return [Statement(_sentence(_join_title(title, value)), start, node.end)] if value else []


_NAME_KEYS = ("name", "title", "label", "id", "tier", "plan", "product", "item", "type")


def _label_field(scalars: list[tuple[str, _Node, int]], text: str) -> tuple[str, str]:
    """The field that names a record ("name": "Pro"), if any: ``(key, value)``."""
    for k, n, _ in scalars:
        if k.lower() in _NAME_KEYS and isinstance(n.value, str) and n.value.strip():
            return k, n.value.strip()
    return "", ""


def _join_parts(a: str, b: str) -> str:
    return f"{a} {b}".strip() if a and b else (a or b)


def _json_blocks(text: str) -> Iterator[StructuredBlock]:
    i = 0
    n = len(text)
    while i < n:
        i = _next_bracket(text, i)
        if i < 0:
            return
        try:
            value, end = _DECODER.raw_decode(text, i)
        except json.JSONDecodeError as err:
            i = max(i + 1, err.pos)  # malformed: left as text, scanning goes on after it
            continue
        except RecursionError:
            i += 1
            continue
        if not _worth_reading(value):
            i = end
            continue
        title, t_start = _title_before(text, i)
        title, unit = _split_title(title)
        node = _walk(text, i)
        yield StructuredBlock(
            "json", t_start, end, tuple(_json_statements(text, node, title, t_start, unit))
        )
        i = end


def _next_bracket(text: str, i: int) -> int:
    a, b = text.find("{", i), text.find("[", i)
    if a < 0:
        return b
    return a if b < 0 else min(a, b)


def _worth_reading(value: object) -> bool:
    """An object with members, or an array of objects or of at least two strings.

    ``[1]`` and ``[1, 2]`` are citation markers, not data.
    """
    if isinstance(value, dict):
        return bool(value)
    if isinstance(value, list):
        return (
            any(isinstance(v, dict) and v for v in value)
            or sum(isinstance(v, str) for v in value) >= 2
        )
    return False


# --------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class _Cell:
    text: str
    start: int
    end: int


def _table_statements(
    rows: list[list[_Cell]], row_spans: list[tuple[int, int]], title: str
) -> list[Statement]:
    """Records from a header row and data rows (cells with spans)."""
    header, data = rows[0], rows[1:]
    title, unit = _split_title(title)
    columns = [_split_title(c.text) for c in header]
    names = [name for name, _ in columns]
    out: list[Statement] = []
    for cells, (rs, re_) in zip(data, row_spans[1:]):
        if not any(c.text for c in cells):
            continue
        first = cells[0]
        label = first.text
        if names and names[0] and label and not _NUMBER_VALUE_RE.fullmatch(label):
            generic = names[0].lower() in ("", "name", "item", "#", "no", "id")
            label = label if generic else f"{names[0]} {label}"
        fields = []
        for (name, col_unit), cell in zip(columns[1:], cells[1:]):
            if cell.text:
                value = (col_unit if col_unit != _Unit() else unit).apply(cell.text)
                fields.append((name or "value", value, cell.start, cell.end))
        rec_title = _join_parts(title, label)
        if fields:
            out.extend(_record(rec_title, fields, rs, re_))
    return out


_PIPE_ROW_RE = re.compile(r"[ \t]*\|.*\|[ \t]*\r?$|[^|\n]*\|[^\n]*")
_SEPARATOR_RE = re.compile(r"[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*(?::?-{3,}:?[ \t]*)?\r?$")


def _lines(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of every line, without the newline."""
    pos = 0
    for line in text.split("\n"):
        yield pos, pos + len(line)
        pos += len(line) + 1


def _pipe_cells(text: str, start: int, end: int) -> list[_Cell]:
    line = text[start:end]
    cells: list[_Cell] = []
    bounds = [i for i, ch in enumerate(line) if ch == "|" and (i == 0 or line[i - 1] != "\\")]
    lead = line[: bounds[0]].strip() if bounds else line
    edges = ([] if not lead else [-1]) + bounds
    if line[bounds[-1] + 1 :].strip():
        edges.append(len(line))
    for a, b in zip(edges, edges[1:]):
        raw = line[a + 1 : b]
        left = len(raw) - len(raw.lstrip())
        value = raw.strip().replace("\\|", "|")
        value = re.sub(r"\*\*|__|`", "", value)
        s = start + a + 1 + left
        cells.append(_Cell(value, s, s + len(raw.strip())))
    return cells


def _markdown_tables(text: str) -> Iterator[StructuredBlock]:
    if "|" not in text or "-" not in text:
        return
    lines = list(_lines(text))
    i = 0
    while i < len(lines) - 1:
        s, e = lines[i]
        ns, ne = lines[i + 1]
        if "|" in text[s:e] and _SEPARATOR_RE.fullmatch(text[ns:ne]):
            header = _pipe_cells(text, s, e)
            rows, spans = [header], [(s, e)]
            j = i + 2
            while j < len(lines):
                rs, re_ = lines[j]
                if "|" not in text[rs:re_] or not text[rs:re_].strip():
                    break
                cells = _pipe_cells(text, rs, re_)
                rows.append(cells)
                spans.append((rs + len(text[rs:re_]) - len(text[rs:re_].lstrip()), re_))
                j += 1
            if len(rows) > 1 and len(header) >= 2:
                title, t_start = _title_before(text, s)
                stmts = _table_statements(rows, spans, title)
                end = spans[-1][1]
                yield StructuredBlock("table", min(t_start, s), end, tuple(stmts))
            i = j
            continue
        i += 1


class _HTMLTables(HTMLParser):
    """Cells of ``<table>`` elements, with their character spans."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text = text
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.tables: list[tuple[int, int, list[list[_Cell]], list[tuple[int, int]]]] = []
        self._depth = 0
        self._rows: list[list[_Cell]] = []
        self._row_spans: list[tuple[int, int]] = []
        self._row: list[_Cell] | None = None
        self._row_start = 0
        self._cell: list[str] | None = None
        self._cell_start = 0
        self._table_start = 0

    def _pos(self) -> int:
        line, col = self.getpos()
        return self._line_starts[line - 1] + col

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "table":
            self._depth += 1
            if self._depth == 1:
                self._rows, self._row_spans, self._table_start = [], [], self._pos()
        elif self._depth == 1 and tag == "tr":
            self._row, self._row_start = [], self._pos()
        elif self._depth == 1 and tag in ("td", "th") and self._row is not None:
            self._close_cell()
            self._cell, self._cell_start = [], self._pos()

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            if self._depth == 1:
                self._close_row()
                end = self._pos() + len("</table>")
                self.tables.append((self._table_start, end, self._rows, self._row_spans))
            self._depth = max(0, self._depth - 1)
        elif self._depth == 1 and tag in ("td", "th"):
            self._close_cell(end=self._pos() + len(tag) + 3)
        elif self._depth == 1 and tag == "tr":
            self._close_row(end=self._pos() + 5)

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def _close_cell(self, end: int | None = None) -> None:
        if self._cell is not None and self._row is not None:
            value = " ".join("".join(self._cell).split())
            self._row.append(_Cell(value, self._cell_start, end or self._pos()))
        self._cell = None

    def _close_row(self, end: int | None = None) -> None:
        self._close_cell()
        if self._row:
            self._rows.append(self._row)
            self._row_spans.append((self._row_start, end or self._row[-1].end))
        self._row = None


def _html_blocks(text: str) -> Iterator[StructuredBlock]:
    if "<table" not in text.lower():
        return
    parser = _HTMLTables(text)
    try:
        parser.feed(text)
        parser.close()
    except Exception:  # noqa: BLE001 - html.parser is lenient; anything odd stays text
        return
    for start, end, rows, spans in parser.tables:
        if len(rows) < 2 or len(rows[0]) < 2:
            continue
        title, t_start = _title_before(text, start)
        stmts = _table_statements(rows, spans, title)
        yield StructuredBlock("html", min(t_start, start), end, tuple(stmts))


_CSV_DELIMITERS = ("\t", ",", ";")


def _csv_blocks(text: str) -> Iterator[StructuredBlock]:
    if "\n" not in text or not any(d in text for d in _CSV_DELIMITERS):
        return
    lines = [(s, e) for s, e in _lines(text)]
    i = 0
    while i < len(lines):
        found = None
        for delim in _CSV_DELIMITERS:
            j = i
            width = _csv_width(text, lines[i], delim)
            if width < 2:
                continue
            while j + 1 < len(lines) and _csv_width(text, lines[j + 1], delim) == width:
                j += 1
            if j - i + 1 >= 3 and _looks_tabular(text, lines[i : j + 1], delim):
                found = (delim, j)
                break
        if not found:
            i += 1
            continue
        delim, j = found
        rows = [_csv_cells(text, s, e, delim) for s, e in lines[i : j + 1]]
        title, t_start = _title_before(text, lines[i][0])
        stmts = _table_statements(rows, lines[i : j + 1], title)
        yield StructuredBlock("csv", min(t_start, lines[i][0]), lines[j][1], tuple(stmts))
        i = j + 1


def _csv_width(text: str, span: tuple[int, int], delim: str) -> int:
    line = text[span[0] : span[1]]
    if delim not in line or "|" in line:
        return 0
    return len(next(csv.reader([line], delimiter=delim)))


def _looks_tabular(text: str, spans: list[tuple[int, int], ...], delim: str) -> bool:
    """Short cells, a header without numbers, a number somewhere below, no prose lines."""
    rows = [next(csv.reader([text[s:e]], delimiter=delim)) for s, e in spans]
    cells = [c.strip() for row in rows for c in row]
    if delim != "\t" and any(len(c) > 40 or len(c.split()) > 6 for c in cells):
        return False
    if any(_NUMBER_VALUE_RE.fullmatch(c.strip().lstrip("$\u20ac\u00a3")) for c in rows[0]):
        return False
    if any(text[s:e].rstrip().endswith((".", "!", "?")) for s, e in spans):
        return False
    return any(any(ch.isdigit() for ch in c) for row in rows[1:] for c in row)


def _csv_cells(text: str, start: int, end: int, delim: str) -> list[_Cell]:
    line = text[start:end]
    cells: list[_Cell] = []
    pos = 0
    for value in next(csv.reader([line], delimiter=delim)):
        raw_at = line.find(value, pos) if value else pos
        if raw_at < 0:
            raw_at = pos
        s = start + raw_at
        cells.append(_Cell(value.strip(), s, s + len(value)))
        nxt = line.find(delim, raw_at + len(value))
        pos = nxt + 1 if nxt >= 0 else len(line)
    return cells


# --------------------------------------------------------------------------- key: value


_KV_RE = re.compile(
    r"[ \t]*(?:[-*+\u2022][ \t]+)?(?:\*\*|__)?(?P<key>[A-Za-z][^:\n*_]{0,60}?)(?:\*\*|__)?[ \t]*"
    r"(?:\*\*|__)?:(?:\*\*|__)?[ \t]+(?P<value>[^\n]+?)[ \t]*\r?$"
)


def _kv_line(text: str, start: int, end: int) -> tuple[str, str, int, int] | None:
    m = _KV_RE.fullmatch(text, start, end)
    if not m:
        return None
    key, value = m.group("key").strip(), m.group("value").strip()
    if len(key.split()) > _KV_MAX_KEY_WORDS or len(value) > _KV_MAX_VALUE_CHARS:
        return None
    if re.search(r"[.!?]\s+\S", value) or value.startswith(("{", "[")):
        return None  # a sentence (or JSON) after the colon, not a value
    if re.match(r"https?$", key, re.I):
        return None
    v_start = m.start("value")
    return key, value.rstrip("."), v_start, v_start + len(value.rstrip("."))


def _kv_blocks(text: str) -> Iterator[StructuredBlock]:
    if ":" not in text or "\n" not in text:
        return
    lines = list(_lines(text))
    i = 0
    while i < len(lines):
        first = _kv_line(text, *lines[i])
        if first is None:
            i += 1
            continue
        fields = [(first, lines[i])]
        j = i + 1
        while j < len(lines) and (kv := _kv_line(text, *lines[j])) is not None:
            fields.append((kv, lines[j]))
            j += 1
        if len(fields) >= 2:
            title, t_start = _title_before(text, lines[i][0])
            title, unit = _split_title(title)
            start = lines[i][0] + len(text[slice(*lines[i])]) - len(text[slice(*lines[i])].lstrip())
            recs = [
                (k, v, ls + (len(text[ls:le]) - len(text[ls:le].lstrip())), le)
                for (k, v, _, _), (ls, le) in fields
            ]
            stmts = _record(title, recs, min(t_start, start), lines[j - 1][1], unit=unit)
            yield StructuredBlock("keyvalue", min(t_start, start), lines[j - 1][1], tuple(stmts))
        i = j


# --------------------------------------------------------------------------- helpers


def _maybe_structured(text: str) -> bool:
    return any(ch in text for ch in "{[|<") or ("\n" in text and any(d in text for d in ":,\t;"))


def _overlaps(block: StructuredBlock, taken: list[tuple[int, int]]) -> bool:
    return any(block.start < e and s < block.end for s, e in taken)
