"""The one schema of a scored record's output object, from which every shape derives.

:class:`ScoredRecord` is the JSON object ``nli-faith score`` writes for a record (and the
server replies with): the row keys (``line``, ``id``, ``question``, ``faithful``) and every
field of :class:`~nli_faith.results.FaithfulnessResult`, whose claims, evidence and spans
are the result dataclasses themselves. Nothing here is written twice: the server's reply
models extend it (:mod:`nli_faith.serve.schema`), and the fixed Arrow schema of Parquet
output and Ray (:func:`arrow_schema`) is read from its fields.

Keys in :data:`OPTIONAL_KEYS` appear in the JSON object only when they apply (``error``
for a failed record, the reference rates with a reference answer, ``faithful`` with
calibrated thresholds); in Arrow rows they are always there, null when absent.

Example:
    >>> {"line", "faithful", "hallucination_rate", "claims"} <= set(ScoredRecord.model_fields)
    True
    >>> claim = ScoredRecord.model_json_schema()["$defs"]["ClaimVerdict"]["properties"]
    >>> "reference_label" in claim and "citation" in claim
    True
"""

from __future__ import annotations

import dataclasses
import typing
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from nli_faith.results import FaithfulnessResult

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

#: Keys the JSON object has only when they apply; null in the fixed Arrow schema otherwise.
OPTIONAL_KEYS = ("id", "error", "question", "faithful", "hallucination_rate", "self_knowledge_rate")


class RowKeys(BaseModel):
    """The keys an output object has besides the result's fields."""

    model_config = ConfigDict(extra="forbid")

    line: int | None = Field(None, description="line (or row) number in the input file")
    id: str | int | None = Field(None, description="the record's id, when it has one")
    question: str | None = Field(None, description="the record's question, when it has one")
    faithful: bool | None = Field(
        None, description="with calibrated thresholds: the record-level decision"
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
