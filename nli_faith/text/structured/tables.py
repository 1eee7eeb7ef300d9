"""Markdown pipe tables, HTML ``<table>`` (:mod:`html.parser`) and CSV/TSV blocks (:mod:`csv`)."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser

from nli_faith.text.structured.lenient import csv_fragment, year_column
from nli_faith.text.structured.records import (
    NUMBER_VALUE_RE,
    Statement,
    StructuredBlock,
    ValueFormat,
    humanise_key,
    is_period,
    join_parts,
    record_statements,
    split_title,
    title_before,
)


@dataclass(frozen=True)
class _Cell:
    text: str
    start: int
    end: int


#: A first column of identifiers ("order_id", "Invoice no", "SKU"): its numbers name rows.
_ID_COLUMN_RE = re.compile(r"(?:\bid|_id|Id|ID|\bno\.?|\bnumber|\bcode|#|\bsku)$", re.IGNORECASE)


def _table_statements(
    rows: list[list[_Cell]], row_spans: list[tuple[int, int]], title: str
) -> list[Statement]:
    """Records from a header row and data rows (cells with spans)."""
    header, data = rows[0], rows[1:]
    title, unit = split_title(title)
    columns = [split_title(c.text) for c in header]
    names = [name for name, _ in columns]
    years = year_column([c.text for c in header], [[c.text for c in r] for r in data])
    out: list[Statement] = []
    for cells, (rs, re_) in zip(data, row_spans[1:]):
        if not any(c.text for c in cells):
            continue
        first = cells[0]
        label = first.text
        period = label if is_period(label) else ""
        if years is not None:  # "MSFT,2023,38.8%" under "ticker,year,roe": "roe 38.8% in 2023"
            period = cells[years].text if years < len(cells) else ""
        if period and years is None:  # "| 2023 | 383.3 |": the row is a year, "in 2023"
            label = ""
        elif label and NUMBER_VALUE_RE.fullmatch(label) and _ID_COLUMN_RE.search(names[0]):
            label = f"{humanise_key(names[0])} {label}"  # "order id 4411", never a count
        elif names and names[0] and label and not NUMBER_VALUE_RE.fullmatch(label):
            generic = names[0].lower() in ("", "name", "item", "#", "no", "id")
            label = label if generic else f"{names[0]} {label}"
        fields = []
        for k, ((name, col_unit), cell) in enumerate(zip(columns[1:], cells[1:]), start=1):
            if cell.text and k != years:
                value = (col_unit if col_unit != ValueFormat() else unit).apply(cell.text)
                value = f"{value} in {period}" if period else value
                fields.append((name or "value", value, cell.start, cell.end))
        rec_title = join_parts(title, label)
        if fields:
            out.extend(record_statements(rec_title, fields, rs, re_))
    return out


_SEPARATOR_RE = re.compile(r"[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*(?::?-{3,}:?[ \t]*)?\r?$")


def line_spans(text: str) -> Iterator[tuple[int, int]]:
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


def markdown_tables(text: str) -> Iterator[StructuredBlock]:
    if "|" not in text or "-" not in text:
        return
    lines = list(line_spans(text))
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
                title, t_start = title_before(text, s)
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


def html_blocks(text: str) -> Iterator[StructuredBlock]:
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
        title, t_start = title_before(text, start)
        stmts = _table_statements(rows, spans, title)
        yield StructuredBlock("html", min(t_start, start), end, tuple(stmts))


_CSV_DELIMITERS = ("\t", ",", ";")


def csv_blocks(text: str) -> Iterator[StructuredBlock]:
    if "\n" not in text or not any(d in text for d in _CSV_DELIMITERS):
        return
    lines = [(s, e) for s, e in line_spans(text)]
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
            n = j - i + 1
            if (n >= 3 and _looks_tabular(text, lines[i : j + 1], delim)) or (
                n == 2 and _fragment(text, lines[i : j + 1], delim)
            ):
                found = (delim, j)
                break
        if not found:
            i += 1
            continue
        delim, j = found
        rows = [_csv_cells(text, s, e, delim) for s, e in lines[i : j + 1]]
        title, t_start = title_before(text, lines[i][0])
        stmts = _table_statements(rows, lines[i : j + 1], title)
        yield StructuredBlock("csv", min(t_start, lines[i][0]), lines[j][1], tuple(stmts))
        i = j + 1


def _fragment(text: str, spans: list[tuple[int, int]], delim: str) -> bool:
    """A header and one row that read as one record (:func:`.lenient.csv_fragment`)."""
    rows = [next(csv.reader([text[s:e].replace("\r", " ")], delimiter=delim)) for s, e in spans]
    ends = any(text[s:e].rstrip().endswith((".", "!", "?")) for s, e in spans)
    return not ends and csv_fragment(rows)


def _csv_width(text: str, span: tuple[int, int], delim: str) -> int:
    line = text[span[0] : span[1]]
    if delim not in line or "|" in line:
        return 0
    return len(next(csv.reader([line.replace("\r", " ")], delimiter=delim)))


def _looks_tabular(text: str, spans: list[tuple[int, int]], delim: str) -> bool:
    """Short cells, a header without numbers, a number somewhere below, no prose lines."""
    rows = [next(csv.reader([text[s:e].replace("\r", " ")], delimiter=delim)) for s, e in spans]
    cells = [c.strip() for row in rows for c in row]
    if delim != "\t" and any(len(c) > 40 or len(c.split()) > 6 for c in cells):
        return False
    if any(NUMBER_VALUE_RE.fullmatch(c.strip().lstrip("$\u20ac\u00a3")) for c in rows[0]):
        return False
    if any(text[s:e].rstrip().endswith((".", "!", "?")) for s, e in spans):
        return False
    return any(any(ch.isdigit() for ch in c) for row in rows[1:] for c in row)


def _csv_cells(text: str, start: int, end: int, delim: str) -> list[_Cell]:
    line = text[start:end]
    cells: list[_Cell] = []
    pos = 0
    for value in next(csv.reader([line.replace("\r", " ")], delimiter=delim)):
        raw_at = line.find(value, pos) if value else pos
        if raw_at < 0:
            raw_at = pos
        s = start + raw_at
        cells.append(_Cell(value.strip(), s, s + len(value)))
        nxt = line.find(delim, raw_at + len(value))
        pos = nxt + 1 if nxt >= 0 else len(line)
    return cells
