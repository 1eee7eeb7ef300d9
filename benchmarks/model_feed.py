"""How many (claim, chunk) pairs a second one model process could feed an accelerator.

    python -m benchmarks run model_feed --data-dir ../shared/data
    python -m benchmarks run model_feed --against /tmp/before   # two versions, one run

``score_batch`` over the first ``--per-set`` workload records of each set
(``speed_inputs.workload_records``), with the model's forwards replayed
(:class:`benchmarks.host_profile.Replay`: the runtime batches and pads as in use, only the
forward is answered from a memo filled by one real pass): in one process, in one process
with the loaded heap frozen for the collector (as ``nli-faith score`` runs), and with
planning workers (they plan blocks ahead, tokenize and decide; the model's process runs
the model).
The model process's CPU time, all of its threads, per pair bounds what it can feed an
accelerator whatever the accelerator's speed: ``1e6 / µs per pair`` pairs a second; the
workers' share grows with their number, this one does not.

Each version and mode runs in processes of its own (``--processes`` each, alternating), so
that nothing process-wide (the collector's state, a frozen heap, forked workers) passes
from one to the other; each process times ``--rounds`` passes, every record new to the
library's caches.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .harness import DEFAULT_DATA_DIR, REPO, Outcome

TITLE = "Pairs one model process could feed an accelerator (forwards replayed)"
MODES = ("one process", "one process, heap frozen", "workers")


def add_arguments(p, name: str) -> None:
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--per-set", type=int, default=30, help="workload records of each set")
    p.add_argument("--rounds", type=int, default=3, help="timed passes in each process")
    p.add_argument("--processes", type=int, default=2, help="processes per version and mode")
    p.add_argument("--against", type=Path, default=None, help="an older checkout to compare")


def child(src: str, mode: str, data_dir: str, per_set: int, rounds: int, memo_path: str) -> None:
    """One process: ``rounds`` timed passes of ``mode``; prints a JSON line."""
    from .host_profile import Replay, clear_caches, make_scorer
    from .speed_inputs import workload_records

    if src:
        from .before import import_before

        pkg, cls = "nli_faith_before", import_before(Path(src).resolve())
    else:
        from nli_faith.scorer import FaithfulnessScorer

        pkg, cls = "nli_faith", FaithfulnessScorer
    logging.getLogger(pkg).setLevel(logging.ERROR)
    recs = [{"response": r["response"], "context": r["context"]}
            for r in workload_records(Path(data_dir), per_set)]  # fmt: skip
    labels = [f"record {k}" for k in range(len(recs))]
    memo: dict = {}
    if os.path.exists(memo_path):
        with open(memo_path, "rb") as f:
            memo = pickle.load(f)
    sc = make_scorer(cls, "default")
    nli = sc.stages.parts.nli
    nli._runtime = Replay(nli._runtime, memo)
    before, known = nli.pairs_predicted, len(memo)
    want = [[c.verdict for c in r.claims] for r in sc.score_batch(recs)]  # untimed: fills the memo
    pairs = nli.pairs_predicted - before
    if len(memo) > known:
        with open(memo_path, "wb") as f:
            pickle.dump(memo, f)
    from nli_faith.engine.runner import check_n_process

    n_process = max(2, check_n_process("auto"))
    collector = [0.0, 0.0]  # the collector's CPU seconds in this process, start of a pass

    def watch(phase: str, info: dict) -> None:
        if phase == "start":
            collector[1] = time.process_time()
        else:
            collector[0] += time.process_time() - collector[1]

    gc.callbacks.append(watch)
    if mode == "one process, heap frozen":
        gc.freeze()  # as `nli-faith score` does once its scorer is loaded
    runs = []
    for _ in range(rounds):
        sc.close()
        clear_caches(pkg, [sc])
        if mode == "workers":
            sc.runner._pool(n_process)  # forked now, untimed (a scorer keeps its workers)
        collector[0] = 0.0
        c0, t0 = time.process_time(), time.perf_counter()
        if mode == "workers":
            got = sc.score_batch(recs, labels=labels, n_process=n_process)
        else:
            got = sc.score_batch(recs)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        runs.append({"wall": wall, "cpu": cpu, "gc": collector[0],
                     "same": [[c.verdict for c in r.claims] for r in got] == want})  # fmt: skip
    sc.close()
    print(json.dumps({"pairs": pairs, "records": len(recs), "n_process": n_process,
                      "runs": runs}))  # fmt: skip


def _spawn(src: Path | None, mode: str, args, memo: Path) -> dict[str, Any]:
    code = (
        "import sys; from benchmarks.model_feed import child; "
        "child(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), "
        "sys.argv[6])"
    )
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            str(src or ""),
            mode,
            str(args.data_dir),
            str(args.per_set),
            str(args.rounds),
            str(memo),
        ],  # fmt: skip
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"{mode} ({src or 'this version'}) failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(args, bench) -> Outcome:
    versions: list[tuple[str, Path | None]] = [("this version", None)]
    if args.against is not None:
        versions.insert(0, ("before", args.against))
    memo = Path(tempfile.mkdtemp(prefix="model_feed_")) / "memo.pkl"
    got: dict[tuple[str, str], list[dict]] = {}
    meta: dict[str, Any] = {}
    for k in range(args.processes):
        order = versions if k % 2 == 0 else versions[::-1]
        for name, src in order:
            for mode in MODES if k % 2 == 0 else MODES[::-1]:
                bench.log(f"process {k + 1}/{args.processes}: {name}, {mode}")
                res = _spawn(src, mode, args, memo)
                meta = {key: res[key] for key in ("pairs", "records", "n_process")}
                got.setdefault((name, mode), []).extend(res["runs"])
    pairs = meta["pairs"]
    lines = [
        f"{meta['records']} workload records ({args.per_set} of each set), {pairs:,} pairs; "
        f"workers: {meta['n_process']}; {args.processes} processes per version and mode, "
        f"{args.rounds} passes each. Wall: best pass; CPU: the model process's, all its "
        "threads, mean of the passes (the collector's full passes come now and then); the "
        "collector's share is its CPU in the same passes.",
        "",
        "| version | mode | records/s | pairs/s | model process CPU µs/pair | of which "
        "the collector | pairs/s it could feed | same verdicts |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    data: dict[str, Any] = {**meta, "rows": {}}
    figures: dict[str, Any] = {}
    for (name, mode), runs in got.items():
        best = min(r["wall"] for r in runs)
        cpu = 1e6 * statistics.mean(r["cpu"] for r in runs) / pairs
        col = 1e6 * statistics.mean(r["gc"] for r in runs) / pairs
        same = all(r["same"] for r in runs)
        lines.append(
            f"| {name} | {mode} | {meta['records'] / best:,.1f} | {pairs / best:,.0f} | "
            f"{cpu:,.1f} | {col:,.1f} | {1e6 / cpu:,.0f} | {same} |"
        )
        data["rows"][f"{name}, {mode}"] = {"runs": runs, "us_per_pair": cpu, "gc_us": col}
        figures[f"{name}, {mode}: model process µs/pair"] = round(cpu, 1)
    lines += [
        "",
        "The forwards are replayed, so the last column is the most pairs a second one model "
        "process could feed an accelerator with as many planning workers as it needs.",
    ]
    return Outcome("\n".join(lines), figures, data)
