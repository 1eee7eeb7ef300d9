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
    from helpers.tiny_model import write_tiny_nli

    return write_tiny_nli(tmp_path_factory.mktemp("tiny-nli"), _tokenizer_dir())


@pytest.fixture(scope="session")
def tiny_scorer(tiny_model_dir):
    from nli_faith.scorer import FaithfulnessScorer

    return FaithfulnessScorer(str(tiny_model_dir), device="cpu")


@pytest.fixture(scope="session")
def bundled_scorer():
    from nli_faith.scorer import FaithfulnessScorer

    return FaithfulnessScorer(device="cpu")


@pytest.fixture
def batches(bundled_scorer, monkeypatch):
    """The size of every ``score_batch`` run of the bundled scorer during the test (the
    integrations must score a dataset in one batch, not record by record)."""
    calls: list[int] = []
    score_batch = bundled_scorer.score_batch

    def counted(records, **kw):
        records = list(records)
        calls.append(len(records))
        return score_batch(records, **kw)

    monkeypatch.setattr(bundled_scorer, "score_batch", counted)
    return calls


@pytest.fixture(scope="session")
def bundled_thresholds(tmp_path_factory, bundled_scorer) -> Path:
    """A thresholds file for the bundled model, as ``nli-faith calibrate`` saves one:
    other entailment / contradiction thresholds than the defaults, and a gate on strict."""
    from nli_faith.scoring.thresholds import Decision, ModelId, Thresholds

    path = tmp_path_factory.mktemp("thresholds") / "thresholds.json"
    model = ModelId.of("default", bundled_scorer.nli)
    options = {"entail_threshold": 0.6, "contradict_threshold": 0.6}
    Thresholds(model, options, Decision("strict", 0.6)).save(path)
    return path


def write_jsonl(path: Path, rows: list) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write((row if isinstance(row, str) else json.dumps(row)) + "\n")
    return path
