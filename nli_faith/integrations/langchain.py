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

from nli_faith.errors import E_INPUT_KEY_EMPTY, E_INPUT_KEY_MISSING, RecordError
from nli_faith.integrations.batching import batcher_for, import_optional, resolve_scorer
from nli_faith.integrations.gate import blamed, renamed_fields, ruling
from nli_faith.scoring.gate import check_score

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

    A record that cannot be scored (a missing key, an empty answer, a context that is not
    text) gives a result whose ``error`` says why, naming the input key, as
    :meth:`FaithfulnessScorer.score_batch` does; with a ``threshold`` it raises
    :class:`UnfaithfulAnswerError` instead (a guardrail fails closed). With a
    ``threshold``, an answer checked against an empty context (no document holds any
    text) raises too, whatever the score: nothing was checked.
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
        self.score_type = check_score(score_type)
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
        prepared = [self._record(i) for i in inputs]
        todo = [p for p in prepared if not isinstance(p, FaithfulnessResult)]
        scored = iter(self._batcher.score_many(todo) if todo else [])
        results = [p if isinstance(p, FaithfulnessResult) else next(scored) for p in prepared]
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
        return self.batch([input])[0]

    async def _ascore_one(self, input: Mapping[str, Any]) -> FaithfulnessResult:
        record = self._record(input)
        if isinstance(record, FaithfulnessResult):
            return self._gate(record)
        return self._gate(await self._batcher.ascore(record))

    def _record(self, input: Mapping[str, Any]) -> Any:
        """The record to score, or the error result of an input that has none."""
        from nli_faith.engine.failures import describe, error_result

        response_key, context_key, question_key = self.keys
        if not isinstance(input, Mapping):
            return input  # the scorer says it is not a mapping, and of what type
        for key, option in ((response_key, "response_key"), (context_key, "context_key")):
            if key not in input:
                keys = sorted(str(k) for k in input)
                message = E_INPUT_KEY_MISSING.format(key=key, keys=keys, option=option)
                return error_result(describe(RecordError(message, field=key)))
        answer = _text(input[response_key])
        if isinstance(answer, str) and not answer.strip():
            message = E_INPUT_KEY_EMPTY.format(key=response_key)
            return error_result(describe(RecordError(message, field=response_key)))
        return {
            "response": answer,
            "context": _documents(input[context_key]),
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
        ruled = ruling(result, score_type=self.score_type, threshold=self.threshold)
        if ruled.passed is False:
            lines = [f"The answer does not pass: {ruled.reason}", result.reason]
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
