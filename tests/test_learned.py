"""The decision learned from people (nli_faith.scoring.learned), stored beside a model."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from nli_faith.scoring.learned import FEATURES, LearnedDecision, claim_features
from nli_faith.text.lexical import content_words


def _decision(intercept: float, threshold: float = 0.5) -> LearnedDecision:
    return LearnedDecision(coef=(0.0,) * len(FEATURES), intercept=intercept, threshold=threshold)


def test_round_trip_and_readable_form():
    d = LearnedDecision(coef=tuple(range(len(FEATURES))), intercept=-1.5, threshold=0.4,
                        fitted_on="some labels")  # fmt: skip
    data = d.to_dict()
    assert list(data["coef"]) == list(FEATURES)  # every coefficient named
    assert LearnedDecision.from_dict(json.loads(json.dumps(data))) == d
    with pytest.raises(ValueError, match="features"):
        LearnedDecision.from_dict({**data, "coef": {"p_entail": 1.0}})


def test_verdicts_from_the_probability_and_the_model_verdict():
    x = np.zeros((3, len(FEATURES)))
    assert _decision(5.0).verdicts(x, ["no", "idk", "yes"])[0] == ["yes", "yes", "yes"]
    assert _decision(-5.0).verdicts(x, ["no", "idk", "yes"])[0] == ["no", "idk", "idk"]


def test_features_of_a_claim():
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


@pytest.mark.parametrize(("intercept", "verdict"), [(8.0, "yes"), (-8.0, "idk")])
def test_the_scorer_applies_the_decision_its_model_ships(tmp_path, tiny_model_dir,
                                                         intercept, verdict):  # fmt: skip
    from nli_faith.scorer import FaithfulnessScorer

    model = tmp_path / "model"
    shutil.copytree(tiny_model_dir, model)
    (model / "decision.json").write_text(json.dumps({"learned": _decision(intercept).to_dict()}))
    ctx = "The museum opens at nine. Tickets cost ten euros."
    plain = FaithfulnessScorer(str(tiny_model_dir), device="cpu").score("It opens at nine.", ctx)
    learned = FaithfulnessScorer(str(model), device="cpu").score("It opens at nine.", ctx)
    c = learned.claims[0]
    assert c.p_entail == plain.claims[0].p_entail  # the model's numbers are kept
    if plain.claims[0].verdict == "no" and verdict == "idk":
        verdict = "no"  # a model "no" stays "no" below the threshold
    assert c.verdict == verdict
    if c.verdict != plain.claims[0].verdict:
        assert c.decision_note.startswith("learned decision: P(faithful)")
    assert learned.n_yes == (verdict == "yes")
