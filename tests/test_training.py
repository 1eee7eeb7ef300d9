"""`nli-faith train` end to end on a tiny slice: steps, checkpoint, resume, evaluate, reload."""

import json

import numpy as np
import pytest
from conftest import write_jsonl

PAIRS = [
    ("A dog runs across the park.", "An animal is moving.", "entailment"),
    ("A dog runs across the park.", "A cat sleeps on the sofa.", "contradiction"),
    ("A dog runs across the park.", "The dog is chasing its owner.", "neutral"),
    ("Two children play chess indoors.", "Kids are playing a game.", "entailment"),
    ("Two children play chess indoors.", "The children are swimming.", "contradiction"),
    ("The museum opens at nine.", "The museum opens in the morning.", "entailment"),
    ("The museum opens at nine.", "The museum is closed all week.", "not_entailment"),
    ("Prices rose by 3% in May.", "Prices fell in May.", "not_entailment"),
]


def _interrupt_at(monkeypatch, step):
    """Make the next training run stop after ``step`` (as if killed after its checkpoint)."""
    from transformers import TrainerCallback

    import nli_faith.training.train as train_mod

    real = train_mod.trainer_class

    class Stop(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            if state.global_step >= step:
                control.should_training_stop = True
                control.should_save = True

    def patched():
        base = real()

        class Interrupted(base):
            def __init__(self, *a, **kw):
                super().__init__(*a, **kw)
                self.add_callback(Stop())

        return Interrupted

    monkeypatch.setattr(train_mod, "trainer_class", patched)
    return lambda: monkeypatch.setattr(train_mod, "trainer_class", real)


def test_train_checkpoint_resume_evaluate(tmp_path, tiny_model_dir, monkeypatch):
    from nli_faith.cli import main
    from nli_faith.nli.model import NLIModel

    rows = [{"premise": p, "hypothesis": h, "label": lab} for p, h, lab in PAIRS] * 4
    train = write_jsonl(tmp_path / "train.jsonl", rows)
    ev = write_jsonl(tmp_path / "eval.jsonl", rows[:8])
    out = tmp_path / "run"
    common = [
        "train", "--base-model", str(tiny_model_dir), "--train", str(train),
        "--eval", str(ev), "-o", str(out), "--batch-size", "8", "--learning-rate", "1e-2",
        "--save-steps", "12", "--logging-steps", "3", "--device", "cpu",
    ]  # fmt: skip
    restore = _interrupt_at(monkeypatch, 12)
    assert main([*common, "--max-steps", "36"]) == 0
    restore()
    first = json.loads((out / "train_summary.json").read_text())
    assert (out / "checkpoints" / "checkpoint-12").is_dir()
    assert first["resumed_from"] is None and first["global_steps"] == 12

    assert main([*common, "--max-steps", "36"]) == 0  # the same command picks up where it stopped
    second = json.loads((out / "train_summary.json").read_text())
    assert second["resumed_from"].endswith("checkpoint-12")
    assert second["global_steps"] == 36
    losses = first["loss_history"] + second["loss_history"]
    assert np.mean(losses[-2:]) < np.mean(losses[:2])  # the loss went down

    results = json.loads((out / "eval.json").read_text())
    assert results["eval"]["n"] == 8 and 0.0 <= results["eval"]["accuracy"] <= 1.0
    assert "| eval |" in (out / "eval.md").read_text()

    nli = NLIModel(str(out / "model"), device="cpu")
    probs = nli.predict([(p, h) for p, h, _ in PAIRS])
    assert probs.shape == (len(PAIRS), 3)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)


def test_binary_rows_train_entailment_against_the_rest():
    import torch

    from nli_faith.training.trainer import gold_loss

    logits = torch.tensor([[2.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    labels = torch.tensor([0, 3])  # entailment; binary not_entailment
    loss_each = [gold_loss(logits[i : i + 1], labels[i : i + 1]).item() for i in range(2)]
    p = torch.softmax(logits[0], dim=0)
    assert loss_each[0] == pytest.approx(-torch.log(p[0]).item(), rel=1e-5)
    assert loss_each[1] == pytest.approx(-torch.log(p[1] + p[2]).item(), rel=1e-5)


def test_bad_training_rows_name_file_and_line(tmp_path):
    from nli_faith.errors import DataError
    from nli_faith.training.data import read_nli_jsonl

    path = write_jsonl(
        tmp_path / "bad.jsonl",
        [
            {"premise": "a", "hypothesis": "b", "label": "entailment"},
            {"premise": "a", "hypothesis": "b", "label": "maybe"},
        ],
    )
    with pytest.raises(DataError, match=r"bad.jsonl:2: unknown label 'maybe'"):
        read_nli_jsonl(path)


def test_a_hypothesis_longer_than_max_length_is_dropped_not_fatal(tmp_path, tiny_model_dir):
    from nli_faith.cli import main

    rows = [{"premise": p, "hypothesis": h, "label": lab} for p, h, lab in PAIRS] * 2
    long_claim = " ".join(["the committee approved the annual budget"] * 20)
    rows.append({"premise": "The committee met.", "hypothesis": long_claim, "label": "neutral"})
    train = write_jsonl(tmp_path / "train.jsonl", rows)
    out = tmp_path / "run"
    args = [
        "train", "--base-model", str(tiny_model_dir), "--train", str(train), "-o", str(out),
        "--batch-size", "8", "--max-steps", "2", "--max-length", "48", "--device", "cpu",
    ]  # fmt: skip
    assert main(args) == 0
    summary = json.loads((out / "train_summary.json").read_text())
    key = "rows whose hypothesis alone exceeds max_length (dropped)"
    assert summary["rows_by_file"][key] == 1
    assert summary["rows_total"] == len(rows) - 1


def test_train_refuses_bad_files_and_options_with_a_clear_error(tmp_path, tiny_model_dir, capsys):
    from nli_faith.cli import main

    row = {"premise": "A man sleeps.", "hypothesis": "A man rests.", "label": "entailment"}
    good = write_jsonl(tmp_path / "good.jsonl", [row])
    cases = [
        (
            ["--train", str(write_jsonl(tmp_path / "b.jsonl", [row, "not json"]))],
            "b.jsonl:2: not valid JSON",
        ),
        (
            ["--train", str(write_jsonl(tmp_path / "l.jsonl", [[1, 2]]))],
            "l.jsonl:1: the line is not a JSON object",
        ),
        (["--train", str(write_jsonl(tmp_path / "e.jsonl", []))], "[E109] no training rows"),
        (["--train", str(good), "--epochs", "0"], "--epochs must be above 0"),
        (["--train", str(good), "--warmup-ratio", "2"], "--warmup-ratio must be in [0, 1]"),
        (["--train", str(good), "--unlabelled", "5"], "--unlabelled must be used with a teacher"),
        (["--train", str(good), "--device", "gpu"], "[E104] device 'gpu'"),
        (["--train", str(good), "--max-length", "2048"], "[E119] --max-length 2048 is over"),
        (["--train", str(good), "--synthetic"], "[E140] --synthetic makes training data"),
        (["--train", str(good), "--multi-fact", "5"], "python -m research.train"),
        (["--train", str(good), "--max-steps", "0"], "--max-steps must be at least 1"),
        (["--train", str(good), "--epochs", "inf"], "--epochs must be above 0 and finite"),
        (["--train", str(good), "--seed", "-1"], "--seed must be in [0, 2**32)"),
        (["--train", str(good), "--early-stopping-patience", "3"], "used with development data"),
        (["--train", str(good), "--freeze-layers", "99"], "--freeze-layers must be at most"),
    ]
    for extra, needle in cases:
        argv = ["train", "--base-model", str(tiny_model_dir), "-o", str(tmp_path / "out"), *extra]
        assert main(argv) == 2, extra
        err = capsys.readouterr().err
        assert needle in err and "Traceback" not in err, err
