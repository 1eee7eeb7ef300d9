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
    rows = [json.loads(line) for f in files for line in f.read_text().splitlines() if line]
    return sorted(rows, key=lambda r: r["line"])


def test_cli_ray_engine_same_rows_as_the_local_cli(local_ray, tmp_path):
    """The example file, 300 records of BEGIN (when the data is here), a line that is not
    JSON and a record of the wrong type: two CPU actors, JSONL out, the local CLI's rows."""
    lines = (REPO / "examples" / "answers.jsonl").read_text().splitlines()
    if BEGIN_DEV.exists():
        lines += BEGIN_DEV.read_text().splitlines()[:300]
    lines.insert(3, "{not json")
    lines.insert(len(lines) - 5, json.dumps({"id": 7, "response": ["a list"], "context": "x"}))
    src = write_jsonl(tmp_path / "in.jsonl", lines)
    local, out = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    # int8 ONNX runs one pair at a time: each pair's result is independent of its batch mates
    opts = ("--backend", "onnx")
    assert cli(str(src), "-o", str(local), *opts) == 1  # two records failed
    assert cli(str(src), "-o", str(out), *opts, "--engine", "ray", "--concurrency", "2") == 1
    assert out.is_dir()  # Ray Data writes a directory of files
    want, got = jsonl_rows(local), jsonl_rows(out)
    for r in want:  # Arrow rows hold the id as a string
        if "id" in r and not isinstance(r["id"], str):
            r["id"] = json.dumps(r["id"])
    assert len(got) == len(want) == len(lines)
    assert got == want
    bad = {r["line"]: r["error"] for r in got if "error" in r}
    assert set(bad) == {4, len(lines) - 5}
    assert "not valid JSON" in bad[4] and "'response' must be a string" in bad[len(lines) - 5]
    if not BEGIN_DEV.exists():
        pytest.skip(f"only the example file was compared: {BEGIN_DEV} is absent")


def test_score_dataset_on_records_and_parquet_input(local_ray, tmp_path, tiny_model_dir):
    """Rows that are records (from a Parquet file), with the tiny model; bad args refused."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from nli_faith.distributed import read_records, score_dataset, write_output
    from nli_faith.io import json_row, output_row
    from nli_faith.scorer import FaithfulnessScorer

    recs = [
        {"id": "a", "response": "Paris is in France.", "context": ["Paris is in France."]},
        {"id": "b", "response": "It rained.", "context": ["The sun shone all day."]},
        {"id": "c", "response": None, "context": ["x"]},
    ]
    path = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(recs), path)
    ds = read_records(str(path))
    scored = score_dataset(ds, model=str(tiny_model_dir), device="cpu", batch_size=2)
    write_output(scored, str(tmp_path / "out.parquet"))  # a directory of Parquet files
    rows = pq.read_table(tmp_path / "out.parquet").to_pylist()
    got = sorted((json_row(r) for r in rows), key=lambda r: r["line"])
    scorer = FaithfulnessScorer(str(tiny_model_dir), device="cpu")
    want = [
        output_row(k, r, res) for k, (r, res) in enumerate(zip(recs, scorer.score_batch(recs)), 1)
    ]
    assert got == want
    assert "field 'response' is null" in got[2]["error"]
    with pytest.raises(ValueError, match="concurrency"):
        score_dataset(ds, concurrency=0)
