"""nli-faith in a LangChain chain: python examples/langchain_chain.py (no LLM, no network).

The retriever and the LLM are stand-ins (RunnableLambda); put your own in their place.
"""

from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from nli_faith.integrations.langchain import NLIFaithfulnessCheck, UnfaithfulAnswerError

docs = [
    Document(page_content="The device is covered for twenty-four months from purchase."),
    Document(page_content="We provide complimentary delivery on purchases over $50."),
]
retriever = RunnableLambda(lambda question: docs)
llm = RunnableLambda(lambda x: AIMessage(content="The warranty lasts thirty-six months."))

# score the answer inside the chain: the result rides along under "faithfulness"
chain = (
    {"context": retriever, "question": RunnablePassthrough()}
    | RunnablePassthrough.assign(answer=llm)
    | RunnablePassthrough.assign(faithfulness=NLIFaithfulnessCheck(backend="onnx"))
)
out = chain.invoke("How long is the warranty?")
result = out["faithfulness"]
print(result.strict, result.reason)
print([(s.text, s.kind) for c in result.claims for s in c.unsupported_spans])

# as a guardrail: below the threshold the check raises, and the chain falls back
guarded = (
    {"context": retriever, "question": RunnablePassthrough()}
    | RunnablePassthrough.assign(answer=llm)
    | RunnablePassthrough.assign(faithfulness=NLIFaithfulnessCheck(1.0, backend="onnx"))
).with_fallbacks(
    [RunnableLambda(lambda q: {"answer": "I could not find that in the documents."})],
    exceptions_to_handle=(UnfaithfulAnswerError,),
)
print(guarded.invoke("How long is the warranty?")["answer"])
