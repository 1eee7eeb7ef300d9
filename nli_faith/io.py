"""Record files in and scored rows out: JSONL or Parquet, chosen by the file extension.

Used by ``nli-faith score`` (streaming, ``--resume``) and by :mod:`nli_faith.distributed`.
Everything streams: a reader yields one record at a time, a writer holds at most one
Parquet row group, so memory does not grow with the file.

* Input: ``.parquet`` / ``.pq`` files are read row group by row group
  (``pyarrow.parquet.ParquetFile.iter_batches``); anything else is JSONL, one JSON object
  a line (``-`` is standard input). Each record carries its ``line``: the 1-based line
  number in a JSONL file (blank lines are skipped but counted), the 1-based row number
  in a Parquet file.
* Output rows are built by :func:`nli_faith.rows.output_row` (the CLI's JSON objects:
  ``line``, ``id`` when the record has one, the
  :class:`~nli_faith.results.FaithfulnessResult` fields, ``error`` only for a record that
  failed); JSONL lines hold them as they are, Parquet files in their fixed Arrow shape
  (:func:`nli_faith.rows.arrow_row`: ``id`` and ``error`` always present, null when the
  JSON object has no such key; ``id`` a string; list and object fields as JSON text).
"""

from __future__ import annotations

import codecs
import json
import math
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from nli_faith.errors import (
    E_BAD_JSON,
    E_INPUT_FORMAT,
    E_INPUT_MISSING,
    E_INPUT_NOT_PARQUET,
    E_PARQUET_STDIO,
    E_PATH_CLASH,
    E_RESUME_NOT_OURS,
    E_RESUME_PARQUET,
    E_RESUME_STDOUT,
    OptionError,
    RecordError,
)
from nli_faith.records import JSONInputError, load_json
from nli_faith.rows import arrow_row, arrow_schema

PARQUET_SUFFIXES = (".parquet", ".pq")
#: Rows per Parquet row group written (bounded memory; readers stream by row group).
PARQUET_ROW_GROUP = 1024


def is_parquet(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a Parquet file (by extension; ``-`` is JSONL)."""
    return str(path).lower().endswith(PARQUET_SUFFIXES)


@dataclass(frozen=True)
class InputRecord:
    """One input record: its line (or row) number and the parsed object, or the error."""

    line: int
    raw: Any  # a dict (or any JSON value), or a RecordError for a line that is not JSON


def read_records(path: str, *, after_line: int = 0) -> Iterator[InputRecord]:
    """The records of a JSONL or Parquet file (``-``: JSONL on stdin), in order.

    Records up to ``after_line`` are skipped without being parsed (``--resume``).
    """
    if is_parquet(path):
        yield from _read_parquet(path, after_line)
    elif path == "-":
        yield from _read_jsonl(sys.stdin.buffer, after_line)
    else:
        with open(path, "rb") as fh:
            yield from _read_jsonl(fh, after_line)


#: Names of tabular files that are not JSON Lines, with what they are called in errors.
OTHER_FORMATS = {".csv": "CSV", ".tsv": "TSV", ".xlsx": "Excel", ".xls": "Excel"}


def check_input(path: str) -> None:
    """Raise a ``ValueError`` that names the file when ``path`` (not ``-``) cannot be read
    as records: missing, a CSV or spreadsheet, or named ``.parquet`` but not Parquet."""
    if path == "-":
        return
    if not Path(path).is_file():
        raise OptionError(E_INPUT_MISSING.format(path=path))
    kind = OTHER_FORMATS.get(Path(path).suffix.lower())
    if kind is not None:
        raise OptionError(E_INPUT_FORMAT.format(path=path, kind=kind))
    if is_parquet(path):
        import pyarrow.parquet as pq

        try:
            pq.ParquetFile(path)
        except Exception as err:  # pyarrow's ArrowInvalid, OSError
            raise OptionError(E_INPUT_NOT_PARQUET.format(path=path, error=err)) from None


def check_output(path: str, name: str = "output") -> None:
    """Raise an ``OSError`` that names ``path`` (not ``-``) and what it is for (``name``)
    when a file cannot be written there: its folder is missing, or it is a folder; checked
    before any work is done."""
    if path == "-":
        return
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(f"{name} {path} is a directory; give a file name")
    if not target.parent.is_dir():
        raise FileNotFoundError(f"{name} {path}: the folder {target.parent} does not exist")


def check_paths(inputs: dict[str, str | None], outputs: dict[str, str | None]) -> None:
    """Check each output (``{"output": path, "--report": path, ...}``: a ``None`` or ``-``
    is skipped) with :func:`check_output`, and refuse one that is an input or another
    output (it would be overwritten before it is read, or mixed), before any work is done.

    Example:
        >>> check_paths({"input": "in.jsonl"}, {"output": "./in.jsonl"})
        Traceback (most recent call last):
        ...
        nli_faith.exceptions.OptionError: output ./in.jsonl is also the input: writing it \
would overwrite that file; give another name.
    """
    import os

    def key(path: str) -> str:
        return os.path.normcase(os.path.realpath(path))

    def label(name: str) -> str:
        return f"the {name} file" if name.startswith("--") else f"the {name}"

    seen = {key(p): label(n) for n, p in inputs.items() if p not in (None, "-") and "://" not in p}
    for name, path in outputs.items():
        if path in (None, "-") or "://" in path:
            continue
        check_output(path, name)
        if os.path.exists(path) and not os.path.isfile(path):  # /dev/null, a pipe: no clash
            continue
        other = seen.get(key(path))
        if other is not None:
            raise OptionError(E_PATH_CLASH.format(what=name, path=path, other=other))
        seen[key(path)] = label(name)


def count_records(path: str) -> int | None:
    """Number of records when it is known without reading the file (Parquet), else None."""
    if not is_parquet(path):
        return None
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).metadata.num_rows


#: Bytes read at a time from a JSONL file.
READ_SIZE = 1 << 20


def byte_chunks(fh: IO[bytes], size: int = READ_SIZE) -> Iterator[bytes]:
    """A binary file's bytes, at most ``size`` at a time: what is there (``read1``), so
    that a pipe's lines are scored as they come rather than a megabyte at a time."""
    read = getattr(fh, "read1", fh.read)
    return iter(lambda: read(size), b"")


def jsonl_lines(chunks: Iterable[bytes], *, after_line: int = 0) -> Iterator[tuple[int, str]]:
    r"""(line number, text) of each non-blank line of JSONL bytes: the one line numbering
    of every reader (``score`` either engine, ``report``, ``merge``, ``judge``,
    ``calibrate``).

    Lines end at ``\n`` only (a ``\r`` is JSON whitespace), are numbered from 1, blank
    ones counted but not yielded, nor those up to ``after_line``; a UTF-8 byte-order mark
    is dropped and bytes that are not UTF-8 are replaced (U+FFFD).

    Example:
        >>> list(jsonl_lines([b'\xef\xbb\xbf{"a": 1}\n\n{"a"', b': 2}\r\n[3]']))
        [(1, '{"a": 1}'), (3, '{"a": 2}\r'), (4, '[3]')]
    """
    carry, lineno = b"", 0
    for data in chunks:
        parts = (carry + data).split(b"\n")
        carry = parts.pop()
        for part in parts:
            lineno += 1
            if lineno > after_line and part.strip():
                yield lineno, _decode(part, lineno)
    if carry.strip() and lineno + 1 > after_line:
        yield lineno + 1, _decode(carry, lineno + 1)


def _decode(part: bytes, lineno: int) -> str:
    if lineno == 1 and part.startswith(codecs.BOM_UTF8):
        part = part[len(codecs.BOM_UTF8) :]
    return part.decode("utf-8", errors="replace")


def _read_jsonl(fh: IO[bytes], after_line: int) -> Iterator[InputRecord]:
    for lineno, line in jsonl_lines(byte_chunks(fh), after_line=after_line):
        try:
            yield InputRecord(lineno, load_json(line))
        except JSONInputError as err:
            yield InputRecord(lineno, RecordError(E_BAD_JSON.format(error=err)))


def _read_parquet(path: str, after_line: int) -> Iterator[InputRecord]:
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    row = 0
    for group in range(pf.num_row_groups):
        n = pf.metadata.row_group(group).num_rows
        if row + n <= after_line:  # skip whole row groups on resume, unread
            row += n
            continue
        for batch in pf.iter_batches(row_groups=[group], batch_size=PARQUET_ROW_GROUP):
            for rec in batch.to_pylist():
                row += 1
                if row > after_line:
                    yield InputRecord(row, json_value(rec))


def json_value(value: Any) -> Any:
    """A Parquet cell as a JSON value, so that it can be echoed (an ``id``) in every
    output: dates and times in ISO 8601, decimals and other scalars as text, bytes as
    UTF-8 text (bad bytes as U+FFFD), NaN and infinities as ``null``.

    Example:
        >>> import datetime, decimal
        >>> json_value({"id": datetime.date(2024, 1, 2), "n": [decimal.Decimal("1.50")]})
        {'id': '2024-01-02', 'n': ['1.50']}
    """
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    if hasattr(value, "isoformat"):  # date, time, datetime
        return value.isoformat()
    return str(value)  # Decimal, timedelta, ...


# -- output lines ---------------------------------------------------------------------------


def json_line(row: dict[str, Any]) -> str:
    """One JSON line; a lone surrogate (from a ``\\ud83d`` escape) is kept as an escape."""
    line = json.dumps(row, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(row)  # ASCII-only: every character escaped, nothing lost
    return line + "\n"


# -- writers ----------------------------------------------------------------------------------


class JsonlWriter:
    """One JSON object a line, to a file (appended to when resuming) or stdout (``-``)."""

    def __init__(self, path: str, *, append: bool = False) -> None:
        self._own = path != "-"
        self._fh: IO[str] = (
            open(path, "a" if append else "w", encoding="utf-8") if self._own else sys.stdout
        )

    def write(self, rows: list[dict[str, Any]]) -> None:
        self._fh.write("".join(json_line(r) for r in rows))
        self._fh.flush()

    def close(self) -> None:
        if self._own:
            self._fh.close()


class ParquetWriter:
    """Rows into ``PATH.part``, moved to ``PATH`` by :meth:`close` (also after Ctrl-C).

    A Parquet file is readable only once its footer is written, so the file is built
    beside the target and moved into place when closed. The first ``keep_rows`` rows of
    an existing ``PATH`` are copied first, row group by row group (``--resume``).
    """

    def __init__(self, path: str, *, keep_rows: int = 0) -> None:
        import pyarrow.parquet as pq

        if path == "-":
            raise OptionError(E_PARQUET_STDIO)
        self.path = path
        self.part = f"{path}.part"
        self.schema = arrow_schema()
        self._writer = pq.ParquetWriter(self.part, self.schema)
        self._rows: list[dict[str, Any]] = []
        if keep_rows:
            old = pq.ParquetFile(path)
            for group in range(old.num_row_groups):
                table = old.read_row_group(group).cast(self.schema).slice(0, keep_rows)
                self._writer.write_table(table)
                keep_rows -= len(table)
                if not keep_rows:
                    break

    def write(self, rows: list[dict[str, Any]]) -> None:
        self._rows.extend(arrow_row(r) for r in rows)
        if len(self._rows) >= PARQUET_ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        if self._rows:
            self._writer.write_table(pa.Table.from_pylist(self._rows, schema=self.schema))
            self._rows = []

    def close(self) -> None:
        self._flush()
        self._writer.close()
        os.replace(self.part, self.path)


def open_writer(path: str, *, resume: ResumePoint | None = None) -> JsonlWriter | ParquetWriter:
    """A writer for ``path`` by its extension, after the rows ``resume`` kept (if any)."""
    keep = resume.rows if resume is not None else 0
    if is_parquet(path):
        return ParquetWriter(path, keep_rows=keep)
    return JsonlWriter(path, append=bool(keep))


# -- resume ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ResumePoint:
    """Where ``--resume`` goes on: after input ``line``, with ``rows`` output rows kept."""

    line: int
    rows: int


def resume_point(path: str, *, block: int = 1) -> ResumePoint:
    """Cut the output ``path`` back to whole blocks of ``block`` rows; where to go on.

    The rows of an unfinished block are dropped and scored again, with the same block
    mates as in an uninterrupted run (a model's probabilities can move slightly with the
    rest of its batch), so a resumed output equals an uninterrupted one. A JSONL line cut
    short by the interruption is dropped too. A Parquet output must be readable (it is,
    unless the run was killed outright: then it was never moved into place).
    """
    if path == "-":
        raise OptionError(E_RESUME_STDOUT)
    p = Path(path)
    if not p.exists() or p.stat().st_size == 0:
        return ResumePoint(0, 0)
    if is_parquet(path):
        return _parquet_resume(path, block)
    return _jsonl_resume(p, block)


def _parquet_resume(path: str, block: int) -> ResumePoint:
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
        keep = pf.metadata.num_rows - pf.metadata.num_rows % block
        if keep == 0:
            return ResumePoint(0, 0)
        start = 0
        for group in range(pf.num_row_groups):
            n = pf.metadata.row_group(group).num_rows
            if start + n >= keep:
                lines = pf.read_row_group(group, columns=["line"]).column("line")
                return ResumePoint(int(lines[keep - start - 1].as_py()), keep)
            start += n
    except Exception as err:  # noqa: BLE001 - any unreadable file gets the same message
        raise OptionError(E_RESUME_PARQUET.format(path=path, error=err)) from err
    raise AssertionError("unreachable")  # pragma: no cover


def _jsonl_resume(p: Path, block: int) -> ResumePoint:
    """Count the complete lines; cut after the last whole block of them."""
    rows, cut, first, last = 0, 0, None, b""
    with p.open("rb") as fh:
        offset = 0
        for text in fh:
            offset += len(text)
            if not text.endswith(b"\n"):
                break  # cut short by the interruption
            rows += 1
            if first is None:
                first = text
            if rows % block == 0:
                cut, last = offset, text
    if first is not None and _line_number(first) is None:
        raise OptionError(E_RESUME_NOT_OURS.format(path=p))
    line = _line_number(last) if cut else 0
    if line is None:
        raise OptionError(E_RESUME_NOT_OURS.format(path=p))
    os.truncate(p, cut)
    return ResumePoint(line, rows - rows % block)


def _line_number(text: bytes) -> int | None:
    if not text.strip():
        return None
    try:
        obj = load_json(text)
    except JSONInputError:
        return None
    line = obj.get("line") if isinstance(obj, dict) else None
    return line if isinstance(line, int) else None
