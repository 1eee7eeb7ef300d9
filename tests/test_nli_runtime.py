"""The NLI runtime: sentence-transformers' CrossEncoder under NLIModel, and batch invariance
(a pair's probabilities do not depend on the pairs scored with it)."""

from __future__ import annotations

import numpy as np
import pytest

PAIR = ("The warranty lasts 24 months from the date of purchase.", "The warranty lasts two years.")
#: Batch mates: much longer and shorter pairs, and pairs of the same padded width as PAIR.
MATES = [
    ("A much longer premise about many other things. " * 30, "Something else entirely."),
    ("Short.", "Tiny."),
    ("The refund is paid within 14 days of the return.", "Refunds take two weeks."),
    ("Paris is the capital of France, said the guide.", "Paris is in France."),
    ("Medium length premise with a few more words in it, " * 4, "A claim."),
]


@pytest.fixture(scope="module")
def bundled_fp32():
    from nli_faith.nli.model import NLIModel

    return NLIModel("default", device="cpu", dtype="float32")


def test_torch_runtime_is_a_cross_encoder(bundled_fp32):
    from sentence_transformers import CrossEncoder

    assert isinstance(bundled_fp32._runtime.encoder, CrossEncoder)
    assert bundled_fp32.tokenizer is bundled_fp32._runtime.encoder.tokenizer
    # the same probabilities as CrossEncoder.predict of the pair alone, columns canonical
    raw = bundled_fp32._runtime.encoder.predict([PAIR], apply_softmax=True)
    got = bundled_fp32.predict([PAIR])
    np.testing.assert_allclose(got, bundled_fp32.label_map.to_canonical(raw), atol=1e-6)


@pytest.mark.parametrize("batch_size", [1, 2, 32])
def test_a_pair_alone_and_among_long_and_short_pairs_gets_the_same_probabilities(
    bundled_fp32, batch_size
):
    alone = bundled_fp32.predict([PAIR], batch_size=batch_size)[0]
    for mates in (MATES, MATES[::-1], MATES[:1], MATES[2:]):
        mixed = bundled_fp32.predict([*mates, PAIR], batch_size=batch_size)
        np.testing.assert_allclose(mixed[-1], alone, atol=1e-6, rtol=0)
        # every mate too gets what it gets alone
        for k, mate in enumerate(mates):
            np.testing.assert_allclose(mixed[k], bundled_fp32.predict([mate])[0], atol=1e-6, rtol=0)


def test_padding_to_the_batch_would_move_a_pair(bundled_fp32):
    """Why the width groups: CrossEncoder.predict pads a batch to its longest pair, which
    moves a short pair's probabilities when a long one shares its batch."""
    enc = bundled_fp32._runtime.encoder
    alone = enc.predict([PAIR], apply_softmax=True)[0]
    padded = enc.predict([MATES[0], PAIR], batch_size=2, apply_softmax=True)[1]
    ours = bundled_fp32.predict([MATES[0], PAIR])[1]
    assert np.abs(padded - alone).max() > 0  # padding noise, even in fp32
    np.testing.assert_allclose(ours, bundled_fp32.predict([PAIR])[0], atol=1e-6, rtol=0)


def test_an_over_long_pair_is_truncated_with_a_warning_and_moves_no_other(bundled_fp32, caplog):
    long_pair = ("word " * 600, "A long premise.")
    with caplog.at_level("WARNING", logger="nli_faith.nli.model"):
        probs = bundled_fp32.predict([long_pair, PAIR])
    assert "exceed the model's 512 tokens" in caplog.text
    np.testing.assert_allclose(probs[1], bundled_fp32.predict([PAIR])[0], atol=1e-6, rtol=0)
    assert probs.shape == (2, 3) and np.allclose(probs.sum(axis=1), 1, atol=1e-5)


@pytest.mark.parametrize("device", ["gpu", "cuda:64"])
def test_a_device_torch_cannot_use_is_a_clear_error(device, tiny_model_dir, capsys):
    from nli_faith.cli import main
    from nli_faith.errors import ModelLoadError
    from nli_faith.scorer import FaithfulnessScorer

    with pytest.raises(ModelLoadError, match=f"device '{device}' cannot be used here") as err:
        FaithfulnessScorer(str(tiny_model_dir), device=device)
    assert err.value.code == "E104"
    from conftest import REPO

    src = str(REPO / "examples" / "answers.jsonl")
    argv = ["score", src, "-o", "-", "--model", str(tiny_model_dir)]
    assert main([*argv, "--device", device]) == 2
    assert f"error: [E104] device '{device}'" in capsys.readouterr().err


def test_a_token_limit_off_the_padding_block_is_rounded_down(tiny_model_dir):
    from nli_faith.scorer import FaithfulnessScorer

    scorer = FaithfulnessScorer(str(tiny_model_dir), device="cpu", max_length=100)
    assert scorer.nli.max_length == 96  # truncation meets the padding to multiples of 32
    r = scorer.score("The warranty lasts 36 months.", "The warranty lasts 24 months. " * 40)
    assert r.error is None and r.n_claims == 1
    for bad in (16, 0, -5, 64.0, True):
        with pytest.raises(ValueError, match="max_length must be a whole number of at least 32"):
            FaithfulnessScorer(str(tiny_model_dir), device="cpu", max_length=bad)


@pytest.mark.parametrize(
    ("option", "value"),
    [("chunk_overlap", -1), ("chunk_overlap", "1"), ("chunk_tokens", 0), ("chunk_tokens", 2.5)],
)
def test_chunk_options_must_be_whole_numbers(tiny_model_dir, option, value):
    from nli_faith.scorer import FaithfulnessScorer

    with pytest.raises(ValueError, match=f"{option} must be a whole number of at least"):
        FaithfulnessScorer(str(tiny_model_dir), device="cpu", **{option: value})


def test_predict_names_pairs_that_are_not_pairs_of_strings(tiny_model_dir):
    from nli_faith.nli.model import NLIModel

    nli = NLIModel(str(tiny_model_dir), device="cpu")
    for pairs, needle in [
        ("ab", "pairs must be a list of"),
        (None, "pairs must be a list of"),
        ([("A cat.", "A cat.")] * 2 + [(None, "b")], r"pairs\[2\] must be a \(premise"),
        ([("only one",)], r"pairs\[0\] must be"),
    ]:
        with pytest.raises(ValueError, match=needle):
            nli.predict(pairs)
    with pytest.raises(ValueError, match="texts must be a list of strings"):
        nli.count_tokens("abc")  # not counted letter by letter
    assert nli.predict([["A cat sat.", "A cat sat."]]).shape == (1, 3)  # a list pair is fine
