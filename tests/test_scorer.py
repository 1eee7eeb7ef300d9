"""The scorer's plumbing, on a tiny random model (the verdicts themselves are meaningless)."""

import numpy as np
import pytest

from nli_faith.results import FaithfulnessResult
from nli_faith.scoring.composite import is_composite

CONTEXT = [
    "The Eiffel Tower is located in Paris. It was completed in 1889.",
    "The tower is 330 metres tall.",
]
ANSWER = "Based on the context, the tower is in Paris. It was finished in 1889. Any questions?"


def test_result_structure_spans_and_evidence(tiny_scorer):
    r = tiny_scorer.score(ANSWER, CONTEXT)
    assert isinstance(r, FaithfulnessResult)
    assert r.n_claims == 2  # the question is not a claim
    assert r.n_yes + r.n_no + r.n_idk == 2
    assert r.strict == pytest.approx(r.n_yes / 2)
    assert r.lenient == pytest.approx((2 - r.n_no) / 2)
    for c in r.claims:
        assert c.claim.split()[-1].rstrip(".") in ANSWER[c.start : c.end]
        assert c.verdict in ("yes", "no", "idk")
        assert 0.0 <= c.p_entail <= 1.0 and 0.0 <= c.p_contradict <= 1.0
        ev = c.evidence
        for span in ev.spans:  # a composite premise joins several
            assert CONTEXT[span.doc_index][span.start : span.end] in ev.text
        if len(ev.spans) == 1:
            assert CONTEXT[ev.doc_index][ev.start : ev.end] == ev.text


def test_string_context_and_no_claims(tiny_scorer):
    r = tiny_scorer.score("Hi! How can I help you today?", "Some context.")
    assert (r.lenient, r.strict, r.soft, r.n_claims) == (None, None, None, 0)
    assert "no verifiable claims" in r.reason
    r = tiny_scorer.score("Paris is in France.", "")
    assert r.n_claims == 1 and r.claims[0].verdict == "idk" and r.claims[0].evidence is None


def test_matrix_is_built_once_and_reduced_cheaply(tiny_scorer):
    m = tiny_scorer.stages.matrices([tiny_scorer.stages.plan(ANSWER, CONTEXT)])[0]
    assert m.probs.shape == (len(m.claims), len(m.chunks), 3)
    # every scored pair (a composite premise is scored for its own claim only)
    np.testing.assert_allclose(m.probs.sum(axis=-1)[m.mask], 1.0, atol=1e-5)
    assert m.mask[:, ~is_composite(m.chunks)].all()
    everything = tiny_scorer.stages.aggregate(m, entail_threshold=0.0)
    nothing = tiny_scorer.stages.aggregate(m, entail_threshold=1.0, contradict_threshold=1.0)
    assert everything.strict == 1.0
    assert nothing.n_idk == nothing.n_claims


def test_batch_matches_single_and_keeps_going_past_bad_records(tiny_scorer):
    good = {"response": ANSWER, "context": CONTEXT}
    records = [
        good,
        {"response": 42, "context": "x"},
        {"answer": "Rome is in Italy.", "contexts": []},
    ]
    out = tiny_scorer.score_batch(records)
    assert len(out) == 3
    assert out[1].error is not None and "'response' must be a string" in out[1].error
    assert out[1].strict is None
    single = tiny_scorer.score(ANSWER, CONTEXT)
    assert [c.p_entail for c in out[0].claims] == pytest.approx(
        [c.p_entail for c in single.claims], abs=1e-4
    )
    assert out[2].error is None and out[2].n_claims == 1


def test_bad_options_fail_clearly(tiny_model_dir):
    from nli_faith.scorer import FaithfulnessScorer

    with pytest.raises(ValueError, match="entail_threshold"):
        FaithfulnessScorer(str(tiny_model_dir), entail_threshold=2)
    with pytest.raises(ValueError, match="backend"):
        FaithfulnessScorer(str(tiny_model_dir), backend="tensorflow")


def test_unknown_model_is_a_clear_error(tmp_path):
    from nli_faith.errors import ModelLoadError
    from nli_faith.nli.model import NLIModel

    with pytest.raises(ModelLoadError, match="neither a registered name"):
        NLIModel(str(tmp_path / "no-such-model"))
    with pytest.raises(ModelLoadError, match="Unrecognized model in"):  # a folder, no model
        NLIModel(str(tmp_path))
    for empty in ("", "  ", None):  # "" would load the current directory
        with pytest.raises(ModelLoadError, match=r"\(a non-empty string\), got"):
            NLIModel(empty)


def test_a_registered_hub_model_out_of_reach_says_so(monkeypatch, tmp_path):
    from nli_faith.errors import ModelLoadError
    from nli_faith.nli.model import NLIModel
    from nli_faith.nli.registry import resolve_model

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # as on a machine without the network
    monkeypatch.setenv("HF_HOME", str(tmp_path))  # and with nothing in the cache
    hub_id = resolve_model("roberta-large-mnli").path
    with pytest.raises(ModelLoadError, match="registered as the Hugging Face hub id") as err:
        NLIModel("roberta-large-mnli")
    assert err.value.code == "E111" and hub_id in str(err.value)


def test_fp32_onnx_matches_torch(tiny_model_dir, tmp_path):
    pytest.importorskip("onnxruntime")
    from nli_faith.nli.model import NLIModel

    pairs = [("The tower is in Paris.", "It is in France."), ("A b c d e f g.", "Nothing.")]
    ref = NLIModel(str(tiny_model_dir), device="cpu", dtype="float32").predict(pairs)
    onnx = NLIModel(
        str(tiny_model_dir), backend="onnx", onnx_quantize=False, cache_dir=tmp_path / "onnx"
    ).predict(pairs)
    np.testing.assert_allclose(onnx, ref, atol=1e-4)
    assert list((tmp_path / "onnx").glob("*.onnx"))  # exported once into the cache


def test_batch_size_default_and_validation(tiny_model_dir):
    from nli_faith.nli.model import NLIModel

    assert NLIModel(str(tiny_model_dir), device="cpu").batch_size == 32
    with pytest.raises(ValueError, match="batch_size must be a whole number of at least 1, got 0"):
        NLIModel(str(tiny_model_dir), device="cpu", batch_size=0)
    with pytest.raises(ValueError, match="dtype must be one of 'float32'.*got 'int4'"):
        NLIModel(str(tiny_model_dir), device="cpu", dtype="int4")
    bf16 = NLIModel(str(tiny_model_dir), device="cpu", dtype="bfloat16")
    probs = bf16.predict([("A cat sat.", "An animal sat.")])
    assert probs.shape == (1, 3) and abs(float(probs.sum()) - 1) < 1e-3


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"batch_size": 1.5}, "batch_size must be a whole number of at least 1, got 1.5"),
        ({"batch_size": True}, "batch_size must be a whole number"),
        ({"prefilter": "lexical", "prefilter_top_k": 1.5}, "prefilter_top_k must be a whole"),
        ({"label_map": "entailment=0"}, "label_map must be a mapping of label names"),
        ({"label_map": {"entailment": "0"}}, "label_map must be a mapping of label names"),
        ({"entail_threshold": "0.7"}, r"entail_threshold must be in \[0, 1\], got '0.7'"),
        ({"band_high": True}, r"band_high must be in \[0, 1\], got True"),
        ({"chunk_tokens": 2.5}, "chunk_tokens must be a whole number of at least 1"),
        ({"early_exit": "false"}, "early_exit must be True or False, got 'false'"),
        ({"prefilter_model": "x"}, "prefilter_model is used only with prefilter='embedding'"),
        ({"spacy_model": "x"}, "spacy_model is used only with granularity='clause'"),
        ({"onnx_quantize": False}, "onnx_quantize is used only with backend='onnx'"),
        ({"prefilter": "bogus", "prefilter_model": "x"}, "prefilter must be one of"),
        ({"granularity": "Clause", "spacy_model": "x"}, "granularity must be one of"),
        ({"composite": 0}, "composite must be True or False"),
        ({"device": 0}, "device must be a string, got 0"),
        ({"limits": {"max_claims": 1}}, r"limits must be a Limits\(...\) or None"),
    ],
)
def test_options_of_the_wrong_type_are_named_before_the_model_loads(monkeypatch, options, message):
    from nli_faith.nli import model as model_module
    from nli_faith.scorer import FaithfulnessScorer

    def never(*_, **__):
        raise AssertionError("the model was loaded before the options were checked")

    monkeypatch.setattr(model_module.NLIModel, "__init__", never)
    with pytest.raises(ValueError, match=message):
        FaithfulnessScorer("default", **options)


def test_int8_onnx_runs_one_pair_at_a_time_so_batch_mates_do_not_matter():
    pytest.importorskip("onnxruntime")
    from nli_faith.nli.model import NLIModel

    nli = NLIModel("default", backend="onnx")
    assert nli.batch_size == 1
    pair = ("The warranty lasts 24 months.", "The warranty lasts two years.")
    others = [("A much longer premise " * 20, "Something else entirely."), ("Short.", "Tiny.")]
    alone = nli.predict([pair])
    np.testing.assert_array_equal(nli.predict([pair, *others])[0], alone[0])


def test_pairs_are_assembled_exactly_as_the_tokenizer_would(tiny_model_dir):
    from nli_faith.nli.model import NLIModel

    nli = NLIModel(str(tiny_model_dir), device="cpu")
    pairs = [
        ("Café prices rose 5% in Zürich, said Mr. O'Neil.", "Prices fell."),
        ("Café prices rose 5% in Zürich, said Mr. O'Neil.", "Coffee got dearer."),
        ("  Spaces\tand\nnewlines  ", "x"),
    ]
    ids, types = nli._tokens.pair_ids(pairs)
    ref = nli.tokenizer([p for p, _ in pairs], [h for _, h in pairs])
    assert ids == ref["input_ids"] and types == ref["token_type_ids"]
    plain = nli.tokenizer(["Prices fell.", "Zürich café"], add_special_tokens=False)
    assert nli.count_tokens(["Prices fell.", "Zürich café"]) == [len(x) for x in plain["input_ids"]]
    assert len(nli._tokens.cache) == 6  # each distinct text tokenized once
    assert nli._tokens.pair_lengths(pairs) == [len(x) for x in ref["input_ids"]]


def test_cpu_default_dtype_follows_native_bf16(tiny_model_dir, monkeypatch):
    import torch

    from nli_faith.nli import cross_encoder
    from nli_faith.nli import model as nli_mod

    monkeypatch.setattr(cross_encoder, "cpu_has_native_bf16", lambda: True)
    assert nli_mod.NLIModel(str(tiny_model_dir), device="cpu").torch_model.dtype == torch.bfloat16
    monkeypatch.setattr(cross_encoder, "cpu_has_native_bf16", lambda: False)
    assert nli_mod.NLIModel(str(tiny_model_dir), device="cpu").torch_model.dtype == torch.float32
    fp32 = nli_mod.NLIModel(str(tiny_model_dir), device="cpu", dtype="float32")
    assert fp32.torch_model.dtype == torch.float32


def test_token_cache_overflow_keeps_what_is_asked_for(tiny_model_dir, monkeypatch):
    from nli_faith.nli import model as nli_mod
    from nli_faith.nli import tokens

    monkeypatch.setattr(tokens, "CACHE_SIZE", 3)
    nli = nli_mod.NLIModel(str(tiny_model_dir), device="cpu")
    assert nli.count_tokens(["a b", "c"]) == [2, 1]
    assert nli.count_tokens(["a b", "d e f", "g"]) == [2, 3, 1]  # overflows: cache refilled
    assert len(nli._tokens.cache) <= 3
    probs = nli.predict([("a b", "g"), ("d e f", "c")])  # four distinct texts > the cap
    assert probs.shape == (2, 3)


def test_prefilter_top_k_without_a_prefilter_is_a_clear_error(tiny_model_dir):
    from nli_faith.scorer import FaithfulnessScorer

    with pytest.raises(ValueError, match="prefilter_top_k=2 is given but no prefilter"):
        FaithfulnessScorer(str(tiny_model_dir), device="cpu", prefilter_top_k=2)


def test_max_length_over_the_models_positions_is_named(tiny_model_dir):
    from nli_faith.nli.model import NLIModel

    # "tokens the model can read": a longer pair would crash inside the model on every record
    with pytest.raises(ValueError, match=r"\[?max_length 2048 is over what model .* can read"):
        NLIModel(str(tiny_model_dir), device="cpu", max_length=2048)
    assert NLIModel(str(tiny_model_dir), device="cpu").max_length <= 512


def test_limits_are_checked_where_they_are_made():
    from nli_faith.records import Limits

    for bad in ({"max_claims": -1}, {"max_claims": 0}, {"max_response_chars": 1.5},
                {"max_documents": "3"}, {"max_context_chars": True}):  # fmt: skip
        ((name, value),) = bad.items()
        with pytest.raises(ValueError, match=f"{name} must be a whole number of at least 1"):
            Limits(**bad)
    assert Limits(max_claims=None).max_claims is None


def test_a_device_that_holds_no_data_is_refused():
    from nli_faith.errors import ModelLoadError
    from nli_faith.nli.cross_encoder import check_device

    with pytest.raises(ModelLoadError, match="'meta' tensors hold no data"):
        check_device("meta")


def test_one_record_where_many_go_is_named_not_iterated(tiny_scorer):
    rec = {"response": "It is.", "context": "It is."}
    for call in (
        lambda: tiny_scorer.score_batch(rec),
        lambda: tiny_scorer.score_batch("It is."),
        lambda: list(tiny_scorer.score_stream(rec)),
    ):
        with pytest.raises(ValueError, match="records must be a list .* call score\\(\\)"):
            call()
    with pytest.raises(ValueError, match="labels must be a list .* got one str"):
        tiny_scorer.score_batch([rec], labels="ab")
    assert len(tiny_scorer.score_batch(r for r in [rec, rec])) == 2  # a generator is many
