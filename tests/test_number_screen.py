"""The number screen: a text it passes over holds nothing the number patterns would find."""

from hypothesis import given, settings
from hypothesis import strategies as st

from nli_faith.text.numerals import (
    DIGITS_RE,
    NUMBER_WORD_RE,
    NUMBER_WORDS,
    extract_numbers,
    may_hold_number,
    pattern_matches,
)
from nli_faith.text.quantities import (
    _NUMBER_CORE_RE,
    _QUANTITY_WORDS,
    extract_quantities,
    number_matches,
)

#: Pieces that sit at the edges of the patterns: number words inside other words, case
#: folds outside ASCII ("ſix", the Kelvin sign), digits of other scripts, hyphens.
PIECES = ["one", "ONE", "someone", "often", "network", "thirty", "-six", " six", "half",
          "a ", "an ", "hundred", "thirds", "quarter", "_", "ſix", "\u212aelvin", "\u0663",
          "\u00b2", "tenth", "fifth", "dozen", "x", " ", ".", ",", "\n", "é", "9", "1,200",
          "3.5", "a1", "twenty-one", "Two-thirds", " of an hour", "$", "%", "two "]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join) | st.text(max_size=40)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(text=texts)
def test_a_text_the_screen_passes_over_has_no_number_match(text):
    if not may_hold_number(text, _QUANTITY_WORDS):
        assert _NUMBER_CORE_RE.search(text) is None
        assert extract_quantities(text) == ()
    if not may_hold_number(text):
        assert DIGITS_RE.search(text) is None and NUMBER_WORD_RE.search(text) is None
        assert extract_numbers(text) == frozenset()


@settings(max_examples=400, deadline=None, derandomize=True)
@given(text=texts)
def test_matches_tried_where_they_can_start_are_those_of_a_full_scan(text):
    def spans(ms):
        return [(m.span(), m.groupdict()) for m in ms]

    assert spans(number_matches(text)) == spans(_NUMBER_CORE_RE.finditer(text))
    assert spans(pattern_matches(DIGITS_RE, text, frozenset())) == spans(DIGITS_RE.finditer(text))
    words = pattern_matches(NUMBER_WORD_RE, text, NUMBER_WORDS)
    assert spans(words) == spans(NUMBER_WORD_RE.finditer(text))


def test_the_screen_keeps_every_kind_of_number():
    for text in ("It took 3 days.", "Thirty-six months.", "a HUNDRED people", "half of it",
                 "two-thirds", "ſix", "\u0663 items", "one_two"):  # fmt: skip
        assert may_hold_number(text, _QUANTITY_WORDS), text
    assert [q.value for q in extract_quantities("Half of the twenty-one staff")] == [50.0, 21.0]
    assert not may_hold_number("Someone often wrote on the network.", _QUANTITY_WORDS)
