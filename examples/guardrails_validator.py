"""nli-faith as a Guardrails AI validator: python examples/guardrails_validator.py
(no LLM, no hub, no network)."""

# Guardrails' own Guard, re-exported: imported this way, Guardrails does not try to download
# NLTK data at import
from nli_faith.integrations.guardrails import Guard, NLIFaithfulness

context = [
    "The device is covered for a period of twenty-four months from the date of purchase.",
    "We provide complimentary delivery on purchases over $50.",
]
answer = (
    "Shipping is free for orders above fifty dollars. The device is covered for thirty-six months."
)

# on_fail="fix": the answer goes on with only its supported claims
guard = Guard().use(NLIFaithfulness(on_fail="fix", backend="onnx"))
guard.configure(allow_metrics_collection=False)  # Guardrails' usage metrics off
outcome = guard.validate(answer, metadata={"context": context})
print(outcome.validation_passed, repr(outcome.validated_output))

# on_fail="noop": keep the answer, read what is wrong in it
guard = Guard().use(NLIFaithfulness(on_fail="noop", backend="onnx"))
guard.configure(allow_metrics_collection=False)
outcome = guard.validate(answer, metadata={"context": context, "question": "Terms?"})
for summary in outcome.validation_summaries:
    for span in summary.error_spans:
        print(f"{answer[span.start : span.end]!r} at {span.start}-{span.end}: {span.reason}")
