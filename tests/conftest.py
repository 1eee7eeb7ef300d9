"""Shared fixtures: a tiny NLI model the tests build themselves, and the bundled one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BUNDLED = REPO / "models" / "nli-faith-minilm-l6"


def _tokenizer_dir() -> Path:
    """Real tokenizer files: those of the bundled model (same WordPiece vocabulary)."""
    return BUNDLED


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    """A 2-layer BERT NLI classifier with random weights and the real tokenizer files."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    out = tmp_path_factory.mktemp("tiny-nli")
    tok = AutoTokenizer.from_pretrained(_tokenizer_dir())
    config = BertConfig(
        vocab_size=tok.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
        num_labels=3,
        id2label={0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"},
        label2id={"CONTRADICTION": 0, "ENTAILMENT": 1, "NEUTRAL": 2},
    )
    BertForSequenceClassification(config).save_pretrained(out)
    tok.save_pretrained(out)
    return out


@pytest.fixture(scope="session")
def tiny_scorer(tiny_model_dir):
    from nli_faith.scorer import FaithfulnessScorer

    return FaithfulnessScorer(str(tiny_model_dir), device="cpu")


@pytest.fixture(scope="session")
def bundled_scorer():
    from nli_faith.scorer import FaithfulnessScorer

    return FaithfulnessScorer(device="cpu")


def write_jsonl(path: Path, rows: list) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write((row if isinstance(row, str) else json.dumps(row)) + "\n")
    return path
