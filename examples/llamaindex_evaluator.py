"""nli-faith as a LlamaIndex evaluator: python examples/llamaindex_evaluator.py
(no LLM, no network). Swap it in wherever FaithfulnessEvaluator is used."""

from llama_index.core.evaluation import BatchEvalRunner

from nli_faith.integrations.llamaindex import NLIFaithfulnessEvaluator

contexts = [
    "The device is covered for a period of twenty-four months from the date of purchase.",
    "We provide complimentary delivery on purchases over $50.",
]
evaluator = NLIFaithfulnessEvaluator()  # passing: every claim supported (threshold=1.0)

r = evaluator.evaluate(
    query="What are the terms?",
    response="Shipping is free above fifty dollars. The warranty lasts thirty-six months.",
    contexts=contexts,
)
print(r.passing, r.score)
print(r.feedback)

# many answers at once: BatchEvalRunner's concurrent calls are scored in one batched run
runner = BatchEvalRunner({"faithfulness": evaluator}, workers=8)
answers = ["Delivery is free over $50.", "It is covered for 24 months.", "Returns take 90 days."]
results = runner.evaluate_response_strs(
    queries=["What are the terms?"] * 3, response_strs=answers, contexts_list=[contexts] * 3
)
print([(r.response, r.passing, r.score) for r in results["faithfulness"]])
