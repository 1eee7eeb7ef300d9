"""LlamaIndex evaluator: ``NLIFaithfulnessEvaluator``, faithfulness with nli-faith, no LLM.

A drop-in for LlamaIndex's ``FaithfulnessEvaluator``: the same ``BaseEvaluator``
interface (``evaluate`` / ``aevaluate`` with ``query``, ``response``, ``contexts``;
``evaluate_response`` with a ``Response`` and its source nodes), returning an
``EvaluationResult`` with ``passing``, ``score`` and ``feedback``, so it can replace
``FaithfulnessEvaluator`` in ``BatchEvalRunner`` and any code that takes an evaluator.
The verdicts come from a local NLI cross-encoder instead of an LLM.
Needs ``pip install "nli-faith[llamaindex]"``.

``score`` is the strict score (supported claims / claims; ``score_type`` picks
``lenient`` or ``soft``); ``passing`` is ``score >= threshold`` (default 1.0: every claim
supported, as ``FaithfulnessEvaluator`` asks of the whole answer). ``feedback`` is the
scorer's reason, then the words to blame in each claim that is not supported, with the
evidence they were compared with. An answer with no verifiable claim is an invalid result
(``invalid_result=True``, no score), as is a record that cannot be scored. An answer
checked against empty contexts (no document holds any text) scores 0.0 and does not
pass, whatever ``score_type`` and ``threshold``: nothing was checked.

Example:
    >>> from nli_faith.integrations.llamaindex import NLIFaithfulnessEvaluator
    >>> evaluator = NLIFaithfulnessEvaluator(device="cpu")
    >>> r = evaluator.evaluate(response="The warranty lasts 36 months.",
    ...                        contexts=["The warranty lasts 24 months."])
    >>> r.passing, r.score
    (False, 0.0)
    >>> print(r.feedback.splitlines()[-1])
    "36 months" is contradicted by: The warranty lasts 24 months.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nli_faith.integrations.batching import (
    batcher_for,
    import_optional,
    refuse_llm_options,
    resolve_scorer,
)
from nli_faith.integrations.gate import blamed, renamed_fields, ruling
from nli_faith.scoring.gate import check_score

import_optional("llama_index.core", extra="llamaindex", what="nli_faith.integrations.llamaindex")

from llama_index.core.evaluation import BaseEvaluator, EvaluationResult  # noqa: E402

if TYPE_CHECKING:  # pragma: no cover
    from nli_faith.results import FaithfulnessResult
    from nli_faith.scorer import FaithfulnessScorer

__all__ = ["NLIFaithfulnessEvaluator"]


class NLIFaithfulnessEvaluator(BaseEvaluator):
    """LlamaIndex faithfulness evaluator scored by nli-faith (claims, NLI verdicts; no LLM).

    Args:
        threshold: ``passing`` is ``score >= threshold`` (default 1.0). ``None`` uses the
            scorer's calibrated decision (``FaithfulnessScorer.from_thresholds``).
        score_type: ``"strict"`` (default), ``"lenient"`` or ``"soft"``.
        raise_error: raise ``ValueError`` when the answer does not pass (as
            ``FaithfulnessEvaluator``).
        scorer: a ready :class:`~nli_faith.scorer.FaithfulnessScorer` (then no other
            scorer option).
        nli_model: the NLI model: registry name, local path or hub id (default bundled).
        **scorer_options: any keyword option of ``FaithfulnessScorer``. Evaluators with
            the same options share one scorer and one result cache.

    ``aevaluate`` calls waiting at the same time (``BatchEvalRunner`` runs many) are scored
    in one batched run. :meth:`result_for` gives the full result of an evaluated answer.
    """

    def __init__(
        self,
        threshold: float | None = 1.0,
        *,
        score_type: str = "strict",
        raise_error: bool = False,
        scorer: FaithfulnessScorer | None = None,
        nli_model: str = "default",
        **scorer_options: Any,
    ) -> None:
        refuse_llm_options(
            scorer_options,
            ("llm", "model"),
            metric="NLIFaithfulnessEvaluator",
            library="LlamaIndex",
        )
        self.threshold = threshold
        self.score_type = check_score(score_type)
        self.raise_error = raise_error
        self.scorer = resolve_scorer(scorer, nli_model, scorer_options)
        self._batcher = batcher_for(self.scorer)

    def _get_prompts(self) -> dict[str, Any]:
        return {}  # no prompt: nothing is asked of an LLM

    def _update_prompts(self, prompts: dict[str, Any]) -> None:
        pass

    def evaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        record = _record(query, response, contexts)
        return self._finish(record, self._batcher.score_many([record])[0])

    async def aevaluate(
        self,
        query: str | None = None,
        response: str | None = None,
        contexts: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> EvaluationResult:
        record = _record(query, response, contexts)
        return self._finish(record, await self._batcher.ascore(record))

    def result_for(
        self, response: str, contexts: Sequence[str], query: str | None = None
    ) -> FaithfulnessResult | None:
        """The full result of an answer already evaluated (claims, verdicts, spans)."""
        return self._batcher.cached(_record(query, response, contexts))

    def _finish(self, record: dict[str, Any], result: FaithfulnessResult) -> EvaluationResult:
        result = renamed_fields(result, _ARGUMENTS)
        if result.error is not None:  # the inputs may not even be strings
            return EvaluationResult(
                invalid_result=True, invalid_reason=result.error, feedback=result.reason
            )
        out = EvaluationResult(
            query=record["question"],
            response=record["response"],
            contexts=record["context"],
        )
        ruled = ruling(
            result, score_type=self.score_type, threshold=self.threshold, scorer=self.scorer
        )
        if ruled.why == "no_context":  # whatever the score: nothing was checked
            out.score, out.passing = 0.0, False
            out.feedback = f"The response does not pass: {ruled.reason} {result.reason}"
        elif result.n_claims == 0:
            out.invalid_result = True
            out.invalid_reason = result.reason
            out.feedback = result.reason
            return out
        else:
            out.score = getattr(result, self.score_type)
            out.passing = ruled.passed
            out.feedback = "\n".join([result.reason, *blamed(result)])
        if self.raise_error and out.passing is False:
            raise ValueError(
                f"The response is not faithful to the contexts: {ruled.reason} {result.reason}"
            )
        return out


#: The record's fields as LlamaIndex's evaluator arguments, for error messages.
_ARGUMENTS = {"response": "argument 'response'", "context": "argument 'contexts'",
              "question": "argument 'query'"}  # fmt: skip


def _record(query: str | None, response: str | None, contexts: Sequence[str] | None) -> dict:
    missing = [name for name, v in (("response", response), ("contexts", contexts)) if v is None]
    if missing:
        raise ValueError(f"{' and '.join(missing)} must be provided")
    if isinstance(contexts, str):  # one string is one context
        contexts = [contexts]
    elif isinstance(contexts, Sequence):
        contexts = list(contexts)  # anything else: the scorer's error names it
    return {"response": response, "context": contexts, "question": query}
