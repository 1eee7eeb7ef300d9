"""Training data: the dev split and distillation (the generators: tests/research/)."""

import json

import numpy as np
import pytest
from conftest import write_jsonl

from tests.helpers.toy_rows import toy_rows


def test_dev_split_is_by_premise_and_seeded():
    from nli_faith.training.data import split_dev

    rows = toy_rows(200)
    train, dev = split_dev(rows, fraction=0.1, seed=3)
    assert len(train) + len(dev) == len(rows)
    assert not {r.premise for r in train} & {r.premise for r in dev}
    assert split_dev(rows, fraction=0.1, seed=3) == (train, dev)
    assert split_dev(rows, fraction=0.1, seed=4)[1] != dev
    with pytest.raises(ValueError, match="dev_fraction"):
        split_dev(rows, fraction=1.5)


def test_distill_loss_mixes_gold_and_teacher():
    import torch

    from nli_faith.training.distill import distill_loss

    logits = torch.tensor([[2.0, 0.0, -1.0], [0.0, 1.0, 0.0], [0.5, 0.5, 0.5]])
    teacher = torch.tensor([[0.8, 0.1, 0.1], [float("nan")] * 3, [0.2, 0.3, 0.5]])
    labels = torch.tensor([0, 1, -1])  # the last row has no gold label
    logp = torch.log_softmax(logits, -1)
    gold = -(logp[0, 0] + logp[1, 1]) / 2
    kl = sum(
        (teacher[i] * (teacher[i].log() - logp[i])).sum() for i in (0, 2)
    ) / 2  # fmt: skip
    got = distill_loss(logits, labels, teacher, alpha=0.3)
    assert got.item() == pytest.approx((0.3 * gold + 0.7 * kl).item(), rel=1e-5)
    # a student that matches the teacher exactly has zero KL
    t = torch.softmax(logits, -1)
    assert distill_loss(logits, torch.tensor([-1, -1, -1]), t, alpha=0.5).item() == (
        pytest.approx(0.0, abs=1e-6)
    )


def test_teacher_probs_round_trip(tmp_path):
    from nli_faith.training.distill import TeacherProbs

    pairs = [("P one.", "H one."), ("P two.", "H two.")]
    tp = TeacherProbs.from_pairs(pairs, [[0.9, 0.05, 0.05], [0.1, 0.2, 0.7]])
    path = tp.save(tmp_path / "t.npz")
    back = TeacherProbs.load(path).lookup([pairs[1], ("x", "y"), pairs[0]])
    np.testing.assert_allclose(back[0], [0.1, 0.2, 0.7], atol=1e-3)
    assert np.isnan(back[1]).all()
    np.testing.assert_allclose(back[2], [0.9, 0.05, 0.05], atol=1e-3)


def test_several_teachers_give_their_averaged_probabilities(tmp_path, tiny_model_dir):
    """An ensemble teacher: each pair's probabilities are the mean of every teacher's own."""
    from helpers.tiny_model import write_tiny_nli

    from nli_faith.training.distill import teacher_probs

    other = write_tiny_nli(tmp_path / "other", labels=("ENTAILMENT", "NEUTRAL", "CONTRADICTION"))
    pairs = [("A man plays a guitar on stage.", "A man plays music."), ("It rained.", "It was dry")]
    a = teacher_probs(str(tiny_model_dir), pairs, device="cpu", show_progress_bar=False)
    b = teacher_probs(str(other), pairs, device="cpu", show_progress_bar=False)
    both = teacher_probs([str(tiny_model_dir), str(other)], pairs, device="cpu",
                         show_progress_bar=False)  # fmt: skip
    assert not np.allclose(a.probs, b.probs, atol=1e-3)  # two different teachers
    want = (a.probs.astype(np.float64) + b.probs) / 2
    np.testing.assert_allclose(both.lookup(pairs), want, atol=2e-3)


def test_unlabelled_pairs_have_no_gold_label():
    from nli_faith.training.distill import NO_LABEL, unlabelled_pairs

    rows = toy_rows(80)
    pairs = unlabelled_pairs(rows, n=50, seed=1)
    assert len(pairs) == 50
    assert all(p.label == NO_LABEL for p in pairs)
    known = {(r.premise, r.hypothesis) for r in rows}
    assert not {(p.premise, p.hypothesis) for p in pairs} & known


def test_distillation_end_to_end_on_a_tiny_slice(tmp_path, tiny_model_dir):
    """A tiny student distilled from a tiny teacher, with a dev split and unlabelled pairs:
    the teacher's probabilities are saved and the summary records the dev selection."""
    from nli_faith.cli import main
    from nli_faith.training.distill import TeacherProbs

    rows = [
        {"premise": r.premise, "hypothesis": r.hypothesis,
         "label": ["entailment", "neutral", "contradiction", "not_entailment"][r.label]}
        for r in toy_rows(30)
    ]  # fmt: skip
    train = write_jsonl(tmp_path / "train.jsonl", rows)
    out = tmp_path / "student"
    argv = [
        "train", "--base-model", str(tiny_model_dir), "--train", str(train), "-o", str(out),
        "--teacher", str(tiny_model_dir), "--unlabelled", "20",
        "--dev-fraction", "0.2", "--batch-size", "16",
        "--max-steps", "6", "--save-steps", "3", "--logging-steps", "3", "--device", "cpu",
    ]  # fmt: skip
    assert main(argv) == 0
    summary = json.loads((out / "train_summary.json").read_text())
    assert summary["dev_rows"] > 0 and summary["best_dev_accuracy"] is not None
    by_file = summary["rows_by_file"]
    assert by_file["unlabelled pairs (teacher only)"] == 20
    assert by_file["rows without a teacher probability"] == 0
    table = TeacherProbs.load(out / "teacher_probs.npz")
    assert len(table.keys) >= summary["rows_total"] - 5  # one entry per distinct pair
    assert (out / "model" / "config.json").is_file()


def test_time_budget_stops_with_a_checkpoint_and_the_same_command_resumes(tmp_path, tiny_model_dir):
    from nli_faith.cli import main

    rows = [{"premise": f"Row {i} is here.", "hypothesis": f"Row {i} exists.",
             "label": "entailment"} for i in range(16)]  # fmt: skip
    train = write_jsonl(tmp_path / "train.jsonl", rows)
    out = tmp_path / "run"
    argv = [
        "train", "--base-model", str(tiny_model_dir), "--train", str(train), "-o", str(out),
        "--batch-size", "4", "--max-steps", "4", "--save-steps", "100", "--device", "cpu",
    ]  # fmt: skip
    assert main([*argv, "--time-budget", "0.001"]) == 0
    assert (out / "checkpoints" / "checkpoint-1").is_dir()  # stopped after one step, saved
    assert not (out / "model").exists()
    assert main(argv) == 0
    summary = json.loads((out / "train_summary.json").read_text())
    assert summary["resumed_from"].endswith("checkpoint-1") and summary["global_steps"] == 4
