"""The HTTP request and reply shapes, and the parsing of a request body into records.

The body is parsed by hand (``json.loads`` + :func:`nli_faith.records.parse_record`) rather
than by pydantic, so that the service accepts exactly what ``nli-faith score`` accepts
(DeepEval and RAGAS field names too) and says exactly what it says about a bad record. The
reply models extend the output schema :class:`~nli_faith.rows.ScoredRecord` (nothing is
copied), for ``/docs``.

Example:
    >>> body = b'{"actual_output": "It is blue.", "retrieval_context": ["Sky: blue."], "id": 7}'
    >>> raw = parse_body(body)
    >>> record_of(raw, limits=None).response
    'It is blue.'
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from nli_faith.errors import (
    E_SERVE_BAD_JSON,
    E_SERVE_BATCH_SHAPE,
    E_SERVE_BATCH_TOO_MANY,
    E_SERVE_ID_TYPE,
    E_SERVE_NOT_OBJECT,
    RecordError,
    with_flag,
)
from nli_faith.records import JSONInputError, Limits, Record, load_json, parse_record
from nli_faith.rows import ScoredRecord
from nli_faith.serve.settings import Action


class ServeError(Exception):
    """An HTTP error reply: ``status``, a message, the field at fault, extra headers."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        field: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field
        self.headers = headers or {}


def parse_body(body: bytes) -> Any:
    """JSON of a request body; anything that does not parse is a 400.

    Example:
        >>> parse_body(b"[" * 100_000)
        Traceback (most recent call last):
        ...
        nli_faith.serve.schema.ServeError: the request body is not valid JSON: ...
    """
    try:
        return load_json(body)
    except JSONInputError as err:
        raise ServeError(400, E_SERVE_BAD_JSON.format(error=err)) from None


def record_of(raw: Any, *, limits: Limits | None) -> Record:
    """Validate one record object (fields, types, limits); raises :class:`RecordError`.

    ``id`` is echoed in the reply, so it must be a string or an integer.
    """
    if isinstance(raw, dict) and raw.get("id") is not None:
        rid = raw["id"]
        if isinstance(rid, bool) or not isinstance(rid, (str, int)):
            raise RecordError(E_SERVE_ID_TYPE.format(type_name=type(rid).__name__), field="id")
    return parse_record(raw, limits=limits)


def single_record(raw: Any, *, limits: Limits | None) -> Record:
    """The record of a ``/v1/score`` body; any problem is a 422 naming the field."""
    if not isinstance(raw, dict):
        raise ServeError(422, E_SERVE_NOT_OBJECT.format(type_name=type(raw).__name__))
    try:
        return record_of(raw, limits=limits)
    except RecordError as err:
        raise ServeError(422, with_flag(str(err)), field=err.field) from None


def batch_records(raw: Any, *, max_records: int) -> list[Any]:
    """The ``records`` list of a ``/v1/score/batch`` body (each checked later, alone)."""
    if not isinstance(raw, dict):
        raise ServeError(422, E_SERVE_NOT_OBJECT.format(type_name=type(raw).__name__))
    records = raw.get("records")
    if not isinstance(records, list):
        raise ServeError(
            422, E_SERVE_BATCH_SHAPE.format(type_name=type(records).__name__), field="records"
        )
    if len(records) > max_records:
        raise ServeError(
            422,
            E_SERVE_BATCH_TOO_MANY.format(size=len(records), limit=max_records),
            field="records",
        )
    return records


# -- the API as /docs shows it ------------------------------------------------------------


class ScoreRequest(BaseModel):
    """One record. DeepEval (``actual_output``, ``retrieval_context``, ``input``) and RAGAS
    (``answer``, ``retrieved_contexts``/``contexts``, ``user_input``) names work too."""

    model_config = ConfigDict(extra="allow")
    response: str = Field(description="the answer to check")
    context: str | list[str] = Field(description="retrieved context: one string per document")
    question: str | None = Field(None, description="accepted; does not change the score")
    id: str | int | None = Field(None, description="echoed in the reply")


#: ``/v1/score``'s reply: what ``nli-faith score`` writes for the record (its schema,
#: :class:`~nli_faith.rows.ScoredRecord`), plus the policy's decision and the time.
ScoreReply: type[BaseModel] = create_model(
    "ScoreReply",
    __base__=ScoredRecord,
    __doc__="What `nli-faith score` writes for the record, plus the decision and the time.",
    decision=(Action, Field(description="the service policy's decision")),
    time_ms=(float, Field(description="time spent on the request, in milliseconds")),
)

#: One record of a ``/v1/score/batch`` reply: its ``index`` in the request, then the same.
BatchItem: type[BaseModel] = create_model(
    "BatchItem",
    __base__=ScoredRecord,
    __doc__="One record of a batch reply: its index in the request, its row, the decision.",
    index=(int, Field(description="position of the record in the request")),
    decision=(Action | None, Field(description="none for a record that was not scored")),
)


class BatchReply(BaseModel):
    results: list[BatchItem]  # type: ignore[valid-type]
    time_ms: float


class ErrorReply(BaseModel):
    error: str
    field: str | None = None
    request_id: str


def request_body_doc(*, batch: bool) -> dict[str, Any]:
    """``openapi_extra`` describing the JSON body that an endpoint parses itself."""
    one = ScoreRequest.model_json_schema()
    schema = one
    if batch:
        schema = {
            "title": "BatchRequest",
            "type": "object",
            "required": ["records"],
            "properties": {"records": {"type": "array", "items": one}},
        }
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}
