"""What a non-editable install ships: every subpackage of the source tree."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")
REPO = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed_for_setuptools():
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(init.parent.relative_to(REPO).parts)
        for init in (REPO / "nli_faith").rglob("__init__.py")
    }
    assert on_disk - listed == set(), "subpackages a wheel would leave out"
    assert "nli_faith.models" in listed  # the bundled weights, from models/
