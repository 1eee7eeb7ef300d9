"""The benchmark code's own checks: the quality benchmark's metrics, baselines and caches.

Collected by ``python -m pytest`` (``testpaths`` holds ``benchmarks``); the tests in
``tests/`` import nothing from this package.
"""

from __future__ import annotations

import argparse
import itertools
import json

import numpy as np
import pytest

from benchmarks import model_ab
from benchmarks.baselines import SentenceGrid, summac_score, token_overlap, word_tokens
from benchmarks.metrics import (
    balanced_accuracy,
    best_threshold,
    evaluate_scores,
    roc_auc,
    seeded_half,
    split_by_id,
)
from benchmarks.nli_cache import CachedNLI


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
    test = split_by_id([str(i) for i in range(100)])
    out = evaluate_scores(y, s, test)
    assert out["balanced_accuracy"] == 1.0 and out["roc_auc"] == 1.0
    assert 0.0 < out["threshold"] < 1.0


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


class _FakeNLI:
    max_length = 512

    def __init__(self):
        self.calls = []

    def predict(self, pairs, *, batch_size=None, show_progress_bar=False):
        self.calls.append(list(pairs))
        return np.array([[len(p) / 100, len(h) / 100, 0.0] for p, h in pairs], dtype=np.float32)


def test_cache_runs_each_pair_once():
    fake = _FakeNLI()
    cache = CachedNLI(fake, sample_rate=1.0)
    a = cache.predict([("ab", "c"), ("ab", "c"), ("x", "yz")])
    b = cache.predict([("x", "yz"), ("new", "one")])
    assert fake.calls == [[("ab", "c"), ("x", "yz")], [("new", "one")]]
    assert np.allclose(a[2], b[0]) and cache.computed == 3
    assert cache.max_length == 512  # delegated
    assert len(cache.sample) == 3
    assert np.allclose(cache.lookup([("ab", "c")])[0], a[0])
    # the pair key is not fooled by moving text from premise to hypothesis
    assert cache.predict([("a", "bc")]).shape == (1, 3) and cache.computed == 4


def test_cache_saved_and_read_back_runs_no_pair_again(tmp_path):
    fake = _FakeNLI()
    cache = CachedNLI(fake)
    a = cache.predict([("ab", "c"), ("x", "yz")])
    cache.save(tmp_path / "cache.npz")
    again = CachedNLI(_FakeNLI())
    assert again.load(tmp_path / "cache.npz") == 2
    assert np.allclose(again.predict([("x", "yz"), ("ab", "c")]), a[::-1])
    assert again.computed == 0 and again.nli.calls == []


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
    import argparse
    import importlib
    import json
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


def test_model_ab_scores_claims_one_by_one_beside_their_answers(tmp_path):
    from nli_faith import FaithfulnessScorer

    facts = ["The shop opens at nine.", "It sells bread and cakes.", "The owner is Ana Ruiz."]
    recs = []
    for i in range(8):
        good, bad = facts[i % 3], facts[(i + 1) % 3].replace("e", "a", 1)
        recs.append(
            {
                "id": f"r{i}",
                "context": [" ".join(facts)],
                "response": f"{good} {bad}",
                "label": 0,
                "claims": [{"text": good, "label": 1}, {"text": bad, "label": 0}],
            }
        )
    recs.append({"id": "whole", "context": [" ".join(facts)], "response": facts[0], "label": 1})
    (tmp_path / "faithfulness").mkdir()
    (tmp_path / "faithfulness" / "toy.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in recs)
    )
    args = argparse.Namespace(
        before="default", after="default", data_dir=tmp_path,
        datasets="toy", limit=150, whole="", cache_dir=tmp_path / "cache", only=None,
        claims=True,
    )  # fmt: skip
    data = model_ab.run(args, None).data
    assert list(data["sets"]) == ["toy", "toy:claims"]
    claims = data["sets"]["toy:claims"]
    assert claims["before"] == claims["after"] and claims["before"]["n"] == 16

    scorer = FaithfulnessScorer("default", device="cpu", backend="onnx", onnx_quantize=False)
    soft = [scorer.score(c["text"], r["context"]).soft for r in recs[:8] for c in r["claims"]]
    y = np.array([c["label"] for r in recs[:8] for c in r["claims"]])
    auc, _ = model_ab.auc_se(y, np.array(soft))
    assert abs(claims["before"]["soft_auc"][0] - auc) < 1e-6
    assert claims["before"]["median_soft"]["faithful"] == float(np.median(np.array(soft)[y == 1]))


def test_model_ab_fingerprint_follows_weights_labels_and_decision_thresholds(tmp_path):
    """The cache key changes with the weights, the label order of ``config.json`` and a
    ``decision.json`` beside them (it changes the default decision), and stays put for the
    same folder."""
    from tests.helpers.tiny_model import write_tiny_nli

    model = write_tiny_nli(tmp_path / "m")
    first = model_ab.fingerprint(str(model))
    assert model_ab.fingerprint(str(model)) == first
    (model / "decision.json").write_text(json.dumps({"entail_threshold": 0.7}))
    with_thresholds = model_ab.fingerprint(str(model))
    assert with_thresholds != first
    (model / "decision.json").write_text(json.dumps({"entail_threshold": 0.6}))
    assert model_ab.fingerprint(str(model)) not in (first, with_thresholds)
    (model / "decision.json").unlink()
    assert model_ab.fingerprint(str(model)) == first
    other = write_tiny_nli(tmp_path / "o", labels=("ENTAILMENT", "NEUTRAL", "CONTRADICTION"))
    assert model_ab.fingerprint(str(other)) != first  # same seeded weights, other label order


def test_model_ensemble_averages_the_models_soft_scores_record_by_record(tmp_path):
    """Each model alone and the pair: the pair's ROC-AUC is that of the mean of the two
    models' own soft scores, which ``model_ab``'s cache holds for the same sample."""
    from benchmarks import model_ensemble
    from tests.helpers.tiny_model import write_tiny_nli

    a = write_tiny_nli(tmp_path / "a")
    b = write_tiny_nli(tmp_path / "b", labels=("ENTAILMENT", "NEUTRAL", "CONTRADICTION"))
    facts = ["The shop opens at nine.", "It sells bread and cakes.", "The owner is Ana Ruiz."]
    claims = facts + ["The shop closes at noon.", "It sells no bread.", "The owner is Bo Li."]
    recs = [
        {"id": f"r{i}", "context": [" ".join(facts)], "response": c, "label": int(i < 3)}
        for i, c in enumerate(claims)
    ]
    (tmp_path / "faithfulness").mkdir()
    (tmp_path / "faithfulness" / "toy.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in recs)
    )
    args = argparse.Namespace(
        models=[f"A={a}", f"B={b}"], max_size=3, data_dir=tmp_path, datasets="toy",
        limit=150, whole="", cache_dir=tmp_path / "cache",
    )  # fmt: skip
    out = model_ensemble.run(args, None)
    groups = {" + ".join(g["members"]): g for g in out.data["groups"]}
    assert sorted(groups) == ["A", "A + B", "B"]

    def cached(model):
        path = model_ab.cache_file(tmp_path / "cache", model_ab.fingerprint(str(model)), "toy", 150)
        return model_ab.soft_scores(json.loads(path.read_text()))

    soft_a, soft_b = cached(a), cached(b)
    assert len(soft_a) == len(recs) and not np.allclose(soft_a, soft_b)
    y = np.array([r["label"] for r in recs])
    assert groups["A"]["soft_auc"]["toy"][0] == model_ab.auc_se(y, soft_a)[0]
    assert groups["B"]["soft_auc"]["toy"][0] == model_ab.auc_se(y, soft_b)[0]
    assert groups["A + B"]["soft_auc"]["toy"][0] == model_ab.auc_se(y, (soft_a + soft_b) / 2)[0]
    best = max(groups[k]["soft_auc"]["toy"][0] for k in groups)
    assert out.data["per_set_best"] == {"toy": best}
    means = [g["mean_soft_auc"] for g in out.data["groups"]]
    assert means == sorted(means, reverse=True)
    assert out.body.count("\n| A") + out.body.count("\n| B") == 3

    with pytest.raises(SystemExit, match="at least two"):
        model_ensemble.labelled([str(a)])
    with pytest.raises(SystemExit, match="given twice"):
        model_ensemble.labelled([f"A={a}", f"A={b}"])


def test_rag_dev_figures_of_the_hallucinated_class():
    from benchmarks.rag_dev import balanced_accuracy, prf

    labels = [0, 0, 0, 1, 1]  # 0 = hallucinated
    flags = [True, True, False, True, False]
    assert prf(labels, flags) == {"f1": 66.7, "precision": 66.7, "recall": 66.7, "n": 5,
                                  "flagged": 3}  # fmt: skip
    assert balanced_accuracy(labels, flags) == round(100 * (2 / 3 + 1 / 2) / 2, 1)


def test_decision_fit_claim_labels_and_leave_one_dataset_out():
    from benchmarks.decision_fit import claim_labels, evaluate, fit_on
    from nli_faith.scoring.learned import FEATURES

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
