"""The GPU recipe's helpers that run on the CPU (``scripts/gpu_training/``)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts" / "gpu_training"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def delta(monkeypatch, tiny_model_dir):
    module = _load("export_delta")
    monkeypatch.setattr(module, "BASE", tiny_model_dir)
    return module


def _fine_tune(tmp_path, base: Path, shift: float, embeddings_shift: float = 0.0) -> Path:
    """A run folder like ``nli-faith train`` writes: every weight moved, embeddings apart."""
    from safetensors.torch import load_file, save_file

    run = tmp_path / "runs" / "B"
    shutil.copytree(base, run / "model")
    weights = load_file(str(run / "model" / "model.safetensors"))
    moved = {}
    for k, v in weights.items():
        if not v.is_floating_point():
            moved[k] = v
        elif k.endswith("word_embeddings.weight"):
            moved[k] = v + embeddings_shift
        else:
            moved[k] = v + shift
    save_file(moved, str(run / "model" / "model.safetensors"), metadata={"format": "pt"})
    (run / "train_summary.json").write_text(json.dumps({"best_dev_accuracy": 0.5}))
    return run


def _pieces(folder: Path, name: str, size: int) -> None:
    """``split -b SIZE`` of ``NAME.safetensors`` into ``NAME.st.aa``, ``.ab``..."""
    blob = (folder / f"{name}.safetensors").read_bytes()
    for k in range(0, len(blob), size):
        suffix = chr(ord("a") + k // size // 26) + chr(ord("a") + k // size % 26)
        (folder / f"{name}.st.{suffix}").write_bytes(blob[k : k + size])


def test_export_then_join_gives_back_the_fine_tuned_model(tmp_path, delta, tiny_model_dir):
    import torch
    from safetensors.torch import load_file

    run = _fine_tune(tmp_path, tiny_model_dir, shift=0.5)
    out = tmp_path / "out"
    delta.export(out, [run])
    kept = load_file(str(out / "B.safetensors"))
    assert not any(k.endswith("word_embeddings.weight") for k in kept)
    assert all(v.dtype == torch.float16 for v in kept.values() if v.is_floating_point())
    info = json.loads((out / "B.json").read_text())
    assert info["word_embeddings_max_change"] == 0.0
    assert info["summary"] == {"best_dev_accuracy": 0.5}

    _pieces(out, "B", size=50_000)
    assert len(list(out.glob("B.st.*"))) > 1
    delta.join(out, "B", tmp_path / "back" / "model")
    back = load_file(str(tmp_path / "back" / "model" / "model.safetensors"))
    tuned = load_file(str(run / "model" / "model.safetensors"))
    assert back.keys() == tuned.keys()
    for k, v in tuned.items():
        if v.is_floating_point():
            assert torch.allclose(back[k].float(), v.float(), atol=1e-2), k
    assert (tmp_path / "back" / "train_summary.json").exists()

    from nli_faith.nli.model import NLIModel

    probs = NLIModel(str(tmp_path / "back" / "model"), device="cpu").predict([("A b.", "A.")])
    assert probs.shape == (1, 3)


def test_export_reports_embeddings_that_moved(tmp_path, delta, tiny_model_dir):
    run = _fine_tune(tmp_path, tiny_model_dir, shift=0.0, embeddings_shift=0.25)
    delta.export(tmp_path / "out", [run])
    info = json.loads((tmp_path / "out" / "B.json").read_text())
    assert info["word_embeddings_max_change"] == pytest.approx(0.25, abs=1e-3)


def test_join_reads_one_runs_file_too(tmp_path, delta, tiny_model_dir):
    run = _fine_tune(tmp_path, tiny_model_dir, shift=0.5)
    out = tmp_path / "out"
    delta.export(out, [run])
    (out / "runs.json").write_text(json.dumps({"B": json.loads((out / "B.json").read_text())}))
    (out / "B.json").unlink()
    _pieces(out, "B", size=10**9)
    delta.join(out, "B", tmp_path / "back" / "model")
    assert (tmp_path / "back" / "model" / "config.json").exists()


def test_pack_keeps_short_premises_in_a_fixed_order(tmp_path):
    pack = _load("pack_finetune")
    data = tmp_path / "data"
    for folder, rows in (
        ("train", [("one two three", "a"), ("word " * 300, "b")]),
        ("train-extra", [("four five", "c"), ("six", "d")]),
    ):
        (data / "nli" / folder).mkdir(parents=True)
        lines = [
            json.dumps({"premise": p, "hypothesis": h, "label": "entailment"}) for p, h in rows
        ]
        (data / "nli" / folder / "x.jsonl").write_text("\n".join(lines))  # no final newline
    mix = tmp_path / "mix"
    mix.mkdir()
    for name in pack.MIX_FILES:
        (mix / name).write_text('{"premise": "p", "hypothesis": "h", "label": "neutral"}\n')
    assert pack.main(["--data", str(data), "--mix", str(mix), "-o", str(tmp_path / "o")]) == 0
    first = (tmp_path / "o" / "data" / "nli_all.jsonl").read_text()
    rows = [json.loads(line)["hypothesis"] for line in first.splitlines()]
    assert sorted(rows) == ["a", "c", "d"]  # the 300-word premise is left out
    assert pack.main(["--data", str(data), "--mix", str(mix), "-o", str(tmp_path / "p")]) == 0
    assert (tmp_path / "p" / "data" / "nli_all.jsonl").read_text() == first
    assert (tmp_path / "o" / "data.tar.xz").stat().st_size > 0
