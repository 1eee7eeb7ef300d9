"""Section 8 of ``benchmarks.speed``: scoring at scale.

* GPU end to end: ``score_batch`` pairs/s over bare forwards on the same pairs (CUDA only;
  "not measured: no GPU" otherwise).
* Streaming CLI: ``nli-faith score`` as a subprocess on synthetic files of short records,
  records/s and peak RSS (``wait4``'s ``ru_maxrss``): a cheap model (2-layer, hidden 32,
  random weights: the pipeline around the model dominates) on 10,000 and 100,000 records,
  so that any memory growth with the input shows; and the bundled model with
  ``--guardrail`` on a smaller file for a realistic rate.
* Ray Data: ``score_dataset`` with 1 and 2 CPU actors on a local ``ray.init(num_cpus=2)``
  beside plain ``score_batch`` on the same records (BEGIN dev).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .speed_common import (
    REPO,
    CpuMonitor,
    faithfulness_path,
    median,
    read_jsonl,
    rnd,
    timed,
)

_THINGS = ("museum", "bridge", "library", "stadium", "station", "hospital", "market", "school")
_PLACES = ("Lyon", "Osaka", "Porto", "Leipzig", "Nairobi", "Toronto", "Valencia", "Melbourne")


def synthetic_records(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` short records: a one-sentence answer against a two-sentence context, a third
    of them with a changed number (deterministic)."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        thing, place = rng.choice(_THINGS), rng.choice(_PLACES)
        year = rng.randrange(1850, 2020)
        said = year + (rng.randrange(1, 30) if k % 3 == 0 else 0)
        out.append(
            {
                "id": f"s{k}",
                "response": f"The {thing} in {place} opened in {said}.",
                "context": [f"The {thing} in {place} opened in {year}. It is open daily."],
            }
        )
    return out


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")


def _tiny_model(out: Path) -> Path:
    """The tests' cheap model: 2 layers, hidden 32, random weights, the bundled tokenizer."""
    from tests.helpers.tiny_model import write_tiny_nli

    return write_tiny_nli(
        out,
        REPO / "models" / "nli-faith-minilm-l6",
        labels=("ENTAILMENT", "NEUTRAL", "CONTRADICTION"),
    )


#: Runs a command and prints its peak RSS: the child is forked from this small process, so
#: its ``ru_maxrss`` is its own (a child forked from the benchmark itself would count the
#: benchmark's pages it held before ``exec``).
_PEAK_RSS = (
    "import resource, subprocess, sys; rc = subprocess.call(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
    "sys.exit(rc)"
)


def _run_cli(src: Path, out: Path, *flags: str, threads: int | None = None) -> dict[str, Any]:
    """``nli-faith score`` in a subprocess: wall time and its peak RSS."""
    cmd = [sys.executable, "-m", "nli_faith.cli", "score", str(src), "-o", str(out), "--quiet"]
    cmd += ["--no-progress", *flags]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _PEAK_RSS, *cmd], cwd=REPO, env=env, capture_output=True, text=True
    )
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    peak_kib = int(proc.stderr.strip().splitlines()[-1])
    rows = sum(1 for _ in out.open(encoding="utf-8"))
    return {
        "records": rows,
        "wall_s": rnd(wall, 1),
        "records_per_s": rnd(rows / wall, 1),
        "peak_rss_mib": rnd(peak_kib / 1024, 1),
        "flags": " ".join(flags),
        "torch_threads": threads,
    }


def _streaming(b) -> dict[str, Any]:
    sizes = (1_000, 5_000) if b.quick else (10_000, b.args.scale_records)
    real_n = 200 if b.quick else b.args.scale_real_records
    out: dict[str, Any] = {"runs": []}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        tiny = _tiny_model(tmp / "tiny")
        for n in sizes:
            src = tmp / f"in-{n}.jsonl"
            _write_jsonl(src, synthetic_records(n))
            mon = CpuMonitor()
            # one torch thread: the cheap model's forward is negligible, and on a busy
            # machine a second thread mostly waits for its core
            r = _run_cli(src, tmp / "out.jsonl", "--model", str(tiny), threads=1)
            r |= {"model": "cheap (2 layers, hidden 32, random weights)", "cpu": mon.stop()}
            out["runs"].append(r)
        src = tmp / "in-real.jsonl"
        _write_jsonl(src, synthetic_records(real_n))
        mon = CpuMonitor()
        r = _run_cli(src, tmp / "out.jsonl", "--guardrail")
        r |= {"model": "bundled, --guardrail (int8 ONNX, lexical pre-filter)", "cpu": mon.stop()}
        out["runs"].append(r)
    small, large = out["runs"][0], out["runs"][1]
    out["rss_growth_mib"] = rnd(large["peak_rss_mib"] - small["peak_rss_mib"], 1)
    out["records_ratio"] = rnd(large["records"] / small["records"], 1)
    return out


def _ray(b) -> dict[str, Any]:
    """score_dataset with 1 and 2 CPU actors vs score_batch, same records."""
    try:
        import ray
    except ImportError:
        return {"measured": False, "note": "ray is not installed"}
    from nli_faith.distributed import JSON_COLUMN, read_records, score_dataset

    n = 60 if b.quick else b.args.scale_ray_records
    src_path = faithfulness_path(b.data_dir, "begin_dev")
    recs = read_jsonl(src_path, n)
    out: dict[str, Any] = {"records": len(recs), "source": f"first {len(recs)} of begin_dev"}
    t_load, scorer = timed(lambda: __import__("nli_faith").FaithfulnessScorer(device="cpu"))
    scorer.score_batch(recs[:8])  # warm-up
    t_plain, _ = timed(lambda: scorer.score_batch(recs))
    out["score_batch"] = {
        "wall_s": rnd(t_plain, 2),
        "records_per_s": rnd(len(recs) / t_plain, 1),
        "model_load_s": rnd(t_load, 2),
        "threads": __import__("torch").get_num_threads(),
    }
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.jsonl"
        _write_jsonl(src, recs)
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        try:
            from ray.data import DataContext

            DataContext.get_current().enable_progress_bars = False
            for actors in (1, 2):
                ds = score_dataset(
                    read_records(str(src)), concurrency=actors, json_column=JSON_COLUMN
                )
                t, rows = timed(lambda ds=ds: ds.take_all())
                assert len(rows) == len(recs)
                out[f"ray_{actors}_actor"] = {
                    "wall_s": rnd(t, 2),
                    "records_per_s": rnd(len(recs) / t, 1),
                    "note": "includes starting the actors and loading one model in each",
                }
        finally:
            ray.shutdown()
    return out


def bare_forwards(sc, pairs: list, batch: int, device: str):
    """A call that runs the scorer's model alone over ``pairs``, tokenized and padded first."""
    import torch

    from .speed_common import padded_batches

    model = sc.nli.torch_model
    batches = [
        {k: torch.from_numpy(v).to(device) for k, v in p.items()}
        for p in padded_batches(sc.nli, pairs, batch)
    ]

    def bare() -> None:
        with torch.inference_mode():
            for x in batches:
                model(**x).logits  # noqa: B018
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    return bare


def _gpu_end_to_end(b) -> dict[str, Any]:
    import torch

    if not torch.cuda.is_available():
        return {"measured": False, "note": "not measured: no GPU"}
    from nli_faith.scorer import FaithfulnessScorer

    from .speed import _unique_pairs
    from .speed_inputs import workload_records

    records = workload_records(b.data_dir, 2 if b.quick else b.args.workload_per_set)
    out: dict[str, Any] = {"measured": True, "device": torch.cuda.get_device_name(0), "rows": []}
    for batch in (256, 512):
        sc = FaithfulnessScorer(device="cuda", batch_size=batch)
        pairs, _ = _unique_pairs(sc, records)
        bare = bare_forwards(sc, pairs, batch, "cuda")
        bare()
        sc.score_batch(records[:10])
        t_bare = median(timed(bare)[0] for _ in range(3))
        t_e2e = median(timed(lambda sc=sc: sc.score_batch(records))[0] for _ in range(3))
        out["rows"].append(
            {
                "batch_size": batch,
                "pairs": len(pairs),
                "bare_pairs_per_s": rnd(len(pairs) / t_bare, 0),
                "score_batch_pairs_per_s": rnd(len(pairs) / t_e2e, 0),
                "ratio": rnd(t_bare / t_e2e, 3),
            }
        )
    return out


def section_scale(b) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, fn in (
        ("gpu_end_to_end", _gpu_end_to_end),
        ("streaming_cli", _streaming),
        ("ray", _ray),
    ):
        t0 = time.perf_counter()
        mon = CpuMonitor()
        try:
            out[key] = fn(b)
        except Exception as err:  # keep the other parts
            import traceback

            traceback.print_exc()
            out[key] = {"error": f"{type(err).__name__}: {err}"}
        out[key]["part_wall_s"] = rnd(time.perf_counter() - t0, 1)
        out[key].setdefault("cpu", mon.stop())
    return out
