"""Weight averaging of models (``python -m nli_faith.training.soup``)."""

from __future__ import annotations

import json
import shutil

import pytest

from nli_faith.training import soup


def _shifted(tmp_path, source, name, shift):
    """A copy of the model in ``source`` whose every float weight is ``shift`` higher."""
    from safetensors.torch import load_file, save_file

    out = tmp_path / name
    shutil.copytree(source, out)
    weights = load_file(str(out / "model.safetensors"))
    save_file(
        {k: (v + shift if v.is_floating_point() else v) for k, v in weights.items()},
        str(out / "model.safetensors"),
        metadata={"format": "pt"},
    )
    return out


@pytest.fixture
def two_models(tmp_path, tiny_model_dir):
    """The tiny model and a copy whose every float weight is 1.0 higher."""
    return tiny_model_dir, _shifted(tmp_path, tiny_model_dir, "b", 1.0)


def test_a_weight_mixes_every_float_tensor(tmp_path, two_models):
    from safetensors.torch import load_file

    a, b = two_models
    out = tmp_path / "soup"
    assert soup.main([str(a), str(b), "-o", str(out), "--weight", "0.25"]) == 0
    wa = load_file(str(a / "model.safetensors"))
    mixed = load_file(str(out / "model.safetensors"))
    assert mixed.keys() == wa.keys()
    for name, t in wa.items():
        if t.is_floating_point():
            assert (mixed[name] - t - 0.25).abs().max() < 1e-5, name
        else:
            assert (mixed[name] == t).all(), name
    assert json.loads((out / "soup.json").read_text())["weight"] == 0.25
    # the folder is a model the scorer loads
    from nli_faith.nli.model import NLIModel

    probs = NLIModel(str(out), device="cpu").predict([("The sky is blue.", "It is blue.")])
    assert probs.shape == (1, 3) and abs(float(probs.sum()) - 1.0) < 1e-5


def test_several_fine_tuned_models_are_averaged_before_the_weight_applies(tmp_path, tiny_model_dir):
    from safetensors.torch import load_file

    a = tiny_model_dir
    b, c = _shifted(tmp_path, a, "b", 1.0), _shifted(tmp_path, a, "c", 3.0)
    out = tmp_path / "soup"
    assert soup.main([str(a), str(b), str(c), "-o", str(out), "--weight", "0.5"]) == 0
    wa, mixed = load_file(str(a / "model.safetensors")), load_file(str(out / "model.safetensors"))
    # the fine-tuned pair averages to a + 2; half of that shift is kept
    for name, t in wa.items():
        if t.is_floating_point():
            assert (mixed[name] - t - 1.0).abs().max() < 1e-5, name
    assert json.loads((out / "soup.json").read_text())["model_b"] == [str(b), str(c)]


def test_the_grid_keeps_the_weight_with_the_best_development_accuracy(tmp_path, two_models):
    a, b = two_models
    dev = tmp_path / "dev.jsonl"
    rows = [
        {"premise": "The sky is blue.", "hypothesis": "The sky is blue.", "label": "entailment"},
        {"premise": "Cats sleep a lot.", "hypothesis": "Dogs bark.", "label": "neutral"},
        {"premise": "It costs $5.", "hypothesis": "It costs $9.", "label": "contradiction"},
    ]
    dev.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "soup"
    soup.main([str(a), str(b), "-o", str(out), "--grid", "0", "0.5", "1", "--dev", str(dev)])
    report = json.loads((out / "soup.json").read_text())
    assert set(report["tried"]) == {"0", "0.5", "1"}
    best = max(report["tried"], key=lambda w: report["tried"][w]["mean"])
    assert report["weight"] == float(best)
    assert not any(p.name.startswith("trial-") for p in out.iterdir())


def test_models_that_do_not_share_parameters_are_refused():
    import torch

    with pytest.raises(ValueError, match="do not share their parameters"):
        soup.interpolate({"x": torch.zeros(2)}, {"y": torch.zeros(2)}, 0.5)
    with pytest.raises(ValueError, match="shapes"):
        soup.interpolate({"x": torch.zeros(2)}, {"x": torch.zeros(3)}, 0.5)


def test_a_grid_needs_development_files(tmp_path, two_models, capsys):
    a, b = two_models
    with pytest.raises(SystemExit):
        soup.main([str(a), str(b), "-o", str(tmp_path / "o"), "--grid", "0", "1"])
    assert "--grid needs --dev" in capsys.readouterr().err
