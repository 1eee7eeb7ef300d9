"""Labelled records for calibration: a record, its label, and labels on its claims.

``nli-faith calibrate`` reads records with ``label`` (1 faithful, 0 not) and optionally
``claims: [{"text": ..., "label": 0 or 1}]``; the claim texts are located in the
response as spans (:func:`claim_spans`), which the scorer's claims are matched against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nli_faith.errors import E_CLAIM_LABELS, E_CLAIM_LABELS_TYPE, E_LABEL, RecordError
from nli_faith.records import parse_record


@dataclass(frozen=True)
class ClaimLabel:
    """A human label on a span of the response (1: supported, 0: not)."""

    start: int
    end: int
    label: int


def claim_spans(response: str, claims: Sequence[tuple[str, int]]) -> list[ClaimLabel]:
    """Locate labelled claim texts in the response (in order; those not found are dropped:
    :func:`locate_claims` says which).

    Example:
        >>> claim_spans("A is b. C is d.", [("C is d.", 0), ("nowhere", 1)])
        [ClaimLabel(start=8, end=15, label=0)]
    """
    return locate_claims(response, claims)[0]


def locate_claims(
    response: str, claims: Sequence[tuple[str, int]]
) -> tuple[list[ClaimLabel], list[int]]:
    """The spans of the labelled claim texts found in the response, and the indices of
    those not found (or empty).

    Example:
        >>> locate_claims("A is b. C is d.", [("C is d.", 0), ("nowhere", 1), (" ", 1)])
        ([ClaimLabel(start=8, end=15, label=0)], [1, 2])
    """
    out, missing, cursor = [], [], 0
    for i, (text, label) in enumerate(claims):
        text = text.strip()
        at = response.find(text, cursor)
        if at < 0:
            at = response.find(text)
        if at >= 0 and text:
            out.append(ClaimLabel(at, at + len(text), int(label)))
            cursor = at + len(text)
        else:
            missing.append(i)
    return out, missing


def claim_predictions(result: Any, spans: Sequence[ClaimLabel]) -> list[tuple[int, int]]:
    """(label, predicted) per labelled span: supported iff every overlapping claim is ``yes``."""
    out = []
    for span in spans:
        hit = [c for c in result.claims if c.start < span.end and span.start < c.end]
        if hit:
            out.append((span.label, int(all(c.verdict == "yes" for c in hit))))
    return out


@dataclass(frozen=True)
class LabelledRecord:
    """One labelled record: the record to score, its label and its claims' labels."""

    record: Any  # nli_faith.records.Record
    label: int
    claims: list[ClaimLabel]
    unmatched: tuple[int, ...] = ()  # indices of labelled claim texts not in the response


def _label(value: Any, where: str) -> int:
    if isinstance(value, bool) or value in (0, 1):
        return int(value)
    raise RecordError(E_LABEL.format(where=where, value=value), field="label")


def parse_labelled(raw: Any, *, where: str = "record", limits: Any = None) -> LabelledRecord:
    """A record in any accepted field names plus ``label`` (1 faithful, 0 not) and,
    optionally, ``claims: [{"text": ..., "label": 0 or 1}, ...]`` (spans of the response).

    Example:
        >>> r = parse_labelled({"response": "A is b. C is d.", "context": "A is b.", "label": 0,
        ...                     "claims": [{"text": "A is b.", "label": 1},
        ...                                {"text": "C is d.", "label": 0}]})
        >>> r.label, [c.label for c in r.claims]
        (0, [1, 0])
    """
    record = parse_record(raw, limits=limits)
    label = _label(raw.get("label"), where)
    items = raw.get("claims") or []
    if not isinstance(items, list):
        raise RecordError(
            E_CLAIM_LABELS_TYPE.format(where=where, type_name=type(items).__name__),
            field="claims",
        )
    pairs = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise RecordError(
                E_CLAIM_LABELS.format(where=where, index=i, problem="no string 'text'"),
                field="claims",
            )
        pairs.append((item["text"], _label(item.get("label"), f"{where} claims[{i}]")))
    spans, missing = locate_claims(record.response, pairs)
    return LabelledRecord(record, label, spans, tuple(missing))
