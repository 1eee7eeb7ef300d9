"""Fixtures of the research tooling's tests: a tiny NLI model the tests build themselves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Path:
    """A 2-layer BERT NLI classifier with random weights and the bundled model's tokenizer."""
    from tests.helpers.tiny_model import write_tiny_nli

    return write_tiny_nli(
        tmp_path_factory.mktemp("tiny-nli"), REPO / "models" / "nli-faith-minilm-l6"
    )


def write_jsonl(path: Path, rows: list) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write((row if isinstance(row, str) else json.dumps(row)) + "\n")
    return path
