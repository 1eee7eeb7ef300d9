"""The one pass/fail gate: whether a scored answer passes, and why.

Every door decides with :func:`gate`: the CLI's and the server's ``faithful`` (calibrated
thresholds, :class:`~nli_faith.scoring.thresholds.Decision`), the server's ``decision``
(``--block-below-strict``, ``--block-on-contradiction``), the judge merge, and the
metrics and guardrails of :mod:`nli_faith.integrations` (``threshold``, ``score_type``).
They differ only in the rule they hand it.

In order: an answer that could not be scored is not decided (``passed=None``); an answer
checked against an empty context (no document holds any text) does not pass, whatever
the score and the rule; one with a contradicted claim does not pass when
``block_on_contradiction``; one with no verifiable claim (no score) is not decided; one
whose ``score`` is below ``min_score`` does not pass; any other passes, unless no rule
was given at all (then it is not decided).

Example:
    >>> from nli_faith.results import FaithfulnessResult
    >>> r = FaithfulnessResult(1.0, 0.5, 0.6, 2, 1, 0, 1, "...")
    >>> gate(r, score="strict", min_score=0.75)
    Ruling(passed=False, why='below', reason='the strict score 0.50 is below 0.75.')
    >>> gate(r, score="lenient", min_score=0.75).passed
    True
    >>> import dataclasses
    >>> gate(dataclasses.replace(r, context_empty=True), score="lenient", min_score=0.0).why
    'no_context'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from nli_faith.errors import (
    E_GATE_BELOW,
    E_GATE_CONTRADICTED,
    E_GATE_NO_CONTEXT,
    E_SCORE_TYPE,
    OptionError,
)

#: The scores a gate can compare with its ``min_score``.
SCORES = ("strict", "lenient", "soft")
#: Why a ruling came out as it did.
Why = Literal["not_scored", "no_context", "contradicted", "no_claims", "below", "passed", "no_rule"]


@dataclass(frozen=True)
class Ruling:
    """What the gate made of one answer: ``passed`` (``None``: not decided) and why."""

    passed: bool | None
    why: Why
    reason: str


def check_score(score: str) -> str:
    """``score`` if it is one of :data:`SCORES`; else an ``OptionError`` naming ``score_type``."""
    if score not in SCORES:
        raise OptionError(E_SCORE_TYPE.format(allowed=list(SCORES), score=score))
    return score


def _get(result: Any, name: str) -> Any:
    """A field of a result, or of its output row (a scored JSON line)."""
    if isinstance(result, Mapping):
        return result.get(name)
    return getattr(result, name, None)


def gate(
    result: Any,
    *,
    score: str = "strict",
    min_score: float | None = None,
    block_on_contradiction: bool = False,
) -> Ruling:
    """Whether ``result`` (a :class:`~nli_faith.results.FaithfulnessResult`, or its output
    row) passes: ``score >= min_score`` and, with ``block_on_contradiction``, no claim
    contradicted; never with an empty context (see the module docstring for the order)."""
    check_score(score)
    error = _get(result, "error")
    if error:
        return Ruling(None, "not_scored", f"the answer could not be scored: {error}")
    if _get(result, "context_empty"):
        return Ruling(False, "no_context", str(E_GATE_NO_CONTEXT))
    n_no = _get(result, "n_no") or 0
    if block_on_contradiction and n_no > 0:
        return Ruling(False, "contradicted", E_GATE_CONTRADICTED.format(n=n_no))
    value = _get(result, score)
    if value is None:
        return Ruling(None, "no_claims", "the answer holds no verifiable claim to check.")
    if min_score is not None and value < min_score:
        reason = E_GATE_BELOW.format(score=score, value=value, min_score=min_score)
        return Ruling(False, "below", reason)
    if min_score is None and not block_on_contradiction:
        return Ruling(None, "no_rule", "no rule to pass or fail the answer by.")
    return Ruling(True, "passed", "the answer passes.")


@dataclass(frozen=True)
class Policy:
    """A guardrail's rule over the strict score: ``block_below_strict`` (block an answer
    whose strict score is below it) and ``block_on_contradiction`` (block an answer with a
    contradicted claim); the service's ``decision`` and a streamed answer's stop
    (``FaithfulnessScorer.check_stream``) are both this rule, through :func:`gate`.

    Example:
        >>> from nli_faith.results import FaithfulnessResult
        >>> r = FaithfulnessResult(0.5, 0.5, 0.4, 2, 1, 1, 0, "...")
        >>> Policy(block_on_contradiction=True).ruling(r).why
        'contradicted'
    """

    block_below_strict: float | None = None
    block_on_contradiction: bool = False

    def ruling(self, result: Any) -> Ruling:
        """The one gate's ruling on ``result`` by this rule."""
        return gate(
            result,
            score="strict",
            min_score=self.block_below_strict,
            block_on_contradiction=self.block_on_contradiction,
        )
