"""GPU ``score_batch`` over bare forwards, alone: section 8's GPU measurement of
``python -m benchmarks run speed`` without the rest of the harness (no Ray, no CLI runs),
for a bare GPU machine.

    WORKLOAD_PER_SET=60 python3 scripts/gpu_training/gpu_end_to_end.py --data DATA --out OUT

``--workers`` adds, at one batch size, ``score_batch(n_process=N)`` and
``score_stream(block_size=B, n_process=N)`` for each N listed: N forked workers split,
chunk and tokenize the records and decide their results, planning blocks ahead while the
model's process runs the model (``--workers 1 8 15`` on a 16-core host).
``DATA`` holds ``faithfulness/*.jsonl`` (the first ``WORKLOAD_PER_SET`` records of each
workload set are enough). Writes ``OUT/gpu_e2e.json`` with the versions, the device and
both batch sizes' figures; on an error it keeps what was measured and the traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _drain(sc, records: list, block: int, n: int) -> None:
    for _ in sc.score_stream(records, block_size=block, n_process=n):
        pass


def workers_rows(data: Path, per_set: int, workers: list[int], batch: int, device: str) -> dict:
    """score_batch and score_stream pairs/s with N planning workers, against bare forwards."""
    from benchmarks.speed import _unique_pairs
    from benchmarks.speed_common import median, timed
    from benchmarks.speed_inputs import workload_records
    from benchmarks.speed_scale import bare_forwards
    from nli_faith.scorer import FaithfulnessScorer

    records = workload_records(data, per_set)
    sc = FaithfulnessScorer(device=device, batch_size=batch)
    pairs, _ = _unique_pairs(sc, records)
    bare = bare_forwards(sc, pairs, batch, device)

    def thrice(fn) -> float:
        return median(timed(fn)[0] for _ in range(3))

    bare()
    sc.score_batch(records[:10])
    out = {"records": len(records), "pairs": len(pairs), "batch_size": batch}
    out["bare_pairs_per_s"] = round(len(pairs) / thrice(bare))
    rows = []
    for n in workers:
        t_batch = thrice(lambda n=n: sc.score_batch(records, n_process=n))
        for block in (64, 256):
            t_stream = thrice(lambda n=n, b=block: _drain(sc, records, b, n))
            row = {
                "n_process": n,
                "score_batch_pairs_per_s": round(len(pairs) / t_batch),
                "stream_block": block,
                "score_stream_pairs_per_s": round(len(pairs) / t_stream),
            }
            print(json.dumps(row), flush=True)  # kept in the log if a time limit stops the rest
            rows.append(row)
        sc.close()
    out["rows"] = rows
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT") or "."))
    ap.add_argument("--per-set", type=int, default=int(os.environ.get("WORKLOAD_PER_SET", "12")))
    ap.add_argument("--workers", type=int, nargs="*", default=[], help="e.g. 1 4 8")
    ap.add_argument("--workers-batch", type=int, default=512)
    ap.add_argument("--no-e2e", action="store_true", help="only the --workers figures")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    result: dict = {"workload_per_set": args.per_set, "data_dir": str(args.data)}
    rc = 0
    try:
        from benchmarks.speed_common import versions

        result["versions"] = versions(
            "torch", "transformers", "sentence-transformers", "spacy", "pydantic", "numpy"
        )
        import torch

        result["cuda_available"] = torch.cuda.is_available()
        result["torch_cuda"] = torch.version.cuda
        if torch.cuda.is_available():
            result["device_name"] = torch.cuda.get_device_name(0)
        from benchmarks.speed_inputs import workload_records
        from benchmarks.speed_scale import _gpu_end_to_end

        result["records"] = len(workload_records(args.data, args.per_set))
        bench = SimpleNamespace(
            quick=False, data_dir=args.data, args=SimpleNamespace(workload_per_set=args.per_set)
        )
        if not args.no_e2e:
            t1 = time.perf_counter()
            result["gpu_end_to_end"] = _gpu_end_to_end(bench)
            result["gpu_end_to_end_wall_s"] = round(time.perf_counter() - t1, 2)
        if args.workers:
            t1 = time.perf_counter()
            device = "cuda" if torch.cuda.is_available() else "cpu"
            result["workers"] = workers_rows(
                args.data, args.per_set, args.workers, args.workers_batch, device
            )
            result["workers_wall_s"] = round(time.perf_counter() - t1, 2)
    except Exception as err:  # keep whatever was measured, and say why it stopped
        result["error"] = f"{type(err).__name__}: {err}"
        result["traceback"] = traceback.format_exc()
        rc = 1
    result["wall_s"] = round(time.perf_counter() - t0, 2)
    text = json.dumps(result, indent=2, default=str)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "gpu_e2e.json").write_text(text + "\n", encoding="utf-8")
    print(text)
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
