"""Structured data inside a text, read as short sentences an NLI model understands.

Retrieved contexts often hold data rather than prose: a JSON object pasted after a
label, a Markdown or HTML table, a CSV block, a run of ``key: value`` lines. An NLI
model trained on sentences reads ``{"2022": 1.31, "2023": 1.81}`` poorly; it reads
"TSLA deliveries: 1.31 million in 2022; 1.81 million in 2023." well. This module finds
such blocks and *linearises* them into :class:`Statement` objects, each with the
character span of the original text it was read from, so evidence still points at the
real JSON or table.

Rules (the same for a context and for an answer):

* **JSON** objects and arrays (parsed by :mod:`json`, or, ending a line, leniently:
  values with units such as ``47.2%``, Python reprs, bare keys, a trailing comma; see
  :mod:`.lenient`; a block that does not parse either way is left as text). The
  label before it on its line ("AAPL revenue (USD bn): {...}"), or
  a line ending in ":" just above, is the *title*. An object of scalars is a
  *record*: one statement for the whole record and, when it has several fields, one
  per field. Nested objects extend the title with their key; arrays of objects are
  records each; arrays of scalars are one list statement.
* **Tables**: Markdown pipe tables (a header row, then a ``|---|`` separator row),
  HTML ``<table>`` (parsed by :mod:`html.parser`) and CSV / TSV blocks (at least a
  header and two rows with the same number of fields, parsed by :mod:`csv`, or a
  header and one row that :func:`.lenient.csv_fragment` accepts). Each data row is a
  record whose fields are named by the header; the header and the separator rows are
  never statements of their own. A ``year`` (``period``, ``quarter``...) column is the
  period of the row's other values ("ticker MSFT, roe: 38.8% in 2023."), and a first
  column of identifiers (``order_id``, ``SKU``) names its row ("order id 4411"), so
  neither is read as a value or a count.
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
    'Tier Gold: annual fee $120; 4 lounge visits.'
"""

from __future__ import annotations

from functools import lru_cache

from nli_faith.text.structured.jsondata import json_blocks
from nli_faith.text.structured.keyvalue import kv_blocks
from nli_faith.text.structured.records import MAX_RECORD_FIELDS, Statement, StructuredBlock
from nli_faith.text.structured.tables import csv_blocks, html_blocks, markdown_tables

__all__ = [
    "MAX_RECORD_FIELDS",
    "Statement",
    "StructuredBlock",
    "linearise",
    "structured_blocks",
    "structured_statements",
]


@lru_cache(maxsize=4096)
def structured_blocks(text: str) -> tuple[StructuredBlock, ...]:
    """The structured blocks of ``text``, sorted and disjoint (cached per text).

    Malformed JSON (past what the lenient reader accepts), a table without a separator
    row, a single ``key: value`` line: none of these is a block; the text is left as it is.

    Example:
        >>> [b.kind for b in structured_blocks('Plain text. Data: {"a": 1, "b": 2}')]
        ['json']
        >>> structured_blocks('Not JSON: {"a": 1,, "b"}')
        ()
    """
    if not _maybe_structured(text):
        return ()
    found: list[StructuredBlock] = []
    for finder in (html_blocks, markdown_tables, json_blocks, csv_blocks, kv_blocks):
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
        'Gold tier: annual fee $120; 4 lounge visits.'
    """
    out: list[str] = []
    pos = 0
    for block in structured_blocks(text):
        out.append(text[pos : block.start])
        out.append(" ".join(s.text for s in block.statements if not s.part))
        pos = block.end
    out.append(text[pos:])
    return "".join(out)


def _maybe_structured(text: str) -> bool:
    return any(ch in text for ch in "{[|<") or ("\n" in text and any(d in text for d in ":,\t;"))


def _overlaps(block: StructuredBlock, taken: list[tuple[int, int]]) -> bool:
    return any(block.start < e and s < block.end for s, e in taken)
