"""Every docstring example in the package runs as written (the API reference shows them)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import nli_faith


def _modules() -> list[str]:
    return sorted(
        m.name
        for m in pkgutil.walk_packages(nli_faith.__path__, prefix="nli_faith.")
        if not m.name.endswith("__main__")
    )


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    try:
        module = importlib.import_module(name)
    except ImportError as err:  # an optional extra that is not installed
        pytest.skip(f"{name} needs {err.name}")
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags)
    assert result.failed == 0
