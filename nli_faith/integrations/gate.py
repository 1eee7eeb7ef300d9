"""What the guardrail drop-ins share: the rule they pass or fail an answer by (the one
gate, :func:`nli_faith.scoring.gate.gate`, with their ``threshold`` and ``score_type``),
the words to blame, the answer without its unsupported claims. Pure functions over a
result; no framework imported.

Example:
    >>> from nli_faith.results import ClaimVerdict, FaithfulnessResult, UnsupportedSpan
    >>> bad = UnsupportedSpan(23, 40, "thirty-six months", "contradicted", "24 months.")
    >>> r = FaithfulnessResult(0.5, 0.5, 0.5, 2, 1, 1, 0, "...", [
    ...     ClaimVerdict("Paris is in France.", 0, 19, "yes", 0.9, 0.0, None),
    ...     ClaimVerdict("The warranty lasts thirty-six months.", 20, 57, "no", 0.0, 0.9, None,
    ...                  unsupported_spans=[bad])])
    >>> ruling(r, score_type="strict", threshold=1.0).passed
    False
    >>> without_unsupported("Paris is in France. The warranty lasts thirty-six months.", r)
    'Paris is in France.'
    >>> blamed(r)
    ['"thirty-six months" is contradicted by: 24 months.']
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from nli_faith.scoring.gate import Ruling, gate

if TYPE_CHECKING:  # pragma: no cover
    from nli_faith.results import FaithfulnessResult
    from nli_faith.scorer import FaithfulnessScorer


def ruling(
    result: FaithfulnessResult,
    *,
    score_type: str,
    threshold: float | None,
    scorer: FaithfulnessScorer | None = None,
) -> Ruling:
    """The one gate's ruling on an answer: its ``score_type`` score must reach
    ``threshold``; with no threshold, the scorer's calibrated decision (``nli-faith
    calibrate``), if it has one. Never passed with an empty context; not decided
    (``passed=None``) for an answer with no verifiable claim, or with neither rule."""
    if threshold is None:
        th = None if scorer is None else scorer.thresholds
        if th is not None:
            return th.decision.ruling(result)
    return gate(result, score=score_type, min_score=threshold)


def blamed(result: FaithfulnessResult) -> list[str]:
    """One line per word span to blame: the words, what is wrong, the evidence."""
    out = []
    for c in result.claims:
        for s in c.unsupported_spans:
            how = "is contradicted by" if s.kind == "contradicted" else "is not found in"
            out.append(f'"{s.text}" {how}: {s.evidence if s.evidence else "(no evidence)"}')
    return out


def without_unsupported(response: str, result: FaithfulnessResult) -> str:
    """``response`` with every claim that is not supported cut out (for a fix action)."""
    cuts = sorted((c.start, c.end) for c in result.claims if c.verdict != "yes")
    pieces, pos = [], 0
    for s, e in cuts:
        if s >= pos:
            pieces.append(response[pos:s])
            pos = e
    pieces.append(response[pos:])
    return re.sub(r"[ \t]{2,}", " ", "".join(pieces)).strip()


def renamed_fields(result: FaithfulnessResult, names: dict[str, str]) -> FaithfulnessResult:
    """``result`` with its error naming the framework's inputs instead of the record's
    fields (``{"response": "input key 'answer'"}``): "field 'response' is null" becomes
    "input key 'answer' is null".

    Example:
        >>> from nli_faith.results import FaithfulnessResult
        >>> r = FaithfulnessResult(None, None, None, 0, 0, 0, 0, "x",
        ...                        error="RecordError: field 'context' is null; expected ...")
        >>> renamed_fields(r, {"context": "argument 'contexts'"}).error
        "RecordError: argument 'contexts' is null; expected ..."
    """
    if result.error is None:
        return result
    import dataclasses

    error = re.sub(r"field '([a-z_]+)'", lambda m: names.get(m.group(1), m.group(0)), result.error)
    return dataclasses.replace(result, error=error)
