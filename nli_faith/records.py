"""Input records: DeepEval, RAGAS or plain field names, validated with clear errors."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from numbers import Integral
from typing import Any

from nli_faith.errors import (
    E_CLAIM_LIMIT,
    E_CONTEXT_ITEM,
    E_CONTEXT_MISSING,
    E_CONTEXT_TYPE,
    E_FIELD_NULL,
    E_LIMIT,
    E_LIMIT_VALUE,
    E_NOT_OBJECT,
    E_RESPONSE_MISSING,
    E_RESPONSE_TYPE,
    NliFaithError,
    OptionError,
    RecordError,
)

RESPONSE_FIELDS = ("response", "actual_output", "answer")
CONTEXT_FIELDS = ("context", "retrieval_context", "retrieved_contexts", "contexts")
QUESTION_FIELDS = ("question", "input", "user_input", "query")
#: A reference (ground-truth) answer: plain/RAGAS ``reference`` or ``ground_truth``,
#: DeepEval ``expected_output``. Optional; it splits unsupported claims into
#: hallucination and self-knowledge (``FaithfulnessScorer.check_reference``).
REFERENCE_FIELDS = ("reference", "ground_truth", "expected_output")


class JSONInputError(ValueError):
    """Text that is not one strict JSON value; ``str(err)`` says why, for a user."""


def _no_constant(name: str) -> Any:
    raise JSONInputError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise JSONInputError(f"the number {text[:24]} is out of range")
    return value


def load_json(text: str | bytes) -> Any:
    """One JSON value, read strictly: every reader of records (JSON Lines, the Ray engine,
    the service's bodies) goes through here, so every door turns away the same input with
    the same reason. ``NaN``, ``Infinity`` and numbers beyond a float are refused (they
    could not be written back as JSON), as are too-deep nesting and too-long integers.

    Example:
        >>> load_json('{"id": 7}')
        {'id': 7}
        >>> load_json('{"id": NaN}')
        Traceback (most recent call last):
        ...
        nli_faith.records.JSONInputError: NaN is not a JSON number
    """
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except JSONInputError:
        raise
    except RecursionError:
        raise JSONInputError("nested too deeply") from None
    except json.JSONDecodeError as err:
        raise JSONInputError(err.msg) from None
    except UnicodeDecodeError as err:
        raise JSONInputError(f"not UTF-8 text (byte {err.start})") from None
    except ValueError:  # an integer longer than the interpreter converts
        digits = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
        raise JSONInputError(f"an integer has more than {digits:,} digits") from None


def is_whole(value: object, least: int = 1) -> bool:
    """Whether ``value`` is an integer (a numpy one too, never a bool) of at least ``least``.

    Example:
        >>> is_whole(3), is_whole(True), is_whole(1.5), is_whole(0, least=0)
        (True, False, False, True)
    """
    return isinstance(value, Integral) and not isinstance(value, bool) and value >= least


@dataclass(frozen=True)
class Limits:
    """Resource limits on one record; ``None`` turns a limit off.

    The defaults are generous for a library call; the HTTP service sets its own.
    A record past a limit gets an error naming the field and the limit, and the
    other records of its batch are scored as usual.

    Example:
        >>> limits = Limits(max_response_chars=5)
        >>> try:
        ...     parse_record({"response": "x" * 10, "context": "y"}, limits=limits)
        ... except ValueError as err:
        ...     print(err)
        field 'response' is too long: 10 characters, over the limit of 5 (max_response_chars).
    """

    max_response_chars: int | None = 50_000
    max_context_chars: int | None = 1_000_000  # all documents together
    max_documents: int | None = 1_000
    max_claims: int | None = 500  # checked after splitting, by the scorer

    def __post_init__(self) -> None:
        for name in ("max_response_chars", "max_context_chars", "max_documents", "max_claims"):
            value = getattr(self, name)
            if value is not None and not is_whole(value):
                raise OptionError(E_LIMIT_VALUE.format(name=name, value=value))
            if value is not None:  # a numpy integer is kept as a plain int (JSON, pickling)
                object.__setattr__(self, name, int(value))

    def check(
        self, rec: Record, *, response_field: str = "response", context_field: str = "context"
    ) -> None:
        """Raise :class:`RecordError` if ``rec`` is past a limit."""
        checks = (
            (
                response_field,
                len(rec.response),
                self.max_response_chars,
                "characters",
                "max_response_chars",
            ),
            (
                context_field,
                sum(map(len, rec.context)),
                self.max_context_chars,
                "characters",
                "max_context_chars",
            ),
            (context_field, len(rec.context), self.max_documents, "documents", "max_documents"),
        )
        for field, size, limit, unit, option in checks:
            if limit is not None and size > limit:
                raise RecordError(
                    E_LIMIT.format(field=field, size=size, unit=unit, limit=limit, option=option),
                    field=field,
                )

    def check_claims(self, n_claims: int, *, field: str = "response") -> None:
        """Raise :class:`RecordError` if a response split into more than ``max_claims``."""
        if self.max_claims is not None and n_claims > self.max_claims:
            raise RecordError(
                E_CLAIM_LIMIT.format(field=field, size=n_claims, limit=self.max_claims),
                field=field,
            )


@dataclass(frozen=True)
class Record:
    response: str
    context: list[str]
    question: str | None = None
    reference: str | None = None  # reference answer; blank counts as none


def _first(rec: Mapping[str, Any], names: tuple[str, ...]) -> tuple[str | None, Any]:
    for name in names:
        if name in rec and rec[name] is not None:
            return name, rec[name]
    return None, None


def _missing(
    rec: Mapping[str, Any], names: tuple[str, ...], *, expected: str, absent: str, field: str
) -> RecordError:
    """The error for a field with no value: "is null" if one of ``names`` is there as null."""
    for name in names:
        if name in rec:  # present, so null (``_first`` found no value)
            return RecordError(E_FIELD_NULL.format(field=name, expected=expected), field=name)
    return RecordError(absent, field=field)


_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """``text`` with each lone surrogate (a ``\\ud83d`` escape cut from its pair, as in a
    truncated emoji) replaced by U+FFFD, so it can be tokenized; spans do not move."""
    return _SURROGATE_RE.sub("\ufffd", text) if _SURROGATE_RE.search(text) else text


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


def parse_record(rec: Any, *, limits: Limits | None = None) -> Record:
    """Validate one record (a JSON object) and map its field names.

    Example:
        >>> parse_record({"actual_output": "It is blue.", "retrieval_context": ["Sky: blue."]})
        Record(response='It is blue.', context=['Sky: blue.'], question=None, reference=None)
    """
    if isinstance(rec, Record):  # checked as the same fields of a JSON object would be
        rec = {
            "response": rec.response,
            "context": rec.context,
            "question": rec.question,
            "reference": rec.reference,
        }
    if not isinstance(rec, Mapping):
        raise RecordError(E_NOT_OBJECT.format(type_name=type(rec).__name__))
    r_field, response = _first(rec, RESPONSE_FIELDS)
    if r_field is None:
        raise _missing(
            rec, RESPONSE_FIELDS, expected="a string", absent=E_RESPONSE_MISSING, field="response"
        )
    if not isinstance(response, str):
        raise RecordError(
            E_RESPONSE_TYPE.format(field=r_field, type_name=type(response).__name__), field=r_field
        )
    c_field, context = _first(rec, CONTEXT_FIELDS)
    if c_field is None:
        raise _missing(
            rec,
            CONTEXT_FIELDS,
            expected="a string or a list of strings",
            absent=E_CONTEXT_MISSING,
            field="context",
        )
    q_field, question = _first(rec, QUESTION_FIELDS)
    if question is not None and not isinstance(question, str):
        raise RecordError(
            E_RESPONSE_TYPE.format(field=q_field, type_name=type(question).__name__), field=q_field
        )
    ref_field, reference = _first(rec, REFERENCE_FIELDS)
    if reference is not None and not isinstance(reference, str):
        raise RecordError(
            E_RESPONSE_TYPE.format(field=ref_field, type_name=type(reference).__name__),
            field=ref_field,
        )
    if reference is not None and not reference.strip():
        reference = None
    docs = [valid_text(d) for d in as_context(context, field=c_field)]
    reference = None if reference is None else valid_text(reference)
    question = None if question is None else valid_text(question)
    out = Record(valid_text(response), docs, question, reference)
    if limits is not None:
        limits.check(out, response_field=r_field, context_field=c_field)
        if reference is not None:  # a reference answer is held to the response's limit
            limits.check(replace(out, response=reference), response_field=ref_field)
    return out


def question_of(rec: Any) -> str | None:
    """The question of a record (any of :data:`QUESTION_FIELDS`), or ``None`` when it has
    none or cannot be parsed."""
    try:
        return (rec if isinstance(rec, Record) else parse_record(rec)).question
    except NliFaithError:
        return None
