"""Input records: DeepEval, RAGAS or plain field names, validated with clear errors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nli_faith.errors import (
    E_CONTEXT_ITEM,
    E_CONTEXT_MISSING,
    E_CONTEXT_TYPE,
    E_NOT_OBJECT,
    E_RESPONSE_MISSING,
    E_RESPONSE_TYPE,
    RecordError,
)

RESPONSE_FIELDS = ("response", "actual_output", "answer")
CONTEXT_FIELDS = ("context", "retrieval_context", "retrieved_contexts", "contexts")
QUESTION_FIELDS = ("question", "input", "user_input", "query")


@dataclass(frozen=True)
class Record:
    response: str
    context: list[str]
    question: str | None = None


def _first(rec: Mapping[str, Any], names: tuple[str, ...]) -> tuple[str | None, Any]:
    for name in names:
        if name in rec and rec[name] is not None:
            return name, rec[name]
    return None, None


def as_context(value: Any, *, field: str = "context") -> list[str]:
    """A string or a list of strings -> list of documents; anything else is a RecordError."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise RecordError(
                    E_CONTEXT_ITEM.format(field=field, index=i, type_name=type(item).__name__),
                    field=field,
                )
        return list(value)
    raise RecordError(
        E_CONTEXT_TYPE.format(field=field, type_name=type(value).__name__), field=field
    )


def parse_record(rec: Any) -> Record:
    """Validate one record (a JSON object) and map its field names.

    Example:
        >>> parse_record({"actual_output": "It is blue.", "retrieval_context": ["Sky: blue."]})
        Record(response='It is blue.', context=['Sky: blue.'], question=None)
    """
    if isinstance(rec, Record):
        return rec
    if not isinstance(rec, Mapping):
        raise RecordError(E_NOT_OBJECT.format(type_name=type(rec).__name__))
    r_field, response = _first(rec, RESPONSE_FIELDS)
    if r_field is None:
        raise RecordError(E_RESPONSE_MISSING, field="response")
    if not isinstance(response, str):
        raise RecordError(
            E_RESPONSE_TYPE.format(field=r_field, type_name=type(response).__name__), field=r_field
        )
    c_field, context = _first(rec, CONTEXT_FIELDS)
    if c_field is None:
        raise RecordError(E_CONTEXT_MISSING, field="context")
    q_field, question = _first(rec, QUESTION_FIELDS)
    if question is not None and not isinstance(question, str):
        raise RecordError(
            E_RESPONSE_TYPE.format(field=q_field, type_name=type(question).__name__), field=q_field
        )
    return Record(response, as_context(context, field=c_field), question)
