"""One line numbering: every reader of JSONL (``score`` with either engine, ``report``,
``merge``, ``judge``, ``calibrate``) numbers a file's records the same way."""

from __future__ import annotations

import io
import json

import pytest

#: A byte-order mark, blank lines, CRLF endings, a CR inside a line (JSON whitespace, not
#: a line end), bytes that are not UTF-8, and no newline at the end.
RAW = b'\xef\xbb\xbf{"k": 1}\r\n\n{"k": 2,\r "x": "a"}\n   \n{"k": 3, "x": "\xff"}\n{"k": 4}'
WANT = [(1, 1), (3, 2), (5, 3), (6, 4)]


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "in.jsonl"
    p.write_bytes(RAW)
    return p


def test_local_reader(path):
    from nli_faith.io import read_records

    assert [(r.line, r.raw["k"]) for r in read_records(str(path))] == WANT
    assert [r.line for r in read_records(str(path), after_line=3)] == [5, 6]


def test_ray_reader_blocks():
    pytest.importorskip("pyarrow")
    from nli_faith.distributed import JSON_COLUMN, _jsonl_blocks

    for block in (1, 2, 100):
        rows = [r for t in _jsonl_blocks(io.BytesIO(RAW), block=block) for r in t.to_pylist()]
        assert [(r["line"], json.loads(r[JSON_COLUMN])["k"]) for r in rows] == WANT


def test_report_and_merge_readers(path):
    from nli_faith.judge.merge import _numbered, read_judged_file
    from nli_faith.report.records import _read_jsonl

    assert [(n, r["k"]) for n, r in _read_jsonl(path)] == WANT
    assert [(n, r["k"]) for n, r in _numbered(path)] == WANT
    _, errors = read_judged_file(path)  # no judged line here: each error names its line
    assert [e.split(":")[1] for e in errors] == ["1", "3", "5", "6"]
