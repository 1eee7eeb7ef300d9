"""A streamed answer checked sentence by sentence at the end of a LangChain chain:
python examples/stream_langchain.py (no API key, no network: a fake streaming chat model).

Put your retriever, prompt and chat model in their places; the guard stays at the end.
"""

from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from nli_faith.integrations.langchain import NLIFaithfulnessGuard, UnfaithfulAnswerError

docs = [
    Document(page_content="Warranty: the device is covered for 24 months from purchase."),
    Document(page_content="Shipping is free for orders over 50 dollars."),
]
retriever = RunnableLambda(lambda question: docs)
prompt = ChatPromptTemplate.from_template("Answer from this context: {context}\n\n{question}")
# stands for your chat model: it streams this answer word by word
llm = GenericFakeChatModel(
    messages=iter(
        [
            "Shipping is free on orders over 50 dollars. The device is covered for 24 months "
            "from purchase. Anything else?",
            "Shipping is free on orders over 50 dollars. The warranty lasts 36 months. "
            "It also covers water damage.",
        ]
    )
)
guard = NLIFaithfulnessGuard(block_on_contradiction=True)  # or block_below_strict=1.0

chain = (
    {"context": retriever, "question": RunnablePassthrough()}
    | RunnablePassthrough.assign(answer=prompt | llm | StrOutputParser())
    | guard
)

# a faithful answer: each sentence is shown as soon as it is complete and checked
for sentence in chain.stream("How long is the warranty, and is shipping free?"):
    print(sentence, end="", flush=True)
print()

# a contradiction: the sentences before it are shown, then the stream stops
try:
    for sentence in chain.stream("How long is the warranty, and is shipping free?"):
        print(sentence, end="", flush=True)
except UnfaithfulAnswerError as err:
    print(f"\n[stopped] {err.failed_claim.claim!r} ({err.failed_claim.verdict})")
    print(err.reason)
