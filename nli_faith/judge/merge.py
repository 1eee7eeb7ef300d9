"""Judge verdicts back into results: pure functions, and the reading of judged JSONL.

A judged claim takes the judge's verdict and ``source="judge"``; lenient, strict, the
reason and the reference rates are recomputed by the engine
(:func:`~nli_faith.engine.decide.rescore`). ``soft`` stays the mean NLI entailment
(a judge gives no probability). A claim whose judge failed keeps its NLI verdict and
gets ``judge_error``; a failure never counts as ``yes``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nli_faith.engine.decide import rescore
from nli_faith.errors import (
    E_MERGE_CLAIM_TEXT,
    E_MERGE_DUPLICATE,
    E_MERGE_FIELD,
    E_MERGE_JSON,
    E_MERGE_LINE_TWICE,
    E_MERGE_NOT_OBJECT,
    E_MERGE_UNKNOWN,
    E_MERGE_VERDICT,
    E_REFERENCE_AFTER_JUDGE,
    NliFaithError,
)
from nli_faith.judge.prompt import VERDICTS, JudgeReplyError, normalize_verdict
from nli_faith.records import JSONInputError, load_json
from nli_faith.results import ClaimVerdict, FaithfulnessResult, UnsupportedSpan, result_from_dict
from nli_faith.rows import output_row


class MergeError(NliFaithError, ValueError):
    """A judged line that cannot be merged (its message names the file and line)."""


@dataclass(frozen=True)
class JudgeOutcome:
    """What the judge made of one claim: a verdict, or an error (not to be confused with
    the engine's :class:`~nli_faith.engine.runner.Outcome` of a whole record)."""

    verdict: str | None = None  # "yes" / "no" / "idk"; None when the judge failed
    reason: str | None = None
    error: str | None = None


def _judged_spans(c: ClaimVerdict, verdict: str) -> list[UnsupportedSpan]:
    """A judged claim's spans: none once supported, its own (or the whole claim, when the
    NLI verdict had supported it) marked contradicted once contradicted."""
    if verdict == "yes":
        return []
    ev = c.evidence.text if c.evidence is not None else None
    spans = c.unsupported_spans or [UnsupportedSpan(c.start, c.end, c.claim, "unsupported", ev)]
    if verdict == "no":
        spans = [dataclasses.replace(s, kind="contradicted") for s in spans]
    return spans


def apply_outcomes(
    result: FaithfulnessResult, outcomes: Mapping[int, JudgeOutcome]
) -> FaithfulnessResult:
    """``result`` with the judge's outcomes (by claim index) merged in, scores recomputed.

    Example:
        >>> from nli_faith.results import ClaimVerdict
        >>> c = ClaimVerdict("It is red.", 0, 10, "idk", 0.4, 0.1, None)
        >>> r = FaithfulnessResult(1.0, 0.0, 0.4, 1, 0, 0, 1, "...", [c], n_uncertain=1)
        >>> m = apply_outcomes(r, {0: JudgeOutcome("no", "It is blue.")})
        >>> m.lenient, m.strict, m.n_no, m.claims[0].source, m.n_judged
        (0.0, 0.0, 1, 'judge', 1)
    """
    if result.error is not None or not outcomes:
        return result
    claims = list(result.claims)
    for k, o in outcomes.items():
        c = claims[k]
        if o.verdict is not None:
            if o.verdict not in VERDICTS:
                raise ValueError(f"verdict {o.verdict!r} is not one of {VERDICTS}")
            claims[k] = dataclasses.replace(
                c,
                verdict=o.verdict,
                source="judge",
                judge_reason=o.reason,
                judge_error=None,
                unsupported_spans=_judged_spans(c, o.verdict),
            )
        else:
            claims[k] = dataclasses.replace(c, judge_error=o.error or "the judge failed")
    merged = rescore(result, claims, stale_reference=E_REFERENCE_AFTER_JUDGE)
    return dataclasses.replace(
        merged,
        n_judged=sum(c.source == "judge" for c in merged.claims),
        n_judge_errors=sum(c.judge_error is not None for c in merged.claims),
    )


@dataclass(frozen=True)
class Judged:
    """One judged line, checked."""

    lineno: int  # line in the judged file
    line: int  # record line in the scored file
    claim_index: int
    outcome: JudgeOutcome
    claim: str | None = None
    id: Any = None


def read_judged(lines: Iterable[str], *, path: str = "judged") -> tuple[list[Judged], list[str]]:
    """Parse judged JSONL lines: the good ones, and an error naming each bad line.

    A line needs ``line`` and ``claim_index`` (integers) and either ``verdict``
    (``yes`` / ``no`` / ``idk``, read as a judge's reply is: any case, and ``borderline``
    as ``idk``) or ``judge_error`` (a string: the judge failed).
    """
    return _read_judged(enumerate(lines, start=1), path=path)


def read_judged_file(path: str | Path) -> tuple[list[Judged], list[str]]:
    """:func:`read_judged` of a file, its lines numbered as every nli-faith reader does."""
    from nli_faith.io import byte_chunks, jsonl_lines

    with open(path, "rb") as fh:
        return _read_judged(jsonl_lines(byte_chunks(fh)), path=str(path))


def _read_judged(
    numbered: Iterable[tuple[int, str]], *, path: str
) -> tuple[list[Judged], list[str]]:
    good: list[Judged] = []
    errors: list[str] = []
    for lineno, text in numbered:
        if not text.strip():
            continue
        try:
            rec = load_json(text)
        except JSONInputError as err:
            errors.append(E_MERGE_JSON.format(path=path, line=lineno, error=err))
            continue
        if not isinstance(rec, dict):
            errors.append(E_MERGE_NOT_OBJECT.format(path=path, line=lineno))
            continue
        bad = next(
            (
                f
                for f in ("line", "claim_index")
                if not isinstance(rec.get(f), int) or isinstance(rec.get(f), bool)
            ),
            None,
        )
        if bad is not None:
            errors.append(
                E_MERGE_FIELD.format(path=path, line=lineno, field=bad, kind="an integer")
            )
            continue
        verdict, error = rec.get("verdict"), rec.get("judge_error")
        if error is not None:  # the judge failed: never its verdict, whatever else is there
            outcome = JudgeOutcome(error=error if isinstance(error, str) else json.dumps(error))
        else:
            try:  # as a judge's reply is read: case and spaces aside, "borderline" is idk
                verdict = normalize_verdict(verdict)
            except JudgeReplyError:
                errors.append(E_MERGE_VERDICT.format(path=path, line=lineno, verdict=verdict))
                continue
            reason = rec.get("reason")
            if reason is not None and not isinstance(reason, str):
                errors.append(
                    E_MERGE_FIELD.format(path=path, line=lineno, field="reason", kind="a string")
                )
                continue
            outcome = JudgeOutcome(
                verdict=verdict, reason=reason if isinstance(reason, str) and reason else None
            )
        claim = rec.get("claim")
        good.append(
            Judged(
                lineno=lineno,
                line=rec["line"],
                claim_index=rec["claim_index"],
                outcome=outcome,
                claim=claim if isinstance(claim, str) else None,
                id=rec.get("id"),
            )
        )
    return good, errors


def merge_scored(
    scored: list[dict[str, Any]],
    judged: list[Judged],
    *,
    path: str = "judged",
    decision: Any = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Merge checked judged lines into scored lines (``nli-faith score`` output).

    Returns the merged lines (one per scored line, in order) and an error for each
    judged line naming an unknown record or claim, a different claim text, or a claim
    judged twice; those lines are not merged. ``decision`` (a
    :class:`~nli_faith.scoring.thresholds.Decision`) re-decides ``faithful`` on the
    merged scores (see :func:`scored_line`).
    """
    by_line = {rec.get("line"): k for k, rec in enumerate(scored)}
    per_record: dict[int, dict[int, JudgeOutcome]] = {}
    errors: list[str] = []
    for j in judged:
        k = by_line.get(j.line)
        rec = scored[k] if k is not None else None
        n = len(rec.get("claims") or []) if rec is not None and not rec.get("error") else 0
        where = {
            "path": path,
            "line": j.lineno,
            "claim_index": j.claim_index,
            "record_line": j.line,
        }
        if (
            rec is None
            or not 0 <= j.claim_index < n
            or (j.id is not None and rec.get("id") != j.id)
        ):
            id_part = f" (id {j.id!r})" if j.id is not None else ""
            errors.append(E_MERGE_UNKNOWN.format(**where, id_part=id_part))
            continue
        if j.claim is not None and j.claim != rec["claims"][j.claim_index]["claim"]:
            errors.append(E_MERGE_CLAIM_TEXT.format(**where))
            continue
        outcomes = per_record.setdefault(k, {})
        if j.claim_index in outcomes:
            errors.append(E_MERGE_DUPLICATE.format(**where))
            continue
        outcomes[j.claim_index] = j.outcome
    merged = []
    for k, rec in enumerate(scored):
        if k not in per_record:
            merged.append(rec if decision is None else decide_line(rec, decision))
            continue
        result = apply_outcomes(result_from_dict(rec), per_record[k])
        merged.append(scored_line(rec, result, decision=decision))
    return merged, errors


def scored_line(
    original: Mapping[str, Any], result: FaithfulnessResult, *, decision: Any = None
) -> dict[str, Any]:
    """The row of ``result`` (:func:`~nli_faith.rows.output_row`) with ``original``'s row
    keys (line, id, question...) and its shape: the reference keys only if it had them.

    ``faithful`` (the ``--thresholds`` gate) is decided again on the new scores with
    ``decision`` (:func:`merge_scored` decides the unchanged lines too, with
    :func:`decide_line`); without one, a ``faithful`` the judge may have made stale is
    dropped (:func:`stale_faithful` counts those lines).

    Example:
        >>> from nli_faith.scoring.thresholds import Decision
        >>> r = FaithfulnessResult(0.5, 0.5, 0.5, 2, 1, 1, 0, "...")
        >>> gate = Decision("strict", 0.75)
        >>> scored_line({"line": 1, "faithful": True}, r, decision=gate)["faithful"]
        False
        >>> "faithful" in scored_line({"line": 1, "faithful": True}, r)
        False
    """
    reference = "hallucination_rate" in original
    return output_row(result, keys=original, decision=decision, reference=reference)


def decide_line(line: Mapping[str, Any], decision: Any) -> dict[str, Any]:
    """``line`` (a scored line) with ``faithful`` decided by ``decision`` on its scores,
    with the one gate (:meth:`~nli_faith.scoring.thresholds.Decision.passes`).

    Example:
        >>> from nli_faith.scoring.thresholds import Decision
        >>> decide_line({"line": 1, "strict": 0.8}, Decision("strict", 0.75))["faithful"]
        True
        >>> decide_line({"line": 2, "error": "E", "strict": None}, Decision())["faithful"] is None
        True
    """
    out = {**line, "faithful": decision.passes(line)}
    by = getattr(decision, "by", None)
    if by is not None:
        out["decided_by"] = by
    return out


def stale_faithful(lines: Iterable[Mapping[str, Any]], merged: Iterable[Mapping[str, Any]]) -> int:
    """How many lines had a ``faithful`` decision that merging dropped (no ``decision``)."""
    return sum("faithful" in a and "faithful" not in b for a, b in zip(lines, merged))


def _numbered(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) of each non-blank line (``MergeError`` on bad JSON)."""
    from nli_faith.io import byte_chunks, jsonl_lines

    with open(path, "rb") as fh:
        for lineno, text in jsonl_lines(byte_chunks(fh)):
            try:
                yield lineno, load_json(text)
            except JSONInputError as err:
                raise MergeError(E_MERGE_JSON.format(path=path, line=lineno, error=err)) from err


def read_scored(path: str | Path) -> list[dict[str, Any]]:
    """The lines of a scored file (``nli-faith score`` output), to join verdicts to: each a
    JSON object with its own integer ``line``; anything else is a ``MergeError`` naming the
    line, since a verdict could otherwise land on the wrong record."""
    out: list[dict[str, Any]] = []
    seen: dict[int, int] = {}
    for lineno, obj in _numbered(path):
        if not isinstance(obj, dict):
            raise MergeError(E_MERGE_NOT_OBJECT.format(path=path, line=lineno))
        line = obj.get("line")
        if not isinstance(line, int) or isinstance(line, bool):
            raise MergeError(
                E_MERGE_FIELD.format(path=path, line=lineno, field="line", kind="an integer")
            )
        if line in seen:
            raise MergeError(
                E_MERGE_LINE_TWICE.format(path=path, line=lineno, record=line, first=seen[line])
            )
        seen[line] = lineno
        out.append(obj)
    return out
