"""The same results on a GPU whatever the mode: ``score_batch`` in one process and with
planning workers, and ``score_stream``, written as JSON for comparing versions.

    python3 scripts/gpu_training/gpu_same_results.py --data DATA --out OUT/new.json
    python3 scripts/gpu_training/gpu_same_results.py --src OLD_CHECKOUT --out OUT/old.json

``--src`` scores with the library of another checkout (its ``nli_faith`` imported first).
Each mode's results (``FaithfulnessResult.to_dict()``) of the first ``--per-set`` records
of each workload set are written, with whether every mode gave the results of the first.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    ap.add_argument("--src", type=Path, default=ROOT, help="the checkout whose library scores")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--per-set", type=int, default=30)
    ap.add_argument("--workers", type=int, default=15)
    ap.add_argument("--batch-size", type=int, default=512)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(args.src.resolve()))
    sys.path.insert(1, str(ROOT))
    from benchmarks.speed_inputs import workload_records
    from nli_faith.scorer import FaithfulnessScorer

    recs = [
        {"response": r["response"], "context": r["context"]}
        for r in workload_records(args.data, args.per_set)
    ]
    sc = FaithfulnessScorer(batch_size=args.batch_size)
    modes = {
        "score_batch": lambda: sc.score_batch(recs),
        f"score_batch n_process={args.workers}": lambda: sc.score_batch(
            recs, n_process=args.workers
        ),
        f"score_stream block 64 n_process={args.workers}": lambda: list(
            sc.score_stream(recs, block_size=64, n_process=args.workers)
        ),
    }
    out: dict = {"records": len(recs), "device": str(sc.stages.parts.nli.device), "modes": {}}
    first = None
    for name, fn in modes.items():
        t0 = time.perf_counter()
        got = [r.to_dict() for r in fn()]
        out["modes"][name] = {"seconds": round(time.perf_counter() - t0, 2), "results": got}
        first = got if first is None else first
        out["modes"][name]["same_as_first"] = got == first
        print(name, out["modes"][name]["seconds"], "s, same:", got == first, flush=True)
    sc.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
