"""The NLIFaithfulness validator inside the real Guardrails AI (guardrails-ai), on the
bundled model, with Guardrails' metrics off and every non-loopback connection refused."""

from __future__ import annotations

import asyncio
import socket

import pytest

# this module first: imported through it, Guardrails makes no NLTK download attempt
pytest.importorskip(
    "nli_faith.integrations.guardrails", reason="guardrails-ai is not installed (dev extra)"
)

from guardrails import OnFailAction  # noqa: E402
from guardrails.classes.rc import RC  # noqa: E402
from guardrails.errors import ValidationError  # noqa: E402
from guardrails.settings import settings  # noqa: E402
from guardrails.validators import FailResult, PassResult  # noqa: E402

from nli_faith.integrations.guardrails import AsyncGuard, Guard, NLIFaithfulness  # noqa: E402

CONTEXT = ["Paris is the capital of France.", "The warranty lasts 24 months."]
ANSWER = "Paris is in France. The warranty lasts 36 months."
META = {"context": CONTEXT, "question": "Tell me about Paris and the warranty."}


@pytest.fixture(autouse=True)
def offline(tmp_path, monkeypatch):
    """Metrics off (a ~/.guardrailsrc saying so), and no connection leaves the machine."""
    (tmp_path / ".guardrailsrc").write_text("enable_metrics=false\n")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(settings, "rc", RC.load())
    attempts: list = []
    real_connect = socket.socket.connect

    def connect(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if host not in ("127.0.0.1", "::1", "localhost") and not isinstance(host, bytes):
            attempts.append(address)
            raise OSError(f"test is offline: refused {address!r}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    yield
    assert attempts == []


def guard_with(bundled_scorer, **kw) -> Guard:
    return Guard().use(NLIFaithfulness(scorer=bundled_scorer, **kw))


def test_the_validator_marks_the_wrong_words(bundled_scorer):
    validator = NLIFaithfulness(scorer=bundled_scorer, on_fail="noop")
    result = validator.validate(ANSWER, META)
    assert isinstance(result, FailResult)
    assert [ANSWER[s.start : s.end] for s in result.error_spans] == ["36 months"]
    assert "24 months" in result.error_spans[0].reason
    assert result.fix_value == "Paris is in France."
    assert "36 months" in result.error_message
    full = validator.result_for(ANSWER, META)
    assert [c.verdict for c in full.claims] == ["yes", "no"]
    assert isinstance(validator.validate("Paris is in France.", META), PassResult)


def test_on_fail_actions_in_a_guard(bundled_scorer):
    with pytest.raises(ValidationError, match="36 months"):
        guard_with(bundled_scorer).validate(ANSWER, metadata=META)  # exception by default
    out = guard_with(bundled_scorer, on_fail=OnFailAction.FIX).validate(ANSWER, metadata=META)
    assert out.validation_passed and out.validated_output == "Paris is in France."
    out = guard_with(bundled_scorer, on_fail="noop").validate(ANSWER, metadata=META)
    assert out.validation_passed is False and out.validated_output == ANSWER
    (summary,) = out.validation_summaries
    assert summary.validator_name == "NLIFaithfulness"
    assert [(s.start, s.end) for s in summary.error_spans] == [(39, 48)]
    out = guard_with(bundled_scorer, on_fail="refrain").validate(ANSWER, metadata=META)
    assert out.validated_output is None
    good = guard_with(bundled_scorer).validate("Paris is in France.", metadata=META)
    assert good.validation_passed and good.validated_output == "Paris is in France."


def test_threshold_and_score_type(bundled_scorer):
    half = guard_with(bundled_scorer, threshold=0.5, on_fail="noop")
    assert half.validate(ANSWER, metadata=META).validation_passed  # 1 of 2 supported
    lenient = guard_with(bundled_scorer, score_type="lenient", on_fail="noop")
    assert not lenient.validate(ANSWER, metadata=META).validation_passed  # 1 contradicted
    unfound = "Paris is in France. It has a famous zoo."
    assert lenient.validate(unfound, metadata=META).validation_passed  # not found is forgiven
    with pytest.raises(ValueError, match="score_type must be one of"):
        NLIFaithfulness(score_type="f1", scorer=bundled_scorer)


def test_missing_context_and_unscorable_input(bundled_scorer):
    with pytest.raises(Exception, match="context"):
        guard_with(bundled_scorer).validate(ANSWER, metadata={"question": "q"})
    validator = NLIFaithfulness(scorer=bundled_scorer)
    with pytest.raises(ValueError, match="needs the context in the metadata"):
        validator.validate(ANSWER, {})
    bad = validator.validate(ANSWER, {"context": [1, 2]})
    assert isinstance(bad, FailResult) and "could not score" in bad.error_message


def test_async_guard(bundled_scorer):
    guard = AsyncGuard().use(NLIFaithfulness(scorer=bundled_scorer, on_fail="fix"))

    async def both():
        return await asyncio.gather(
            guard.validate(ANSWER, metadata=META),
            guard.validate("The warranty lasts 24 months.", metadata=META),
        )

    first, second = asyncio.run(both())
    assert first.validated_output == "Paris is in France."
    assert second.validated_output == "The warranty lasts 24 months."


@pytest.mark.parametrize("context", [[], [""], ["  ", "\n"], ""])
@pytest.mark.parametrize("score_type", ["strict", "lenient", "soft"])
def test_an_empty_context_fails_whatever_the_score(bundled_scorer, context, score_type):
    validator = NLIFaithfulness(0.0, score_type, scorer=bundled_scorer, on_fail="noop")
    for answer in ("The warranty lasts 36 months.", "It is blue. It costs 5 dollars."):
        out = validator.validate(answer, {"context": context})
        assert isinstance(out, FailResult)
        assert "no retrieved context to check the answer against" in out.error_message


def test_bad_options_name_the_keyword(bundled_scorer):
    with pytest.raises(TypeError, match="takes no 'llm_callable'"):
        NLIFaithfulness(llm_callable="gpt-4o")
    with pytest.raises(ValueError, match="score_type must be one of"):
        NLIFaithfulness(score_type="bogus", scorer=bundled_scorer)


# -- streaming: Guard(llm_api=..., stream=True) validates the answer sentence by sentence ----

import re  # noqa: E402
from types import SimpleNamespace  # noqa: E402

from nli_faith.text.sentences import sentence_spans  # noqa: E402

STREAMED = (
    "Paris is in France. The warranty lasts 36 months. Paris is the capital of France. "
    "The warranty lasts 24 months."
)
MESSAGES = [{"role": "user", "content": "Tell me about Paris and the warranty."}]


@pytest.fixture
def no_litellm_fetch(monkeypatch):
    """Guardrails imports LiteLLM to look at the llm_api; keep LiteLLM's cost map local."""
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")


class FakeLLM:
    """A streaming LLM callable for Guardrails: writes ``answer`` word by word and
    remembers what it has written (``emitted``)."""

    def __init__(self, answer: str) -> None:
        self.words = re.findall(r"\S+\s*", answer)
        self.emitted = ""

    def __call__(self, *, messages=None, **kwargs):
        def words():
            for word in self.words:
                self.emitted += word
                yield word

        return words()

    async def acall(self, *, messages=None, **kwargs):
        async def words():
            for word in self.words:
                self.emitted += word
                yield word

        # Guardrails' AsyncGuard reads a custom callable's stream from .completion_stream
        return SimpleNamespace(completion_stream=words())


def sentences(text: str) -> list[str]:
    """The text cut where its sentences begin (each with its trailing space)."""
    starts = [s for s, _ in sentence_spans(text)]
    return [text[s:e] for s, e in zip(starts, [*starts[1:], len(text)])]


def test_the_chunks_are_the_sentences_score_finds(bundled_scorer):
    validator = NLIFaithfulness(scorer=bundled_scorer)
    chunk = "Dr. Smith says the U.S. price is $1.5 million. Returns are"
    assert validator._chunking_function(chunk) == [
        "Dr. Smith says the U.S. price is $1.5 million. ",
        "Returns are",
    ]
    assert validator._chunking_function("It costs $1.") == []  # "$1." may be "$1.5"
    assert validator._chunking_function("One. Two. Thr") == ["One. Two. ", "Thr"]


def test_fix_streams_each_sentence_validated_as_it_completes(bundled_scorer, no_litellm_fetch):
    guard = guard_with(bundled_scorer, on_fail="fix")
    llm = FakeLLM(STREAMED)
    out, emitted_then = [], []
    for outcome in guard(llm_api=llm, stream=True, messages=MESSAGES, metadata=META):
        out.append(outcome.validated_output)
        emitted_then.append(llm.emitted)
    expected = sentences(STREAMED)
    assert len(expected) == 4
    # the contradicted sentence is dropped (its fix), the others come out as written
    assert out == [expected[0], "", expected[2], expected[3]]
    # each came out as soon as the next sentence had begun, not at the end of the answer
    assert emitted_then[0] == expected[0] + "The "
    assert emitted_then[1] == "".join(expected[:2]) + "Paris "
    logs = guard.history.last.iterations.last.validator_logs
    failed = [log for log in logs if isinstance(log.validation_result, FailResult)]
    assert [log.validation_result.validated_chunk for log in failed] == [expected[1]]
    (span,) = failed[0].validation_result.error_spans  # offsets in the sentence
    assert expected[1][span.start : span.end] == "36 months" and "24 months" in span.reason


def test_a_fixed_chunk_keeps_its_trailing_space(bundled_scorer):
    # a chunk of two sentences (one LLM piece completed both): the fix keeps the true one
    # and the space before the next chunk
    validator = NLIFaithfulness(scorer=bundled_scorer, on_fail="fix")
    result = validator.validate("The warranty lasts 36 months. Paris is in France. ", META)
    assert result.fix_value == "Paris is in France. "
    assert validator.validate("The warranty lasts 36 months. ", META).fix_value == ""


def test_exception_stops_the_stream(bundled_scorer, no_litellm_fetch):
    guard = guard_with(bundled_scorer, on_fail="exception")
    out = []
    with pytest.raises(ValidationError, match="36 months"):
        for o in guard(llm_api=FakeLLM(STREAMED), stream=True, messages=MESSAGES, metadata=META):
            out.append(o.validated_output)
    # Guardrails' sync stream, without "fix", passes the LLM's pieces on as they come and
    # validates behind them: the contradicted sentence was out before the error
    expected = sentences(STREAMED)
    assert "".join(out).startswith(expected[0] + expected[1])


def test_async_guard_streams_validated_sentences(bundled_scorer, no_litellm_fetch):
    expected = sentences(STREAMED)

    async def run(on_fail):
        guard = AsyncGuard().use(NLIFaithfulness(scorer=bundled_scorer, on_fail=on_fail))
        llm, out = FakeLLM(STREAMED), []
        try:
            stream = await guard(llm_api=llm.acall, stream=True, messages=MESSAGES, metadata=META)
            async for outcome in stream:
                out.append((outcome.validated_output, llm.emitted))
        except ValidationError as err:
            return out, err
        return out, None

    out, err = asyncio.run(run("exception"))
    assert out == [(expected[0], expected[0] + "The ")]  # the first sentence, then the stop
    assert "36 months" in str(err)
    out, err = asyncio.run(run("filter"))
    assert err is None and [text for text, _ in out][:3] == [expected[0], "", expected[2]]
    # Guardrails 0.11's AsyncGuard gives a validator no end of stream: the last sentence
    # is never validated, so it never comes out
    assert len(out) == 3
