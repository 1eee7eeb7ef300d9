"""Records that look like JSON but are not: read leniently, every member's span kept.

RAG pipelines paste data as ``MSFT ROE: {"2022": 47.2%, "2023": 38.8%}`` (values with
``%``, ``$`` or units), as Python reprs (``{'2022': 47.2, 'flag': True}``), with bare
keys (``{2022: 47.2}``) or a trailing comma. :mod:`json` rejects all of these, and no
lenient parser keeps the offsets of each member in the original text, which the
evidence spans need; so this small scanner reads them:

* strings in double or single quotes; bare keys and bare values (up to the next
  ``,``, ``}`` or ``]`` on the same line, at most 40 characters, no ``:`` or ``;``
  except in a time such as ``9:30``);
* ``True`` / ``False`` / ``None`` (and ``true`` / ``false`` / ``null``); bare numbers
  are numbers, anything else is a string as written ("47.2%", "$12.5 bn");
* ``:`` or ``=`` between a key and its value; a trailing comma is allowed.

A **CSV fragment**, a header line and one data row (``ticker,year,roe`` then
``MSFT,2023,38.8%``), is too short for the CSV reader's table test (a header and two
rows); :func:`csv_fragment` says when two such lines are one record all the same:
short cells, a header of names (no numbers), a row with a number cell.

The record must end its line (RAG references put one record per line): in the middle
of a sentence ("The config is {'a': 1} today.") it stays text. Anything else (no ``:``
after a key, an unclosed bracket, a value running past the line)
is not a record, and the text is left as it is.

Example:
    >>> node = lenient_walk('{"2022": 47.2%, \\'2023\\': 38.8%,}', 0)
    >>> node.value
    {'2022': '47.2%', '2023': '38.8%'}
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["YEAR_COLUMNS", "csv_fragment", "lenient_walk", "year_column"]

#: Column names whose cells are the period of the row's other values, not values.
YEAR_COLUMNS = frozenset({"year", "fiscal year", "fy", "period", "quarter", "fiscal_year"})
_CELL_NUMBER_RE = re.compile(r"[-+]?[$\u20ac\u00a3]?\d[\d,]*(?:\.\d+)?\s?(?:%|[a-zA-Z]{1,3})?")
_YEAR_RE = re.compile(r"(?:1[89]|20)\d\d")

_MAX_BARE = 40
_MAX_CHARS = 5000
_WS = " \t\r\n"
_NUMBER_RE = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None, "none": None}
_TIME_RE = re.compile(r"\d{1,2}:\d\d")


@dataclass
class LenientNode:
    """What :func:`nli_faith.text.structured.jsondata` reads: a value and its spans."""

    value: object
    start: int
    end: int
    members: list[tuple[str, LenientNode, int]]


def csv_fragment(rows: list[list[str]]) -> bool:
    """True when a header and one data row (cells as read by :mod:`csv`) are a record.

    Every cell at most three words and 30 characters; the header's cells are names
    (no digit but in a bracketed unit, none empty), the row has as many cells and at
    least one is a number ("38.8%", "$59.90", "12 kg"): prose split at its commas is
    not.

    Example:
        >>> csv_fragment([["ticker", "year", "roe"], ["MSFT", "2023", "38.8%"]])
        True
        >>> csv_fragment([["Hello", "world"], ["On 3 May", "we met"]])
        False
    """
    if len(rows) != 2 or len(rows[0]) < 2 or len(rows[0]) != len(rows[1]):
        return False
    cells = [c.strip() for row in rows for c in row]
    if any(len(c) > 30 or len(c.split()) > 3 for c in cells):
        return False
    header = [re.sub(r"\([^)]*\)", "", c).strip() for c in rows[0]]
    if any(not c or any(ch.isdigit() for ch in c) for c in header):
        return False
    return any(_CELL_NUMBER_RE.fullmatch(c.strip()) for c in rows[1])


def year_column(header: list[str], rows: list[list[str]]) -> int | None:
    """The index of a column (not the first) that holds each row's year: named as one
    ("year", "fiscal year", "period") with a year or period in every row. A year in
    such a column is the period of the row's values ("roe 38.8% in 2023"), never a
    value of its own.

    Example:
        >>> year_column(["ticker", "year", "roe"], [["MSFT", "2023", "38.8%"]])
        1
        >>> year_column(["order", "items", "total"], [["2023", "3", "$5"]]) is None
        True
    """
    for k, name in enumerate(header[1:], start=1):
        if name.strip().lower() in YEAR_COLUMNS and all(
            len(r) > k and (_YEAR_RE.fullmatch(r[k].strip()) or r[k].strip()[:1].isalpha())
            for r in rows
        ):
            return k
    return None


class _NotARecord(Exception):
    pass


def lenient_walk(text: str, pos: int) -> LenientNode | None:
    """The record at ``pos`` (a ``{`` or ``[``), or None if it is not one."""
    try:
        node = _Scanner(text, pos).value(pos, depth=0)
    except (_NotARecord, IndexError):
        return None
    if not isinstance(node.value, (dict, list)) or not node.value:
        return None
    line_end = text.find("\n", node.end)
    rest = text[node.end : line_end if line_end >= 0 else None]
    return node if not rest.strip(" \t\r.,;") else None  # a record ends its line


class _Scanner:
    def __init__(self, text: str, start: int) -> None:
        self.text = text
        self.limit = min(len(text), start + _MAX_CHARS)

    def skip(self, i: int) -> int:
        while i < self.limit and self.text[i] in _WS:
            i += 1
        if i >= self.limit:
            raise _NotARecord
        return i

    def value(self, i: int, depth: int) -> LenientNode:
        if depth > 20:
            raise _NotARecord
        ch = self.text[i]
        if ch == "{":
            return self.container(i, depth, "}")
        if ch == "[":
            return self.container(i, depth, "]")
        if ch in "\"'":
            s, end = self.string(i)
            return LenientNode(s, i, end, [])
        return self.bare(i, key=False)

    def container(self, i: int, depth: int, close: str) -> LenientNode:
        members: list[tuple[str, LenientNode, int]] = []
        j = self.skip(i + 1)
        while self.text[j] != close:
            k_start = j
            key = ""
            if close == "}":
                if self.text[j] in "\"'":
                    key, j = self.string(j)
                else:
                    node = self.bare(j, key=True)
                    key, j = str(node.value), node.end
                j = self.skip(j)
                if self.text[j] not in ":=":
                    raise _NotARecord
                j = self.skip(j + 1)
            node = self.value(j, depth + 1)
            members.append((key, node, k_start if close == "}" else node.start))
            j = self.skip(node.end)
            if self.text[j] == ",":
                j = self.skip(j + 1)
            elif self.text[j] != close:
                raise _NotARecord
        end = j + 1
        if close == "}":
            value: object = {k: n.value for k, n, _ in members}
        else:
            value = [n.value for _, n, _ in members]
        return LenientNode(value, i, end, members)

    def string(self, i: int) -> tuple[str, int]:
        quote = self.text[i]
        j = i + 1
        out = []
        while self.text[j] != quote:
            if self.text[j] == "\n":
                raise _NotARecord
            if self.text[j] == "\\":
                j += 1
            out.append(self.text[j])
            j += 1
        return "".join(out), j + 1

    def bare(self, i: int, *, key: bool) -> LenientNode:
        stops = ",}]\n:=" if key else ",}]\n"
        j = i
        while j < self.limit and self.text[j] not in stops:
            j += 1
        raw = self.text[i:j]
        word = raw.strip()
        if not word or len(word) > _MAX_BARE or any(c in word for c in "{[\"';"):
            raise _NotARecord
        if not key and (":" in _TIME_RE.sub("", word) or any(c in word for c in "<>=*^|\\")):
            raise _NotARecord  # an expression or code, not a value
        end = i + len(raw.rstrip())
        if key:
            return LenientNode(word, i, end, [])
        if word.lower() in _LITERALS:
            return LenientNode(_LITERALS[word.lower()], i, end, [])
        if _NUMBER_RE.fullmatch(word):
            return LenientNode(
                float(word) if any(c in word for c in ".eE") else int(word), i, end, []
            )
        return LenientNode(word, i, end, [])
