"""The facade stays small: a handful of methods, one configuration, the old names forwarded."""

import dataclasses
import inspect

import numpy as np
import pytest

from nli_faith.config import ScorerConfig
from nli_faith.moved import MOVED
from nli_faith.records import Limits
from nli_faith.scorer import FaithfulnessScorer

CONTEXT = ["The Eiffel Tower is located in Paris. It was completed in 1889.", "It is 330 m."]
ANSWER = "The tower is in Paris. It was finished in 1889."


def _public_methods(cls: type) -> set[str]:
    """Names of the public functions, class and static methods defined on ``cls``."""
    kinds = (classmethod, staticmethod)
    return {
        name
        for name, value in vars(cls).items()
        if not name.startswith("_") and (inspect.isfunction(value) or isinstance(value, kinds))
    }


def test_the_facade_has_a_handful_of_public_methods():
    methods = _public_methods(FaithfulnessScorer)
    assert methods == {
        "score",
        "score_batch",
        "score_stream",
        "check_stream",
        "close",
        "guardrail",
        "from_thresholds",
        "from_config",
    }
    assert not any(hasattr(FaithfulnessScorer, name) for name in MOVED)  # no methods


def test_the_options_are_the_config_fields_and_nothing_else(tiny_model_dir):
    params = inspect.signature(FaithfulnessScorer.__init__).parameters
    assert list(params) == ["self", "model", "config", "overrides"]  # no option repeated
    assert params["overrides"].kind is inspect.Parameter.VAR_KEYWORD
    for f in dataclasses.fields(ScorerConfig):  # each option documented once, on its field
        assert f.metadata["doc"] and f"{f.name}: {f.metadata['doc']}" in ScorerConfig.__doc__
    with pytest.raises(
        TypeError, match="no option 'entail_treshold'; did you mean entail_threshold"
    ):
        FaithfulnessScorer(str(tiny_model_dir), entail_treshold=0.6)
    with pytest.raises(TypeError, match=r"limits=Limits\(max_claims=...\)"):
        FaithfulnessScorer(str(tiny_model_dir), max_claims=3)
    base = ScorerConfig(str(tiny_model_dir), device="cpu", chunk_tokens=64)
    scorer = FaithfulnessScorer(config=base, composite=False, limits=None)
    assert (scorer.chunk_tokens, scorer.composite, scorer.limits) == (64, False, Limits())
    assert FaithfulnessScorer(config=base).composite is True  # the config is left as it was
    from nli_faith.engine.parts import load_parts

    assert list(inspect.signature(load_parts).parameters) == ["config"]


def test_a_config_checks_itself_before_anything_loads():
    import nli_faith
    from nli_faith.errors import LabelMapError, OptionError

    assert nli_faith.ScorerConfig is ScorerConfig and nli_faith.Limits is Limits
    for options, needle in [
        ({"backend": "tf"}, "backend must be 'torch' or 'onnx', got 'tf'"),
        ({"granularity": "word"}, "granularity must be one of sentence, clause"),
        ({"prefilter": "bm25"}, "prefilter must be one of 'lexical', 'embedding'"),
        ({"prefilter_top_k": 2}, "prefilter_top_k=2 is given but no prefilter"),
        ({"batch_size": 0}, "batch_size must be a whole number of at least 1, got 0"),
        ({"entail_threshold": 1.5}, r"entail_threshold must be in \[0, 1\], got 1.5"),
        ({"chunk_overlap": -1}, "chunk_overlap must be a whole number of at least 0"),
        ({"composite": None}, "composite must be True or False, got None"),
        ({"onnx_quantize": False}, "onnx_quantize is used only with backend='onnx'"),
        ({"limits": {"max_claims": 3}}, r"limits must be a Limits\(...\) or None"),
    ]:
        with pytest.raises(OptionError, match=needle):
            ScorerConfig(**options)
        with pytest.raises(OptionError, match=needle):
            ScorerConfig().replace(**options)
    with pytest.raises(LabelMapError, match="label_map must be a mapping"):
        ScorerConfig(label_map="entailment=0")
    config = ScorerConfig(entail_threshold=1, spacy_model=None, limits=None)
    assert config.entail_threshold == 1.0 and type(config.entail_threshold) is float
    assert config.limits == Limits()


def _same_matrix(a, b) -> None:
    assert [c.text for c in a.claims] == [c.text for c in b.claims]
    assert [c.text for c in a.chunks] == [c.text for c in b.chunks]
    np.testing.assert_array_equal(a.mask, b.mask)
    np.testing.assert_array_equal(a.probs, b.probs)


def _old(scorer, name):
    """The old attribute, checking that it warns, names its new spelling and the caller."""
    with pytest.warns(DeprecationWarning, match=f"use scorer.{MOVED[name][0].split('(')[0]}") as w:
        attr = getattr(scorer, name)
    assert w[0].filename == __file__
    return attr


def test_old_names_warn_and_give_what_the_stages_give(tiny_scorer):
    stages = tiny_scorer.stages
    claims = stages.claims(ANSWER)
    assert [c.text for c in _old(tiny_scorer, "claims")(ANSWER)] == [c.text for c in claims]
    old_chunks = _old(tiny_scorer, "chunk")(CONTEXT, claims)
    assert [c.text for c in old_chunks] == [c.text for c in stages.chunks(CONTEXT, claims)]
    plan = stages.plan(ANSWER, CONTEXT)
    np.testing.assert_array_equal(_old(tiny_scorer, "plan")(ANSWER, CONTEXT).mask, plan.mask)
    (m,) = stages.matrices([plan])
    _same_matrix(_old(tiny_scorer, "matrices")([plan])[0], m)
    _same_matrix(_old(tiny_scorer, "matrix")(ANSWER, CONTEXT), m)
    bad = {"response": None, "context": "x"}
    good, failed = _old(tiny_scorer, "matrix_batch")(
        [{"response": ANSWER, "context": CONTEXT}, bad]
    )
    _same_matrix(good, m)
    assert "'response' is null" in str(failed)
    assert stages.aggregate(m) == tiny_scorer.score(ANSWER, CONTEXT)  # the whole pipeline
    result = stages.aggregate(m, entail_threshold=0.2)
    assert _old(tiny_scorer, "aggregate")(m, entail_threshold=0.2) == result
    refs = ["The tower was completed in 1889."]
    checked = stages.check_reference([result], refs)
    assert _old(tiny_scorer, "check_reference")([result], refs) == checked
    assert checked[0].hallucination_rate is not None
    assert _old(tiny_scorer, "passes")(result) is None  # no thresholds: no gate
    with pytest.raises(AttributeError, match="no attribute 'matrixx'"):
        tiny_scorer.matrixx  # noqa: B018


def test_thresholds_keyword_config_and_from_thresholds_agree(bundled_thresholds):
    by_keyword = FaithfulnessScorer(device="cpu", thresholds=bundled_thresholds)
    by_config = FaithfulnessScorer.from_config(
        ScorerConfig(device="cpu", thresholds=str(bundled_thresholds))
    )
    explicit = FaithfulnessScorer.from_thresholds(
        bundled_thresholds, device="cpu", entail_threshold=0.7
    )
    # the file's options fill the options left None; one given explicitly wins
    assert by_keyword.entail_threshold == by_config.entail_threshold == 0.6
    assert explicit.entail_threshold == 0.7 and explicit.contradict_threshold == 0.6
    response = "The tower is in Paris. It is 500 metres tall."
    r = by_keyword.score(response, CONTEXT)
    gate = by_keyword.thresholds.decision
    assert r.strict is not None and gate.passes(r) is (r.strict >= 0.6)  # the file's gate
    assert _old(by_keyword, "passes")(r) is gate.passes(r)
    assert by_config.score(response, CONTEXT) == r
    with pytest.raises(ValueError, match="thresholds must be left out of from_thresholds"):
        FaithfulnessScorer.from_thresholds(bundled_thresholds, thresholds=bundled_thresholds)
    with pytest.raises(ValueError, match="config must be a ScorerConfig"):
        FaithfulnessScorer.from_config({"model": "default"})


def test_from_config_builds_the_scorer_the_configuration_describes(tiny_model_dir):
    config = ScorerConfig(str(tiny_model_dir), device="cpu", chunk_tokens=64, composite=False)
    scorer = FaithfulnessScorer.from_config(config)
    assert (scorer.chunk_tokens, scorer.composite) == (64, False)
    same = FaithfulnessScorer(str(tiny_model_dir), device="cpu", chunk_tokens=64, composite=False)
    assert same.score(ANSWER, CONTEXT) == scorer.score(ANSWER, CONTEXT)


def test_settings_changed_on_a_loaded_scorer_are_checked_as_options_are(tiny_scorer):
    before = tiny_scorer.entail_threshold
    for name, value, needle in [
        ("entail_threshold", "0.7", r"entail_threshold must be in \[0, 1\], got '0.7'"),
        ("chunk_tokens", 0, "chunk_tokens must be a whole number of at least 1"),
        ("chunk_overlap", -5, "chunk_overlap must be a whole number of at least 0"),
        ("early_exit", "no", "early_exit must be True or False"),
        ("limits", None, r"limits must be a Limits\(...\)"),
    ]:
        with pytest.raises(ValueError, match=needle):
            setattr(tiny_scorer, name, value)
    assert tiny_scorer.entail_threshold == before  # a refused value changes nothing
    tiny_scorer.entail_threshold = 0.7
    assert tiny_scorer.stages.parts.entail_threshold == 0.7
    tiny_scorer.entail_threshold = before
