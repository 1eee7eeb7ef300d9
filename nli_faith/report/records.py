"""What one card of the HTML report shows: a scored line joined with its input record."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nli_faith.errors import (
    E_REPORT_FIELD,
    E_REPORT_JOIN,
    E_REPORT_LINE,
    E_REPORT_UNREADABLE,
    RecordError,
)
from nli_faith.records import CONTEXT_FIELDS, QUESTION_FIELDS, RESPONSE_FIELDS


def _field(rec: Any, names: tuple[str, ...]) -> Any:
    if not isinstance(rec, Mapping):
        return None
    return next((rec[n] for n in names if rec.get(n) is not None), None)


def _context(value: Any) -> list[str] | None:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


@dataclass(frozen=True)
class ReportRecord:
    """One scored record with the texts the report shows.

    ``scored`` is a line of ``nli-faith score`` output (scores, claims with evidence,
    reason, error). ``response`` and ``context`` come from the input record; without
    them the card shows the claims one after another and each claim's evidence chunk
    alone (the scored line holds the chunk, not its document).
    """

    scored: dict[str, Any]
    response: str | None = None
    context: list[str] | None = None
    question: str | None = None

    @classmethod
    def of(cls, scored: Mapping[str, Any], raw: Any = None) -> ReportRecord:
        """Join a scored line with its input record (or find the texts in the line itself).

        Example:
            >>> r = ReportRecord.of({"line": 1, "strict": 1.0, "claims": []},
            ...                     {"answer": "Hi.", "contexts": ["Hello."], "question": "?"})
            >>> r.response, r.context, r.question
            ('Hi.', ['Hello.'], '?')
        """
        sources = [raw, scored]

        def first(names: tuple[str, ...]) -> Any:
            return next((v for s in sources if (v := _field(s, names)) is not None), None)

        response = first(RESPONSE_FIELDS)
        question = first(QUESTION_FIELDS)
        return cls(
            scored=dict(scored),
            response=response if isinstance(response, str) else None,
            context=_context(first(CONTEXT_FIELDS)),
            question=question if isinstance(question, str) else None,
        )


#: Keys every line of ``nli-faith score`` output has (an input record has none of them).
_SCORED_KEYS = {"strict", "lenient", "claims"}
_NUMBER = ((int, float), "a number or null")
#: The fields of a scored line the report reads, with the types it needs.
_LINE_FIELDS = {"line": ((int,), "an integer"),
                "strict": _NUMBER, "lenient": _NUMBER, "soft": _NUMBER,
                "claims": ((list,), "a list of claim objects or null")}  # fmt: skip
_CLAIM_FIELDS = {"claim": ((str,), "a string"), "p_entail": _NUMBER, "p_contradict": _NUMBER,
                 "evidence": ((dict,), "an object or null"),
                 "unsupported_spans": ((list,), "a list or null")}  # fmt: skip


def _check_line(scored: dict, *, path: str | Path, line: int) -> None:
    """Raise :class:`RecordError` naming the first field the report reads whose type is
    not what ``nli-faith score`` writes."""

    def check(obj: dict, fields: dict, prefix: str) -> None:
        for name, (types, expected) in fields.items():
            value = obj.get(name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, types)):
                raise RecordError(
                    E_REPORT_FIELD.format(
                        path=path, line=line, field=prefix + name, expected=expected
                    )
                )

    check(scored, _LINE_FIELDS, "")
    for k, claim in enumerate(scored.get("claims") or []):
        if not isinstance(claim, dict):
            raise RecordError(
                E_REPORT_FIELD.format(
                    path=path, line=line, field=f"claims[{k}]", expected="an object"
                )
            )
        check(claim, _CLAIM_FIELDS, f"claims[{k}].")


def _read_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line, object or RecordError) of each record, numbered as ``nli-faith score`` does."""
    from nli_faith.io import read_records

    for item in read_records(str(path)):
        yield item.line, item.raw


def _scored_lines(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line, scored object) of a JSONL or Parquet output of ``nli-faith score`` (a
    Parquet row's JSON columns decoded, as :func:`~nli_faith.rows.json_row` does)."""
    from nli_faith.io import is_parquet
    from nli_faith.rows import json_row

    parquet = is_parquet(path)
    for lineno, raw in _read_jsonl(path):
        if parquet and isinstance(raw, dict):
            try:
                raw = json_row(raw)
            except ValueError:  # a JSON column that is not JSON: not our output
                raw = None
        yield lineno, raw


def read_scored(
    path: str | Path,
    *,
    inputs: str | Path | None = None,
    on_error: Callable[[RecordError], None] | None = None,
) -> list[ReportRecord]:
    """Scored JSONL (``nli-faith score`` output) joined by ``line`` with its input file.

    A scored line that is not a JSON object, has a field of the wrong type, or whose
    ``line`` is not in ``inputs`` raises :class:`~nli_faith.errors.RecordError`; with
    ``on_error``, that line is passed over instead (``on_error`` gets the error) and the
    other lines are read.
    """
    raw_by_line: dict[int, Any] = {}
    if inputs is not None:
        raw_by_line = {n: r for n, r in _read_jsonl(inputs)}
    out = []
    for lineno, scored in _scored_lines(path):
        try:
            out.append(_joined(scored, raw_by_line, path=path, line=lineno, inputs=inputs))
        except RecordError as err:
            if on_error is None:
                raise
            on_error(err)
    return out


def _joined(scored: Any, raw_by_line: dict[int, Any], *, path, line: int, inputs) -> ReportRecord:
    if isinstance(scored, RecordError):  # not JSON: say why
        raise RecordError(E_REPORT_UNREADABLE.format(path=path, line=line, error=scored))
    if not isinstance(scored, dict) or not _SCORED_KEYS <= scored.keys():
        raise RecordError(E_REPORT_LINE.format(path=path, line=line))
    _check_line(scored, path=path, line=line)
    raw = None
    if inputs is not None:
        key = scored.get("line", line)
        if key not in raw_by_line:
            raise RecordError(E_REPORT_JOIN.format(path=path, line=line, key=key, inputs=inputs))
        raw = raw_by_line[key]
    return ReportRecord.of(scored, raw)
