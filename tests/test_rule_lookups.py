"""The rules' word lookups give what comparing the word with every word would."""

from hypothesis import given, settings
from hypothesis import strategies as st

from nli_faith.rules.exceptions import _has, _stem

words = st.text(alphabet="abcdeginrs", min_size=0, max_size=9)


def _has_by_scan(word: str, have: frozenset[str]) -> bool:
    w = _stem(word)
    for h in have:
        s = _stem(h)
        if s == w or (min(len(s), len(w)) >= 4 and (s.startswith(w) or w.startswith(s))):
            return True
    return False


@settings(max_examples=500, deadline=None, derandomize=True)
@given(word=words, have=st.frozensets(words, max_size=8))
def test_a_word_is_found_as_a_scan_of_every_word_finds_it(word, have):
    assert _has(word, have) == _has_by_scan(word, have)


def test_stems_and_starts():
    have = frozenset({"refundable", "days", "tier"})
    assert _has("refunds", have) and _has("tiers", have) and _has("days", have)
    assert not _has("day", have)  # stems of under 4 letters must be equal
    assert not _has("ref", have) and not _has("tie", frozenset({"tier"}))
