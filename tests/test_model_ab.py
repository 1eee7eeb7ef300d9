"""``benchmarks.model_ab``: two models on the same records, and each gold claim on its own."""

import argparse
import json

import numpy as np


def test_claims_are_scored_one_by_one_beside_their_answers(tmp_path, tiny_model_dir):
    from benchmarks import model_ab
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
        before=str(tiny_model_dir), after=str(tiny_model_dir), data_dir=tmp_path,
        datasets="toy", limit=150, whole="", cache_dir=tmp_path / "cache", only=None,
        claims=True,
    )  # fmt: skip
    data = model_ab.run(args, None).data
    assert list(data["sets"]) == ["toy", "toy:claims"]
    claims = data["sets"]["toy:claims"]
    assert claims["before"] == claims["after"] and claims["before"]["n"] == 16

    scorer = FaithfulnessScorer(
        str(tiny_model_dir), device="cpu", backend="onnx", onnx_quantize=False
    )
    soft = [scorer.score(c["text"], r["context"]).soft for r in recs[:8] for c in r["claims"]]
    y = np.array([c["label"] for r in recs[:8] for c in r["claims"]])
    auc, _ = model_ab.auc_se(y, np.array(soft))
    assert abs(claims["before"]["soft_auc"][0] - auc) < 1e-6
    assert claims["before"]["median_soft"]["faithful"] == float(np.median(np.array(soft)[y == 1]))
