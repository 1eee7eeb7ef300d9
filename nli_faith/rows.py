"""The one schema of a scored record's output object, and the one function that builds it.

:class:`ScoredRecord` is the JSON object ``nli-faith score`` writes for a record (and the
server replies with): the row keys (``line``, ``id``, ``question``, ``faithful``) and every
field of :class:`~nli_faith.results.FaithfulnessResult`, whose claims, evidence and spans
are the result dataclasses themselves. Nothing here is written twice: the server's reply
models extend it (:mod:`nli_faith.serve.schema`), and the fixed Arrow schema of Parquet
output and Ray (:func:`arrow_schema`) is read from its fields.

:func:`output_row` builds that object for one result; every door calls it (the CLI and
Ray through :func:`scored_row`, the server's endpoints, the judge merge).
:func:`arrow_row` and :func:`json_row` turn it into the fixed Arrow shape and back.

Keys in :data:`OPTIONAL_KEYS` appear in the JSON object only when they apply (``error``
for a failed record, the reference rates with a reference answer, ``faithful`` and what
decided it (``decided_by``) with calibrated thresholds or a learned answer decision,
``context_empty`` when the context held no text); in Arrow rows
they are always there, null when absent. A claim's keys in :data:`OPTIONAL_CLAIM_KEYS`
(``rule``, ``scored_as``, ``decision_note``) appear only when set (``reference_label``
only with a reference answer).

Example:
    >>> {"line", "faithful", "hallucination_rate", "claims"} <= set(ScoredRecord.model_fields)
    True
    >>> claim = ScoredRecord.model_json_schema()["$defs"]["ClaimVerdict"]["properties"]
    >>> "reference_label" in claim and "citation" in claim
    True
"""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from nli_faith.records import question_of, valid_text
from nli_faith.results import FaithfulnessResult

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

#: Keys the JSON object has only when they apply; null in the fixed Arrow schema otherwise.
OPTIONAL_KEYS = (
    "id",
    "error",
    "question",
    "faithful",
    "decided_by",
    "hallucination_rate",
    "self_knowledge_rate",
    "context_empty",
)
#: The reference-answer keys: in the JSON object only when the record had a reference.
REFERENCE_KEYS = ("hallucination_rate", "self_knowledge_rate")
#: A claim's keys that its JSON object has only when they are set (not None).
OPTIONAL_CLAIM_KEYS = ("rule", "scored_as", "decision_note")


class RowKeys(BaseModel):
    """The keys an output object has besides the result's fields."""

    model_config = ConfigDict(extra="forbid")

    line: int | None = Field(None, description="line (or row) number in the input file")
    id: str | int | None = Field(None, description="the record's id, when it has one")
    question: str | None = Field(None, description="the record's question, when it has one")
    faithful: bool | None = Field(
        None, description="with calibrated thresholds: the record-level decision"
    )
    decided_by: str | None = Field(
        None,
        description="what decided 'faithful': the gate ('strict >= 0.5') or 'learned decision'",
    )


def _result_fields() -> dict[str, Any]:
    hints = typing.get_type_hints(FaithfulnessResult)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(FaithfulnessResult):
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = Field(default_factory=f.default_factory)
        else:
            default = ...
        fields[f.name] = (hints[f.name], default)
    return fields


#: What ``nli-faith score`` writes for one record (see the module docstring).
ScoredRecord: type[BaseModel] = create_model(
    "ScoredRecord",
    __base__=RowKeys,
    __doc__="What `nli-faith score` writes for one record.",
    **_result_fields(),
)


# -- Arrow ----------------------------------------------------------------------------------

_SCALARS = {int: "int64", float: "float64", str: "string", bool: "bool_"}


def _arrow_kind(annotation: Any) -> str:
    """Arrow type name of a field; ``json`` for lists and objects (held as JSON text), and
    for ``str | int`` (an ``id``), which is held as text too."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if args and typing.get_origin(annotation) is not list:
        if len(args) > 1:
            return "string"
        annotation = args[0]
    return _SCALARS.get(annotation, "json")


def arrow_columns() -> list[tuple[str, str]]:
    """(key, Arrow type name) of every :class:`ScoredRecord` key, in order."""
    return [(name, _arrow_kind(f.annotation)) for name, f in ScoredRecord.model_fields.items()]


def json_columns() -> tuple[str, ...]:
    """Keys held as JSON text in Arrow rows (lists and objects)."""
    return tuple(name for name, kind in arrow_columns() if kind == "json")


def arrow_schema() -> pa.Schema:
    """The fixed schema of Arrow rows (Parquet output, Ray Data)."""
    import pyarrow as pa

    return pa.schema(
        pa.field(name, pa.string() if kind == "json" else getattr(pa, kind)())
        for name, kind in arrow_columns()
    )


# -- rows -----------------------------------------------------------------------------------


def output_row(
    result: FaithfulnessResult,
    *,
    record: Any = None,
    line: int | None = None,
    question: str | None = None,
    decision: Any = None,
    reference: bool | None = None,
    keys: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON object of one scored record: what ``nli-faith score`` writes for it and
    ``nli-faith serve`` replies with.

    Row keys first: ``keys`` if given (a scored line's own, when the judge merge rebuilds
    it), else ``line`` if given, the record's ``id`` if it has one (a null id is none) and
    its ``question`` (``question``, else the record's, if any). Then the result's fields,
    with the keys of :data:`OPTIONAL_KEYS` only when they apply, and last ``decided_by``
    and ``faithful`` when a ``decision`` (:class:`~nli_faith.scoring.thresholds.Decision`)
    is given, decided by the one gate (:func:`~nli_faith.scoring.gate.gate`) or by its
    learned answer decision. ``reference`` says whether the
    record had a reference answer (default: whether the result has reference rates);
    without one, the reference keys and each claim's ``reference_label`` are left out.

    Example:
        >>> r = FaithfulnessResult(None, None, None, 0, 0, 0, 0, "No claims.")
        >>> row = output_row(r, record={"id": "q1", "response": "Hi!", "context": ""}, line=3)
        >>> row["line"], row["id"], "question" in row, "error" in row, "context_empty" in row
        (3, 'q1', False, False, False)
    """
    if keys is not None:
        out = {k: v for k, v in keys.items() if k not in _RESULT_KEYS | _DECISION_KEYS}
    else:
        out = {} if line is None else {"line": line}
        if isinstance(record, Mapping) and record.get("id") is not None:
            out["id"] = record["id"]
        if question is None and isinstance(record, Mapping):
            question = question_of(record)
        if question is not None:
            out["question"] = question
    out |= result.to_dict()
    if reference is None:
        reference = result.hallucination_rate is not None
    if out["error"] is None:
        out.pop("error")
    if not out["context_empty"]:
        out.pop("context_empty")
    if not reference:
        for key in REFERENCE_KEYS:
            out.pop(key)
    for claim in out["claims"]:
        if not reference:
            claim.pop("reference_label")
        for key in OPTIONAL_CLAIM_KEYS:
            if claim[key] is None:
                claim.pop(key)
    if decision is not None:
        by = getattr(decision, "by", None)
        if by is not None:
            out["decided_by"] = by
        out["faithful"] = decision.passes(result)
    return out


_RESULT_KEYS = frozenset(f.name for f in dataclasses.fields(FaithfulnessResult))
_DECISION_KEYS = frozenset({"faithful", "decided_by"})


def scored_row(
    scorer: Any, line: int | None, raw: Any, result: FaithfulnessResult, **options: Any
) -> dict[str, Any]:
    """:func:`output_row` of a record scored by ``scorer``: with calibrated thresholds, the
    record's ``faithful`` decision (``None`` for a record without a score). ``options``
    go to :func:`output_row` (``question``)."""
    decision = getattr(scorer, "decision", None)
    return output_row(result, record=raw, line=line, decision=decision, **options)


def arrow_row(row: dict[str, Any]) -> dict[str, Any]:
    """An :func:`output_row` with the fixed Arrow schema: every optional key there (null
    when absent), a non-string ``id`` JSON-encoded (``7`` -> ``"7"``), every list or
    object field a JSON string of what the JSON object holds.

    Example:
        >>> r = FaithfulnessResult(1.0, 1.0, 0.9, 1, 1, 0, 0, "ok")
        >>> row = output_row(r, record={"id": 7}, line=3)
        >>> flat = arrow_row(row)
        >>> flat["id"], flat["claims"], flat["error"]
        ('7', '[]', None)
        >>> json_row(flat) == {**row, "id": "7"}
        True
    """
    out = dict(row)
    rid = out.get("id")
    out["id"] = rid if rid is None or isinstance(rid, str) else json.dumps(rid, ensure_ascii=False)
    for key in OPTIONAL_KEYS:
        out.setdefault(key, None)
    for name in json_columns():
        out[name] = json.dumps(out.get(name), ensure_ascii=False)
    # Arrow text is UTF-8: a lone surrogate (an echoed id, say) is U+FFFD there
    return {k: valid_text(v) if isinstance(v, str) else v for k, v in out.items()}


def json_row(flat: dict[str, Any]) -> dict[str, Any]:
    """An :func:`arrow_row` back as the JSON object (``id`` stays a string)."""
    out = dict(flat)
    for name in json_columns():
        if isinstance(out.get(name), str):
            out[name] = json.loads(out[name])
    for key in OPTIONAL_KEYS:
        if out.get(key) is None:
            out.pop(key, None)
    return out
