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
