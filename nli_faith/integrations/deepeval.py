"""DeepEval metric: ``NLIFaithfulnessMetric``, faithfulness with nli-faith, no LLM, no network.

A drop-in for DeepEval's ``FaithfulnessMetric``: same test case fields, same
parameters where they apply, same formulas (``penalize_ambiguous_claims=False``: lenient,
``(n - no) / n``; ``True``: strict, ``yes / n``), with the claims and the verdicts of a
local NLI cross-encoder instead of an LLM judge. Needs ``pip install "nli-faith[deepeval]"``.

Example:
    >>> from deepeval.test_case import LLMTestCase
    >>> from nli_faith.integrations.deepeval import NLIFaithfulnessMetric
    >>> metric = NLIFaithfulnessMetric(threshold=0.7, device="cpu")
    >>> metric.measure(LLMTestCase(
    ...     input="How long is the warranty?",
    ...     actual_output="The warranty lasts 36 months.",
    ...     retrieval_context=["The warranty lasts 24 months."]))
    0.0
    >>> metric.success, metric.score_breakdown["n_no"]
    (False, 1)

DeepEval's telemetry is switched off (``DEEPEVAL_TELEMETRY_OPT_OUT=1``) before DeepEval
is imported, unless you set that variable yourself.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from nli_faith.errors import RecordError
from nli_faith.integrations.batching import (
    batcher_for,
    import_optional,
    refuse_llm_options,
    resolve_scorer,
)
from nli_faith.scoring.gate import Ruling, gate

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")

_WHAT = "nli_faith.integrations.deepeval"
import_optional("deepeval", extra="deepeval", what=_WHAT)

from deepeval.metrics import BaseMetric  # noqa: E402
from deepeval.metrics.indicator import metric_progress_indicator  # noqa: E402
from deepeval.metrics.utils import construct_verbose_logs, prepare_measure  # noqa: E402
from deepeval.test_case import LLMTestCase, SingleTurnParams  # noqa: E402

if TYPE_CHECKING:  # pragma: no cover
    from nli_faith.config import ScorerConfig
    from nli_faith.results import FaithfulnessResult
    from nli_faith.scorer import FaithfulnessScorer

__all__ = ["NLIFaithfulnessMetric"]


class NLIFaithfulnessMetric(BaseMetric):
    """DeepEval faithfulness metric scored by nli-faith: claims, NLI verdicts, no LLM.

    Args:
        threshold: the test case passes when ``score >= threshold`` (default 0.5).
        include_reason: set ``reason`` (default True); it names contradicted and
            unsupported claims and warns when the lenient and strict scores disagree.
        async_mode: accepted for DeepEval compatibility; ``a_measure`` (used by
            ``evaluate``) scores the test cases DeepEval runs concurrently in one batch.
        strict_mode: as in DeepEval: threshold 1, and any score below it is 0.
        verbose_mode: print the claims and verdicts (they are in ``verbose_logs`` anyway).
        penalize_ambiguous_claims: as in DeepEval: False scores with the lenient formula
            (claims not found in the context count as faithful), True with the strict one
            (only supported claims count).
        empty_score: score of an answer with no verifiable claims; 1.0 as DeepEval (its
            reason says so); ``None`` leaves the score unset, so the test case fails.

    An empty ``retrieval_context`` (no document, or only empty or blank ones) scores 0.0
    and fails, whatever the formula and the threshold: nothing was checked (the reason
    says so). Pass and fail are the one gate's (:func:`nli_faith.scoring.gate.gate`).
        scorer: a ready :class:`~nli_faith.scorer.FaithfulnessScorer` (then no other
            scorer option).
        nli_model: the NLI model (``model=`` is DeepEval's LLM judge, which this metric
            does not use): registry name, local path or hub id; default the bundled model.
        config: a :class:`~nli_faith.config.ScorerConfig` (e.g. the ``guardrail`` preset,
            or calibrated ``thresholds``) instead of ``nli_model`` and options.
        **scorer_options: any keyword option of ``FaithfulnessScorer`` (``device``,
            ``backend``, ``entail_threshold``, ``prefilter``...). Metrics with the same
            options share one scorer, so building one per test case loads the model once.

    After ``measure``: ``score``, ``success``, ``reason``, ``score_breakdown`` (lenient,
    strict, soft and the claim counts, always; with ``expected_output`` also the
    hallucination and self-knowledge rates), ``claims`` (claim texts), ``verdicts``
    (:class:`~nli_faith.results.ClaimVerdict` list), ``result`` (the whole
    :class:`~nli_faith.results.FaithfulnessResult`) and ``verbose_logs``.
    """

    _required_params: list[SingleTurnParams] = [
        SingleTurnParams.ACTUAL_OUTPUT,
        SingleTurnParams.RETRIEVAL_CONTEXT,
    ]

    def __init__(
        self,
        threshold: float = 0.5,
        *,
        include_reason: bool = True,
        async_mode: bool = True,
        strict_mode: bool = False,
        verbose_mode: bool = False,
        penalize_ambiguous_claims: bool = False,
        empty_score: float | None = 1.0,
        scorer: FaithfulnessScorer | None = None,
        nli_model: str = "default",
        config: ScorerConfig | None = None,
        **scorer_options: Any,
    ) -> None:
        refuse_llm_options(
            scorer_options, ("model", "llm"), metric="NLIFaithfulnessMetric", library="DeepEval"
        )
        self.threshold = 1 if strict_mode else threshold
        self.include_reason = include_reason
        self.async_mode = async_mode
        self.strict_mode = strict_mode
        self.verbose_mode = verbose_mode
        self.penalize_ambiguous_claims = penalize_ambiguous_claims
        self.empty_score = empty_score
        # Stored under its parameter name: DeepEval's evaluate() rebuilds the metric for
        # each test case from the attributes named like __init__ parameters.
        self.scorer = resolve_scorer(scorer, nli_model, scorer_options, config)
        self.evaluation_model = f"nli-faith ({self.scorer.nli.name})"
        self.score_breakdown = None
        self.result: FaithfulnessResult | None = None
        self.claims: list[str] = []
        self.verdicts: list = []

    # -- DeepEval's interface ---------------------------------------------------

    def measure(
        self, test_case: LLMTestCase, _show_indicator: bool = True, _in_component: bool = False
    ) -> float | None:
        prepare_measure(self, test_case)
        with metric_progress_indicator(
            self, _show_indicator=_show_indicator, _in_component=_in_component
        ):
            record = _record(test_case)
            self._finish(batcher_for(self.scorer).score_many([record])[0])
            return self.score

    async def a_measure(
        self, test_case: LLMTestCase, _show_indicator: bool = True, _in_component: bool = False
    ) -> float | None:
        prepare_measure(self, test_case)
        with metric_progress_indicator(
            self, async_mode=True, _show_indicator=_show_indicator, _in_component=_in_component
        ):
            self._finish(await batcher_for(self.scorer).ascore(_record(test_case)))
            return self.score

    def is_successful(self) -> bool:
        if self.error is not None or self.score is None or self.result is None:
            self.success = False
        else:  # the one gate; an answer with no claim is scored empty_score
            passed = self._gate(self.result).passed
            self.success = self.score >= self.threshold if passed is None else passed
        return self.success

    @property
    def __name__(self) -> str:
        # DeepEval aggregates by name: the strict formula gets its own column.
        return "NLI Faithfulness (strict)" if self.penalize_ambiguous_claims else "NLI Faithfulness"

    # -- from a result to DeepEval's fields ---------------------------------------

    def _finish(self, result: FaithfulnessResult) -> None:
        if result.error is not None:
            self.error = result.error
            raise RecordError(result.error.removeprefix("RecordError: "))
        self.error = None
        self.evaluation_cost = 0.0  # no LLM call
        self.result = result
        self.claims = [c.claim for c in result.claims]
        self.verdicts = list(result.claims)
        self.score_breakdown = _breakdown(result)
        if self._gate(result).why == "no_context":  # whatever the formula: nothing checked
            self.score = 0.0
        elif result.n_claims == 0:
            self.score = self.empty_score
        else:
            score = result.strict if self.penalize_ambiguous_claims else result.lenient
            self.score = 0 if self.strict_mode and score < self.threshold else score
        self.reason = self._reason(result) if self.include_reason else None
        self.success = self.is_successful()
        self.verbose_logs = construct_verbose_logs(
            self,
            steps=[
                f"Claims:\n{_pretty([c.claim for c in result.claims])}",
                f"Verdicts:\n{_pretty([_verdict_log(c) for c in result.claims])}",
                f"Score breakdown:\n{json.dumps(self.score_breakdown, indent=4)}",
                f"Score: {self.score}\nReason: {self.reason}",
            ],
        )

    def _gate(self, result: FaithfulnessResult) -> Ruling:
        """The one gate's ruling on ``result`` with this metric's formula and threshold."""
        formula = "strict" if self.penalize_ambiguous_claims else "lenient"
        return gate(result, score=formula, min_score=self.threshold)

    def _reason(self, result: FaithfulnessResult) -> str:
        ruling = self._gate(result)
        if ruling.why == "no_context":
            return f"The score is 0.00: {ruling.reason} {result.reason}"
        if result.n_claims == 0:
            if self.empty_score is None:
                return f"{result.reason} The score is left unset (empty_score=None)."
            return (
                f"{result.reason} Scored {self.empty_score:.2f} as DeepEval scores an answer "
                "with no claims (empty_score)."
            )
        formula = "strict" if self.penalize_ambiguous_claims else "lenient"
        parts = [f"The score is {self.score:.2f} ({formula} formula)."]
        if not self.penalize_ambiguous_claims and result.lenient != result.strict:
            parts.append(
                f"Warning: the lenient score {result.lenient:.2f} counts the {result.n_idk} "
                f"claim(s) not found in the context as faithful; the strict score is "
                f"{result.strict:.2f} (penalize_ambiguous_claims=True)."
            )
        return " ".join([*parts, result.reason])


def _record(test_case: LLMTestCase) -> dict[str, Any]:
    """The test case as an nli-faith record (DeepEval field names, so errors name them)."""
    context = [getattr(c, "context", c) for c in test_case.retrieval_context or []]
    record: dict[str, Any] = {
        "actual_output": test_case.actual_output,
        "retrieval_context": context,
        "input": test_case.input,
    }
    if test_case.expected_output is not None:
        record["expected_output"] = test_case.expected_output
    return record


def _breakdown(result: FaithfulnessResult) -> dict[str, Any]:
    out = {
        "lenient": result.lenient,
        "strict": result.strict,
        "soft": result.soft,
        "n_claims": result.n_claims,
        "n_yes": result.n_yes,
        "n_no": result.n_no,
        "n_idk": result.n_idk,
    }
    if result.hallucination_rate is not None:
        out["hallucination_rate"] = result.hallucination_rate
        out["self_knowledge_rate"] = result.self_knowledge_rate
    return out


def _verdict_log(c: Any) -> dict[str, Any]:
    out = {
        "claim": c.claim,
        "verdict": c.verdict,
        "p_entail": c.p_entail,
        "p_contradict": c.p_contradict,
        "evidence": c.evidence.text if c.evidence is not None else None,
    }
    if c.unsupported_spans:  # the words to blame, as "text (kind)"
        out["unsupported_spans"] = [f"{s.text} ({s.kind})" for s in c.unsupported_spans]
    if c.reference_label is not None:
        out["reference_label"] = c.reference_label
    return out


def _pretty(items: list[Any]) -> str:
    """A list in the layout of DeepEval's own verbose logs (``prettify_list``)."""
    if not items:
        return "[]"
    shown = [json.dumps(x, indent=4, ensure_ascii=False).replace("\n", "\n    ") for x in items]
    return "[\n    " + ",\n    ".join(shown) + "\n]"
