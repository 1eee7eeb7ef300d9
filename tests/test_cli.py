import json
import os
import subprocess
import sys

import pytest
from conftest import REPO, write_jsonl


def run_cli(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "nli_faith.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )


def test_help_is_instant_and_does_not_import_torch():
    code = (
        "import sys\n"
        "from nli_faith.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('HEAVY' if {'torch', 'transformers', 'spacy'} & set(sys.modules) else 'LIGHT')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert "score" in out.stdout and "train" in out.stdout
    assert out.stdout.strip().endswith("LIGHT")


def test_score_file_end_to_end_with_a_bad_line(tmp_path, tiny_model_dir):
    src = write_jsonl(
        tmp_path / "in.jsonl",
        [
            {
                "id": "a",
                "input": "q",
                "actual_output": "Paris is in France.",
                "retrieval_context": ["Paris is the capital of France."],
            },
            "{not json",
            {"id": "c", "question": "q", "response": ["not", "a", "string"], "contexts": ["x"]},
            {
                "id": "d",
                "question": "q",
                "answer": "It was built in 1889.",
                "retrieved_contexts": ["The tower was completed in 1889."],
            },
        ],
    )
    out = tmp_path / "out.jsonl"
    proc = run_cli("score", str(src), "-o", str(out), "--model", str(tiny_model_dir))
    assert proc.returncode == 1, proc.stderr  # some records failed
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["line"] for x in lines] == [1, 2, 3, 4]  # one output line per input line
    assert lines[0]["id"] == "a" and "error" not in lines[0] and lines[0]["n_claims"] == 1
    assert "not valid JSON" in lines[1]["error"]
    assert "'response' must be a string" in lines[2]["error"]
    assert lines[3]["claims"][0]["evidence"]["text"] == "The tower was completed in 1889."
    assert "line 2:" in proc.stderr and "line 3:" in proc.stderr
    assert "mean strict" in proc.stderr and "claims not found (idk)" in proc.stderr


def test_score_from_stdin_exit_zero(tiny_model_dir):
    rec = {"response": "Rome is in Italy.", "context": "Rome is the capital of Italy."}
    proc = run_cli(
        "score", "-", "--model", str(tiny_model_dir), "--quiet", stdin=json.dumps(rec) + "\n"
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["n_claims"] == 1 and set(out) >= {"lenient", "strict", "soft", "reason", "claims"}


def test_guardrail_options_on_the_bundled_model():
    """--backend onnx --prefilter lexical --early-exit: the CPU guardrail set-up."""
    pytest.importorskip("onnxruntime")
    rec = {
        "response": "The warranty lasts thirty-six months. Returns are free.",
        "context": [
            "The warranty lasts twenty-four months. It covers parts and labour.",
            "Returns cost nothing within 30 days. Refunds take a week.",
            "Our office is in Leeds. It opens at nine.",
        ],
    }
    proc = run_cli(
        "score", "-", "--backend", "onnx", "--prefilter", "lexical", "--prefilter-top-k", "1",
        "--early-exit", "--quiet", stdin=json.dumps(rec) + "\n",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert [c["verdict"] for c in out["claims"]] == ["no", "yes"]
    preset = run_cli("score", "-", "--guardrail", "--quiet", stdin=json.dumps(rec) + "\n")
    assert preset.returncode == 0, preset.stderr
    assert [c["verdict"] for c in json.loads(preset.stdout)["claims"]] == ["no", "yes"]
    bad = run_cli("score", "-", "--prefilter", "bm25", stdin="")
    assert bad.returncode == 2 and "invalid choice: 'bm25'" in bad.stderr
    alone = run_cli("score", "-", "--prefilter-top-k", "2", stdin="")
    assert alone.returncode == 2 and "given but no prefilter" in alone.stderr
    zero = run_cli("score", "-", "--guardrail", "--prefilter-top-k", "0", stdin="")
    assert (
        zero.returncode == 2
        and "--prefilter-top-k must be a whole number of at least 1, got 0" in zero.stderr
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], {"backend": "torch"}),
        (
            ["--guardrail"],
            {"backend": "onnx", "prefilter": "lexical", "prefilter_top_k": 2, "early_exit": True},
        ),
        (
            ["--guardrail", "--backend", "torch", "--prefilter-top-k", "4"],
            {"backend": "torch", "prefilter": "lexical", "prefilter_top_k": 4, "early_exit": True},
        ),
        (["--no-composite"], {"backend": "torch", "composite": False}),
    ],
)
def test_guardrail_flag_and_explicit_options_merge(monkeypatch, argv, expected):
    from nli_faith import cli, scorer

    seen: dict = {}

    class Recorder:
        @classmethod
        def from_config(cls, config):
            seen.update(config.options())
            raise ValueError("recorded")

    monkeypatch.setattr(scorer, "FaithfulnessScorer", Recorder)
    assert cli.main(["score", "-", *argv]) == 2  # the recorder's error, reported cleanly
    assert {k: seen.get(k) for k in expected} == expected
    if not argv:  # the scorer's defaults
        assert seen.get("prefilter") is None and seen.get("early_exit", False) is False
        assert seen.get("composite", True) is True


def test_help_loads_no_heavy_library():
    """`nli-faith --help` (every sub-command's parser) stays instant: nothing heavy imported."""
    code = (
        "import sys\n"
        "from nli_faith.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('torch', 'numpy', 'httpx', 'transformers', 'spacy', 'ray')"
        " if m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_band_flags_reach_the_scorer(monkeypatch):
    from nli_faith import cli, scorer

    seen: dict = {}

    class Recorder:
        @classmethod
        def from_config(cls, config):
            seen.update(config.options())
            raise ValueError("recorded")

    monkeypatch.setattr(scorer, "FaithfulnessScorer", Recorder)
    assert cli.main(["score", "-", "--band-high", "0.9", "--band-low", "0.1"]) == 2
    assert (seen["band_high"], seen["band_low"]) == (0.9, 0.1)


def test_onnx_fp32_without_the_onnx_backend_is_refused(tmp_path, tiny_model_dir, capsys):
    from nli_faith.cli import main

    src = write_jsonl(tmp_path / "in.jsonl", [{"response": "It is.", "context": "It is."}])
    argv = ["score", str(src), "-o", str(tmp_path / "o.jsonl"), "--model", str(tiny_model_dir)]
    assert main([*argv, "--onnx-fp32"]) == 2
    assert "[E105] --onnx-fp32 chooses the ONNX graph's precision" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()


def test_label_map_flag_reorders_the_model_outputs(tmp_path, tiny_model_dir, capsys):
    from nli_faith.cli import main

    src = write_jsonl(
        tmp_path / "in.jsonl", [{"response": "The cat sat.", "context": "A cat sat on a mat."}]
    )
    base = ["score", str(src), "--model", str(tiny_model_dir), "--quiet"]

    def first_claim(*extra: str) -> dict:
        out = tmp_path / "o.jsonl"
        assert main([*base, "-o", str(out), *extra]) == 0
        return json.loads(out.read_text())["claims"][0]

    plain = first_claim()
    swapped = first_claim("--label-map", "entailment=2,neutral=1,contradiction=0")
    as_json = first_claim("--label-map", '{"entailment": 2, "neutral": 1, "contradiction": 0}')
    assert swapped == as_json and swapped["p_entail"] != plain["p_entail"]
    with pytest.raises(SystemExit) as exit_:  # argparse refuses what is not NAME=INDEX
        main([*base, "-o", str(tmp_path / "bad.jsonl"), "--label-map", "entailment=x"])
    assert exit_.value.code == 2
    assert "argument --label-map: expected NAME=INDEX pairs" in capsys.readouterr().err
    for bad, needle in [
        ("foo=1", "[E004] --label-map key 'foo'"),
        ("entailment=7", "[E002] --label-map"),
    ]:
        assert main([*base, "-o", str(tmp_path / "bad.jsonl"), "--label-map", bad]) == 2
        assert needle in capsys.readouterr().err


def test_an_output_that_is_an_input_or_another_output_is_refused_before_work(
    tmp_path, tiny_model_dir, capsys
):
    from nli_faith.cli import main

    src = write_jsonl(tmp_path / "in.jsonl", [{"response": "It is.", "context": "It is."}])
    before = src.read_bytes()
    model = ["--model", str(tiny_model_dir)]
    out = str(tmp_path / "o.jsonl")
    cases = [
        (["score", str(src), "-o", str(src), *model], "output", "the input"),
        (["score", str(src), "-o", out, "--escalate", out, *model], "--escalate", "the output"),
        (["score", str(src), "-o", out, "--report", out, *model], "--report", "the output"),
        (["calibrate", str(src), "-o", str(src), *model], "output", "the input"),
        (["report", str(src), "-o", str(src)], "output", "the input"),
        (["report", out, "--input", str(src), "-o", str(src)], "output", "the --input file"),
        (["merge", str(src), out, "-o", str(src)], "output", "the scored file"),
        (
            ["score", str(src), "-o", out, "--thresholds", out, *model],
            "output",
            "the --thresholds file",
        ),
    ]
    for argv, what, other in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert f"[E118] {what} " in err and f"is also {other}:" in err, err
        assert src.read_bytes() == before  # nothing was overwritten
    argv = ["score", str(src), "-o", out, "--report", str(tmp_path / "no" / "r.html"), *model]
    assert main(argv) == 2
    assert "--report " in capsys.readouterr().err and not (tmp_path / "o.jsonl").exists()
    # a device file is no file to overwrite: discarding both outputs is allowed
    argv = ["score", str(src), "-o", os.devnull, "--escalate", os.devnull, "--quiet", *model]
    assert main(argv) == 0


def test_ray_flags_without_the_ray_engine_are_refused(tmp_path, capsys):
    from nli_faith.cli import main

    src = write_jsonl(tmp_path / "in.jsonl", [{"response": "It is.", "context": "It is."}])
    argv = ["score", str(src), "-o", str(tmp_path / "o.jsonl"), "--concurrency", "3"]
    assert main(argv) == 2
    assert "--concurrency applies only with --engine ray" in capsys.readouterr().err
    assert main([*argv, "--num-gpus", "1"]) == 2
    assert "--num-gpus, --concurrency apply only" in capsys.readouterr().err


def test_flagged_names_flags_once():
    from nli_faith.cli.options import flagged

    assert flagged("--concurrency and concurrency must") == "--concurrency and --concurrency must"
    assert flagged("prefilter_top_k=2 is given") == "--prefilter-top-k=2 is given"
    assert flagged("cfg/entail_threshold.json and 'batch_size'") == (
        "cfg/entail_threshold.json and 'batch_size'"
    )
