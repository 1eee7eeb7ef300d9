"""The one-off studies of ``research/studies/``: their own checks, and their runner."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from research.studies import model_ab


def test_the_studies_runner_lists_every_study_and_builds_its_options(capsys):
    from research.studies import RESULTS_DIR, RUNNER, STUDIES

    assert RUNNER.main(["list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == list(STUDIES)
    for name in STUDIES:
        mod = RUNNER.module_of(name)
        p = argparse.ArgumentParser()
        mod.add_arguments(p, name)  # every option parser builds
        assert callable(mod.run) and mod.TITLE
        saved = json.loads((RESULTS_DIR / f"{name}.json").read_text())
        assert saved["name"] == name  # its result page is kept beside it
        assert saved["command"].startswith(f"python -m research.studies run {name}")
    assert RUNNER.main(["run", "no_such_study"]) == 2


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
    from research.studies import model_ensemble
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
