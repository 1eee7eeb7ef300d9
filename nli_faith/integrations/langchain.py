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

``NLIFaithfulnessGuard`` is the guardrail for streamed answers: put it at the end of a
streaming chain and ``chain.stream()`` / ``chain.astream()`` give the answer sentence by
sentence, each one checked before it is released
(:meth:`FaithfulnessScorer.check_stream <nli_faith.scorer.FaithfulnessScorer.check_stream>`);
with a policy the stream stops at the first sentence that fails, with
:class:`UnfaithfulAnswerError`.

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

from collections.abc import AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from nli_faith.errors import (
    E_INPUT_KEY_EMPTY,
    E_INPUT_KEY_MISSING,
    E_STREAM_INPUT,
    E_STREAM_NO_CONTEXT,
    E_STREAM_PIECE,
    OptionError,
    RecordError,
)
from nli_faith.integrations.batching import batcher_for, import_optional, resolve_scorer
from nli_faith.integrations.gate import blamed, renamed_fields, ruling
from nli_faith.scoring.gate import check_score

import_optional("langchain_core", extra="langchain", what="nli_faith.integrations.langchain")

from langchain_core.runnables import Runnable, RunnableConfig  # noqa: E402

if TYPE_CHECKING:  # pragma: no cover
    from nli_faith.scorer import FaithfulnessScorer

from nli_faith.results import FaithfulnessResult, StreamResult  # noqa: E402

__all__ = ["NLIFaithfulnessCheck", "NLIFaithfulnessGuard", "UnfaithfulAnswerError"]


class UnfaithfulAnswerError(ValueError):
    """An answer that does not pass; ``result`` is its full result.

    Raised by :class:`NLIFaithfulnessGuard`, it also holds the end of the stream's check
    (``stream``, a :class:`~nli_faith.results.StreamResult`): ``failed_claim`` (the claim
    that stopped the stream, with its verdict and evidence), ``reason`` and ``released``
    (the text that passed, already yielded). They are None for ``NLIFaithfulnessCheck``.
    """

    def __init__(
        self, result: FaithfulnessResult, message: str, *, stream: StreamResult | None = None
    ) -> None:
        super().__init__(message)
        self.result = result
        self.stream = stream
        self.failed_claim = None if stream is None else stream.failed_claim
        self.reason = None if stream is None else stream.reason
        self.released = None if stream is None else stream.released


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


class NLIFaithfulnessGuard(Runnable[Any, str]):
    """The guardrail of a streamed answer: the answer passes through sentence by
    sentence, each one checked against the context before it is released (a runnable).

    Put it at the end of a streaming RAG chain, after
    ``RunnablePassthrough.assign(answer=prompt | llm | StrOutputParser())``: the mapping
    chunks that chain streams bring the context (and question) first, then the answer's
    pieces. Or after a chain that streams only the answer's text (strings or chat message
    chunks), with ``context=`` given here. ``chain.stream()`` / ``chain.astream()`` then
    give the released answer, one string per sentence, as soon as each sentence is
    complete and checked; ``invoke`` / ``ainvoke`` give it whole (the same text, by the
    same checks). The sentences are those ``score()`` finds.

    Args:
        context: the retrieved context, when the input does not carry it (a string, a
            list of strings or of ``Document``); the input's ``context_key`` wins.
        question: the question, when the input does not carry it.
        block_on_contradiction: stop at the first sentence with a contradicted claim.
        block_below_strict: stop at the first sentence after which the strict score of
            the answer so far (supported claims / claims) is below it.
        response_key: the input key of the answer's pieces (default ``answer``).
        context_key: the input key of the context (default ``context``).
        question_key: the input key of the question (default ``question``).
        scorer: a ready scorer (then no other scorer option).
        nli_model: the NLI model (default bundled).
        **scorer_options: any option of ``FaithfulnessScorer``.

    With a policy, the stream stops at the first sentence that fails: the sentences
    before it have been yielded, that one is not, the rest of the answer is not read, and
    :class:`UnfaithfulAnswerError` is raised, holding the claim that failed
    (``failed_claim``), why (``reason``) and the answer streamed so far, scored
    (``result``). Without a policy every sentence is released (only checked).

    Example:
        >>> from nli_faith.integrations.langchain import NLIFaithfulnessGuard
        >>> guard = NLIFaithfulnessGuard("The warranty lasts 24 months.",
        ...                              block_on_contradiction=True, device="cpu")
        >>> list(guard.transform(iter(["The warranty ", "lasts 24 months. ", "Bye."])))
        ['The warranty lasts 24 months.', ' Bye.']
    """

    def __init__(
        self,
        context: Any = None,
        *,
        question: str | None = None,
        block_on_contradiction: bool = False,
        block_below_strict: float | None = None,
        response_key: str = "answer",
        context_key: str = "context",
        question_key: str = "question",
        scorer: FaithfulnessScorer | None = None,
        nli_model: str = "default",
        **scorer_options: Any,
    ) -> None:
        self.context = context
        self.question = question
        self.keys = (response_key, context_key, question_key)
        self.policy = {
            "block_on_contradiction": block_on_contradiction,
            "block_below_strict": block_below_strict,
        }
        self.scorer = resolve_scorer(scorer, nli_model, scorer_options)
        self.scorer.check_stream([], "", **self.policy)  # a bad policy is refused here

    # -- LangChain's interface ------------------------------------------------------

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return self._call_with_config(self._whole, input, config, run_type="chain")

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> str:
        return await self._acall_with_config(self._awhole, input, config, run_type="chain")

    def transform(
        self, input: Iterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[str]:
        yield from self._transform_stream_with_config(input, self._guard, config)

    async def atransform(
        self, input: AsyncIterator[Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[str]:
        async for chunk in self._atransform_stream_with_config(input, self._aguard, config):
            yield chunk

    def stream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[str]:
        return self.transform(iter([input]), config, **kwargs)

    async def astream(
        self, input: Any, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[str]:
        async def one() -> AsyncIterator[Any]:
            yield input

        async for chunk in self.atransform(one(), config, **kwargs):
            yield chunk

    # -- checking -------------------------------------------------------------------

    def _whole(self, input: Any) -> str:
        return "".join(self._guard(iter([input])))

    async def _awhole(self, input: Any) -> str:
        async def one() -> AsyncIterator[Any]:
            yield input

        return "".join([piece async for piece in self._aguard(one())])

    def _guard(self, chunks: Iterator[Any]) -> Iterator[str]:
        feed = _Feed(self)
        first = next((p for p in map(feed.take, chunks) if p is not None), None)
        if first is None:
            feed.ended()
            return

        def pieces() -> Iterator[str]:
            yield first
            for chunk in chunks:
                piece = feed.take(chunk)
                if piece is not None:
                    yield piece

        stream = self.scorer.check_stream(pieces(), *feed.record(), **self.policy)
        for event in stream:
            if event.decision == "pass":
                yield event.text
        _raise_if_blocked(stream.result)

    async def _aguard(self, chunks: AsyncIterator[Any]) -> AsyncIterator[str]:
        feed = _Feed(self)
        first = None
        async for chunk in chunks:
            first = feed.take(chunk)
            if first is not None:
                break
        if first is None:
            feed.ended()
            return

        async def pieces() -> AsyncIterator[str]:
            yield first
            async for chunk in chunks:
                piece = feed.take(chunk)
                if piece is not None:
                    yield piece

        stream = self.scorer.check_stream(pieces(), *feed.record(), **self.policy)
        async for event in stream:
            if event.decision == "pass":
                yield event.text
        _raise_if_blocked(stream.result)


class _Feed:
    """One stream's input chunks read for the guard: the context and question they carry,
    and the answer's pieces."""

    def __init__(self, guard: NLIFaithfulnessGuard) -> None:
        self.keys = guard.keys
        self.context, self.question = guard.context, guard.question
        self.given: set[str] = set()  # the input keys that arrived
        self.seen: set[str] = set()  # every key of the mapping chunks
        self.mappings = False

    def take(self, chunk: Any) -> str | None:
        """The answer's piece in ``chunk`` (None if it has none); keeps its context."""
        response_key, context_key, question_key = self.keys
        if isinstance(chunk, Mapping):
            self.mappings = True
            self.seen.update(str(k) for k in chunk)
            for key, name in ((context_key, "context"), (question_key, "question")):
                if key in chunk:
                    old = getattr(self, name)
                    new = chunk[key] if key not in self.given else old + chunk[key]
                    setattr(self, name, new)
                    self.given.add(key)
            if response_key not in chunk:
                return None
            self.given.add(response_key)
            piece = _text(chunk[response_key])
            if not isinstance(piece, str):
                raise OptionError(E_STREAM_PIECE.format(type_name=type(piece).__name__))
            return piece
        piece = _text(chunk)
        if not isinstance(piece, str):
            raise OptionError(
                E_STREAM_INPUT.format(key=response_key, type_name=type(chunk).__name__)
            )
        return piece

    def record(self) -> tuple[Any, str | None]:
        """The context and question, once the answer has begun."""
        if self.context is None:
            raise RecordError(E_STREAM_NO_CONTEXT.format(key=self.keys[1]), field=self.keys[1])
        return _documents(self.context), self.question

    def ended(self) -> None:
        """The input ended with no piece of the answer: fine for an empty answer, an
        error when the answer's key never came."""
        response_key = self.keys[0]
        if self.mappings and response_key not in self.given:
            keys = sorted(self.seen)
            message = E_INPUT_KEY_MISSING.format(key=response_key, keys=keys, option="response_key")
            raise RecordError(message, field=response_key)


def _raise_if_blocked(result: StreamResult | None) -> None:
    if result is None or not result.blocked:
        return
    message = f"The streamed answer was stopped: {result.reason}"
    raise UnfaithfulAnswerError(result.result, message, stream=result)


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
