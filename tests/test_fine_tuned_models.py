"""What the fine-tuning recipe relies on in the package: freezing the lower layers, a
model's own decision defaults, and the opt-in RAG-tuned model."""


def test_freeze_leaves_upper_layers_and_head_trainable():
    from transformers import AutoModelForSequenceClassification

    from nli_faith.nli.registry import resolve_model
    from nli_faith.training.trainer import freeze

    model = AutoModelForSequenceClassification.from_pretrained(resolve_model("default").path)
    n = freeze(model, embeddings=True, layers=2)
    frozen = {name for name, p in model.named_parameters() if not p.requires_grad}
    assert n == sum(p.numel() for name, p in model.named_parameters() if name in frozen)
    assert any("embeddings" in f for f in frozen)
    assert any("layer.1." in f for f in frozen) and not any("layer.2." in f for f in frozen)
    assert all(p.requires_grad for name, p in model.named_parameters() if "classifier" in name)


def test_a_models_decision_file_sets_the_defaults_and_arguments_win(tiny_model_dir, tmp_path):
    import json
    import shutil

    from nli_faith import FaithfulnessScorer

    model = tmp_path / "model"
    shutil.copytree(tiny_model_dir, model)
    plain = FaithfulnessScorer(str(model), device="cpu")
    assert (plain.entail_threshold, plain.bands.high) == (0.5, 0.99)
    (model / "decision.json").write_text(
        json.dumps({"entail_threshold": 0.7, "band_high": 0.9, "note": "ignored"})
    )
    shipped = FaithfulnessScorer(str(model), device="cpu")
    assert (shipped.entail_threshold, shipped.contradict_threshold) == (0.7, 0.5)
    assert (shipped.bands.high, shipped.bands.low) == (0.9, 0.3)
    given = FaithfulnessScorer(str(model), device="cpu", entail_threshold=0.6, band_high=0.95)
    assert (given.entail_threshold, given.bands.high) == (0.6, 0.95)


def test_the_opt_in_rag_model_is_registered_and_loads():
    from nli_faith.nli.registry import decision_defaults, resolve_model

    spec = resolve_model("nli-faith-minilm-l6-rag")
    assert spec.bundled and spec.path.endswith("nli-faith-minilm-l6-rag")
    assert decision_defaults(spec.path)["entail_threshold"] == 0.5
