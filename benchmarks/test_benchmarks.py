"""The benchmark code's own checks: the quality benchmark's metrics, baselines and caches,
and the runner.

Collected by ``python -m pytest`` (``testpaths`` holds ``benchmarks``); the tests in
``tests/`` import nothing from this package.
"""

from __future__ import annotations

import argparse
import itertools
import json

import numpy as np
import pytest

from benchmarks.baselines import SentenceGrid, summac_score, token_overlap, word_tokens
from benchmarks.metrics import (
    balanced_accuracy,
    best_threshold,
    evaluate_scores,
    held_out_half,
    roc_auc,
    seeded_half,
    split_by_id,
)


@pytest.fixture(scope="module")
def bundled_scorer():
    from nli_faith.scorer import FaithfulnessScorer

    return FaithfulnessScorer(device="cpu")


def _auc_by_pairs(y, s):
    pos = [b for a, b in zip(y, s) if a == 1]
    neg = [b for a, b in zip(y, s) if a == 0]
    wins = sum((p > n) + 0.5 * (p == n) for p, n in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


def test_roc_auc_matches_pairwise_definition_with_ties():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    s = rng.integers(0, 7, 200) / 6.0  # many ties
    assert roc_auc(y, s) == pytest.approx(_auc_by_pairs(y, s))


def test_roc_auc_edge_cases():
    assert roc_auc([1, 1, 1], [0.1, 0.2, 0.3]) is None
    assert roc_auc([0, 1], [0.2, 0.9]) == 1.0
    assert roc_auc([0, 1], [0.9, 0.2]) == 0.0


def test_balanced_accuracy():
    assert balanced_accuracy([1, 1, 0, 0], [1, 0, 0, 0]) == pytest.approx(0.75)
    assert balanced_accuracy([1, 1, 1, 1, 0], [1, 1, 1, 1, 1]) == pytest.approx(0.5)
    assert balanced_accuracy([0, 0], [0, 1]) is None


def test_best_threshold_is_optimal_on_its_half():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    s = y * 0.3 + rng.random(300)
    t = best_threshold(y, s)
    best = balanced_accuracy(y, (s >= t).astype(int))
    for cand in np.unique(s):
        assert balanced_accuracy(y, (s >= cand).astype(int)) <= best + 1e-12


def test_split_is_seeded_and_roughly_half():
    ids = [f"rec-{i}" for i in range(2000)]
    mask = split_by_id(ids)
    assert 0.45 < mask.mean() < 0.55
    assert (mask == split_by_id(ids)).all()
    assert seeded_half("x", seed=0) == seeded_half("x", seed=0)


def test_evaluate_scores_reports_on_test_half_only():
    y = np.array([0, 1] * 50)
    s = y.astype(float)
    test = held_out_half(y)
    out = evaluate_scores(y, s, test)
    assert out["balanced_accuracy"] == 1.0 and out["roc_auc"] == 1.0
    assert out["threshold"] == 1.0  # one of the scores, as calibrate's gate


def test_the_quality_figures_are_those_calibrate_reports_on_the_same_records():
    """One set of rules: the half, the gate and balanced accuracy are the library's."""
    from nli_faith.scoring.agreement import best_gate, figures, split_halves

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    s = np.round(y * 0.25 + rng.random(400), 2)  # ties, as real scores have
    test = held_out_half(y)
    assert (test == split_halves(y, seed=0)).all()
    assert abs(int(y[test].sum()) - int(y[~test].sum())) <= 1  # stratified by label
    out = evaluate_scores(y, s, test)
    gate = best_gate(y[~test], s[~test])[0]
    assert out["threshold"] == gate
    assert round(out["balanced_accuracy"], 4) == figures(y[test], s[test] >= gate).balanced_accuracy
    assert out["balanced_accuracy"] == pytest.approx(
        balanced_accuracy(y[test], (s[test] >= gate).astype(int))
    )


def test_token_overlap():
    assert word_tokens("Free, FREE shipping!") == ["free", "free", "shipping"]
    assert token_overlap("free free gift", ["Shipping is free."]) == pytest.approx(2 / 3)
    assert token_overlap("...", ["anything"]) is None


def test_summac_score_formula():
    grid = SentenceGrid(["h1", "h2"], ["p1", "p2"], [])
    probs = np.array(
        [
            [0.9, 0.05, 0.05],  # h1 vs p1
            [0.1, 0.1, 0.8],  # h1 vs p2
            [0.2, 0.7, 0.1],  # h2 vs p1
            [0.3, 0.6, 0.1],  # h2 vs p2
        ]
    )
    # h1: 0.9 - 0.8; h2: 0.3 - 0.1
    assert summac_score(grid, probs) == pytest.approx(((0.9 - 0.8) + (0.3 - 0.1)) / 2)
    assert summac_score(SentenceGrid([], ["p"], []), np.zeros((0, 3))) is None


def test_fit_premise_cuts_like_only_first_truncation():
    transformers = pytest.importorskip("transformers")
    from benchmarks.baselines import fit_premise
    from nli_faith.nli.registry import resolve_model

    tok = transformers.AutoTokenizer.from_pretrained(resolve_model("default").path)
    premise = " ".join(f"word{i} unbelievably" for i in range(400))
    hyp = "The claim under test."
    cut, truncated = fit_premise(tok, premise, hyp, 128)
    assert truncated and premise.startswith(cut) and len(cut) < len(premise)
    assert len(tok(cut, hyp)["input_ids"]) <= 128
    assert len(tok(cut, hyp)["input_ids"]) >= 120  # keeps (almost) all the room
    assert fit_premise(tok, "Short.", hyp, 128) == ("Short.", False)


def test_report_marks_datasets_where_nli_faith_does_not_beat_both_baselines():
    from benchmarks.report import _verdict

    base = {"strict": 0.70, "soft": 0.72, "lenient": 0.6, "summac_zs": 0.9}
    assert _verdict(base | {"single_pass": 0.71, "token_overlap": 0.65}) == "yes"
    assert _verdict(base | {"single_pass": 0.6, "token_overlap": 0.72}).startswith("**NO**")
    out = _verdict(base | {"single_pass": 0.8, "token_overlap": 0.79})
    assert "token overlap and single pass" in out


def test_cascade_matrix_cache_is_rebuilt_when_the_library_changes(
    bundled_scorer, tmp_path, monkeypatch
):
    import benchmarks.cascade_data as cd

    recs = [
        cd.LabelledRecord("x", "1", ["The sky is blue. Grass is green."], ["The sky is blue."], [1])
    ]
    cache = tmp_path / "matrices.pkl"
    calls = []
    from nli_faith.engine import infer

    fill = infer.fill
    monkeypatch.setattr(infer, "fill", lambda *a: (calls.append(1), fill(*a))[1])
    first = cd.build_matrices(bundled_scorer, recs, cache)
    again = cd.build_matrices(bundled_scorer, recs, cache)
    assert len(calls) == 1 and (first[0].probs == again[0].probs).all()  # served from cache
    monkeypatch.setattr(cd, "_source_sha256", lambda: "another library")
    cd.build_matrices(bundled_scorer, recs, cache)
    assert len(calls) == 2  # a changed library is scored again, not served stale


def test_every_module_imports_and_every_benchmark_runs_through_the_harness(tmp_path, capsys):
    import importlib
    import pkgutil

    import benchmarks
    from benchmarks import harness

    for mod in pkgutil.iter_modules(benchmarks.__path__):
        if mod.name != "__main__":
            importlib.import_module(f"benchmarks.{mod.name}")
    assert harness.main(["list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == list(harness.BENCHMARKS)
    for name in harness.BENCHMARKS:
        mod = harness.module_of(name)
        p = argparse.ArgumentParser()
        mod.add_arguments(p, name)  # every option parser builds
        assert callable(mod.run) and mod.TITLE
    # the runner's envelope and page, with a stand-in benchmark
    fake = type("M", (), {})()
    fake.TITLE = "A stand-in"
    fake.add_arguments = lambda p, name: p.add_argument("--k", type=int, default=2)
    fake.run = lambda args, bench: harness.Outcome(
        body="| a |\n|---|\n| 1 |",
        figures={"k": bench.timed("step", lambda: args.k, repeats=3)},
    )
    harness.BENCHMARKS["stand_in"] = "stand_in_module"
    try:
        import sys

        sys.modules["stand_in_module"] = fake
        env = harness.run_benchmark("stand_in", ["--k", "5", "--out-dir", str(tmp_path)])
    finally:
        harness.BENCHMARKS.pop("stand_in")
        sys.modules.pop("stand_in_module", None)
    saved = json.loads((tmp_path / "stand_in.json").read_text())
    assert saved == json.loads(json.dumps(env, default=str))
    assert saved["figures"] == {"k": 5} and saved["timings"]["step"]["repeats"] == 3
    t = saved["timings"]["step"]
    assert t["min_s"] <= t["median_s"] <= t["max_s"]
    assert saved["machine"]["cores"] >= 1 and len(saved["machine"]["load_before"]) == 3
    assert saved["command"] == "python -m benchmarks run stand_in --k 5 --out-dir " + str(tmp_path)
    page = (tmp_path / "stand_in.md").read_text()
    assert page.startswith("# A stand-in\n") and "**Machine:**" in page and "| 1 |" in page
    assert harness.load_results(tmp_path)[0]["name"] == "stand_in"


def test_rag_dev_figures_of_the_hallucinated_class():
    from benchmarks.rag_dev import balanced_accuracy, prf

    labels = [0, 0, 0, 1, 1]  # 0 = hallucinated
    flags = [True, True, False, True, False]
    assert prf(labels, flags) == {"f1": 66.7, "precision": 66.7, "recall": 66.7, "n": 5,
                                  "flagged": 3}  # fmt: skip
    assert balanced_accuracy(labels, flags) == round(100 * (2 / 3 + 1 / 2) / 2, 1)


def test_decision_fit_claim_labels_and_leave_one_dataset_out():
    from benchmarks.decision_fit import claim_labels, evaluate, fit_on
    from benchmarks.learned_decision import FEATURES

    rt = {"set": "ragtruth", "label": 0, "spans": [[10, 20, "Evident Conflict"]],
          "claims": [{"start": 0, "end": 9}, {"start": 15, "end": 30}]}  # fmt: skip
    assert claim_labels(rt) == [1, 0]  # a claim is hallucinated where it meets a span
    many = {"set": "q2", "label": 0, "claims": [{}, {}]}
    assert claim_labels(many) == [None, None]  # which claim is wrong is not known

    def row(ds, label, p):  # one-claim answers whose p_entail separates the classes
        f = [p] + [0.0] * (len(FEATURES) - 1)
        v = "yes" if p >= 0.5 else "idk"
        return {"set": ds, "label": label, "task": ds,
                "claims": [{"features": f, "verdict": v, "rule": None}]}  # fmt: skip

    rows = [row(ds, y, p) for ds in ("a", "b") for y, p in ((1, 0.9), (1, 0.8), (0, 0.1),
                                                           (0, 0.2))] * 5  # fmt: skip
    d = fit_on([r for r in rows if r["set"] == "a"], c=1.0)
    assert d.coef[0] > 0  # entailment speaks for faithfulness
    assert evaluate(d, [r for r in rows if r["set"] == "b"])["ba"] == 100.0


def test_learned_decision_round_trip_and_verdicts():
    from benchmarks.learned_decision import FEATURES, LearnedDecision

    d = LearnedDecision(coef=tuple(range(len(FEATURES))), intercept=-1.5, threshold=0.4,
                        fitted_on="some labels")  # fmt: skip
    data = d.to_dict()
    assert list(data["coef"]) == list(FEATURES)  # every coefficient named
    assert LearnedDecision.from_dict(json.loads(json.dumps(data))) == d
    with pytest.raises(ValueError, match="features"):
        LearnedDecision.from_dict({**data, "coef": {"p_entail": 1.0}})
    x = np.zeros((3, len(FEATURES)))
    sure = LearnedDecision(coef=(0.0,) * len(FEATURES), intercept=5.0, threshold=0.5)
    doubt = LearnedDecision(coef=(0.0,) * len(FEATURES), intercept=-5.0, threshold=0.5)
    assert sure.verdicts(x, ["no", "idk", "yes"])[0] == ["yes", "yes", "yes"]
    assert doubt.verdicts(x, ["no", "idk", "yes"])[0] == ["no", "idk", "idk"]


def test_learned_decision_features_of_a_claim():
    from benchmarks.learned_decision import FEATURES, claim_features
    from nli_faith.text.lexical import content_words

    f = claim_features(
        "The warranty lasts two years.", verdict="no", p_entail=0.1, p_contradict=0.8,
        evidence="The guarantee lasts one year.",
        context_words=content_words("The warranty lasts one year. Two shops."),
        conflict=True, unexplained=False,
    )  # fmt: skip
    got = dict(zip(FEATURES, f))
    assert got["model_no"] == 1.0 and got["model_yes"] == 0.0 and got["conflict"] == 1.0
    assert got["coverage_evidence"] == pytest.approx(2 / 3)  # last, year; not "warranty"
    assert got["coverage_context"] == 1.0


def test_learned_decision_features_come_from_the_stages_and_change_no_score(bundled_scorer):
    """The study reads the scorer's matrices and results; scoring is the same before and
    after it, and the stages' aggregation is score_batch's."""
    from benchmarks.learned_decision import FEATURES, result_features

    ctx = [
        "The device is covered for a period of twenty-four months from the date of purchase.",
        "We provide complimentary delivery on purchases over $50.",
    ]
    recs = [
        {"response": "The warranty lasts thirty-six months. Delivery costs nothing for "
                     "purchases above $50.", "context": ctx},
        {"response": "24 months", "context": ctx,
         "question": "How long is the device covered?"},
    ]  # fmt: skip
    before = bundled_scorer.score_batch(recs)
    matrices = bundled_scorer.stages.matrices_of(recs)
    for m, res in zip(matrices, before):
        again = bundled_scorer.stages.aggregate(m)
        assert again == res
        x = result_features(m, again)
        assert x.shape == (len(res.claims), len(FEATURES))
        got = [dict(zip(FEATURES, row)) for row in x]
        assert [g["p_entail"] for g in got] == [c.p_entail for c in res.claims]
        assert [g["model_yes"] for g in got] == [float(c.verdict == "yes") for c in res.claims]
        assert [g["unexplained"] for g in got] == [
            float((c.decision_note or "").startswith("contradiction without a conflict"))
            for c in res.claims
        ]
        assert all(0.0 <= v <= 1.0 for g in got for v in g.values())
    warranty, delivery = (dict(zip(FEATURES, r)) for r in result_features(matrices[0], before[0]))
    assert before[0].claims[0].verdict == "no" and warranty["conflict"] == 1.0  # 36 vs 24
    assert warranty["has_number"] == 0.0 and delivery["has_number"] == 1.0
    assert before[1].claims[0].scored_as is not None  # the short answer, read with its question
    assert bundled_scorer.score_batch(recs) == before


def test_answer_decision_fit_decides_a_held_out_dataset():
    from benchmarks.answer_decision_fit import VARIANTS, claims_of, decide

    def row(ds, label, p):  # one-claim answers whose p_entail separates the classes
        c = {"claim": "It opened in 1990.", "scored": "It opened in 1990.", "note": None,
             "verdict": "yes" if p >= 0.5 else "idk", "p_entail": p, "p_contradict": 0.1,
             "evidence": "It opened in 1990." if label else "It is old.",
             "features": [p] + [0.0] * 11}  # fmt: skip
        return {"set": ds, "label": label, "task": ds, "claims": [c]}

    rows = [row(ds, y, p) for ds in ("a", "b", "c")
            for y, p in ((1, 0.9), (1, 0.8), (0, 0.1), (0, 0.3))] * 5  # fmt: skip
    assert claims_of(rows[0])[0].evidence.text == "It opened in 1990."
    assert claims_of(rows[0])[0].scored_as is None  # scored as written
    train = [r for r in rows if r["set"] != "c"]
    test = [r for r in rows if r["set"] == "c"]
    for variant in VARIANTS:
        flags, t = decide(variant, train, test)
        assert flags == [r["label"] == 0 for r in test] and 0 < t < 1, variant


def test_model_bound_times_the_forwards_and_counts_their_tokens(bundled_scorer):
    from benchmarks.model_bound import TimedForward, matmul_rate

    nli = bundled_scorer.stages.parts.nli
    runtime = nli._runtime
    pairs = [
        (
            "The warranty lasts 24 months from the date of purchase.",
            "The warranty lasts two years.",
        ),
        ("Delivery is free on orders over $50.", "Delivery costs nothing above $50."),
        ("Paris is the capital of France.", "Paris is in Germany."),
    ]
    want = nli.predict(pairs)
    enc = nli.encode(pairs)
    with TimedForward(runtime) as fwd:
        got = nli.predict_encoded(enc)
    assert "_probabilities" not in vars(runtime)  # the class's forward again afterwards
    np.testing.assert_array_equal(got, want)  # timing the forward changes nothing it returns
    lengths = np.asarray(enc.lengths)
    assert fwd.batches >= 1 and fwd.seconds > 0
    assert fwd.rows == len(pairs)  # three distinct pairs, each run once
    assert fwd.tokens == int(lengths.sum())
    assert fwd.tokens_sq == int((lengths * lengths).sum())
    assert fwd.padded >= fwd.tokens and fwd.padded_sq >= fwd.tokens_sq
    assert fwd.padded % 32 == 0  # each batch is padded to a multiple of the padding block
    rates = matmul_rate(nli.torch_model, rows=64, repeats=2)
    cfg = nli.torch_model.config
    h, i = cfg.hidden_size, cfg.intermediate_size
    assert {f"64x{h}x{h}", f"64x{h}x{i}", f"64x{i}x{h}"} <= set(rates)
    assert all(r > 0 for r in rates.values())


def test_decision_ceiling_scans_thresholds_and_fits_in_sample_and_by_source():
    from types import SimpleNamespace as NS

    from benchmarks.decision_ceiling import FEATURES, answer_features, ceilings, threshold_scan
    from benchmarks.rag_dev import prf

    def claim(pe, verdict, pc=0.1):
        return NS(p_entail=pe, p_contradict=pc, verdict=verdict)

    # a threshold's F1, precision and recall are those of rag_dev's own counting
    scores, halluc = [0.9, 0.2, 0.7, 0.4, 0.1], [1, 0, 1, 1, 0]
    scan = threshold_scan(scores, halluc)
    assert len(scan) == len(set(scores))  # every threshold flags a hallucinated answer
    for t, (f1, p, r) in zip(sorted(scores), scan):
        got = prf([1 - y for y in halluc], [x >= t for x in scores])
        assert (got["f1"], got["precision"], got["recall"]) == tuple(
            round(100 * v, 1) for v in (f1, p, r)
        )
    feats = answer_features(NS(claims=[claim(0.9, "yes"), claim(0.3, "idk", 0.6)]), "QA")
    assert dict(zip(FEATURES, feats)) == {
        "lowest P(entail)": 0.3, "mean P(entail)": 0.6, "second-lowest P(entail)": 0.9,
        "highest P(contradict)": 0.6, "claims not yes": 1.0, "share not yes": 0.5,
        "claims no": 0.0, "claims": 2.0, "QA task": 1.0,
    }  # fmt: skip
    # hallucinated answers hold one weak claim: the lowest P(entail) separates them exactly
    results, records = [], []
    for k in range(40):
        bad = k % 3 == 0
        results.append(
            NS(claims=[claim(0.95, "yes"), claim(0.2 if bad else 0.8, "idk" if bad else "yes")])
        )
        records.append({"label": 0 if bad else 1, "task_type": "QA", "source_id": str(k // 4)})
    found = ceilings(results, records)
    assert found["lowest P(entail) alone, in-sample"][0]["f1"] == 100.0
    # every answer has two claims: the count alone flags them all, at the base rate
    assert found["claims alone, in-sample"][0] == {"f1": 51.9, "precision": 35.0, "recall": 100.0}
    assert found["logistic, all features, in-sample"][0]["f1"] == 100.0
    # fitted without each answer's source, the separating feature still separates
    assert found["logistic, cross-validated by source"][0]["f1"] == 100.0


def test_serve_feed_sends_each_request_once_before_any_again():
    from benchmarks.serve_load import Feed

    feed = Feed([{"k": 0}, {"k": 1}, {"k": 2}])
    got = [feed.next()["k"] for _ in range(3)]
    assert got == [0, 1, 2] and feed.repeated == 0
    assert [feed.next()["k"] for _ in range(2)] == [0, 1] and feed.repeated == 2


def test_model_bound_attention_arithmetic_is_torchs_count_of_eager_attention():
    import torch
    from torch.utils.flop_counter import FlopCounterMode
    from transformers import BertConfig, BertModel

    from benchmarks.model_bound import attention_flops, split_flops

    cfg = BertConfig(vocab_size=50, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=64, attn_implementation="eager")  # fmt: skip
    model = BertModel(cfg).eval()
    rows, width = 3, 24
    ids = torch.randint(0, 50, (rows, width))
    counter = FlopCounterMode(display=False)
    with counter, torch.inference_mode():
        model(input_ids=ids, attention_mask=torch.ones_like(ids))
    linear, other = split_flops(counter.get_flop_counts()["Global"])
    # eager attention is two batched products a layer, which torch counts itself
    assert other == attention_flops(cfg.num_hidden_layers, cfg.hidden_size, rows * width**2)
    per_layer = 2 * rows * width * (4 * 32 * 32 + 2 * 32 * 64)  # Q, K, V, out; up, down
    assert linear == cfg.num_hidden_layers * per_layer + 2 * rows * 32 * 32  # + the pooler
