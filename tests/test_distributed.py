"""Ray Data engine: the same rows as the single-process CLI, record for record.

A local Ray instance (``ray.init(num_cpus=2)``, no GPU) is started once for the module and
shut down after it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import REPO, write_jsonl

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")

DATA_DIR = Path(os.environ.get("NLI_FAITH_DATA_DIR", REPO.parent / "shared" / "data"))
BEGIN_DEV = DATA_DIR / "faithfulness" / "begin_dev.jsonl"


@pytest.fixture(scope="module")
def local_ray():
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    from ray.data import DataContext

    DataContext.get_current().enable_progress_bars = False
    yield ray
    ray.shutdown()


def cli(*args: str) -> int:
    from nli_faith.cli import main

    return main(["score", *args, "--no-progress", "--quiet"])


def jsonl_rows(path: Path) -> list[dict]:
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    return [json.loads(line) for f in files for line in f.read_text().splitlines()]


def test_cli_ray_engine_same_rows_as_the_local_cli(local_ray, tmp_path):
    """The example file, 300 records of BEGIN (when the data is here), a line that is not
    JSON and a record of the wrong type: two CPU actors, JSONL out, the local CLI's file."""
    lines = (REPO / "examples" / "answers.jsonl").read_text().splitlines()
    if BEGIN_DEV.exists():
        lines += BEGIN_DEV.read_text().splitlines()[:300]
    lines.insert(3, "{not json")
    lines.insert(5, '{"id": NaN, "response": "a", "context": "b"}')
    lines.insert(6, '{"id": ' + "1" * 5000 + ', "response": "a", "context": "b"}')
    lines.insert(len(lines) - 5, json.dumps({"id": 7, "response": ["a list"], "context": "x"}))
    src = write_jsonl(tmp_path / "in.jsonl", lines)
    local, out = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    # int8 ONNX runs one pair at a time: each pair's result is independent of its batch mates
    opts = ("--backend", "onnx")
    assert cli(str(src), "-o", str(local), *opts) == 1  # two records failed
    assert cli(str(src), "-o", str(out), *opts, "--engine", "ray", "--concurrency", "2") == 1
    assert out.is_file()  # the file the local engine writes, in input order
    assert out.read_text() == local.read_text()
    got = jsonl_rows(out)
    assert len(got) == len(lines)
    bad = {r["line"]: r["error"] for r in got if "error" in r}

    def line_of(text: str) -> int:  # 1-based, wherever the inserts put it
        return next(k for k, line in enumerate(lines, 1) if text in line)

    not_json, nan, digits = line_of("{not json"), line_of("NaN"), line_of("1" * 5000)
    wrong_type = line_of('["a list"]')
    assert len({not_json, nan, digits, wrong_type}) == 4
    assert set(bad) == {not_json, nan, digits, wrong_type}
    assert "not valid JSON" in bad[not_json]
    assert bad[nan].endswith("not valid JSON: NaN is not a JSON number.")
    assert bad[digits].endswith("not valid JSON: an integer has more than 4,300 digits.")
    assert "'response' must be a string" in bad[wrong_type]
    if not BEGIN_DEV.exists():
        pytest.skip(f"only the example file was compared: {BEGIN_DEV} is absent")


def test_cli_ray_engine_thresholds_summary_escalate_report(
    local_ray, tmp_path, bundled_thresholds, capsys
):
    """--thresholds (its thresholds and the 'faithful' field), the summary table,
    --escalate and --report: the same through both engines; --resume is refused."""
    from nli_faith.cli import main

    lines = (REPO / "examples" / "answers.jsonl").read_text().splitlines()
    lines.insert(2, "{not json")
    src = write_jsonl(tmp_path / "in.jsonl", lines)
    files = {}
    for engine in ("local", "ray"):
        d = tmp_path / engine
        d.mkdir()
        args = [str(src), "-o", str(d / "out.jsonl"), "--thresholds", str(bundled_thresholds)]
        args += ["--escalate", str(d / "esc.jsonl"), "--report", str(d / "report.html")]
        capsys.readouterr()
        code = main(["score", *args, "--no-progress", "--engine", engine])
        files[engine] = {p.name: p.read_text() for p in d.iterdir()}
        files[engine]["summary"] = capsys.readouterr().err.split("report:")[0]
        assert code == 1  # the line that is not JSON
    assert files["ray"] == files["local"]
    rows = [json.loads(x) for x in files["ray"]["out.jsonl"].splitlines()]
    assert {r.get("faithful") for r in rows} == {True, False, None}
    assert "faithful (--thresholds)" in files["ray"]["summary"]
    code = main(["score", str(src), "-o", str(tmp_path / "r.jsonl"), "--resume", "--engine", "ray"])
    assert code == 2 and "cannot resume" in capsys.readouterr().err
    # a URI: Ray Data's sinks write a directory; the summary is the same
    uri = f"file://{tmp_path}/dir.jsonl"
    args = [str(src), "-o", uri, "--thresholds", str(bundled_thresholds), "--engine", "ray"]
    assert main(["score", *args, "--no-progress"]) == 1
    summary = capsys.readouterr().err.split("wrote a directory")[0]
    assert summary.splitlines() == files["local"]["summary"].splitlines()[1:]  # not "line 3"
    assert len(jsonl_rows(tmp_path / "dir.jsonl")) == len(lines)
    code = main(["score", *args, "--report", str(tmp_path / "r.html")])
    assert code == 2 and "cannot add --report" in capsys.readouterr().err


def test_score_dataset_on_records_and_parquet_input(local_ray, tmp_path, tiny_model_dir):
    """Rows that are records (from a Parquet file), with the tiny model; bad args refused."""
    import datetime

    import pyarrow as pa
    import pyarrow.parquet as pq

    from nli_faith.distributed import read_records, score_dataset, write_output
    from nli_faith.rows import json_row, scored_row
    from nli_faith.scorer import FaithfulnessScorer

    recs = [
        {"id": "a", "response": "Paris is in France.", "context": ["Paris is in France."]},
        {"id": "b", "response": "It rained.", "context": ["The sun shone all day."]},
        {"id": "c", "response": None, "context": ["x"]},
    ]
    path = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(recs), path)
    day = tmp_path / "day.parquet"  # an id that is a date, not a JSON value: echoed as text
    pq.write_table(pa.Table.from_pylist([recs[0] | {"id": datetime.date(2024, 1, 2)}]), day)
    (row,) = score_dataset(read_records(str(day)), model=str(tiny_model_dir)).take_all()
    assert row["id"] == "2024-01-02" and row["n_claims"] == 1
    ds = read_records(str(path))
    scored = score_dataset(ds, model=str(tiny_model_dir), device="cpu", batch_size=2)
    write_output(scored, str(tmp_path / "out.parquet"))  # a directory of Parquet files
    rows = pq.read_table(tmp_path / "out.parquet").to_pylist()
    got = sorted((json_row(r) for r in rows), key=lambda r: r["line"])
    scorer = FaithfulnessScorer(str(tiny_model_dir), device="cpu")
    want = [
        scored_row(scorer, k, r, res)
        for k, (r, res) in enumerate(zip(recs, scorer.score_batch(recs)), 1)
    ]
    assert got == want
    assert "field 'response' is null" in got[2]["error"]
    with pytest.raises(ValueError, match="concurrency"):
        score_dataset(ds, concurrency=0)
