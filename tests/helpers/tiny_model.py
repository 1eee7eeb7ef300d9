"""A tiny NLI model the tests (and the cheap benchmark runs) build themselves."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "models" / "nli-faith-minilm-l6"

#: Labels of :func:`write_tiny_nli`'s classifier head, by index.
TINY_LABELS = ("CONTRADICTION", "ENTAILMENT", "NEUTRAL")


def write_tiny_nli(
    out: Path, tokenizer_dir: Path = BUNDLED, *, labels: Sequence[str] = TINY_LABELS
) -> Path:
    """A 2-layer BERT NLI classifier (hidden 32, random weights, seeded) with the real
    tokenizer files of ``tokenizer_dir``, saved in ``out``: the scorer's whole pipeline
    (tokens, window, pair lengths) at ~1/100 of the bundled model's cost. Used by the
    tests' ``tiny_model_dir``, the fuzz benchmark and the streaming benchmark."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    config = BertConfig(
        vocab_size=tok.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
        num_labels=len(labels),
        id2label=dict(enumerate(labels)),
        label2id={name: k for k, name in enumerate(labels)},
    )
    BertForSequenceClassification(config).save_pretrained(out)
    tok.save_pretrained(out)
    return out
