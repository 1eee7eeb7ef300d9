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


def _count_loads(monkeypatch) -> dict[str, int]:
    """How often transformers' ``AutoConfig`` and ``AutoTokenizer`` read a checkpoint, from
    here on (every caller, sentence-transformers' included, goes through these classes)."""
    from transformers import AutoConfig, AutoTokenizer

    counts = {"config": 0, "tokenizer": 0}
    for key, cls in (("config", AutoConfig), ("tokenizer", AutoTokenizer)):
        load = cls.from_pretrained.__func__

        def counted(klass, *args, _load=load, _key=key, **kwargs):
            counts[_key] += 1
            return _load(klass, *args, **kwargs)

        monkeypatch.setattr(cls, "from_pretrained", classmethod(counted))
    return counts


def test_the_runtimes_read_the_tokenizer_once(tiny_model_dir, monkeypatch):
    """NLIModel runs with the tokenizer its CrossEncoder read (the only read of it) and reads
    the config once of its own, before the weights (to check the options against it and
    name a model that is not there); the ONNX runtime reads each once."""
    from sentence_transformers import CrossEncoder

    from nli_faith.nli.model import NLIModel

    counts = _count_loads(monkeypatch)
    CrossEncoder(str(tiny_model_dir), device="cpu")
    bare = dict(counts)
    assert bare["tokenizer"] == 1
    counts.update(config=0, tokenizer=0)
    nli = NLIModel(str(tiny_model_dir), device="cpu")
    assert counts == {"config": bare["config"] + 1, "tokenizer": 1}
    assert nli.tokenizer is nli._runtime.encoder.tokenizer
    assert nli.label_map.num_labels == nli._runtime.encoder.model.config.num_labels == 3
    pytest.importorskip("onnxruntime")
    counts.update(config=0, tokenizer=0)
    NLIModel("default", backend="onnx")  # the shipped int8 graph: no export
    assert counts == {"config": 1, "tokenizer": 1}


def _count_tokenized(monkeypatch) -> list[tuple[list[str], bool]]:
    """(texts, as pairs?) of every tokenizer call from here on, by any caller."""
    from transformers import PreTrainedTokenizerBase

    calls: list[tuple[list[str], bool]] = []
    call = PreTrainedTokenizerBase.__call__

    def counted(self, text=None, text_pair=None, *args, **kwargs):
        calls.append(
            (list(text) if isinstance(text, (list, tuple)) else [text], text_pair is not None)
        )
        return call(self, text, text_pair, *args, **kwargs)

    monkeypatch.setattr(PreTrainedTokenizerBase, "__call__", counted)
    return calls


def test_each_text_is_tokenized_once_and_no_pair_again(bundled_fp32, monkeypatch):
    """Pairs are assembled from their texts' ids, and a text's ids from its words' (the
    bundled tokenizer splits at whitespace first): 3 premises x 4 claims are 7 texts whose
    distinct words are tokenized once each, and the tokenizer never sees a pair; asked
    again, nothing at all."""
    premises = [f"Premise number {k} says the shop opens at {k + 8} am." for k in range(3)]
    claims = [f"The shop opens at {j + 8}." for j in range(4)]
    pairs = [(p, c) for p in premises for c in claims]
    bundled_fp32._tokens.cache.clear()
    bundled_fp32._tokens.words.cache.clear()
    calls = _count_tokenized(monkeypatch)
    first = bundled_fp32.predict(pairs)
    tokenized = [w for texts, _ in calls for t in texts for w in t.split()]
    assert sorted(tokenized) == sorted({w for t in premises + claims for w in t.split()})
    assert not any(as_pair for _, as_pair in calls)
    calls.clear()
    np.testing.assert_array_equal(bundled_fp32.predict(pairs), first)
    assert calls == []


def _cross_encoder_predict(nli, pairs, batch_size):
    """Probabilities as sentence-transformers' ``CrossEncoder.predict`` gives them: the pairs
    tokenized by it, in groups of one padded width (the runtime's batch invariance), padded
    to multiples of 32 and cut to the model's limit."""
    from nli_faith.nli.batching import PAD_MULTIPLE, batch_plan

    enc = nli._runtime.encoder
    text = {"pad_to_multiple_of": PAD_MULTIPLE, "truncation": "only_first"}
    text["max_length"] = nli.max_length
    lengths = np.array([len(x) for x in nli.tokenizer(*map(list, zip(*pairs)))["input_ids"]])
    out = np.empty((len(pairs), 3), dtype=np.float32)
    for rows, _ in batch_plan(lengths, batch_size=max(batch_size, 2), max_length=nli.max_length):
        raw = enc.predict(
            [pairs[i] for i in rows],
            batch_size=batch_size,
            apply_softmax=True,
            show_progress_bar=False,
            processing_kwargs={"text": text},
        )
        out[rows] = nli.label_map.to_canonical(raw)
    return out


@pytest.mark.parametrize("batch_size", [1, 2, 32])
def test_probabilities_are_those_of_the_cross_encoder_and_the_bare_model(bundled_fp32, batch_size):
    """Bit for bit what CrossEncoder.predict gives on the same width groups, an over-long
    pair included; and what the transformers model gives each pair alone."""
    import torch

    pairs = [*MATES, PAIR, ("word " * 600, "A long premise."), ("Café in Zürich.", "Prices fell.")]
    got = bundled_fp32.predict(pairs, batch_size=batch_size)
    np.testing.assert_array_equal(got, _cross_encoder_predict(bundled_fp32, pairs, batch_size))
    model, tok = bundled_fp32.torch_model, bundled_fp32.tokenizer
    for k, (premise, claim) in enumerate(pairs):
        enc = tok(
            premise,
            claim,
            truncation="only_first",
            max_length=bundled_fp32.max_length,
            return_tensors="pt",
        )
        with torch.inference_mode():
            probs = torch.softmax(model(**enc).logits.float(), dim=-1).numpy()
        want = bundled_fp32.label_map.to_canonical(probs)[0]
        np.testing.assert_allclose(got[k], want, atol=1e-6, rtol=0)


@pytest.fixture
def torch_threads():
    """Torch's CPU threads are process-wide: put back what they were."""
    import torch

    before = torch.get_num_threads()
    yield torch
    torch.set_num_threads(before)


def test_config_threads_are_torchs_cpu_threads(tiny_model_dir, torch_threads, monkeypatch):
    """``ScorerConfig.threads`` sets torch's threads on the CPU; left None it follows
    ``OMP_NUM_THREADS``, read when the scorer loads, not by the runtime."""
    from nli_faith.scorer import FaithfulnessScorer

    scorer = FaithfulnessScorer(str(tiny_model_dir), device="cpu", threads=2)
    assert torch_threads.get_num_threads() == 2 == scorer.parts.nli.threads
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    FaithfulnessScorer(str(tiny_model_dir), device="cpu")
    assert torch_threads.get_num_threads() == 1
    FaithfulnessScorer(str(tiny_model_dir), device="cpu", threads=3)
    assert torch_threads.get_num_threads() == 3  # the field over the environment


def test_nli_model_alone_computes_on_the_usable_cores(tiny_model_dir, torch_threads, monkeypatch):
    """Without a configuration, ``NLIModel`` reads no environment: the cores it may use."""
    from nli_faith.environment import usable_cores
    from nli_faith.errors import OptionError
    from nli_faith.nli.model import NLIModel

    monkeypatch.setenv("OMP_NUM_THREADS", str(usable_cores() + 1))
    nli = NLIModel(str(tiny_model_dir), device="cpu")
    assert nli.threads == usable_cores() == torch_threads.get_num_threads()
    with pytest.raises(OptionError, match="threads must be a whole number of at least 1"):
        NLIModel(str(tiny_model_dir), device="cpu", threads=0)


def test_packed_rows_pad_as_the_rows_themselves():
    from nli_faith.nli.batching import TokenRows, pad_batch

    rows = [[101, 5, 6, 7, 102], [101, 9, 102], [101] + list(range(1000, 1040)) + [102], [101]]
    types = [[0] * len(r) for r in rows]
    types[0][3:] = [1, 1]
    packed = TokenRows.join(
        [TokenRows.pack(rows[:2]), TokenRows.pack([]), TokenRows.pack(rows[2:])]
    )
    assert len(packed) == 4 and [x.tolist() for x in packed] == rows
    assert packed[-1].tolist() == rows[-1]  # as a list indexes
    with pytest.raises(IndexError):
        packed[4]
    sel = np.array([2, 0, 3])
    got = pad_batch(packed, TokenRows.pack(types), sel, 32, 0, width=64)
    assert got["input_ids"].shape == (3, 64) and got["input_ids"].dtype == np.int64
    for k, i in enumerate(sel):  # cut at max_length, padded after, masked so
        n = min(len(rows[i]), 32)
        assert got["input_ids"][k, :n].tolist() == rows[i][:n]
        assert not got["input_ids"][k, n:].any() and got["attention_mask"][k].sum() == n
        assert got["token_type_ids"][k, :n].tolist() == types[i][:n]
    # lists of ids give the same batch, and so do packed ids with listed types
    for same in (
        pad_batch(rows, types, sel, 32, 0, width=64),
        pad_batch(packed, types, sel, 32, 0, width=64),
    ):
        for name, value in got.items():
            np.testing.assert_array_equal(same[name], value)
