"""nli-faith as a RAGAS metric: python examples/ragas_metric.py (no LLM, no embeddings)."""

import ragas
from ragas import EvaluationDataset, SingleTurnSample

from nli_faith.integrations.ragas import NLIFaithfulness, evaluate

dataset = EvaluationDataset(
    samples=[
        SingleTurnSample(
            user_input="How long is the warranty?",
            response="The device is covered for a period of thirty-six months.",
            retrieved_contexts=["The device is covered for a period of twenty-four months."],
        ),
        SingleTurnSample(
            user_input="Is shipping free?",
            response="Shipping is free for orders above fifty dollars.",
            retrieved_contexts=["We provide complimentary delivery on purchases over $50."],
        ),
        SingleTurnSample(
            user_input="Tell me about the Eiffel Tower.",
            response="The Eiffel Tower is in Paris. It was finished in 1889.",
            retrieved_contexts=["The Eiffel Tower is a wrought-iron landmark in Paris."],
            reference="The tower was completed in 1889.",
        ),
    ]
)
strict = NLIFaithfulness()  # "nli_faithfulness": supported claims / claims, as RAGAS
metrics = [
    strict,
    NLIFaithfulness(score_type="lenient"),
    NLIFaithfulness(score_type="self_knowledge_rate"),
]

# evaluate() = score_dataset() (one score_batch run for the whole dataset) + ragas.evaluate()
result = evaluate(dataset, metrics=metrics, show_progress=False)
print(result)
print(result.to_pandas()[["nli_faithfulness", "nli_faithfulness_lenient"]])

# plain ragas.evaluate works too (samples waiting together are scored together)
print(ragas.evaluate(dataset, metrics=[strict], show_progress=False))

# the claims, verdicts and evidence behind a score
for claim in strict.result_for(dataset.samples[2]).claims:
    print(claim.verdict, claim.reference_label, claim.claim)
