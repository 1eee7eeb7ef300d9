"""RAGAS metric: ``NLIFaithfulness``, faithfulness with nli-faith, no LLM, no embeddings.

``ragas.evaluate()`` accepts it on an ``EvaluationDataset`` of ``SingleTurnSample``
(``user_input``, ``response``, ``retrieved_contexts``; ``reference`` optional), with no
LLM and no embeddings configured. It reports the strict score (RAGAS's own faithfulness
is "supported claims / claims") under the name ``nli_faithfulness``; ``score_type``
selects ``lenient``, ``soft``, or, with a ``reference`` column, ``hallucination_rate`` or
``self_knowledge_rate``. A response with no verifiable claims scores NaN, as in RAGAS; one
checked against empty ``retrieved_contexts`` (no document holds any text) scores 0.0 on
every faithfulness score (``lenient`` included): nothing was checked.
Needs ``pip install "nli-faith[ragas]"``.

**One batched run.** ``ragas.evaluate()`` calls a metric once per sample, at most
``RunConfig.max_workers`` (default 16) at a time. ``NLIFaithfulness`` gathers the
samples that are waiting at the same moment into one ``score_batch`` run, so a plain
``ragas.evaluate()`` makes one run per wave of ``max_workers`` samples. To score a whole
dataset in exactly one run, score it first (:meth:`NLIFaithfulness.score_dataset`, or
this module's :func:`evaluate`, which does that and then calls ``ragas.evaluate``):
the evaluation then reads every result from the cache. Results are cached per scorer
by sample content, so several ``NLIFaithfulness`` metrics on one scorer (strict and
lenient, say) share one run.

Example:
    >>> from ragas import EvaluationDataset, SingleTurnSample
    >>> from nli_faith.integrations.ragas import NLIFaithfulness, evaluate
    >>> dataset = EvaluationDataset(samples=[SingleTurnSample(
    ...     user_input="How long is the warranty?",
    ...     response="The warranty lasts 36 months.",
    ...     retrieved_contexts=["The warranty lasts 24 months."])])
    >>> result = evaluate(dataset, metrics=[NLIFaithfulness(device="cpu")],
    ...                   show_progress=False)
    >>> result["nli_faithfulness"]
    [0.0]

RAGAS's usage tracking is switched off (``RAGAS_DO_NOT_TRACK=true``) before RAGAS is
imported, unless you set that variable yourself.
"""

from __future__ import annotations

import os
import typing as t
from dataclasses import dataclass

from nli_faith.errors import E_SCORE_TYPE, OptionError, RecordError
from nli_faith.integrations.batching import (
    batcher_for,
    import_optional,
    refuse_llm_options,
    resolve_scorer,
)
from nli_faith.scoring.gate import SCORES, gate

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

import_optional("ragas", extra="ragas", what="nli_faith.integrations.ragas")

import ragas  # noqa: E402
from ragas.dataset_schema import EvaluationDataset, SingleTurnSample  # noqa: E402
from ragas.metrics.base import MetricOutputType, MetricType, SingleTurnMetric  # noqa: E402

if t.TYPE_CHECKING:  # pragma: no cover
    from ragas.run_config import RunConfig

    from nli_faith.config import ScorerConfig
    from nli_faith.results import FaithfulnessResult
    from nli_faith.scorer import FaithfulnessScorer

__all__ = ["NLIFaithfulness", "evaluate"]

#: What each ``score_type`` reports, and the metric's default name for it.
SCORE_NAMES = {
    "strict": "nli_faithfulness",
    "lenient": "nli_faithfulness_lenient",
    "soft": "nli_faithfulness_soft",
    "hallucination_rate": "nli_hallucination_rate",
    "self_knowledge_rate": "nli_self_knowledge_rate",
}


@dataclass(init=False, repr=False)
class NLIFaithfulness(SingleTurnMetric):
    """RAGAS faithfulness metric scored by nli-faith (claims and NLI verdicts; no LLM).

    Args:
        score_type: ``"strict"`` (default: supported claims / claims, RAGAS's formula),
            ``"lenient"``, ``"soft"``, ``"hallucination_rate"`` or ``"self_knowledge_rate"``
            (the last two need a ``reference`` column; NaN without one).
        name: the column name; default ``nli_faithfulness`` for strict, else as in
            :data:`SCORE_NAMES`.
        scorer: a ready :class:`~nli_faith.scorer.FaithfulnessScorer` (then no other
            scorer option).
        nli_model: the NLI model: registry name, local path or hub id (default bundled).
        config: a :class:`~nli_faith.config.ScorerConfig` (e.g. the ``guardrail`` preset,
            or calibrated ``thresholds``) instead of ``nli_model`` and options.
        **scorer_options: any keyword option of ``FaithfulnessScorer`` (``device``,
            ``backend``, ``entail_threshold``...). Metrics with the same options share one
            scorer, and so one model and one result cache.
    """

    score_type: str = "strict"

    def __init__(
        self,
        *,
        score_type: str = "strict",
        name: str = "",
        scorer: FaithfulnessScorer | None = None,
        nli_model: str = "default",
        config: ScorerConfig | None = None,
        **scorer_options: t.Any,
    ) -> None:
        refuse_llm_options(
            scorer_options,
            ("llm", "model", "embeddings"),
            metric="NLIFaithfulness",
            library="RAGAS",
        )
        if score_type not in SCORE_NAMES:
            raise OptionError(E_SCORE_TYPE.format(allowed=list(SCORE_NAMES), score=score_type))
        self._required_columns = {
            MetricType.SINGLE_TURN: {
                "response",
                "retrieved_contexts",
                "user_input:optional",
                "reference:optional",
            }
        }
        self.output_type = MetricOutputType.CONTINUOUS
        self.score_type = score_type
        self.name = name or SCORE_NAMES[score_type]
        self.scorer = resolve_scorer(scorer, nli_model, scorer_options, config)
        self._batcher = batcher_for(self.scorer)
        super().__post_init__()

    def __repr__(self) -> str:
        return f"NLIFaithfulness(name={self.name!r}, score_type={self.score_type!r})"

    # -- RAGAS's interface --------------------------------------------------------

    def init(self, run_config: RunConfig) -> None:
        """Called by ``ragas.evaluate()``; the scorer is ready since construction."""

    async def _single_turn_ascore(self, sample: SingleTurnSample, callbacks: t.Any) -> float:
        return self._value(await self._batcher.ascore(_record(sample)))

    # -- batching and details -----------------------------------------------------

    def score_dataset(
        self, dataset: EvaluationDataset | t.Sequence[SingleTurnSample]
    ) -> list[FaithfulnessResult]:
        """Score every sample in one ``score_batch`` run; ``ragas.evaluate`` then reads the cache.

        Returns the full results (scores, claims, verdicts, evidence), one per sample.
        """
        samples = dataset.samples if isinstance(dataset, EvaluationDataset) else list(dataset)
        return self._batcher.score_many([_record(s) for s in samples])

    def result_for(self, sample: SingleTurnSample) -> FaithfulnessResult | None:
        """The full result of a sample already scored (by ``evaluate`` or ``score_dataset``)."""
        return self._batcher.cached(_record(sample))

    def _value(self, result: FaithfulnessResult) -> float:
        if result.error is not None:
            raise RecordError(result.error.removeprefix("RecordError: "))
        value = getattr(result, self.score_type)
        if value is not None and self.score_type in SCORES:
            if gate(result, score=self.score_type).why == "no_context":
                return 0.0  # whatever the formula: nothing was checked, nothing is faithful
        return float("nan") if value is None else float(value)


def _record(sample: SingleTurnSample) -> dict[str, t.Any]:
    """The sample as an nli-faith record (RAGAS field names, so errors name them)."""
    record: dict[str, t.Any] = {
        "response": sample.response,
        "retrieved_contexts": sample.retrieved_contexts,
        "user_input": sample.user_input,
    }
    if sample.reference is not None:
        record["reference"] = sample.reference
    return record


def evaluate(dataset: EvaluationDataset, metrics: t.Sequence[t.Any], **kwargs: t.Any) -> t.Any:
    """``ragas.evaluate`` after scoring the dataset once for every ``NLIFaithfulness`` metric.

    Same arguments and result as ``ragas.evaluate``. Metrics sharing a scorer share the
    run, so strict and lenient together still make one ``score_batch`` run.
    """
    for metric in metrics:
        if isinstance(metric, NLIFaithfulness):
            metric.score_dataset(dataset)
    return ragas.evaluate(dataset, metrics=list(metrics), **kwargs)
