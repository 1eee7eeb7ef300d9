"""nli-faith as a DeepEval metric: python examples/deepeval_metric.py (no LLM, no network)."""

from deepeval import assert_test, evaluate
from deepeval.test_case import LLMTestCase

from nli_faith.integrations.deepeval import NLIFaithfulnessMetric

toc = LLMTestCase(
    input="How does session management work?",
    actual_output=(
        "Session management is handled by a Redis-backed session store. "
        "Sessions expire after 30 minutes of inactivity."
    ),
    retrieval_context=[  # only a table of contents was retrieved
        "The document contains a section '5.6 Session Management' and a section "
        "'5.7 Token Refresh'.\nTable of Contents\n1. Introduction\n5.6 Session Management"
    ],
    expected_output="Sessions live in a Redis store and expire after 30 minutes of inactivity.",
)
lenient = NLIFaithfulnessMetric(threshold=0.7)  # DeepEval's default formula
strict = NLIFaithfulnessMetric(threshold=0.7, penalize_ambiguous_claims=True)

lenient.measure(toc)
print(lenient.score, lenient.success)
print(lenient.reason)
print(lenient.score_breakdown)

result = evaluate([toc], metrics=[lenient, strict])  # DeepEval's own run and table
print([(m.name, m.score, m.success) for m in result.test_results[0].metrics_data])

paraphrase = LLMTestCase(
    input="Is shipping free?",
    actual_output="Shipping is free for orders above fifty dollars.",
    retrieval_context=["We provide complimentary delivery on purchases over $50."],
)
assert_test(paraphrase, [strict])  # passes: the one claim is supported
