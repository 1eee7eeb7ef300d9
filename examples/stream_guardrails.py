"""A streamed answer validated sentence by sentence by Guardrails AI:
python examples/stream_guardrails.py (no API key, no network: a fake streaming LLM).
"""

import os
import re

# Guardrails imports LiteLLM, which fetches its cost map from the internet unless told not to
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# Guardrails' own Guard, re-exported: imported this way, Guardrails does not try to download
# NLTK data at import
from nli_faith.integrations.guardrails import Guard, NLIFaithfulness  # noqa: E402

context = [
    "The device is covered for a period of twenty-four months from the date of purchase.",
    "We provide complimentary delivery on purchases over $50.",
]
answer = (
    "Shipping is free for orders above fifty dollars. The device is covered for thirty-six "
    "months. The warranty starts on the date of purchase."
)


def llm(*, messages=None, **kwargs):
    """Stands for your LLM client: a generator of text pieces (here, word by word)."""
    yield from re.findall(r"\S+\s*", answer)


# on_fail="fix": each sentence comes out validated as soon as it is complete; one that
# fails comes out without its unsupported claims (here: not at all)
guard = Guard().use(NLIFaithfulness(on_fail="fix", backend="onnx"))
guard.configure(allow_metrics_collection=False)  # Guardrails' usage metrics off
messages = [{"role": "user", "content": "Tell me about shipping and the warranty."}]
for outcome in guard(llm_api=llm, stream=True, messages=messages, metadata={"context": context}):
    print(repr(outcome.validated_output))

# what failed, sentence by sentence (error spans are offsets in the sentence)
for log in guard.history.last.iterations.last.validator_logs:
    result = log.validation_result
    for span in getattr(result, "error_spans", None) or []:
        print(f"{result.validated_chunk[span.start : span.end]!r}: {span.reason}")
