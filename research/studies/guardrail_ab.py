"""Guardrail latency before / after, interleaved request by request in one process.

    python -m research.studies run guardrail_ab --before-src /tmp/before [--requests 100]

``FaithfulnessScorer.guardrail()`` of an older checkout (imported as ``nli_faith_before``,
see :mod:`benchmarks.before`) and of this one score the speed benchmark's guardrail
requests (:func:`benchmarks.speed_inputs.guardrail_requests`: a 5-sentence answer, 3
passages of ~150 words) alternately, in rotating order, so that the load of a shared
machine hits both alike. Reports p50 / p95 per version, the pairs each scored and the
CPU share other processes took (``CpuMonitor``).

With ``--processes K`` each version runs alone, in its own process, as it would be deployed:
the requests are cut into K blocks, and each block is scored by a fresh process of one
version, then of the other (alternating which goes first). In one process the versions
share the CPU's leftovers: an ONNX Runtime thread pool spins for a while after each run,
taking a core from whatever runs next, so a version whose runs spin slows the other one.
"""

from __future__ import annotations

import argparse
import json
import logging
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.before import BUNDLED, REPO, import_before, pairs_scored
from benchmarks.harness import DEFAULT_DATA_DIR, Outcome
from benchmarks.speed_common import CpuMonitor, percentile, timed
from benchmarks.speed_inputs import guardrail_requests

TARGETS = {"p50_ms": 100.0, "p95_ms": 250.0}


TITLE = "Guardrail latency before / after"


def add_arguments(p, name: str) -> None:
    p.add_argument("--before-src", type=Path, required=True)
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--requests", type=int, default=100)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument(
        "--processes",
        type=int,
        default=0,
        metavar="K",
        help="run each version alone in its own processes, over K alternating blocks "
        "(default 0: both in this process, interleaved request by request)",
    )


def run(args, bench) -> Outcome:
    logging.getLogger("nli_faith").setLevel(logging.ERROR)
    logging.getLogger("nli_faith_before").setLevel(logging.ERROR)
    mon = CpuMonitor()
    if args.processes > 0:
        lat, verdicts, pairs = _in_processes(args)
    else:
        reqs = guardrail_requests(args.data_dir, args.requests + args.warmup)
        lat, verdicts, pairs = _interleaved(args, reqs)
    cpu = mon.stop()
    rows = {}
    for name in ("before", "after"):
        xs = lat[name]
        rows[name] = {
            "p50_ms": round(percentile(xs, 50), 1),
            "p95_ms": round(percentile(xs, 95), 1),
            "mean_ms": round(sum(xs) / len(xs), 1),
            "mean_pairs": round(sum(pairs[name]) / len(pairs[name]), 2),
            "verdicts": {v: verdicts[name].count(v) for v in ("yes", "no", "idk")},
        }
    same = sum(a == b for a, b in zip(verdicts["before"], verdicts["after"]))
    rep = {
        "requests": args.requests,
        "mode": "processes" if args.processes > 0 else "interleaved",
        "rows": rows,
        "verdict_agreement": round(same / max(len(verdicts["after"]), 1), 4),
        "cpu": cpu,
    }
    how = (
        f"each version alone in its own processes, {args.processes} alternating blocks"
        if args.processes > 0
        else "the two versions interleaved request by request in one process"
    )
    lines = [
        f"{args.requests} requests, {how}; other processes took "
        f"{cpu.get('foreign_share', float('nan')):.0%} of the CPUs. Targets p50 <= "
        f"{TARGETS['p50_ms']:.0f} ms, p95 <= {TARGETS['p95_ms']:.0f} ms (for a quiet machine).",
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
    figures = {f"{n} {k}": rows[n][k] for n in ("after", "before") for k in ("p50_ms", "p95_ms")}
    return Outcome(body="\n".join(lines), figures=figures, data=rep)


def _scorer(version: str, before_src: Path):
    if version == "before":
        return import_before(before_src.resolve()).guardrail(str(BUNDLED))
    from nli_faith.scorer import FaithfulnessScorer

    return FaithfulnessScorer.guardrail(str(BUNDLED))


def _interleaved(args, reqs: list) -> tuple[dict, dict, dict]:
    """Both versions in this process, request by request, in rotating order."""
    scorers = {name: _scorer(name, args.before_src) for name in ("before", "after")}
    for sc in scorers.values():
        for r in reqs[: args.warmup]:
            sc.score(r["response"], r["context"])
    lat: dict[str, list[float]] = {k: [] for k in scorers}
    verdicts: dict[str, list[str]] = {k: [] for k in scorers}
    order = list(scorers)
    for i, r in enumerate(reqs[args.warmup :]):
        for name in order[i % 2 :] + order[: i % 2]:
            sc = scorers[name]
            t, res = timed(lambda: sc.score(r["response"], r["context"]))  # noqa: B023
            lat[name].append(1000 * t)
            verdicts[name].extend(c.verdict for c in res.claims)
    pairs = {
        name: [
            pairs_scored(sc, r["response"], r["context"])
            for r in reqs[args.warmup : args.warmup + 40]
        ]
        for name, sc in scorers.items()
    }
    return lat, verdicts, pairs


def _in_processes(args) -> tuple[dict, dict, dict]:
    """Each version in fresh processes, one block of requests each, alternating."""
    k = args.processes
    bounds = [round(args.requests * b / k) for b in range(k + 1)]
    lat: dict[str, list[float]] = {"before": [], "after": []}
    verdicts: dict[str, list[str]] = {"before": [], "after": []}
    pairs: dict[str, list[int]] = {"before": [], "after": []}
    blocks: list[dict] = []
    base = ["--before-src", str(args.before_src), "--data-dir", str(args.data_dir)]
    base += ["--warmup", str(args.warmup)]
    with tempfile.TemporaryDirectory() as tmp:
        for block in range(k):
            first, count = bounds[block], bounds[block + 1] - bounds[block]
            order = ["before", "after"] if block % 2 == 0 else ["after", "before"]
            for name in order:
                out = Path(tmp) / f"{name}-{block}.json"
                cmd = [sys.executable, "-m", "research.studies.guardrail_ab", *base]
                cmd += ["--worker", name, "--first", str(first), "--requests", str(count)]
                cmd += ["--worker-out", str(out)]
                subprocess.run(cmd, check=True, cwd=REPO)
                got = json.loads(out.read_text())
                lat[name] += got["lat"]
                verdicts[name] += got["verdicts"]
                pairs[name] += got["pairs"]
                p50 = percentile(got["lat"], 50)
                blocks.append({"version": name, "first": first, "p50_ms": p50})
    log = " ".join(f"{b['version']}@{b['first']}: {b['p50_ms']:.1f}" for b in blocks)
    print(f"block p50s (ms): {log}")
    return lat, verdicts, pairs


def _worker(args) -> int:
    """One version scores requests ``first .. first + requests`` (after its own warm-up)."""
    sc = _scorer(args.worker, args.before_src)
    reqs = guardrail_requests(args.data_dir, args.warmup + args.first + args.requests)
    for r in reqs[: args.warmup]:
        sc.score(r["response"], r["context"])
    block = reqs[args.warmup + args.first :]
    lat, verdicts = [], []
    for r in block:
        t, res = timed(lambda: sc.score(r["response"], r["context"]))  # noqa: B023
        lat.append(1000 * t)
        verdicts.extend(c.verdict for c in res.claims)
    pairs = [pairs_scored(sc, r["response"], r["context"]) for r in block]
    args.worker_out.write_text(json.dumps({"lat": lat, "verdicts": verdicts, "pairs": pairs}))
    return 0


if __name__ == "__main__":  # one worker of --processes
    parser = argparse.ArgumentParser(prog="python -m research.studies.guardrail_ab")
    add_arguments(parser, "guardrail_ab")
    parser.add_argument("--worker", choices=("before", "after"), required=True)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--worker-out", type=Path, required=True)
    logging.getLogger("nli_faith").setLevel(logging.ERROR)
    raise SystemExit(_worker(parser.parse_args()))
