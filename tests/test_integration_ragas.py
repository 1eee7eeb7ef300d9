"""NLIFaithfulness against the real RAGAS package, with the bundled model; no LLM, no network."""

from __future__ import annotations

import os

os.environ["RAGAS_DO_NOT_TRACK"] = "true"  # before ragas is imported

import math
import subprocess
import sys

import pytest
import ragas
from conftest import REPO
from ragas import EvaluationDataset, SingleTurnSample
from ragas.run_config import RunConfig

from nli_faith.integrations import ragas as nli_ragas
from nli_faith.integrations.ragas import NLIFaithfulness

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # ragas.evaluate's own

TOC_RESPONSE = (
    "Session management is handled by a Redis-backed session store. Sessions expire after "
    "30 minutes of inactivity. Authentication uses OAuth 2.0 with PKCE."
)
TOC_CONTEXT = "The document contains a section '5.6 Session Management' and '5.7 Token Refresh'."


def warranty(n: int, unit: str, question: str = "How long is the warranty?") -> SingleTurnSample:
    return SingleTurnSample(
        user_input=question,
        response=f"The warranty lasts {n} {unit}.",
        retrieved_contexts=["Warranty: the device is covered for 24 months from purchase."],
    )


@pytest.fixture(autouse=True)
def _no_llm(monkeypatch):
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(key, raising=False)


def run(dataset, metrics, **kw):
    return ragas.evaluate(dataset, metrics=metrics, show_progress=False, **kw)


def test_ragas_evaluate_with_no_llm_and_no_embeddings(bundled_scorer, batches):
    toc = SingleTurnSample(
        user_input="How does session management work?",
        response=TOC_RESPONSE,
        retrieved_contexts=[TOC_CONTEXT],
    )
    ask = "What is the warranty period?"  # samples of this test alone: none cached before it
    dataset = EvaluationDataset(
        samples=[warranty(24, "months", ask), warranty(36, "months", ask), toc]
    )
    strict = NLIFaithfulness(scorer=bundled_scorer)
    lenient = NLIFaithfulness(scorer=bundled_scorer, score_type="lenient")
    soft = NLIFaithfulness(scorer=bundled_scorer, score_type="soft")
    result = run(dataset, [strict, lenient, soft], raise_exceptions=True)
    assert result["nli_faithfulness"] == [1.0, 0.0, 0.0]  # strict by default, RAGAS's formula
    assert result["nli_faithfulness_lenient"] == [1.0, 0.0, 1.0]  # the table-of-contents gap
    assert 0 < result["nli_faithfulness_soft"][0] <= 1
    assert batches == [3]  # three metrics, three samples: one run
    detail = strict.result_for(dataset.samples[2])
    assert (detail.n_idk, detail.strict, detail.lenient) == (3, 0.0, 1.0)
    assert list(result.to_pandas().columns)[-3:] == [
        "nli_faithfulness",
        "nli_faithfulness_lenient",
        "nli_faithfulness_soft",
    ]


def test_a_dataset_is_one_batched_run(bundled_scorer, batches):
    # 24 samples, none cached; 200+ weeks is never the context's 24 months (104.3 weeks)
    samples = [warranty(n, "weeks") for n in range(200, 224)]
    dataset = EvaluationDataset(samples=samples)
    strict = NLIFaithfulness(scorer=bundled_scorer)
    lenient = NLIFaithfulness(scorer=bundled_scorer, score_type="lenient")
    # this module's evaluate(): score_dataset first, then ragas.evaluate reads the cache
    result = nli_ragas.evaluate(dataset, [strict, lenient])
    assert batches == [24]
    assert result["nli_faithfulness"] == [0.0] * 24

    # plain ragas.evaluate: the samples waiting together are scored together
    samples = [warranty(n, "days") for n in range(100, 124)]
    run(EvaluationDataset(samples=samples), [strict], run_config=RunConfig(max_workers=-1))
    assert batches == [24, 24]  # no worker limit: all 24 wait together, one run
    samples = [warranty(n, "years") for n in range(100, 124)]
    run(EvaluationDataset(samples=samples), [strict, lenient])  # RAGAS default: 16 workers
    assert sum(batches[2:]) == 24 and max(batches[2:]) > 1  # each sample once, in waves
    assert len(batches[2:]) < 24


def test_score_dataset_returns_full_results(bundled_scorer, batches):
    metric = NLIFaithfulness(scorer=bundled_scorer)
    samples = [warranty(24, "months"), warranty(36, "months")]
    first, second = metric.score_dataset(samples)
    assert first.claims[0].verdict == "yes" and second.claims[0].verdict == "no"
    assert first.claims[0].unsupported_spans == []
    assert [(s.text, s.kind) for s in second.claims[0].unsupported_spans] == [
        ("36 months", "contradicted")
    ]
    assert metric.single_turn_score(samples[0]) == 1.0  # RAGAS's sync path, from the cache
    assert len(batches) <= 1


def test_reference_column_gives_hallucination_and_self_knowledge_rates(bundled_scorer):
    context = ["The Eiffel Tower is a wrought-iron landmark in Paris."]
    response = "The Eiffel Tower is in Paris. It was finished in 1889. It is 500 m tall."
    with_reference = SingleTurnSample(
        user_input="Tell me about the tower.",
        response=response,
        retrieved_contexts=context,
        reference="The tower, completed in 1889, is 330 metres tall.",
    )
    without = SingleTurnSample(user_input="q", response=response, retrieved_contexts=context)
    metrics = [
        NLIFaithfulness(scorer=bundled_scorer),
        NLIFaithfulness(scorer=bundled_scorer, score_type="hallucination_rate"),
        NLIFaithfulness(scorer=bundled_scorer, score_type="self_knowledge_rate"),
    ]
    result = run(EvaluationDataset(samples=[with_reference, without]), metrics)
    assert result["nli_faithfulness"] == pytest.approx([1 / 3, 1 / 3])  # the reference aside
    assert result["nli_hallucination_rate"][0] == pytest.approx(1 / 3)
    assert result["nli_self_knowledge_rate"][0] == pytest.approx(1 / 3)
    assert math.isnan(result["nli_hallucination_rate"][1])  # no reference: NaN
    labels = [c.reference_label for c in metrics[0].result_for(with_reference).claims]
    assert labels == [None, "self_knowledge", "hallucination"]


def test_no_claims_is_nan_and_a_bad_sample_loses_nothing_else(bundled_scorer):
    greeting = SingleTurnSample(
        user_input="hi", response="Sure! What would you like to know?", retrieved_contexts=["x"]
    )
    bad = SingleTurnSample(user_input="q", retrieved_contexts=["No response was logged."])
    dataset = EvaluationDataset(samples=[greeting, bad, warranty(24, "months")])
    result = run(dataset, [NLIFaithfulness(scorer=bundled_scorer)])
    scores = result["nli_faithfulness"]
    assert math.isnan(scores[0]) and math.isnan(scores[1]) and scores[2] == 1.0
    with pytest.raises(ValueError, match="field .response. is null"):  # the record's own error
        run(dataset, [NLIFaithfulness(scorer=bundled_scorer)], raise_exceptions=True)


def test_bad_options(bundled_scorer):
    with pytest.raises(TypeError, match="uses no LLM"):
        NLIFaithfulness(llm=object())
    with pytest.raises(ValueError, match="score_type must be one of"):
        NLIFaithfulness(scorer=bundled_scorer, score_type="median")
    with pytest.raises(ValueError, match="either scorer= or scorer options"):
        NLIFaithfulness(scorer=bundled_scorer, backend="onnx")


def test_telemetry_off_and_missing_extra_message():
    env = {k: v for k, v in os.environ.items() if k != "RAGAS_DO_NOT_TRACK"}
    env["PYTHONPATH"] = str(REPO)
    code = (
        "import nli_faith.integrations.ragas\n"
        "from ragas._analytics import do_not_track\n"
        "assert do_not_track()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    blocked = "import sys; sys.modules['ragas'] = None; import nli_faith.integrations.ragas"
    proc = subprocess.run([sys.executable, "-c", blocked], env=env, capture_output=True, text=True)
    assert proc.returncode == 1
    assert 'Install it with: pip install "nli-faith[ragas]"' in proc.stderr


@pytest.mark.parametrize("contexts", [[], [""], ["  ", "\n"]])
@pytest.mark.parametrize("score_type", ["strict", "lenient", "soft"])
def test_an_empty_context_scores_zero_whatever_the_score(bundled_scorer, contexts, score_type):
    metric = NLIFaithfulness(score_type=score_type, scorer=bundled_scorer)
    sample = SingleTurnSample(
        user_input="q", response="The warranty lasts 36 months.", retrieved_contexts=contexts
    )
    assert run(EvaluationDataset(samples=[sample]), [metric])[metric.name] == [0.0]


def test_bad_options_name_the_keyword(bundled_scorer):
    with pytest.raises(TypeError, match="takes no 'embeddings'"):
        NLIFaithfulness(embeddings=object())
    with pytest.raises(ValueError, match="score_type must be one of"):
        NLIFaithfulness(scorer=bundled_scorer, score_type="bogus")
