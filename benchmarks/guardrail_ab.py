"""Guardrail latency before / after, interleaved request by request in one process.

    python -m benchmarks.guardrail_ab --before-src /tmp/before [--requests 100]

``FaithfulnessScorer.guardrail()`` of an older checkout (imported as ``nli_faith_before``,
see :mod:`benchmarks.quality_ab`) and of this one score the speed benchmark's guardrail
requests (:func:`benchmarks.speed_inputs.guardrail_requests`: a 5-sentence answer, 3
passages of ~150 words) alternately, in rotating order, so that the load of a shared
machine hits both alike. Reports p50 / p95 per version, the pairs each scored and the
CPU share other processes took (``CpuMonitor``), to ``guardrail_ab.json`` / ``.md``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from .quality_ab import BUNDLED, REPO, import_before
from .speed_common import CpuMonitor, percentile, timed
from .speed_inputs import guardrail_requests

TARGETS = {"p50_ms": 100.0, "p95_ms": 250.0}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.guardrail_ab", description=__doc__)
    p.add_argument("--before-src", type=Path, required=True)
    p.add_argument("--data-dir", type=Path, default=REPO / ".." / "shared" / "data")
    p.add_argument("--requests", type=int, default=100)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--out-dir", type=Path, default=REPO / "benchmarks" / "results")
    args = p.parse_args(argv)
    logging.getLogger("nli_faith").setLevel(logging.ERROR)
    logging.getLogger("nli_faith_before").setLevel(logging.ERROR)
    from nli_faith.scorer import FaithfulnessScorer

    Before = import_before(args.before_src.resolve())
    scorers = {
        "before": Before.guardrail(str(BUNDLED)),
        "after": FaithfulnessScorer.guardrail(str(BUNDLED)),
    }
    reqs = guardrail_requests(args.data_dir, args.requests + args.warmup)
    for sc in scorers.values():
        for r in reqs[: args.warmup]:
            sc.score(r["response"], r["context"])
    lat: dict[str, list[float]] = {k: [] for k in scorers}
    pairs: dict[str, list[int]] = {k: [] for k in scorers}
    verdicts: dict[str, list[str]] = {k: [] for k in scorers}
    load_start = os.getloadavg()
    mon = CpuMonitor()
    order = list(scorers)
    for i, r in enumerate(reqs[args.warmup :]):
        for name in order[i % 2 :] + order[: i % 2]:
            sc = scorers[name]
            t, res = timed(lambda: sc.score(r["response"], r["context"]))  # noqa: B023
            lat[name].append(1000 * t)
            verdicts[name].extend(c.verdict for c in res.claims)
    cpu = mon.stop()
    for name, sc in scorers.items():
        for r in reqs[args.warmup : args.warmup + 40]:
            pairs[name].append(int(sc.matrix(r["response"], r["context"]).mask.sum()))
    rows = {}
    for name in scorers:
        xs = lat[name]
        rows[name] = {
            "p50_ms": round(percentile(xs, 50), 1),
            "p95_ms": round(percentile(xs, 95), 1),
            "mean_ms": round(sum(xs) / len(xs), 1),
            "mean_pairs": round(sum(pairs[name]) / len(pairs[name]), 2),
            "verdicts": {v: verdicts[name].count(v) for v in ("yes", "no", "idk")},
        }
        rows[name]["meets_target"] = (
            rows[name]["p50_ms"] <= TARGETS["p50_ms"] and rows[name]["p95_ms"] <= TARGETS["p95_ms"]
        )
    same = sum(a == b for a, b in zip(verdicts["before"], verdicts["after"]))
    rep = {
        "command": "python -m benchmarks.guardrail_ab "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "requests": args.requests,
        "rows": rows,
        "verdict_agreement": round(same / max(len(verdicts["after"]), 1), 4),
        "loadavg_start": load_start,
        "loadavg_end": os.getloadavg(),
        "cpu": cpu,
        "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "guardrail_ab.json").write_text(json.dumps(rep, indent=2) + "\n")
    lines = [
        "# Guardrail latency before / after (`benchmarks/guardrail_ab.py`)",
        "",
        f"`{rep['command']}` at {rep['when']}: {args.requests} requests, the two versions "
        "interleaved request by request. Load average "
        f"{load_start[0]:.1f} at start, {rep['loadavg_end'][0]:.1f} at end; other processes "
        f"took {cpu.get('foreign_share', float('nan')):.0%} of the CPUs (2-core shared machine). "
        f"Targets p50 <= {TARGETS['p50_ms']:.0f} ms, p95 <= {TARGETS['p95_ms']:.0f} ms "
        "(for a quiet machine).",
        "",
        "| version | p50 ms | p95 ms | mean ms | mean pairs | yes / no / idk |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, r in rows.items():
        v = r["verdicts"]
        lines.append(
            f"| {name} | {r['p50_ms']} | {r['p95_ms']} | {r['mean_ms']} | {r['mean_pairs']} | "
            f"{v['yes']} / {v['no']} / {v['idk']} |"
        )
    lines.append(f"\nSame verdict on {rep['verdict_agreement']:.1%} of claims.")
    (args.out_dir / "guardrail_ab.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
