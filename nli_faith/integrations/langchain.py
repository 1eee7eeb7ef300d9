"""LangChain runnable: ``NLIFaithfulnessCheck`` scores an answer against its retrieved
documents inside a chain, with nli-faith (no LLM). Needs ``pip install "nli-faith[langchain]"``.

It takes the mapping a RAG chain passes along (by default ``answer``, ``context``,
``question``: the keys of LangChain's retrieval tutorials) and returns the
:class:`~nli_faith.results.FaithfulnessResult`: scores, claims, verdicts, evidence and
the words to blame. The answer may be a string or a chat message; the context a list of
``Document`` (their ``page_content``), a list of strings or one string. Add it to a chain
with ``RunnablePassthrough.assign(faithfulness=NLIFaithfulnessCheck())``; with a
``threshold`` it is a guardrail: an answer whose score is below it raises
:class:`UnfaithfulAnswerError` (which holds the result), so the chain stops there, or
falls back (``.with_fallbacks([...], exceptions_to_handle=(UnfaithfulAnswerError,))``).

``invoke`` and ``ainvoke`` run inside LangChain's callbacks (they show in traces);
``batch`` scores all its inputs in one model run, and ``ainvoke`` calls waiting at the
same time are batched too.

Example:
    >>> from langchain_core.documents import Document
    >>> from nli_faith.integrations.langchain import NLIFaithfulnessCheck
    >>> check = NLIFaithfulnessCheck(device="cpu")
    >>> r = check.invoke({"question": "How long is the warranty?",
    ...                   "answer": "The warranty lasts 36 months.",
    ...                   "context": [Document(page_content="The warranty lasts 24 months.")]})
    >>> r.strict, [s.text for s in r.claims[0].unsupported_spans]
    (0.0, ['36 months'])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from nli_faith.integrations.batching import batcher_for, import_optional, resolve_scorer
from nli_faith.integrations.gate import blamed, check_score_type, passing, renamed_fields

import_optional("langchain_core", extra="langchain", what="nli_faith.integrations.langchain")

from langchain_core.runnables import Runnable, RunnableConfig  # noqa: E402

if TYPE_CHECKING:  # pragma: no cover
    from nli_faith.scorer import FaithfulnessScorer

from nli_faith.results import FaithfulnessResult  # noqa: E402

__all__ = ["NLIFaithfulnessCheck", "UnfaithfulAnswerError"]


class UnfaithfulAnswerError(ValueError):
    """An answer scored below the check's threshold; ``result`` is its full result."""

    def __init__(self, result: FaithfulnessResult, message: str) -> None:
        super().__init__(message)
        self.result = result


class NLIFaithfulnessCheck(Runnable[Mapping[str, Any], FaithfulnessResult]):
    """Score ``input[response_key]`` against ``input[context_key]`` (a runnable).

    Args:
        threshold: if set, an answer whose ``score_type`` score is below it raises
            :class:`UnfaithfulAnswerError`; default None (never raises for a score).
        score_type: ``"strict"`` (default), ``"lenient"`` or ``"soft"``.
        response_key: where the answer is in the input (default ``answer``).
        context_key: where its retrieved documents are (default ``context``).
        question_key: where the question is (default ``question``).
        scorer: a ready :class:`~nli_faith.scorer.FaithfulnessScorer` (then no other
            scorer option).
        nli_model: the NLI model: registry name, local path or hub id (default bundled).
        **scorer_options: any keyword option of ``FaithfulnessScorer``.

    A record that cannot be scored (a missing key, a context that is not text) gives a
    result whose ``error`` says why, naming the input key, as
    :meth:`FaithfulnessScorer.score_batch` does; with a ``threshold`` it raises
    :class:`UnfaithfulAnswerError` instead (a guardrail fails closed).
    """

    def __init__(
        self,
        threshold: float | None = None,
        *,
        score_type: str = "strict",
        response_key: str = "answer",
        context_key: str = "context",
        question_key: str = "question",
        scorer: FaithfulnessScorer | None = None,
        nli_model: str = "default",
        **scorer_options: Any,
    ) -> None:
        self.threshold = threshold
        self.score_type = check_score_type(score_type)
        self.keys = (response_key, context_key, question_key)
        self.scorer = resolve_scorer(scorer, nli_model, scorer_options)
        self._batcher = batcher_for(self.scorer)

    # -- LangChain's interface ------------------------------------------------------

    def invoke(
        self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> FaithfulnessResult:
        return self._call_with_config(self._score_one, input, config, run_type="chain")

    async def ainvoke(
        self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> FaithfulnessResult:
        return await self._acall_with_config(self._ascore_one, input, config, run_type="chain")

    def batch(
        self,
        inputs: list[Mapping[str, Any]],
        config: RunnableConfig | list[RunnableConfig] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        results = self._batcher.score_many([self._record(i) for i in inputs])
        out: list[Any] = []
        for r in results:
            try:
                out.append(self._gate(r))
            except UnfaithfulAnswerError as err:
                if not return_exceptions:
                    raise
                out.append(err)
        return out

    # -- scoring --------------------------------------------------------------------

    def _score_one(self, input: Mapping[str, Any]) -> FaithfulnessResult:
        return self._gate(self._batcher.score_many([self._record(input)])[0])

    async def _ascore_one(self, input: Mapping[str, Any]) -> FaithfulnessResult:
        return self._gate(await self._batcher.ascore(self._record(input)))

    def _record(self, input: Mapping[str, Any]) -> Any:
        response_key, context_key, question_key = self.keys
        if not isinstance(input, Mapping):
            return input  # the scorer says it is not a mapping, and of what type
        return {
            "response": _text(input.get(response_key)),
            "context": _documents(input.get(context_key)),
            "question": input.get(question_key),
        }

    def _gate(self, result: FaithfulnessResult) -> FaithfulnessResult:
        names = dict(zip(("response", "context", "question"), self.keys))
        result = renamed_fields(result, {k: f"input key '{v}'" for k, v in names.items()})
        if self.threshold is None:
            return result
        if result.error is not None:  # a guardrail fails closed: unscored is not faithful
            message = f"The answer could not be scored, so it does not pass: {result.error}"
            raise UnfaithfulAnswerError(result, message)
        if passing(result, score_type=self.score_type, threshold=self.threshold) is False:
            lines = [
                f"The answer scored below {self.threshold} ({self.score_type}).",
                result.reason,
            ]
            raise UnfaithfulAnswerError(result, "\n".join([*lines, *blamed(result)]))
        return result


def _text(value: Any) -> Any:
    """A chat message's text (``AIMessage.content``, its text parts joined when it is a
    list of parts), or the value as it is."""
    content = getattr(value, "content", None)
    if isinstance(content, list):
        parts = [p if isinstance(p, str) else p.get("text") for p in content if _is_text(p)]
        return "".join(parts)
    return content if isinstance(content, str) else value


def _is_text(part: Any) -> bool:
    return isinstance(part, str) or (
        isinstance(part, Mapping)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    )


def _documents(value: Any) -> Any:
    """``Document`` objects as their ``page_content``; strings and the rest as they are."""
    if isinstance(value, (list, tuple)):
        return [getattr(d, "page_content", d) for d in value]
    return getattr(value, "page_content", value)
