"""Calibration on labelled records: pure functions, the thresholds file, and the commands.

The end-to-end tests use small slices of the visible human-labelled sets in
``../shared/data/faithfulness`` (``$NLI_FAITH_DATA_DIR`` overrides the location); they
skip only when that folder is absent.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from nli_faith.cli import main
from nli_faith.errors import RecordError, ThresholdsError
from nli_faith.scoring.calibrate import (
    DEFAULT_MIN_SCORE,
    ClaimLabel,
    best_gate,
    calibrate,
    claim_spans,
    figures,
    parse_labelled,
    split_halves,
)
from nli_faith.scoring.thresholds import Decision, ModelId, Thresholds
from tests.conftest import REPO, write_jsonl

DATA = Path(os.environ.get("NLI_FAITH_DATA_DIR", REPO / ".." / "shared" / "data")) / "faithfulness"
needs_data = pytest.mark.skipif(
    not DATA.is_dir(), reason=f"labelled data not found at {DATA} (set NLI_FAITH_DATA_DIR)"
)


def _slice(name: str, n: int) -> list[dict]:
    with (DATA / f"{name}.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line) for _, line in zip(range(n), fh)]


# -- pure functions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["nli_faith.scoring.calibrate", "nli_faith.scoring.band_calibration", "nli_faith.judge.merge"],
)
def test_docstring_examples(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_best_gate_is_optimal_and_meets_target_precision():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    s = np.round(np.clip(0.25 * y + rng.random(300), 0, 1), 2)
    t, obj, met = best_gate(y, s)
    assert met
    for cand in np.unique(s):  # no threshold does better on the same data
        p = (s >= cand).astype(int)
        ba = ((p[y == 1] == 1).mean() + (p[y == 0] == 0).mean()) / 2
        assert ba <= obj + 1e-12
    t90, recall, met = best_gate(y, s, target_precision=0.9)
    passed = s >= t90
    assert met and y[passed].mean() >= 0.9
    assert recall == pytest.approx(passed[y == 1].mean())
    assert t90 >= t  # more precision asks for a higher gate
    _, _, met = best_gate([0, 1, 0, 1], [0.9, 0.1, 0.8, 0.2], target_precision=1.0)
    assert not met  # unreachable target: reported, not hidden


def test_split_is_seeded_stratified_and_covers_each_record_once():
    y = np.array([1] * 30 + [0] * 11)
    a, b = split_halves(y, seed=0), split_halves(y, seed=0)
    assert (a == b).all() and not (a == split_halves(y, seed=1)).all()
    assert (y[a] == 1).sum() == 15 and (y[a] == 0).sum() == 5


def test_figures_interval_holds_the_point_estimate():
    y = [1, 1, 1, 0, 0, 0, 1, 0] * 5
    p = [1, 1, 0, 0, 0, 1, 1, 0] * 5
    f = figures(y, p, n_boot=500)
    assert f.balanced_accuracy == pytest.approx(0.75)
    assert f.ci95[0] < 0.75 < f.ci95[1]
    assert f.precision == pytest.approx(0.75) and f.recall == pytest.approx(0.75)


def test_claim_spans_and_labelled_record_errors():
    r = parse_labelled(
        {
            "actual_output": "Rome is in Italy. It has 3 million people.",
            "retrieval_context": ["Rome is the capital of Italy."],
            "label": 0,
            "claims": [{"text": "It has 3 million people.", "label": 0}],
        }
    )
    assert r.label == 0 and [(c.start, c.label) for c in r.claims] == [(18, 0)]
    assert claim_spans("abc", [("zzz", 1)]) == []
    with pytest.raises(RecordError, match=r"line 7: field 'label' must be 1 .* got 'yes'"):
        parse_labelled({"response": "x", "context": "y", "label": "yes"}, where="line 7")
    with pytest.raises(RecordError, match=r"line 2: field 'claims' .* item 1"):
        parse_labelled(
            {"response": "x", "context": "y", "label": 1, "claims": [{"text": "x", "label": 1}, 3]},
            where="line 2",
        )
    with pytest.raises(RecordError, match=r"line 3 claims\[0\]: field 'label'"):
        parse_labelled(
            {"response": "x", "context": "y", "label": 1, "claims": [{"text": "x"}]},
            where="line 3",
        )


def test_thresholds_file_round_trips_and_rejects_bad_files(tmp_path):
    th = Thresholds(
        model=ModelId(model="default", name="nli-faith-minilm-l6", weights_sha256="ab" * 32),
        options={"entail_threshold": 0.35, "contradict_threshold": 0.5},
        decision=Decision(score="strict", min_score=0.75),
        report={"held_out": {"balanced_accuracy": 0.7}},
    )
    path = tmp_path / "t.json"
    th.save(path)
    assert Thresholds.load(path) == th
    assert json.loads(path.read_text())["format"] == "nli-faith-thresholds/1"
    path.write_text(json.dumps({"format": "other"}))
    with pytest.raises(ThresholdsError, match="not a thresholds file"):
        Thresholds.load(path)
    with pytest.raises(ThresholdsError, match="decision score must be one of"):
        Decision(score="median")
    good = th.to_dict()
    for part, value, needle in [
        ("decision", {"score": "strict", "min_score": "abc"}, "min_score must be in [0, 1]"),
        ("decision", {"score": "strict", "min_score": 5}, "min_score must be in [0, 1]"),
        ("options", {"foo": 1}, "'options' holds ['foo']"),
        ("options", {"entail_threshold": 2}, "entail_threshold must be in [0, 1]"),
    ]:
        path.write_text(json.dumps({**good, part: value}))
        with pytest.raises(ThresholdsError, match=re.escape(needle)):
            Thresholds.load(path)
    for where, needle in [
        (tmp_path / "none.json", "cannot be read: No such file"),
        (tmp_path, "cannot be read: Is a directory"),
        ("", "not a file name"),
    ]:
        with pytest.raises(ThresholdsError, match=re.escape(needle)) as err:
            Thresholds.load(where)
        assert err.value.code == "E070"


def test_thresholds_for_another_model_are_a_clear_error(tmp_path, tiny_model_dir, bundled_scorer):
    from nli_faith.scorer import FaithfulnessScorer

    th = Thresholds(
        model=ModelId.of("default", bundled_scorer.nli),
        options={"entail_threshold": 0.4},
        decision=Decision(),
    )
    assert len(th.model.weights_sha256) == 64
    path = tmp_path / "t.json"
    th.save(path)
    with pytest.raises(ThresholdsError, match="calibrated for model 'nli-faith-minilm-l6'"):
        FaithfulnessScorer.from_thresholds(path, str(tiny_model_dir), device="cpu")
    rc = main(["score", "-", "--thresholds", str(path), "--model", str(tiny_model_dir)])
    assert rc == 2


def test_band_calibration_settles_most_claims_at_the_target_agreement():
    from nli_faith.scoring.band_calibration import (
        BAND_GRID,
        calibrate_bands,
        choose_bands,
        settled_figures,
    )

    rng = np.random.default_rng(7)
    n = 600
    labels = rng.integers(0, 2, n)
    # a noisy model: confident and mostly right far from 0.5, unsure near it
    pe = np.clip(np.where(labels == 1, rng.beta(5, 1.5, n), rng.beta(1.5, 5, n)), 0, 1)
    pc = np.where(labels == 1, 0.0, np.clip(1 - pe - rng.random(n) * 0.2, 0, 1))
    verdicts = np.where(pe >= 0.5, "yes", np.where(pc >= 0.5, "no", "idk")).astype(object)
    held_out = split_halves(labels, seed=1)
    cal = calibrate_bands(verdicts, pe, pc, pe, labels, held_out, target=0.9)
    assert cal.target_met and cal.band_low <= cal.band_high
    design = ~held_out
    arrays = [a[design] for a in (verdicts, pe, pc, pe, labels)]
    figs = {k: settled_figures(*arrays, high=k[0], low=k[1]) for k in BAND_GRID}
    chosen = figs[(cal.band_high, cal.band_low)]
    assert chosen == cal.calibration and chosen.settled_agreement >= 0.9
    # no other setting settles more claims at the target (brute force over the grid)
    assert all(
        f.settled_share <= chosen.settled_share
        for f in figs.values()
        if (f.settled_agreement or 0) >= 0.9
    )
    # a stricter target settles fewer claims; an impossible one is flagged
    stricter = calibrate_bands(verdicts, pe, pc, pe, labels, held_out, target=0.99)
    assert stricter.calibration.settled_share <= chosen.settled_share
    _, met = choose_bands({(0.9, 0.1): (0.5, 0.8)}, 0.95)
    assert not met
    assert cal.held_out.n == int(held_out.sum()) and "held-out half" in cal.verdict()


# -- end to end on visible labelled data ----------------------------------------------------------


@pytest.fixture(scope="module")
def begin_calibration(tmp_path_factory, bundled_scorer):
    """``nli-faith calibrate`` on 200 BEGIN records (one short snippet each: cheap to score)."""
    if not DATA.is_dir():
        pytest.skip(f"labelled data not found at {DATA} (set NLI_FAITH_DATA_DIR)")
    tmp = tmp_path_factory.mktemp("calibrate")
    labelled = write_jsonl(tmp / "labelled.jsonl", _slice("begin_dev", 200) + ["{bad json"])
    out = tmp / "thresholds.json"
    rc = main(["calibrate", str(labelled), "-o", str(out), "--no-progress"])
    assert rc == 0
    return labelled, out


@needs_data
def test_calibrate_command_reports_held_out_figures_honestly(begin_calibration, capsys):
    _, out = begin_calibration
    data = json.loads(out.read_text())
    th = Thresholds.load(out)
    assert th.to_dict() == data  # the file round-trips
    rep = th.report
    assert rep["n_records"] == 200 and rep["n_left_out"] == 1  # the bad line, named, skipped
    assert not any("usable records" in n for n in rep["notes"])  # 200 are enough
    # the search includes the defaults, so on its own half it cannot do worse than them
    cal, cal_default = rep["calibration"], rep["default_calibration"]
    assert cal["balanced_accuracy"] >= cal_default["balanced_accuracy"] - 1e-9
    held, held_default = rep["held_out"], rep["default_held_out"]
    assert rep["delta"] == pytest.approx(
        held["balanced_accuracy"] - held_default["balanced_accuracy"], abs=1e-3
    )
    lo, hi = rep["held_out"]["ci95"]
    assert lo <= held["balanced_accuracy"] <= hi
    # it says whether it helped on the held-out half, and only claims so when it did
    improved = rep["delta_ci95"][0] > 0
    assert rep["improved"] is improved
    assert ("do NOT" in rep["verdict"]) is (not improved)
    assert 0.05 <= th.options["entail_threshold"] <= 0.95
    assert th.model.weights_sha256 and len(th.model.weights_sha256) == 64


@needs_data
def test_calibrate_chooses_the_judge_bands_and_score_applies_them(begin_calibration, tmp_path):
    from nli_faith.scoring.band_calibration import BAND_GRID

    _, out = begin_calibration
    th = Thresholds.load(out)
    bands = th.report["bands"]
    assert bands["labels"] == "single-claim records"  # BEGIN answers are one claim each
    assert (th.options["band_high"], th.options["band_low"]) in BAND_GRID
    assert (bands["band_high"], bands["band_low"]) == (
        th.options["band_high"],
        th.options["band_low"],
    )
    # the rule: target met on the calibration half, or flagged as not met
    agreement = bands["calibration"]["settled_agreement"]
    assert bands["target_met"] is (agreement >= bands["target_agreement"] - 5e-5)
    held, default = bands["held_out"], bands["default_held_out"]
    assert held["n"] == default["n"] > 0 and "band_high=" in bands["verdict"]
    # `score --thresholds` bands with the file's thresholds: a file with other bands
    # settles other claims than the defaults do, on the same records
    data = json.loads(out.read_text())
    data["options"].update(band_high=0.6, band_low=0.2)
    (tmp_path / "wide.json").write_text(json.dumps(data))
    labelled = write_jsonl(tmp_path / "some.jsonl", _slice("begin_dev", 40))

    def bands_of(*extra: str) -> list[str]:
        scored = tmp_path / "banded.jsonl"
        rc = main(["score", str(labelled), "-o", str(scored), "--quiet", *extra])
        assert rc == 0
        rows = [json.loads(line) for line in scored.read_text().splitlines()]
        return [c["band"] for r in rows for c in r.get("claims") or []]

    wide, default_bands = bands_of("--thresholds", str(tmp_path / "wide.json")), bands_of()
    assert wide.count("uncertain") < default_bands.count("uncertain")


@needs_data
def test_score_with_thresholds_applies_them(begin_calibration, tmp_path, bundled_scorer):
    _, out = begin_calibration
    th = Thresholds.load(out)
    scored = tmp_path / "scored.jsonl"
    labelled = write_jsonl(tmp_path / "some.jsonl", _slice("begin_dev", 40))
    rc = main(["score", str(labelled), "-o", str(scored), "--thresholds", str(out), "--quiet"])
    assert rc == 0
    rows = [json.loads(line) for line in scored.read_text().splitlines()]
    judged = [r for r in rows if r.get("strict") is not None]
    assert judged and all(r["faithful"] == (r["strict"] >= th.decision.min_score) for r in judged)
    scorer = type(bundled_scorer).from_thresholds(out, device="cpu")
    assert scorer.entail_threshold == th.options["entail_threshold"]
    r = scorer.score(
        "Early skiers used one long pole.", "early skiers used one long pole or spear."
    )
    assert scorer.thresholds.decision.passes(r) is (r.strict >= th.decision.min_score)


@needs_data
def test_claim_labels_choose_the_claim_threshold(bundled_scorer):
    rows = [parse_labelled(r, where=r["id"]) for r in _slice("qags_cnndm", 7)]
    assert sum(len(r.claims) for r in rows) > 15
    matrices = bundled_scorer.stages.matrices_of([r.record for r in rows])
    cal = calibrate(
        matrices,
        [r.label for r in rows],
        aggregate=bundled_scorer.stages.aggregate,
        claim_labels=[r.claims for r in rows],
        n_boot=200,
    )
    assert cal.claims_held_out is not None and cal.claims_held_out.n >= 5
    assert cal.claims_default_held_out.n == cal.claims_held_out.n
    assert cal.default_held_out.n == cal.held_out.n
    # the gate is one of the strict scores the chosen threshold gives, or the default
    results = [bundled_scorer.stages.aggregate(m, **cal.options) for m in matrices]
    assert cal.decision.min_score in {r.strict for r in results} | {DEFAULT_MIN_SCORE}


def test_the_command_names_its_flag_in_the_bands_note():
    from nli_faith.cli.calibrate import _flagged
    from nli_faith.errors import E_BANDS_KEPT

    assert _flagged(E_BANDS_KEPT) == (
        "the judge's bands were not calibrated (--no-bands): the scorer's bands are kept."
    )


def test_calibrate_refuses_what_it_cannot_write_before_scoring(tmp_path, capsys):
    src = write_jsonl(tmp_path / "in.jsonl", [{"response": "It is.", "context": "It.", "label": 1}])
    cases = [
        (["-o", str(tmp_path / "nodir" / "t.json")], "the folder"),
        (["-o", str(tmp_path)], "is a directory"),
        (["-o", str(tmp_path / "t.json"), "--seed", "-1"], "--seed must be 0 or more"),
        (["-o", str(tmp_path / "t.json"), "--entail-threshold", "0.9"], "is what calibrate"),
    ]
    for extra, needle in cases:
        assert main(["calibrate", str(src), *extra, "--no-progress"]) == 2
        assert needle in capsys.readouterr().err
    assert main(["calibrate", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "t.json")]) == 2
    assert "does not exist" in capsys.readouterr().err


@needs_data
def test_one_class_claim_labels_fall_back_to_the_records_and_say_so(bundled_scorer):
    rows = [parse_labelled(r, where=r["id"]) for r in _slice("qags_cnndm", 7)]
    all_yes = [[ClaimLabel(c.start, c.end, 1) for c in r.claims] for r in rows]
    matrices = bundled_scorer.stages.matrices_of([r.record for r in rows])
    cal = calibrate(
        matrices,
        [r.label for r in rows],
        aggregate=bundled_scorer.stages.aggregate,
        claim_labels=all_yes,
        n_boot=50,
    )
    assert cal.claims_held_out is None  # no claim-level choice was made ...
    assert any("0 unsupported labelled claims" in n for n in cal.notes)  # ... and it says why
    assert any("only 7 usable records" in n for n in cal.notes)


def test_calibrate_names_claim_labels_it_cannot_find_and_few_records(tmp_path, capsys):
    rows = [
        {"response": "The cat sat on the mat.", "context": "A cat sat on the mat.", "label": 1,
         "claims": [{"text": "The cat sat on the mat.", "label": 1}]},
        {"response": "Paris is in France.", "context": "Paris is in France.", "label": 1,
         "claims": [{"text": "Paris is in Spain.", "label": 1}]},
        {"response": "The sky is green.", "context": "The sky is blue.", "label": 0},
        {"response": "Water boils at 50 C.", "context": "Water boils at 100 C.", "label": 0},
        {"response": "Dogs bark.", "context": "Dogs bark loudly.", "label": 1},
        {"response": "The sun is cold.", "context": "The sun is hot.", "label": 0},
    ]  # fmt: skip
    src, out = write_jsonl(tmp_path / "in.jsonl", rows), tmp_path / "t.json"
    assert main(["calibrate", str(src), "-o", str(out), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "line 2: the labelled claim texts claims[0] are not found in the response" in err
    assert "note: only 6 usable records (3 faithful, 3 not)" in err
    assert any("only 6 usable" in n for n in json.loads(out.read_text())["report"]["notes"])
