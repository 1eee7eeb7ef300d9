"""NLIFaithfulnessMetric against the real DeepEval package, with the bundled model."""

from __future__ import annotations

import os

os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "1"  # before deepeval is imported

import asyncio
import subprocess
import sys

import pytest
from conftest import REPO
from deepeval import assert_test, evaluate
from deepeval.errors import MissingTestCaseParamsError
from deepeval.evaluate import AsyncConfig, DisplayConfig, ErrorConfig
from deepeval.metrics.utils import copy_metrics
from deepeval.test_case import LLMTestCase

from nli_faith.integrations.deepeval import NLIFaithfulnessMetric

NUMBER_SWAP = LLMTestCase(
    input="How long is the warranty?",
    actual_output="The device is covered for a period of thirty-six months.",
    retrieval_context=["The device is covered for a period of twenty-four months."],
)
PARAPHRASE = LLMTestCase(
    input="Is shipping free?",
    actual_output="Shipping is free for orders above fifty dollars.",
    retrieval_context=["We provide complimentary delivery on purchases over $50."],
)
TABLE_OF_CONTENTS = LLMTestCase(
    input="How does session management work?",
    actual_output=(
        "Session management is handled by a Redis-backed session store. Sessions expire "
        "after 30 minutes of inactivity. Authentication uses OAuth 2.0 with PKCE."
    ),
    retrieval_context=[
        "The document contains a section '5.6 Session Management' and a section "
        "'5.7 Token Refresh'.\nTable of Contents\n1. Introduction\n5.6 Session Management"
    ],
)
QUIET = DisplayConfig(show_indicator=False, print_results=False)


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # DeepEval writes its .deepeval/ run files in the cwd


def test_measure_number_swap(bundled_scorer):
    metric = NLIFaithfulnessMetric(threshold=0.7, scorer=bundled_scorer)
    assert metric.measure(NUMBER_SWAP) == 0.0
    assert metric.success is False and metric.error is None
    assert metric.score_breakdown == {
        "lenient": 0.0,
        "strict": 0.0,
        "soft": metric.result.soft,
        "n_claims": 1,
        "n_yes": 0,
        "n_no": 1,
        "n_idk": 0,
    }
    assert metric.claims == ["The device is covered for a period of thirty-six months."]
    assert [v.verdict for v in metric.verdicts] == ["no"]
    assert '"verdict": "no"' in metric.verbose_logs
    assert "thirty-six months" in metric.verbose_logs
    assert '"unsupported_spans": [\n' in metric.verbose_logs
    assert '"thirty-six months (contradicted)"' in metric.verbose_logs
    assert [s.text for s in metric.verdicts[0].unsupported_spans] == ["thirty-six months"]
    assert "Contradicted" in metric.reason
    assert metric.evaluation_cost == 0.0 and metric.evaluation_model.startswith("nli-faith")


def test_penalize_ambiguous_claims_selects_the_formula_as_deepeval(bundled_scorer):
    lenient = NLIFaithfulnessMetric(scorer=bundled_scorer)
    strict = NLIFaithfulnessMetric(scorer=bundled_scorer, penalize_ambiguous_claims=True)
    assert lenient.measure(TABLE_OF_CONTENTS) == 1.0 and lenient.success
    assert strict.measure(TABLE_OF_CONTENTS) == 0.0 and not strict.success
    assert lenient.score_breakdown == strict.score_breakdown  # always both formulas
    assert lenient.score_breakdown["n_idk"] == 3
    assert "Warning: the lenient score 1.00 counts the 3 claim(s) not found" in lenient.reason
    assert "Warning" not in strict.reason and "(strict formula)" in strict.reason
    assert strict.__name__ == "NLI Faithfulness (strict)"


def test_strict_mode_and_include_reason(bundled_scorer):
    metric = NLIFaithfulnessMetric(scorer=bundled_scorer, strict_mode=True, include_reason=False)
    assert metric.threshold == 1
    assert metric.measure(PARAPHRASE) == 1.0 and metric.success and metric.reason is None
    mixed = LLMTestCase(
        input="q",
        actual_output=PARAPHRASE.actual_output + " " + NUMBER_SWAP.actual_output,
        retrieval_context=PARAPHRASE.retrieval_context + NUMBER_SWAP.retrieval_context,
    )
    assert metric.measure(mixed) == 0  # 0.5 is below the strict threshold: 0, as DeepEval


def test_a_measure_equals_measure(bundled_scorer):
    metric = NLIFaithfulnessMetric(scorer=bundled_scorer, penalize_ambiguous_claims=True)
    assert asyncio.run(metric.a_measure(NUMBER_SWAP, _show_indicator=False)) == 0.0
    assert metric.verdicts[0].verdict == "no"
    assert asyncio.run(metric.a_measure(PARAPHRASE, _show_indicator=False)) == 1.0


def test_evaluate_end_to_end_batches_the_test_cases(bundled_scorer, batches):
    cases = [
        LLMTestCase(
            input="How long is the warranty?",
            actual_output=f"The warranty lasts {n} months.",
            retrieval_context=["The warranty lasts 24 months from the date of purchase."],
        )
        for n in (24, 36, 48, 24)  # the last one repeats the first
    ]
    metrics = [
        NLIFaithfulnessMetric(scorer=bundled_scorer),
        NLIFaithfulnessMetric(scorer=bundled_scorer, penalize_ambiguous_claims=True),
    ]
    result = evaluate(cases, metrics=metrics, display_config=QUIET)
    scores = [[(m.name, m.score, m.success) for m in r.metrics_data] for r in result.test_results]
    assert scores == [
        [("NLI Faithfulness", 1.0, True), ("NLI Faithfulness (strict)", 1.0, True)],
        [("NLI Faithfulness", 0.0, False), ("NLI Faithfulness (strict)", 0.0, False)],
        [("NLI Faithfulness", 0.0, False), ("NLI Faithfulness (strict)", 0.0, False)],
        [("NLI Faithfulness", 1.0, True), ("NLI Faithfulness (strict)", 1.0, True)],
    ]
    assert all("verdict" in m.verbose_logs for r in result.test_results for m in r.metrics_data)
    # 4 test cases x 2 metrics, run concurrently by DeepEval: one batched run of 3 records
    assert batches == [3]

    sync = evaluate(
        cases[:2],
        metrics=metrics[:1],
        display_config=QUIET,
        async_config=AsyncConfig(run_async=False),
    )
    assert [r.metrics_data[0].score for r in sync.test_results] == [1.0, 0.0]
    assert batches == [3]  # already scored: served from the cache


def test_assert_test(bundled_scorer):
    assert_test(PARAPHRASE, [NLIFaithfulnessMetric(scorer=bundled_scorer)])
    with pytest.raises(AssertionError, match="NLI Faithfulness"):
        assert_test(NUMBER_SWAP, [NLIFaithfulnessMetric(scorer=bundled_scorer)])


def test_missing_retrieval_context_is_deepevals_missing_parameter_error(bundled_scorer):
    case = LLMTestCase(input="q", actual_output="The sky is blue.")
    metric = NLIFaithfulnessMetric(scorer=bundled_scorer)
    message = "'retrieval_context' cannot be None for the 'NLI Faithfulness' metric"
    with pytest.raises(MissingTestCaseParamsError, match=message):
        metric.measure(case)
    with pytest.raises(MissingTestCaseParamsError, match=message):
        asyncio.run(metric.a_measure(case, _show_indicator=False))
    skipped = evaluate(
        [case, PARAPHRASE],
        metrics=[metric],
        display_config=QUIET,
        error_config=ErrorConfig(skip_on_missing_params=True),
    )
    first, second = skipped.test_results
    assert not first.metrics_data  # skipped, as DeepEval skips its own metrics
    assert second.metrics_data[0].score == 1.0


def test_expected_output_splits_unsupported_claims(bundled_scorer):
    case = LLMTestCase(
        input="Tell me about the Eiffel Tower.",
        actual_output="The Eiffel Tower is in Paris. It was finished in 1889. It is 500 m tall.",
        retrieval_context=["The Eiffel Tower is a wrought-iron landmark in Paris."],
        expected_output="The tower, completed in 1889, is 330 metres tall.",
    )
    metric = NLIFaithfulnessMetric(scorer=bundled_scorer, penalize_ambiguous_claims=True)
    metric.measure(case)
    assert [v.reference_label for v in metric.verdicts] == [None, "self_knowledge", "hallucination"]
    assert metric.score_breakdown["hallucination_rate"] == pytest.approx(1 / 3)
    assert metric.score_breakdown["self_knowledge_rate"] == pytest.approx(1 / 3)
    assert '"reference_label": "self_knowledge"' in metric.verbose_logs
    assert "1 unsupported claim is a hallucination" in metric.reason


def test_no_claims_scores_like_deepeval_and_says_so(bundled_scorer):
    case = LLMTestCase(input="hi", actual_output="Sure! What would you like to know?",
                       retrieval_context=["Anything."])  # fmt: skip
    metric = NLIFaithfulnessMetric(scorer=bundled_scorer)
    assert metric.measure(case) == 1.0 and "as DeepEval scores an answer with no claims" in (
        metric.reason
    )
    unset = NLIFaithfulnessMetric(scorer=bundled_scorer, empty_score=None)
    assert unset.measure(case) is None and unset.success is False


def test_copies_share_the_scorer_and_options(bundled_scorer):
    metric = NLIFaithfulnessMetric(0.8, scorer=bundled_scorer, penalize_ambiguous_claims=True)
    (copy,) = copy_metrics([metric])  # what evaluate() does for every test case
    assert copy.scorer is bundled_scorer
    assert (copy.threshold, copy.penalize_ambiguous_claims) == (0.8, True)


def test_bad_options(bundled_scorer):
    with pytest.raises(TypeError, match="uses no LLM, so it takes no 'model'"):
        NLIFaithfulnessMetric(model="gpt-4o")
    with pytest.raises(ValueError, match=r"either scorer= or scorer options \(device\)"):
        NLIFaithfulnessMetric(scorer=bundled_scorer, device="cpu")


def test_telemetry_off_and_missing_extra_message():
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEEPEVAL_TELEMETRY")}
    env["PYTHONPATH"] = str(REPO)
    code = (
        "import nli_faith.integrations.deepeval\n"
        "from deepeval.telemetry.client import telemetry_opt_out\n"
        "assert telemetry_opt_out()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    blocked = "import sys; sys.modules['deepeval'] = None; import nli_faith.integrations.deepeval"
    proc = subprocess.run([sys.executable, "-c", blocked], env=env, capture_output=True, text=True)
    assert proc.returncode == 1
    assert 'Install it with: pip install "nli-faith[deepeval]"' in proc.stderr


def test_batcher_survives_a_loop_stopped_mid_batch(bundled_scorer):
    from nli_faith.integrations.batching import Batcher

    batcher = Batcher(bundled_scorer)
    record = {"response": "Paris is in France.", "context": "Paris is the capital of France."}
    old = asyncio.new_event_loop()
    old.run_until_complete(asyncio.sleep(0))
    old.create_task(batcher.ascore(record))
    old.run_until_complete(asyncio.sleep(0))  # queued; the loop stops before the flush
    old.close()
    result = asyncio.run(asyncio.wait_for(batcher.ascore(record), timeout=30))
    assert result.claims[0].verdict == "yes"


def test_batcher_serves_several_event_loops_at_once():
    """Threads each running their own event loop (as DeepEval and RAGAS may) share one
    batcher: every record of every loop gets its result, and score_batch never runs twice
    at the same time."""
    import threading

    from nli_faith.integrations.batching import Batcher
    from nli_faith.results import FaithfulnessResult

    active, overlap, calls = [0], [False], [0]
    lock = threading.Lock()

    class FakeScorer:  # stands in for the model: the property is about the batcher
        def score_batch(self, records):
            with lock:
                active[0] += 1
                calls[0] += 1
                overlap[0] |= active[0] > 1
            try:
                import time

                time.sleep(0.01)
                return [
                    FaithfulnessResult(1.0, 1.0, 1.0, 1, 1, 0, 0, r["response"]) for r in records
                ]
            finally:
                with lock:
                    active[0] -= 1

    batcher = Batcher(FakeScorer())
    outcome: dict[str, object] = {}

    def worker(name: str) -> None:
        async def main():
            recs = [{"response": f"{name}-{i}", "context": "x"} for i in range(40)]
            out = await asyncio.wait_for(
                asyncio.gather(*(batcher.ascore(r) for r in recs)), timeout=30
            )
            return [r.reason for r in out]

        try:
            outcome[name] = asyncio.run(main())
        except Exception as err:  # noqa: BLE001 - recorded for the assertion below
            outcome[name] = repr(err)

    threads = [threading.Thread(target=worker, args=(n,)) for n in "ABCD"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert {n: outcome[n] for n in "ABCD"} == {n: [f"{n}-{i}" for i in range(40)] for n in "ABCD"}
    assert not overlap[0] and calls[0] <= 8


EMPTY_CONTEXTS = [[], [""], ["  ", "\n"]]


@pytest.mark.parametrize("context", EMPTY_CONTEXTS, ids=["none", "empty", "blank"])
@pytest.mark.parametrize(
    "options",
    [{}, {"penalize_ambiguous_claims": True}, {"strict_mode": True}, {"threshold": 0.0}],
    ids=["lenient", "strict", "strict_mode", "threshold_0"],
)
def test_an_empty_context_never_passes_and_says_why(bundled_scorer, context, options):
    metric = NLIFaithfulnessMetric(scorer=bundled_scorer, **options)
    for answer in ("The warranty lasts 36 months.", "It is blue. It costs 5 dollars."):
        case = LLMTestCase(input="q", actual_output=answer, retrieval_context=context)
        assert metric.measure(case) == 0.0
        assert metric.success is False and metric.is_successful() is False
        assert "no retrieved context to check the answer against" in metric.reason


def test_an_llm_keyword_is_named_as_given(bundled_scorer):
    with pytest.raises(TypeError, match="takes no 'llm'"):
        NLIFaithfulnessMetric(llm="gpt-4o")
