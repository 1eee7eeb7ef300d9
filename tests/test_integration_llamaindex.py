"""NLIFaithfulnessEvaluator inside the real LlamaIndex (llama-index-core), on the bundled
model: its BaseEvaluator interface, BatchEvalRunner, Response objects with source nodes."""

from __future__ import annotations

import doctest

import pytest

pytest.importorskip("llama_index.core", reason="llama-index-core is not installed (dev extra)")

from llama_index.core.base.response.schema import Response  # noqa: E402
from llama_index.core.evaluation import (  # noqa: E402
    BaseEvaluator,
    BatchEvalRunner,
    EvaluationResult,
)
from llama_index.core.schema import NodeWithScore, TextNode  # noqa: E402

from nli_faith.integrations import gate  # noqa: E402
from nli_faith.integrations.llamaindex import NLIFaithfulnessEvaluator  # noqa: E402

CONTEXT = ["Warranty: the device is covered for 24 months from purchase."]


def warranty(n: int) -> str:
    return f"The warranty lasts {n} months."


def test_evaluate_a_number_swap_and_a_faithful_answer(bundled_scorer):
    evaluator = NLIFaithfulnessEvaluator(scorer=bundled_scorer)
    assert isinstance(evaluator, BaseEvaluator) and evaluator.get_prompts() == {}
    bad = evaluator.evaluate(query="How long?", response=warranty(36), contexts=CONTEXT)
    assert isinstance(bad, EvaluationResult)
    assert (bad.passing, bad.score, bad.invalid_result) == (False, 0.0, False)
    assert bad.query == "How long?" and bad.contexts == CONTEXT
    assert bad.feedback.splitlines()[-1] == f'"36 months" is contradicted by: {CONTEXT[0]}'
    full = evaluator.result_for(warranty(36), CONTEXT, query="How long?")
    assert [s.text for s in full.claims[0].unsupported_spans] == ["36 months"]
    good = evaluator.evaluate(response=warranty(24), contexts=CONTEXT)
    assert (good.passing, good.score) == (True, 1.0)
    assert good.feedback == bundled_scorer.score(warranty(24), CONTEXT).reason


def test_threshold_score_type_and_raise_error(bundled_scorer):
    answer = warranty(24) + " It is waterproof to 50 metres."  # one supported, one not found
    strict = NLIFaithfulnessEvaluator(scorer=bundled_scorer)
    lenient = NLIFaithfulnessEvaluator(scorer=bundled_scorer, score_type="lenient")
    half = NLIFaithfulnessEvaluator(0.5, scorer=bundled_scorer)
    assert strict.evaluate(response=answer, contexts=CONTEXT).score == 0.5
    assert strict.evaluate(response=answer, contexts=CONTEXT).passing is False
    assert lenient.evaluate(response=answer, contexts=CONTEXT).passing is True
    assert half.evaluate(response=answer, contexts=CONTEXT).passing is True
    raising = NLIFaithfulnessEvaluator(scorer=bundled_scorer, raise_error=True)
    with pytest.raises(ValueError, match="not faithful"):
        raising.evaluate(response=warranty(36), contexts=CONTEXT)
    # no threshold and no calibrated thresholds: no decision, still a score
    assert (
        NLIFaithfulnessEvaluator(None, scorer=bundled_scorer)
        .evaluate(response=answer, contexts=CONTEXT)
        .passing
        is None
    )


def test_evaluate_response_reads_the_source_nodes(bundled_scorer):
    evaluator = NLIFaithfulnessEvaluator(scorer=bundled_scorer)
    response = Response(
        response=warranty(36),
        source_nodes=[NodeWithScore(node=TextNode(text=CONTEXT[0]), score=0.9)],
    )
    r = evaluator.evaluate_response(query="How long?", response=response)
    assert (r.passing, r.score, r.contexts) == (False, 0.0, CONTEXT)


def test_batch_eval_runner_scores_concurrent_answers_in_one_run(bundled_scorer, batches):
    evaluator = NLIFaithfulnessEvaluator(scorer=bundled_scorer)
    months = list(range(300, 310))
    runner = BatchEvalRunner({"faithfulness": evaluator}, workers=16)
    results = runner.evaluate_response_strs(
        queries=["How long is the warranty?"] * len(months),
        response_strs=[warranty(n) for n in months],
        contexts_list=[CONTEXT] * len(months),
    )
    assert [r.passing for r in results["faithfulness"]] == [False] * len(months)
    assert batches == [len(months)]  # every waiting answer in one batched run


def test_no_claims_and_bad_input_are_invalid_results(bundled_scorer):
    evaluator = NLIFaithfulnessEvaluator(scorer=bundled_scorer)
    r = evaluator.evaluate(response="Sure! What would you like to know?", contexts=CONTEXT)
    assert r.invalid_result and r.score is None and r.passing is None
    assert "no verifiable claim" in r.invalid_reason.lower()
    r = evaluator.evaluate(response="Fine.", contexts=[None])
    assert r.invalid_result and "argument 'contexts' item 0 must be a string" in r.invalid_reason
    r = evaluator.evaluate(response="Fine.", contexts=5)
    assert "argument 'contexts' must be a string or a list of strings, got int" in r.invalid_reason
    with pytest.raises(ValueError, match="^contexts must be provided"):
        evaluator.evaluate(response="x")
    with pytest.raises(ValueError, match="^response and contexts must be provided"):
        evaluator.evaluate()
    # one string is one context, not a list of its characters
    one = evaluator.evaluate(response=CONTEXT[0], contexts=CONTEXT[0])
    assert one.contexts == [CONTEXT[0]] and one.score == 1.0
    with pytest.raises(TypeError, match="no LLM"):
        NLIFaithfulnessEvaluator(llm=object())
    with pytest.raises(ValueError, match="score_type must be one of"):
        NLIFaithfulnessEvaluator(score_type="f1", scorer=bundled_scorer)


def test_gate_docstring_examples():
    result = doctest.testmod(gate, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("contexts", [[], [""], ["  ", "\n"], ""])
@pytest.mark.parametrize("score_type", ["strict", "lenient", "soft"])
def test_an_empty_context_fails_whatever_the_score(bundled_scorer, contexts, score_type):
    evaluator = NLIFaithfulnessEvaluator(0.0, score_type=score_type, scorer=bundled_scorer)
    for answer in (warranty(36), "It is blue. It costs 5 dollars."):
        r = evaluator.evaluate(response=answer, contexts=contexts)
        assert r.passing is False and r.score == 0.0
        assert "no retrieved context to check the answer against" in r.feedback


def test_bad_options_name_the_keyword(bundled_scorer):
    with pytest.raises(TypeError, match="takes no 'llm'"):
        NLIFaithfulnessEvaluator(llm=object())
    with pytest.raises(ValueError, match="score_type must be one of"):
        NLIFaithfulnessEvaluator(score_type="bogus", scorer=bundled_scorer)
