"""``CachedNLI``: an NLI model behind a memo of the pairs it has run."""

from __future__ import annotations

import numpy as np
import pytest

from nli_faith.errors import OptionError
from nli_faith.nli.cache import CachedNLI

PAIRS = [
    ("A dog runs across the park.", "An animal is moving."),
    ("A dog runs across the park.", "A cat sleeps."),
    ("The museum opens at nine.", "The museum opens in the morning."),
]


@pytest.fixture(scope="module")
def tiny_nli(tiny_model_dir):
    from nli_faith.nli.model import NLIModel

    return NLIModel(str(tiny_model_dir), device="cpu")


def test_each_distinct_pair_runs_once_and_gets_the_models_probabilities(tiny_nli):
    cache = CachedNLI(tiny_nli, sample_rate=1.0)
    before = tiny_nli.pairs_predicted
    got = cache.predict([PAIRS[0], PAIRS[1], PAIRS[0]])
    assert tiny_nli.pairs_predicted - before == 2 and cache.computed == 2
    np.testing.assert_allclose(got, tiny_nli.predict([PAIRS[0], PAIRS[1], PAIRS[0]]), atol=1e-6)
    before = tiny_nli.pairs_predicted
    again = cache.predict([PAIRS[1], PAIRS[2]])
    assert tiny_nli.pairs_predicted - before == 1 and cache.computed == 3  # only the new pair
    np.testing.assert_array_equal(again[0], got[1])
    assert len(cache) == 3 and sorted(cache.sample) == sorted(PAIRS)
    np.testing.assert_array_equal(cache.lookup([PAIRS[0]])[0], got[0])
    with pytest.raises(KeyError):
        cache.lookup([("never", "asked")])
    # the wrapped model's other attributes answer through the cache
    assert cache.max_length == tiny_nli.max_length
    assert cache.count_tokens(["a b"]) == tiny_nli.count_tokens(["a b"])
    # moving text from the premise to the hypothesis is another pair
    split = cache.predict([("A dog runs across the park. An", "animal is moving.")])
    assert split.shape == (1, 3) and cache.computed == 4
    assert cache.predict([]).shape == (0, 3)


def test_a_saved_cache_read_back_runs_no_pair_again(tiny_nli, tmp_path):
    cache = CachedNLI(tiny_nli)
    first = cache.predict(PAIRS)
    cache.save(tmp_path / "cache.npz")
    again = CachedNLI(tiny_nli)
    assert again.load(tmp_path / "cache.npz") == len(PAIRS)
    before = tiny_nli.pairs_predicted
    np.testing.assert_allclose(again.predict(PAIRS[::-1]), first[::-1])
    assert again.computed == 0 and tiny_nli.pairs_predicted == before


def test_a_scorer_behind_the_cache_gives_the_same_results(tiny_model_dir):
    from nli_faith.scorer import FaithfulnessScorer

    plain = FaithfulnessScorer(str(tiny_model_dir), device="cpu")
    cached = FaithfulnessScorer(str(tiny_model_dir), device="cpu")
    cached.nli = cache = CachedNLI(cached.nli)
    response = "The museum opens at nine. It is closed on Mondays."
    context = ["The museum opens at nine every day except Monday, when it is closed."]
    want = plain.score(response, context)
    got = cached.score(response, context)
    assert [c.verdict for c in got.claims] == [c.verdict for c in want.claims]
    assert got.soft == pytest.approx(want.soft, abs=1e-6)
    computed = cache.computed
    assert computed > 0
    assert cached.score(response, context).soft == got.soft and cache.computed == computed


@pytest.mark.parametrize("rate", [-0.1, 1.5, "half", True])
def test_a_sample_rate_outside_zero_to_one_is_refused(rate):
    with pytest.raises(OptionError, match="sample_rate must be a number from 0 to 1"):
        CachedNLI(object(), sample_rate=rate)
