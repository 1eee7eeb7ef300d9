"""The HTTP request and reply shapes, and the parsing of a request body into records.

The body is parsed by hand (``json.loads`` + :func:`nli_faith.records.parse_record`) rather
than by pydantic, so that the service accepts exactly what ``nli-faith score`` accepts
(DeepEval and RAGAS field names too) and says exactly what it says about a bad record. The
pydantic models below only describe the API for ``/docs``.

Example:
    >>> body = b'{"actual_output": "It is blue.", "retrieval_context": ["Sky: blue."], "id": 7}'
    >>> raw = parse_body(body)
    >>> record_of(raw, limits=None).response
    'It is blue.'
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from nli_faith.errors import (
    E_SERVE_BAD_JSON,
    E_SERVE_BATCH_SHAPE,
    E_SERVE_BATCH_TOO_MANY,
    E_SERVE_ID_TYPE,
    E_SERVE_NOT_OBJECT,
    RecordError,
)
from nli_faith.records import Limits, Record, parse_record


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
        return json.loads(body)
    except RecursionError:
        raise ServeError(400, E_SERVE_BAD_JSON.format(error="nested too deeply")) from None
    except ValueError as err:  # JSONDecodeError, UnicodeDecodeError, too many int digits
        msg = err.msg if isinstance(err, json.JSONDecodeError) else str(err)
        raise ServeError(400, E_SERVE_BAD_JSON.format(error=msg)) from None


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
        raise ServeError(422, str(err), field=err.field) from None


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


class EvidenceOut(BaseModel):
    text: str
    doc_index: int
    start: int
    end: int


class UnsupportedSpanOut(BaseModel):
    start: int = Field(description="character span in the response")
    end: int
    text: str = Field(description="response[start:end]")
    kind: Literal["contradicted", "unsupported"]
    evidence: str | None = Field(description="the evidence text it was compared with")


class ClaimOut(BaseModel):
    claim: str
    start: int
    end: int
    verdict: Literal["yes", "no", "idk"]
    p_entail: float
    p_contradict: float
    evidence: EvidenceOut | None
    unsupported_spans: list[UnsupportedSpanOut] = Field(
        default_factory=list,
        description="for a claim that is not supported: the words of it to blame",
    )


class ScoreReply(BaseModel):
    """What ``nli-faith score`` writes for one record, plus the decision and the time."""

    id: str | int | None = None
    question: str | None = None
    lenient: float | None
    strict: float | None
    soft: float | None
    n_claims: int
    n_yes: int
    n_no: int
    n_idk: int
    reason: str
    claims: list[ClaimOut]
    decision: Literal["pass", "block"]
    time_ms: float


class BatchItem(BaseModel):
    index: int
    id: str | int | None = None
    question: str | None = None
    lenient: float | None
    strict: float | None
    soft: float | None
    n_claims: int
    n_yes: int
    n_no: int
    n_idk: int
    reason: str
    claims: list[ClaimOut]
    error: str | None = Field(None, description="set when this record was not scored")
    decision: Literal["pass", "block"] | None


class BatchReply(BaseModel):
    results: list[BatchItem]
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
