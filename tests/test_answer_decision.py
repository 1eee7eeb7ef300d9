"""The answer decision learned from people: features, the stored JSON, the scorer option,
and ``nli-faith calibrate --fit-decision`` end to end with the bundled model."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import shutil

import numpy as np
import pytest

from nli_faith.cli import main
from nli_faith.errors import ThresholdsError
from nli_faith.results import ClaimVerdict, Evidence, FaithfulnessResult
from nli_faith.rows import output_row
from nli_faith.scoring.answer_decision import (
    DECISION_FILE,
    FEATURES,
    AnswerDecision,
    answer_features,
    bundled_decision,
    coverage,
)
from nli_faith.scoring.thresholds import Decision, Thresholds
from tests.conftest import REPO, write_jsonl

SHIPPED = REPO / "models" / "nli-faith-minilm-l6" / DECISION_FILE


def _claim(text, verdict, pe, pc=0.05, evidence=None, note=None):
    ev = None if evidence is None else Evidence(text=evidence, doc_index=0, start=0, end=1)
    return ClaimVerdict(claim=text, start=0, end=len(text), verdict=verdict, p_entail=pe,
                        p_contradict=pc, evidence=ev, decision_note=note)  # fmt: skip


def _result(claims, **kw):
    n_yes = sum(c.verdict == "yes" for c in claims)
    n_no = sum(c.verdict == "no" for c in claims)
    return FaithfulnessResult(1.0, n_yes / max(len(claims), 1), 0.5, len(claims), n_yes, n_no,
                              len(claims) - n_yes - n_no, "", claims=claims, **kw)  # fmt: skip


GOOD = _result(
    [_claim("The bridge opened in 1990.", "yes", 0.97, evidence="The bridge opened in 1990.")]
)
BAD = _result([
    _claim("The bridge opened in 1990.", "yes", 0.95, evidence="The bridge opened in 1990."),
    _claim("It cost 5 million dollars.", "no", 0.02, 0.9, evidence="It cost 9 million dollars.",
           note="conflict: number: '5' against '9'"),
])  # fmt: skip


UNSUPPORTED = _result([
    _claim("The bridge opened in 1990.", "yes", 0.95, evidence="The bridge opened in 1990."),
    _claim("It has a rooftop garden.", "idk", 0.03, evidence="The bridge opened in 1990."),
])  # fmt: skip


def test_features_read_verdicts_scores_coverage_and_conflicts():
    x = dict(zip(FEATURES, answer_features(BAD.claims)[0]))
    assert x["any_not_yes"] == 1 and x["share_yes"] == 0.5 and x["share_no"] == 0.5
    assert x["min_entail"] == 0.02 and x["max_contradict"] == 0.9 and x["conflict"] == 1
    # cost, 5, million, dollar: "5" is not in "It cost 9 million dollars."
    assert x["min_coverage"] == pytest.approx(3 / 4)
    assert x["share_number"] == 1.0
    assert coverage("Paris is big.", None) == 0.0 and coverage("the", "x") == 1.0
    assert answer_features([]).shape == (0, len(FEATURES))


def test_the_shipped_decision_loads_and_is_a_logistic_model():
    d = AnswerDecision.load(SHIPPED)
    assert "RAGTruth" in d.fitted_on and "test split" in d.fitted_on
    assert d.report is not None and d.report["default"] is False  # opt-in: see the docs
    x = answer_features(GOOD.claims)[0]
    p = 1 / (1 + math.exp(-(float(np.dot(d.coef, x)) + d.intercept)))
    assert d.p_faithful(x)[0] == pytest.approx(p)
    assert d.faithful(GOOD) is True and d.faithful(UNSUPPORTED) is False
    # the stored JSON round-trips
    assert AnswerDecision.from_dict(d.to_dict()) == d
    assert bundled_decision(SHIPPED.parent) == SHIPPED


def test_its_ruling_follows_the_gate_order_and_reads_output_rows():
    d = AnswerDecision(coef=(0.0,) * len(FEATURES), intercept=5.0, threshold=0.5)  # always yes
    assert d.ruling(GOOD).passed is True and "learned decision" in d.ruling(GOOD).reason
    assert d.ruling(dataclasses.replace(GOOD, error="E1 boom")).passed is None
    assert d.ruling(dataclasses.replace(GOOD, context_empty=True)).passed is False
    assert d.ruling(_result([])).passed is None
    shipped = Decision(learned=AnswerDecision.load(SHIPPED))
    for r in (GOOD, BAD, UNSUPPORTED):  # a scored JSON line decides as its result does
        row = json.loads(json.dumps(output_row(r, decision=shipped)))
        assert row["decided_by"] == "learned decision"
        assert row["faithful"] == shipped.passes(row) == shipped.passes(r)
    assert output_row(GOOD, decision=Decision())["decided_by"] == "strict >= 0.5"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(format="other/1"), "'format'"),
        (lambda d: d.update(features=d["features"][:-1]), "'features'"),
        (lambda d: d.update(coef=d["coef"][:3]), "'coef'"),
        (lambda d: d["coef"].__setitem__(2, "big"), "'coef[2]'"),
        (lambda d: d.update(intercept=None), "'intercept'"),
        (lambda d: d.update(threshold=1.5), "'threshold'"),
        (lambda d: d.update(fitted_on=3), "'fitted_on'"),
    ],
)
def test_a_bad_decision_file_names_its_field(tmp_path, change, field):
    data = json.loads(SHIPPED.read_text())
    change(data)
    path = tmp_path / "d.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ThresholdsError, match=re.escape(field)) as err:
        AnswerDecision.load(path)
    assert str(path) in str(err.value) and err.value.code == "E331"


def test_unreadable_files_and_a_model_without_one_are_clear_errors(tmp_path):
    (tmp_path / "d.json").write_text("{not json")
    with pytest.raises(ThresholdsError, match="invalid JSON"):
        AnswerDecision.load(tmp_path / "d.json")
    with pytest.raises(ThresholdsError, match="ships no answer decision"):
        bundled_decision(tmp_path)


def test_thresholds_files_keep_loading_and_carry_a_learned_decision(tmp_path):
    base = {"format": "nli-faith-thresholds/1",
            "model": {"model": "m", "name": "m", "weights_sha256": None},
            "options": {"entail_threshold": 0.5},
            "decision": {"score": "strict", "min_score": 0.5}, "report": {}}  # fmt: skip
    old = Thresholds.from_dict(base)  # a file written before learned decisions
    assert old.decision.learned is None and old.to_dict() == base
    learned = json.loads(SHIPPED.read_text())
    new = Thresholds.from_dict({**base, "decision": {**base["decision"], "learned": learned}})
    assert new.decision.learned == AnswerDecision.from_dict(learned)
    assert Thresholds.from_dict(new.to_dict()) == new
    assert new.decision.passes(GOOD) is True and new.decision.passes(UNSUPPORTED) is False
    learned["threshold"] = -1
    with pytest.raises(ThresholdsError, match=r"decision\.learned.*'threshold'"):
        Thresholds.from_dict({**base, "decision": {**base["decision"], "learned": learned}})


def test_the_scorer_option_decides_with_the_learned_decision(tmp_path, tiny_model_dir):
    from nli_faith.rows import scored_row
    from nli_faith.scorer import FaithfulnessScorer

    scorer = FaithfulnessScorer(device="cpu", answer_decision=str(SHIPPED))
    assert scorer.decision.learned == AnswerDecision.load(SHIPPED)
    rec = {"response": "The bridge opened in 1990.", "context": "The bridge opened in 1990."}
    r = scorer.score(rec["response"], rec["context"])
    row = scored_row(scorer, 1, rec, r)
    assert row["decided_by"] == "learned decision"
    assert row["faithful"] is scorer.decision.learned.faithful(r)
    with pytest.raises(ThresholdsError, match="ships no answer decision"):
        FaithfulnessScorer(device="cpu", answer_decision="model", model=str(tiny_model_dir))
    # "model": the decision shipped beside the weights
    shutil.copy(SHIPPED, tiny_model_dir / DECISION_FILE)
    try:
        tiny = FaithfulnessScorer(device="cpu", answer_decision="model", model=str(tiny_model_dir))
    finally:
        (tiny_model_dir / DECISION_FILE).unlink()
    assert tiny.decision.learned == AnswerDecision.load(SHIPPED)


def _labelled(n: int) -> list[dict]:
    """Synthetic labelled answers: faithful restatements, wrong numbers, made-up claims."""
    things = ["bridge", "museum", "library", "stadium", "school", "theatre", "harbour", "tower"]
    out = []
    for i in range(n):
        t, year = things[i % len(things)], 1900 + 7 * i
        ctx = f"The {t} in the old town opened in {year}. It was built by the city council."
        kind = i % 3
        if kind == 0:
            resp, label = f"The {t} opened in {year}. The city council built it.", 1
        elif kind == 1:
            resp, label = f"The {t} opened in {year + 13}. The city council built it.", 0
        else:
            resp, label = f"The {t} opened in {year}. It has a famous rooftop garden.", 0
        out.append({"id": f"r{i}", "response": resp, "context": ctx, "label": label})
    return out


def test_calibrate_fits_the_decision_on_labels_end_to_end(tmp_path, capsys):
    src = write_jsonl(tmp_path / "labelled.jsonl", _labelled(36))
    out = tmp_path / "thresholds.json"
    rc = main(["calibrate", str(src), "-o", str(out), "--no-progress", "--fit-decision"])
    assert rc == 0
    captured = capsys.readouterr()
    err = captured.err
    assert "decision_improved" in json.loads(captured.out)
    assert "held-out half, learned decision" in err and "held-out half, every claim yes" in err
    th = Thresholds.load(out)
    assert th.decision.learned is not None and th.decision.by == "learned decision"
    rep = th.report["answer_decision"]
    assert rep["held_out"]["n"] + rep["calibration"]["n"] == 36
    assert rep["held_out"]["n"] == rep["default_held_out"]["n"]
    assert rep["delta"] == pytest.approx(
        rep["held_out"]["balanced_accuracy"] - rep["default_held_out"]["balanced_accuracy"],
        abs=1e-3,
    )
    assert ("does NOT" in rep["verdict"]) is (not rep["improved"])
    # `score --thresholds` then decides every answer with it, and says so
    scored = tmp_path / "scored.jsonl"
    rc = main(["score", str(src), "-o", str(scored), "--thresholds", str(out), "--quiet"])
    assert rc == 0
    rows = [json.loads(line) for line in scored.read_text().splitlines()]
    assert all(r["decided_by"] == "learned decision" for r in rows)
    assert [r["faithful"] for r in rows] == [th.decision.learned.faithful(r) for r in rows]
    # ... and on these answers it tells the faithful ones apart
    y = [r["label"] for r in _labelled(36)]
    f = [r["faithful"] for r in rows]
    tpr = sum(fi and yi for fi, yi in zip(f, y)) / sum(y)
    tnr = sum((not fi) and not yi for fi, yi in zip(f, y)) / (len(y) - sum(y))
    assert (tpr + tnr) / 2 > 0.75


def test_calibrate_refuses_a_decision_flag_it_fits(tmp_path, capsys):
    src = write_jsonl(tmp_path / "labelled.jsonl", _labelled(6))
    rc = main(["calibrate", str(src), "-o", str(tmp_path / "t.json"), "--answer-decision",
               str(SHIPPED), "--fit-decision"])  # fmt: skip
    assert rc == 2 and "--answer-decision is what" in capsys.readouterr().err


def test_the_scorer_decision_follows_thresholds_set_later(tiny_scorer):
    """``scorer.thresholds`` assigned after the scorer was made: the rows decide with the
    new gate (the decision is read from the thresholds when asked, not kept from before)."""
    from nli_faith.rows import scored_row
    from nli_faith.scoring.thresholds import Decision, ModelId, Thresholds

    rec = {"response": "The bridge opened in 1990.", "context": "The bridge opened in 1990."}
    r = tiny_scorer.score(rec["response"], rec["context"])
    saved = tiny_scorer.thresholds
    try:
        assert tiny_scorer.decision is None and "faithful" not in scored_row(tiny_scorer, 1, rec, r)
        model = ModelId("tiny", "tiny", None)
        for min_score, want in ((0.0, True), (1.0, r.strict is not None and r.strict >= 1.0)):
            tiny_scorer.thresholds = Thresholds(model, {}, Decision("strict", min_score))
            assert tiny_scorer.decision == Decision("strict", min_score)
            assert scored_row(tiny_scorer, 1, rec, r)["faithful"] is want
    finally:
        tiny_scorer.thresholds = saved
