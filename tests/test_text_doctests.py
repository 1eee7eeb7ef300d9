"""The docstring examples of the text stages of issue 10 run as written."""

import doctest

import pytest

from nli_faith.rules import numbers
from nli_faith.text import align, equivalence, numerals, quantities, spans, structured


@pytest.mark.parametrize(
    "module",
    [structured, numerals, quantities, equivalence, numbers, align, spans],
    ids=lambda m: m.__name__,
)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
