"""ScorerConfig is the one source of the scorer's options: the CLI's flags, the server's
limits and the Ray entry point all come from it."""

import argparse
import dataclasses
from pathlib import Path

import pytest

from nli_faith.config import DEFAULTS, FIELDS, ScorerConfig
from nli_faith.records import Limits


def _parser(**kwargs) -> argparse.ArgumentParser:
    from nli_faith.cli.options import add_scorer_options, add_thresholds_option

    p = argparse.ArgumentParser()
    add_scorer_options(p, **kwargs)
    add_thresholds_option(p)
    return p


def test_every_field_has_a_flag_with_its_doc_and_default():
    p = _parser()
    by_dest = {}
    for action in p._actions:
        by_dest.setdefault(action.dest, action)
    limit_flags = {"max_response_chars", "max_context_chars", "max_documents", "max_claims"}
    assert limit_flags <= set(by_dest)  # ``limits``: one flag per limit
    for f in dataclasses.fields(ScorerConfig):
        if f.name == "limits":
            continue
        action = by_dest[f.name]
        assert action.option_strings[0] == "--" + f.name.replace("_", "-")
        assert action.default is None  # not given: the preset's or the field's value
        first_words = f.metadata["doc"].replace("``", "").split(";")[0][:20]
        assert first_words in action.help.replace("%%", "%"), f.name
    help_text = p.format_help()
    assert "(default: 256)" in help_text  # chunk_tokens, from the field's default
    assert "(default: 0.3)" in help_text  # contradiction_overlap


def test_flags_make_the_config_the_library_makes():
    from nli_faith.cli.options import config_from_args

    p = _parser()
    assert config_from_args(p.parse_args([])) == DEFAULTS
    args = p.parse_args(
        ["--no-sentence-chunks", "--chunk-tokens", "none", "--contradiction-overlap", "0",
         "--max-length", "128", "--dtype", "float32", "--no-number-check", "--chunk-overlap",
         "2", "--guardrail", "--onnx-fp32", "--max-claims", "0"]
    )  # fmt: skip
    want = ScorerConfig.guardrail(
        sentence_chunks=False, chunk_tokens=None, contradiction_overlap=0.0, max_length=128,
        dtype="float32", number_check=False, chunk_overlap=2, onnx_quantize=False,
        limits=Limits(max_claims=None),
    )  # fmt: skip
    assert config_from_args(args) == want


def test_the_server_keeps_its_limits_once():
    from nli_faith.cli.serve import add_parser, settings_from_args
    from nli_faith.serve.settings import SERVE_LIMITS, ServeSettings

    top = argparse.ArgumentParser()
    add_parser(top.add_subparsers(dest="command"))
    settings = settings_from_args(top.parse_args(["serve", "--max-claims", "7"]))
    assert settings.limits is settings.scorer.limits  # one place
    assert settings.limits == dataclasses.replace(SERVE_LIMITS, max_claims=7)
    assert "limits" not in {f.name for f in dataclasses.fields(ServeSettings)}
    assert ServeSettings().limits == SERVE_LIMITS  # the service's own defaults
    mine = ScorerConfig(limits=Limits(max_documents=3))
    assert ServeSettings(scorer=mine).limits == Limits(max_documents=3)
    given = ServeSettings(scorer=mine, limits=Limits(max_claims=None))
    assert given.scorer.limits == Limits(max_claims=None)
    assert ServeSettings.from_json(given.to_json()) == given


def test_score_dataset_takes_a_config_and_its_field_names():
    from nli_faith.distributed import score_dataset
    from nli_faith.errors import OptionError

    with pytest.raises(TypeError, match="score_dataset has no option 'entail_treshold'"):
        score_dataset(None, entail_treshold=0.5)
    with pytest.raises(OptionError, match="backend must be 'torch' or 'onnx'"):
        score_dataset(None, ScorerConfig(), backend="tf")
    with pytest.raises(OptionError, match="config must be a ScorerConfig"):
        score_dataset(None, {"model": "default"})


def test_fields_are_the_options_in_order():
    assert FIELDS[0] == "model" and FIELDS[-2:] == ("limits", "thresholds")
    assert set(DEFAULTS.options()) == set(FIELDS) - {"model"}


def test_threads_follow_omp_num_threads_when_not_given(monkeypatch):
    from nli_faith.environment import env_threads, usable_cores

    assert ScorerConfig().resolved_threads({"OMP_NUM_THREADS": "3"}) == 3
    assert ScorerConfig(threads=2).resolved_threads({"OMP_NUM_THREADS": "3"}) == 2
    for unset in ("", "many", "0", "-2"):
        assert env_threads({"OMP_NUM_THREADS": unset}) == usable_cores()
    assert env_threads({}) == usable_cores()
    monkeypatch.setenv("OMP_NUM_THREADS", "5")  # os.environ, read when asked
    assert DEFAULTS.resolved_threads() == 5
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert DEFAULTS.resolved_threads() == usable_cores()


def test_onnx_cache_dir_follows_the_environment_when_not_given(monkeypatch, tmp_path):
    home = ScorerConfig().resolved_onnx_cache_dir({})
    assert home == str(Path.home() / ".cache" / "nli-faith" / "onnx")
    both = {"NLI_FAITH_CACHE": "/srv/nli", "XDG_CACHE_HOME": "/srv/xdg"}
    assert ScorerConfig().resolved_onnx_cache_dir(both) == "/srv/nli/onnx"
    assert ScorerConfig().resolved_onnx_cache_dir({"XDG_CACHE_HOME": "/srv/xdg"}) == (
        "/srv/xdg/nli-faith/onnx"
    )
    given = ScorerConfig(backend="onnx", onnx_cache_dir=tmp_path)  # a path is kept as text
    assert given.onnx_cache_dir == str(tmp_path)
    assert given.resolved_onnx_cache_dir(both) == str(tmp_path)
    monkeypatch.setenv("NLI_FAITH_CACHE", str(tmp_path))
    assert DEFAULTS.resolved_onnx_cache_dir() == str(tmp_path / "onnx")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"threads": 0}, "threads must be a whole number of at least 1, got 0"),
        ({"threads": True}, "threads must be a whole number of at least 1, got True"),
        ({"threads": "2"}, "threads must be a whole number of at least 1, got '2'"),
        ({"backend": "onnx", "onnx_cache_dir": 3}, "onnx_cache_dir must be a string, got 3"),
        ({"onnx_cache_dir": "/tmp/x"}, "onnx_cache_dir is used only with backend='onnx'"),
    ],
)
def test_threads_and_onnx_cache_dir_are_checked(changes, message):
    from nli_faith.errors import OptionError

    with pytest.raises(OptionError, match=message):
        ScorerConfig(**changes)


def test_threads_and_onnx_cache_dir_flags():
    from nli_faith.cli.options import config_from_args

    p = _parser()
    args = p.parse_args(["--threads", "2", "--backend", "onnx", "--onnx-cache-dir", "/srv/c"])
    assert config_from_args(args) == ScorerConfig(
        backend="onnx", threads=2, onnx_cache_dir="/srv/c"
    )
    assert config_from_args(p.parse_args([])).threads is None
    with pytest.raises(SystemExit):
        p.parse_args(["--threads", "two"])
