"""NLIFaithfulnessCheck inside real LangChain (langchain-core) chains, on the bundled model."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain_core", reason="langchain-core is not installed (dev extra)")

from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402
from langchain_core.runnables import RunnableLambda, RunnablePassthrough  # noqa: E402

from nli_faith.integrations.langchain import (  # noqa: E402
    NLIFaithfulnessCheck,
    UnfaithfulAnswerError,
)

DOCS = [
    Document(page_content="Warranty: the device is covered for 24 months from purchase."),
    Document(page_content="Shipping is free for orders over 50 dollars."),
]


def retriever(question: str) -> list[Document]:
    return DOCS


def fake_llm(months: int):
    """Stands for the LLM of the chain: answers from the prompt's inputs, as a message."""
    return RunnableLambda(lambda x: AIMessage(content=f"The warranty lasts {months} months."))


def rag_chain(check: NLIFaithfulnessCheck, months: int):
    return (
        {"context": RunnableLambda(retriever), "question": RunnablePassthrough()}
        | RunnablePassthrough.assign(answer=fake_llm(months))
        | RunnablePassthrough.assign(faithfulness=check)
    )


class Names(BaseCallbackHandler):
    def __init__(self) -> None:
        self.started: list[str] = []

    def on_chain_start(self, serialized, inputs, **kwargs):
        self.started.append(kwargs.get("name") or (serialized or {}).get("name", ""))


def test_a_rag_chain_scores_its_answer_against_its_documents(bundled_scorer):
    check = NLIFaithfulnessCheck(scorer=bundled_scorer)
    names = Names()
    out = rag_chain(check, 36).invoke("How long is the warranty?", {"callbacks": [names]})
    result = out["faithfulness"]
    assert out["answer"].content == "The warranty lasts 36 months."
    assert result.strict == 0.0 and result.claims[0].verdict == "no"
    assert [(s.text, s.kind) for s in result.claims[0].unsupported_spans] == [
        ("36 months", "contradicted")
    ]
    assert result.claims[0].evidence.text == DOCS[0].page_content
    assert "NLIFaithfulnessCheck" in names.started  # it runs inside the chain's callbacks
    good = rag_chain(check, 24).invoke("How long is the warranty?")["faithfulness"]
    assert good.strict == 1.0 and good.claims[0].unsupported_spans == []


def test_a_threshold_makes_it_a_guardrail_with_fallbacks(bundled_scorer):
    guard = NLIFaithfulnessCheck(1.0, scorer=bundled_scorer)
    with pytest.raises(UnfaithfulAnswerError) as err:
        rag_chain(guard, 36).invoke("How long is the warranty?")
    assert err.value.result.n_no == 1 and '"36 months" is contradicted' in str(err.value)
    assert rag_chain(guard, 24).invoke("How long?")["faithfulness"].strict == 1.0
    safe = rag_chain(guard, 36).with_fallbacks(
        [RunnableLambda(lambda q: {"answer": "I don't know."})],
        exceptions_to_handle=(UnfaithfulAnswerError,),
    )
    assert safe.invoke("How long is the warranty?") == {"answer": "I don't know."}


def test_batch_and_concurrent_ainvoke_are_one_run_each(bundled_scorer, batches):
    check = NLIFaithfulnessCheck(scorer=bundled_scorer, response_key="response")
    inputs = [
        {"response": f"It costs {n} dollars.", "context": ["It costs 5 dollars."]}
        for n in range(400, 406)
    ]
    assert [r.strict for r in check.batch(inputs)] == [0.0] * 6
    assert batches == [6]

    more = [
        {"response": f"It costs {n} dollars.", "context": "It costs 5 dollars."}
        for n in range(500, 504)
    ]

    async def many():
        return await asyncio.gather(*(check.ainvoke(i) for i in inputs[:3] + more))

    results = asyncio.run(many())
    assert len(results) == 7 and batches == [6, 4]  # the first three came from the cache
    guarded = NLIFaithfulnessCheck(0.5, scorer=bundled_scorer, response_key="response")
    out = guarded.batch(inputs[:2], return_exceptions=True)
    assert all(isinstance(o, UnfaithfulAnswerError) for o in out)


def test_bad_input_is_an_error_result_not_a_crash(bundled_scorer):
    check = NLIFaithfulnessCheck(scorer=bundled_scorer)
    r = check.invoke({"answer": "It is blue.", "context": [3]})
    assert "input key 'context' item 0 must be a string, got int" in r.error
    assert "input key 'answer' is missing" in check.invoke({"context": DOCS}).error
    assert "not a JSON object (got str)" in check.invoke("It is blue.").error
    # a guardrail fails closed: an answer it cannot score does not pass
    guarded = NLIFaithfulnessCheck(1.0, scorer=bundled_scorer)
    with pytest.raises(UnfaithfulAnswerError, match="could not be scored") as err:
        guarded.invoke({"answer": "It is blue.", "contexts": DOCS})  # the key is "context"
    assert err.value.result.error is not None
    # a chat message whose content is a list of parts: its text parts are the answer
    from langchain_core.messages import AIMessage

    parts = [{"type": "text", "text": "It is blue."}, {"type": "image_url", "image_url": "x"}]
    r = check.invoke({"answer": AIMessage(content=parts), "context": ["The sky is blue."]})
    assert r.error is None and r.claims[0].claim == "It is blue."
    with pytest.raises(ValueError, match="score_type must be one of"):
        NLIFaithfulnessCheck(score_type="f1", scorer=bundled_scorer)


@pytest.mark.parametrize("answer", ["", "   \n", AIMessage(content="")])
def test_an_empty_answer_is_refused_with_or_without_a_threshold(bundled_scorer, answer):
    check = NLIFaithfulnessCheck(scorer=bundled_scorer)
    r = check.invoke({"answer": answer, "context": DOCS})
    assert r.error is not None and "input key 'answer' is empty" in r.error
    assert r.strict is None
    guarded = NLIFaithfulnessCheck(0.5, scorer=bundled_scorer)
    with pytest.raises(UnfaithfulAnswerError, match="input key 'answer' is empty"):
        guarded.invoke({"answer": answer, "context": DOCS})


def test_a_missing_key_is_called_missing_not_null(bundled_scorer):
    check = NLIFaithfulnessCheck(scorer=bundled_scorer)
    r = check.invoke({"context": DOCS})
    assert "input key 'answer' is missing" in r.error and "null" not in r.error
    r = check.invoke({"answer": "It is blue.", "contexts": DOCS})
    assert "input key 'context' is missing" in r.error
    assert "input key 'answer' is null" in check.invoke({"answer": None, "context": DOCS}).error
    out = check.batch([{"context": DOCS}, {"answer": "It is blue.", "context": ["It is blue."]}])
    assert "is missing" in out[0].error and out[1].strict == 1.0


@pytest.mark.parametrize("context", [[], [Document(page_content=" ")], ""])
@pytest.mark.parametrize("score_type", ["strict", "lenient", "soft"])
def test_an_empty_context_fails_the_guardrail_whatever_the_score(
    bundled_scorer, context, score_type
):
    guarded = NLIFaithfulnessCheck(0.0, score_type=score_type, scorer=bundled_scorer)
    for answer in ("The warranty lasts 36 months.", "It is blue. It costs 5 dollars."):
        with pytest.raises(UnfaithfulAnswerError, match="no retrieved context to check"):
            guarded.invoke({"answer": answer, "context": context})


def test_a_bad_score_type_names_score_type(bundled_scorer):
    with pytest.raises(ValueError, match="score_type must be one of"):
        NLIFaithfulnessCheck(score_type="bogus", scorer=bundled_scorer)


# -- NLIFaithfulnessGuard: the streamed answer, checked sentence by sentence -----------------

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.output_parsers import StrOutputParser  # noqa: E402

from nli_faith.errors import OptionError, RecordError  # noqa: E402
from nli_faith.integrations.langchain import NLIFaithfulnessGuard  # noqa: E402
from nli_faith.text.sentences import sentence_spans  # noqa: E402

GOOD = "Shipping is free for orders over 50 dollars. The warranty lasts 24 months. Thanks!"
BAD = (
    "Shipping is free for orders over 50 dollars. The warranty lasts 36 months. "
    "Returns are easy. Ask us anything."
)


class Tokens(BaseCallbackHandler):
    """What the LLM has emitted so far (its ``on_llm_new_token`` callbacks)."""

    def __init__(self) -> None:
        self.emitted: list[str] = []
        self.started: list[str] = []

    def on_llm_new_token(self, token, **kwargs):
        self.emitted.append(token)

    def on_chain_start(self, serialized, inputs, **kwargs):
        self.started.append(kwargs.get("name") or (serialized or {}).get("name", ""))


def streaming_chain(answer: str, guard):
    """A RAG chain whose (fake, streaming) chat model writes ``answer`` word by word."""
    llm = GenericFakeChatModel(messages=iter([answer]))
    prompt = RunnableLambda(lambda x: f"Context: {x['context']}\nQuestion: {x['question']}")
    return (
        {"context": RunnableLambda(retriever), "question": RunnablePassthrough()}
        | RunnablePassthrough.assign(answer=prompt | llm | StrOutputParser())
        | guard
    )


def sentences(text: str) -> list[str]:
    """The text cut at the ends of its sentences (as the guard releases it)."""
    ends = [e for _, e in sentence_spans(text)]
    return [text[s:e] for s, e in zip([0, *ends], ends)]


def test_stream_releases_each_sentence_before_the_llm_has_finished(bundled_scorer):
    guard = NLIFaithfulnessGuard(block_on_contradiction=True, scorer=bundled_scorer)
    tokens = Tokens()
    chain = streaming_chain(GOOD, guard)
    out, emitted_then = [], []
    for chunk in chain.stream("How long is the warranty?", {"callbacks": [tokens]}):
        out.append(chunk)
        emitted_then.append("".join(tokens.emitted))
    assert out == sentences(GOOD) and "".join(out) == GOOD
    # each sentence came out as soon as the next had begun, long before the answer ended
    assert emitted_then == [out[0] + " The", out[0] + out[1] + " Thanks!", GOOD]
    assert "NLIFaithfulnessGuard" in tokens.started  # it runs inside the chain's callbacks
    assert streaming_chain(GOOD, guard).invoke("How long is the warranty?") == GOOD


def test_astream_releases_each_sentence_as_it_completes(bundled_scorer):
    guard = NLIFaithfulnessGuard(block_on_contradiction=True, scorer=bundled_scorer)
    tokens = Tokens()
    chain = streaming_chain(GOOD, guard)

    async def run():
        out, emitted_then = [], []
        async for chunk in chain.astream("How long?", {"callbacks": [tokens]}):
            out.append(chunk)
            emitted_then.append("".join(tokens.emitted))
        return out, emitted_then, await streaming_chain(GOOD, guard).ainvoke("How long?")

    out, emitted_then, whole = asyncio.run(run())
    assert out == sentences(GOOD) and whole == GOOD
    assert len(emitted_then[0]) < len(GOOD) and not emitted_then[0].endswith("Thanks!")
    assert emitted_then[0].startswith(out[0]) and emitted_then[1].startswith(out[0] + out[1])


def test_a_contradiction_stops_the_stream_with_the_claim_that_failed(bundled_scorer):
    guard = NLIFaithfulnessGuard(block_on_contradiction=True, scorer=bundled_scorer)
    tokens = Tokens()
    out = []
    with pytest.raises(UnfaithfulAnswerError) as err:
        for chunk in streaming_chain(BAD, guard).stream("How long?", {"callbacks": [tokens]}):
            out.append(chunk)
    assert out == ["Shipping is free for orders over 50 dollars."]
    e = err.value
    assert e.failed_claim.claim == "The warranty lasts 36 months."
    assert e.failed_claim.verdict == "no" and e.failed_claim.evidence.text == DOCS[0].page_content
    assert e.released == out[0] and e.stream.blocked
    assert "contradicted" in e.reason and '"The warranty lasts 36 months."' in str(e)
    assert e.result.n_claims == 2 and e.result.n_no == 1  # the answer up to that sentence
    # the rest of the answer was not read: the LLM never wrote its last sentence
    assert not "".join(tokens.emitted).endswith("anything.")
    # invoke and ainvoke stop at the same claim
    for run in (
        lambda: streaming_chain(BAD, guard).invoke("How long?"),
        lambda: asyncio.run(streaming_chain(BAD, guard).ainvoke("How long?")),
    ):
        with pytest.raises(UnfaithfulAnswerError) as again:
            run()
        assert again.value.failed_claim.claim == e.failed_claim.claim
        assert again.value.released == e.released

    async def astream():
        got = []
        async for chunk in streaming_chain(BAD, guard).astream("How long?"):
            got.append(chunk)
        return got

    with pytest.raises(UnfaithfulAnswerError) as aerr:
        asyncio.run(astream())
    assert aerr.value.failed_claim.claim == e.failed_claim.claim


def test_without_a_policy_every_sentence_is_released(bundled_scorer):
    guard = NLIFaithfulnessGuard(scorer=bundled_scorer)
    assert list(streaming_chain(BAD, guard).stream("q")) == sentences(BAD)
    strict = NLIFaithfulnessGuard(block_below_strict=1.0, scorer=bundled_scorer)
    unfound = "Shipping is free for orders over 50 dollars. The shop has a famous zoo. Bye."
    with pytest.raises(UnfaithfulAnswerError) as err:
        list(streaming_chain(unfound, strict).stream("q"))
    assert err.value.failed_claim.claim == "The shop has a famous zoo."
    assert err.value.failed_claim.verdict == "idk"


def test_text_chunks_with_the_context_given_to_the_guard(bundled_scorer):
    guard = NLIFaithfulnessGuard(DOCS, block_on_contradiction=True, scorer=bundled_scorer)
    llm = GenericFakeChatModel(messages=iter([GOOD, GOOD]))
    assert list((llm | StrOutputParser() | guard).stream("q")) == sentences(GOOD)
    # chat message chunks (no output parser): their text is the answer
    assert list((llm | guard).stream("q")) == sentences(GOOD)
    assert guard.invoke("Shipping is free for orders over 50 dollars.") == sentences(GOOD)[0]
    with pytest.raises(UnfaithfulAnswerError):
        guard.invoke(BAD)


def test_bad_streams_name_the_key_or_the_chunk(bundled_scorer):
    guard = NLIFaithfulnessGuard(scorer=bundled_scorer)
    with pytest.raises(RecordError, match="no input key 'context' came first"):
        list(guard.transform(iter(["The warranty lasts 24 months."])))
    with pytest.raises(RecordError, match="input key 'answer' is missing"):
        list(guard.transform(iter([{"context": DOCS}, {"response": "It is blue."}])))
    with pytest.raises(OptionError, match="got a chunk of type int"):
        list(guard.transform(iter([{"context": DOCS}, 3])))
    with pytest.raises(OptionError, match="got a piece of type int"):
        list(guard.transform(iter([{"context": DOCS}, {"answer": 3}])))
    keyed = NLIFaithfulnessGuard(context_key="docs", response_key="text", scorer=bundled_scorer)
    chunks = [{"docs": DOCS[:1]}, {"docs": DOCS[1:]}, {"text": "Shipping is "}, {"text": "free."}]
    assert list(keyed.transform(iter(chunks))) == ["Shipping is free."]
    with pytest.raises(ValueError, match="block_below_strict"):
        NLIFaithfulnessGuard(block_below_strict=2.0, scorer=bundled_scorer)
