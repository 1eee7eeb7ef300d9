"""Where the host-side time goes, per pair and per record, stage by stage.

    python -m benchmarks run host_profile --data-dir ../shared/data
    python -m benchmarks run host_profile --against /tmp/before   # before / after, one run

Scores the offline workload sets (``speed_inputs.workload_records``: the first
``--per-set`` records of each set, through ``score_batch`` with the default scorer) and
guardrail requests (``speed_inputs.guardrail_requests``: 3 passages of ~150 words and a
5-sentence answer, each through ``score`` with ``FaithfulnessScorer.guardrail()``) on one
core, with the model's forwards replayed: a first, untimed pass runs the real model and
keeps each pair's raw output by its token ids; the timed passes answer the runtime from
that memo, so what is timed is everything but the forwards (the tokenizing and the
assembly of the pairs' ids included). Before each timed pass the library's text caches
and the tokenizer's id cache are emptied, so every record is new to it.

Each stage's time is *exclusive* (a stage called inside another is not counted twice):
the stage functions are wrapped where the engine looks them up. ``engine (rest)`` is what
no wrapper covers (the runner, the early-exit rounds, result objects). After scoring,
each result is made into the output row (``rows.output_row``) and a JSON line
(``io.json_line``), as ``nli-faith score`` writes it.

``--against SRC`` profiles an older checkout (imported as ``nli_faith_before``, see
:mod:`benchmarks.before`) in the same process, the two versions alternating round by
round, and gives the ratio per stage. ``--cprofile N`` prints the N functions with the
most own time (of this version, last round).
"""

from __future__ import annotations

import cProfile
import functools
import gc
import io
import logging
import os
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from .before import BUNDLED, bundled_scorer, import_before
from .harness import DEFAULT_DATA_DIR, Outcome

TITLE = "Host-side work per pair and per record, by stage"

#: (module under the package, attribute, stage label): the functions timed, wrapped where
#: the engine looks them up. A missing one (another version) is skipped.
STAGES: tuple[tuple[str, str, str], ...] = (
    ("engine.plan", "parse_record", "parse record"),
    ("engine.plan", "split_claims", "claims: citations, limits"),
    ("engine.plan", "fit_claims", "claims: fit to the window"),
    ("engine.plan", "chunk", "chunking (incl. tokenizing)"),
    ("engine.plan", "budget", "chunk budget (claim tokens)"),
    ("engine.plan", "sentence_members", "sentence members"),
    ("engine.plan", "plan_composites", "composites: plan"),
    ("engine.plan", "rule_rows", "rules: plan"),
    ("engine.infer", "align_premise", "NLI input: align premise"),
    ("engine.infer", "coverage_similarity", "early exit: similarity"),
    ("engine.infer", "sentence_members", "sentence members"),
    ("engine.infer", "number_mask", "number masks"),
    ("engine.infer", "cited_chunks_mask", "citations"),
    ("engine.decide", "number_mask", "number masks"),
    ("engine.decide", "quantity_mismatch", "number masks"),
    ("engine.decide", "misattributed", "number masks"),
    ("engine.decide", "overlap_mask", "contradiction overlap mask"),
    ("engine.decide", "composite_masks", "composites: decide"),
    ("engine.decide", "apply_rules", "rules: apply"),
    ("engine.decide", "unsupported_spans", "unsupported spans"),
    ("engine.decide", "top_chunks", "aggregate / decide"),
    ("engine.runner", "aggregate", "aggregate / decide"),
    ("engine.runner", "fill_isolated", "engine (rest)"),
)
#: Printed in this order.
ORDER = (
    "parse record", "claims: sentence splitting", "claims: fit to the window",
    "claims: citations, limits", "chunking (incl. tokenizing)", "chunk budget (claim tokens)",
    "sentence members", "prefilter", "composites: plan", "rules: plan",
    "early exit: similarity", "NLI input: align premise", "NLI input: tokenize + ids",
    "model (replayed)", "number masks", "citations", "contradiction overlap mask",
    "composites: decide", "rules: apply", "unsupported spans", "aggregate / decide",
    "engine (rest)", "output rows", "JSON lines",
)  # fmt: skip
#: Not host-side work: left out of the totals.
NOT_HOST = ("model (replayed)",)
#: The scorer set-ups (keyword options; ``None``: the version's own
#: ``FaithfulnessScorer.guardrail()`` preset) and the inputs each scores.
SETUPS: dict[str, tuple[dict[str, Any] | None, str]] = {
    "default": ({"device": "cpu"}, "workload"),
    "guardrail": (None, "requests"),
}


def make_scorer(cls, setup: str):
    """``setup``'s scorer over the bundled model, from the version's scorer class."""
    return bundled_scorer(cls, SETUPS[setup][0])


def add_arguments(p, name: str) -> None:
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--per-set", type=int, default=6, help="workload records of each set")
    p.add_argument("--requests", type=int, default=30, help="guardrail requests")
    p.add_argument("--rounds", type=int, default=3, help="timed passes of each version")
    p.add_argument("--setups", nargs="*", default=list(SETUPS), choices=list(SETUPS))
    p.add_argument("--against", type=Path, default=None, help="an older checkout to compare")
    p.add_argument("--cprofile", type=int, default=0, help="print the top N functions")
    p.add_argument(
        "--latency", type=int, default=0, help="also end to end: N unseen guardrail requests"
    )
    p.add_argument("--batch", type=int, default=8, help="end to end: records of each news set")
    p.add_argument(
        "--overlap",
        type=int,
        default=0,
        metavar="N",
        help="also: score_batch of N workload records of each set, forwards replayed, in one "
        "process and with planning workers (planned first, or in blocks planned ahead)",
    )


class Timers:
    """Exclusive time per stage label: a stage's time less that of the stages it calls."""

    def __init__(self) -> None:
        self.total: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self._stack: list[list] = []
        self.on = False

    def wrap(self, fn, label: str):
        if getattr(fn, "_host_profile", None) is not None:
            fn = fn._host_profile

        @functools.wraps(fn)
        def timed(*a, **kw):
            if not self.on:
                return fn(*a, **kw)
            frame = [label, 0.0]
            self._stack.append(frame)
            t0 = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                dt = time.perf_counter() - t0
                self._stack.pop()
                self.total[label] += dt - frame[1]
                self.calls[label] += 1
                if self._stack:
                    self._stack[-1][1] += dt

        timed._host_profile = fn
        return timed

    def reset(self) -> None:
        self.total.clear()
        self.calls.clear()


class Replay:
    """Stands in for a runtime: each pair's raw output from a memo, filled by the real
    runtime on a miss (the untimed pass). Where the runtime has a forward of its own
    (``_probabilities``), only that is replayed: its batching and padding run as they do
    in use, and count in the model process's time."""

    def __init__(self, real, memo: dict) -> None:
        self.real, self.memo = real, memo
        self.device = getattr(real, "device", "cpu")
        self._forward = getattr(real, "_probabilities", None)

    def predict(self, ids, types, lengths, **kw):
        import numpy as np

        if self._forward is not None:
            self.real._probabilities = self._replayed  # this instance only
            try:
                return self.real.predict(ids, types, lengths, **kw)
            finally:
                del self.real._probabilities
        keys = [x.tobytes() if isinstance(x, np.ndarray) else tuple(x) for x in ids]
        miss = [k for k, key in enumerate(keys) if key not in self.memo]
        if miss:
            sub = [ids[k] for k in miss]
            sub_t = None if types is None else [types[k] for k in miss]
            raw = self.real.predict(sub, sub_t, np.asarray(lengths)[miss], **kw)
            for k, row in zip(miss, raw):
                self.memo[keys[k]] = np.asarray(row)
        return np.stack([self.memo[key] for key in keys])

    def _replayed(self, batch, *args):
        import numpy as np
        import torch

        ids, n = batch["input_ids"], batch["attention_mask"].sum(axis=1)
        keys = [ids[r, : n[r]].tobytes() for r in range(len(ids))]
        miss = [r for r, key in enumerate(keys) if key not in self.memo]
        if miss:
            out = self._forward({k: v[miss] for k, v in batch.items()}, *args)
            for r, row in zip(miss, out.float().cpu().numpy()):
                self.memo[keys[r]] = row
        return torch.from_numpy(np.stack([self.memo[key] for key in keys]))

    def __getattr__(self, name: str):
        return getattr(self.real, name)


class Version:
    """One version of the library, loaded with every scorer set-up, its stages wrapped."""

    def __init__(self, name: str, src: Path | None, setups: list[str], memo: dict) -> None:
        self.name = name
        if src is None:
            from nli_faith.scorer import FaithfulnessScorer

            self.pkg, cls = "nli_faith", FaithfulnessScorer
        else:
            self.pkg, cls = "nli_faith_before", import_before(src.resolve())
        logging.getLogger(self.pkg).setLevel(logging.ERROR)
        self.timers = Timers()
        for mod, attr, label in STAGES:
            m = sys.modules.get(f"{self.pkg}.{mod}") or __import__(
                f"{self.pkg}.{mod}", fromlist=["_"]
            )
            if hasattr(m, attr):
                setattr(m, attr, self.timers.wrap(getattr(m, attr), label))
        self.scorers = {}
        for setup in setups:
            sc = make_scorer(cls, setup)
            parts = sc.stages.parts
            t = self.timers
            parts.splitter.split = t.wrap(parts.splitter.split, "claims: sentence splitting")
            if parts.prefilter is not None:
                parts.prefilter.select = t.wrap(parts.prefilter.select, "prefilter")
            nli = parts.nli
            nli.predict = t.wrap(nli.predict, "NLI input: tokenize + ids")
            replay = Replay(nli._runtime, memo)
            replay.predict = t.wrap(replay.predict, "model (replayed)")
            nli._runtime = replay
            self.scorers[setup] = sc
        rows, io_mod = importlib_module(f"{self.pkg}.rows"), importlib_module(f"{self.pkg}.io")
        if hasattr(rows, "output_row"):
            self.output_row = rows.output_row
        else:  # a version whose row builder was io.output_row(line, raw, result)
            self.output_row = lambda r, *, record, line: io_mod.output_row(line, record, r)
        self.json_line = io_mod.json_line

    def clear_caches(self) -> None:
        """Empty the text caches and the tokenizer's id cache: every record is new."""
        clear_caches(self.pkg, self.scorers.values())

    def run(self, setup: str, inputs: list[dict]) -> tuple[list, int]:
        """Score ``inputs`` with set-up ``setup``; the results and the pairs scored."""
        sc = self.scorers[setup]
        nli = sc.stages.parts.nli
        before = nli.pairs_predicted
        if SETUPS[setup][1] == "workload":
            results = sc.score_batch(inputs)
        else:
            results = [sc.score(r["response"], r["context"]) for r in inputs]
        return results, nli.pairs_predicted - before

    def timed(self, setup: str, inputs: list[dict]) -> dict[str, Any]:
        """One timed pass: exclusive seconds per stage, the pairs and the wall time."""
        self.clear_caches()
        gc.collect()
        gc.disable()  # a collection would land in whichever stage happens to run
        t = self.timers
        t.reset()
        t.on = True
        t0 = time.perf_counter()
        results, pairs = self.run(setup, inputs)
        wall = time.perf_counter() - t0
        t1 = time.perf_counter()
        rows = [
            self.output_row(r, record=x, line=k) for k, (r, x) in enumerate(zip(results, inputs))
        ]
        t.total["output rows"] += time.perf_counter() - t1
        t1 = time.perf_counter()
        for row in rows:
            self.json_line(row)
        t.total["JSON lines"] += time.perf_counter() - t1
        t.on = False
        gc.enable()
        stages = dict(t.total)
        stages["engine (rest)"] = (
            stages.get("engine (rest)", 0.0)
            + wall
            - sum(v for k, v in t.total.items() if k not in ("output rows", "JSON lines"))
        )
        return {"stages": stages, "pairs": pairs, "records": len(inputs), "wall": wall,
                "verdicts": [[c.verdict for c in r.claims] for r in results]}  # fmt: skip


def clear_caches(pkg: str, scorers) -> None:
    """Empty ``pkg``'s text caches and the id cache of each scorer's tokenizer."""
    for name, mod in list(sys.modules.items()):
        if not name.startswith(pkg + ".") or name.startswith(pkg + ".nli"):
            continue
        for obj in list(vars(mod).values()):
            clear = getattr(obj, "cache_clear", None)
            info = getattr(obj, "cache_parameters", None)
            if clear and info and (info().get("maxsize") or 0) >= 8:
                clear()
    for sc in scorers:
        tokens = getattr(sc.stages.parts.nli, "_tokens", None)
        if tokens is not None:
            tokens.cache.clear()


def importlib_module(name: str):
    import importlib

    return importlib.import_module(name)


def _inputs(args, kind: str) -> list[dict]:
    from .speed_inputs import guardrail_requests, workload_records

    if kind == "workload":
        recs = workload_records(args.data_dir, args.per_set)
        return [{"response": r["response"], "context": r["context"]} for r in recs]
    return [
        {"response": r["response"], "context": r["context"]}
        for r in guardrail_requests(args.data_dir, args.requests)
    ]


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def _table(per: dict[str, dict[str, Any]], names: list[str]) -> list[str]:
    """Rows: stage, then µs per pair and per record of each version (and the ratio)."""
    head = "| stage | " + " | ".join(f"{n} µs/pair | {n} µs/record" for n in names)
    head += " | before / after |" if len(names) == 2 else " |"
    lines = [head, "|---" + "|---:" * (2 * len(names) + (len(names) == 2)) + "|"]
    labels = [x for x in ORDER if any(x in per[n]["stages"] for n in names)]
    labels += sorted({k for n in names for k in per[n]["stages"]} - set(labels))
    for label in [*labels, "host total"]:
        cells = []
        vals = []
        for n in names:
            p = per[n]
            s = p["stages"].get(label, 0.0) if label != "host total" else p["host_s"]
            vals.append(s)
            cells += [f"{1e6 * s / max(p['pairs'], 1):,.0f}", f"{1e6 * s / p['records']:,.0f}"]
        if len(names) == 2:
            cells.append(f"{vals[0] / vals[1]:.2f}×" if vals[1] > 1e-6 else "-")
        name = f"**{label}**" if label == "host total" else label
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def end_to_end(args, bench, src: Path | None) -> tuple[list[str], dict[str, Any]]:
    """With the real model, on the cores: guardrail latency on unseen requests and
    ``score_batch`` records/s on RAG-sized records, the versions alternating."""
    import numpy as np

    from .speed_inputs import guardrail_requests, workload_records

    scorers = {}
    for name, path in (("before", src), ("after", None)):
        if name == "before" and path is None:
            continue
        if path is None:
            from nli_faith.scorer import FaithfulnessScorer as cls
        else:
            cls = import_before(path.resolve())
        scorers[name] = (
            make_scorer(cls, "guardrail"),
            make_scorer(cls, "default"),
        )
    names = list(scorers)
    reqs = guardrail_requests(args.data_dir, args.latency + 5)
    for g, _ in scorers.values():  # warm-up: first-call costs
        for r in reqs[:5]:
            g.score(r["response"], r["context"])
    lat: dict[str, list[float]] = {n: [] for n in names}
    verdicts: dict[str, list] = {n: [] for n in names}
    for k, r in enumerate(reqs[5:]):
        for n in names if k % 2 == 0 else names[::-1]:
            t0 = time.perf_counter()
            res = scorers[n][0].score(r["response"], r["context"])
            lat[n].append(1e3 * (time.perf_counter() - t0))
            verdicts[n].append([c.verdict for c in res.claims])
    rag = [
        {"response": x["response"], "context": x["context"]}
        for x in workload_records(args.data_dir, args.batch)
        if x["set"] in ("summeval", "qags_cnndm")
    ]
    rate: dict[str, list[float]] = {n: [] for n in names}
    for k in range(2):
        for n in names if k % 2 == 0 else names[::-1]:
            t0 = time.perf_counter()
            scorers[n][1].score_batch(rag)
            rate[n].append(len(rag) / (time.perf_counter() - t0))
    lines = [
        "",
        f"### End to end, real model: {args.latency} unseen guardrail requests (`score`, "
        f"guardrail set-up), {len(rag)} RAG-sized records (`score_batch`, default set-up, 2 runs)",
        "",
        "| version | p50 ms | p95 ms | score_batch records/s (best) |",
        "|---|---:|---:|---:|",
    ]
    data: dict[str, Any] = {}
    for n in names:
        p50, p95 = np.percentile(lat[n], [50, 95])
        lines.append(f"| {n} | {p50:.1f} | {p95:.1f} | {max(rate[n]):.3f} |")
        data[n] = {"p50_ms": p50, "p95_ms": p95, "records_per_s": max(rate[n])}
    if len(names) == 2:
        same = verdicts["before"] == verdicts["after"]
        lines += ["", f"Same guardrail verdicts in both versions: {same}."]
        data["same_verdicts"] = same
    lever_lines, data["levers"] = _batch_levers(rag)
    lines += lever_lines
    bench.log("end to end done")
    return lines, data


#: ``score_batch`` options that trade something for CPU throughput (this version only).
LEVERS: dict[str, dict[str, Any]] = {
    "default": {},
    'composite_premise="covering"': {"composite_premise": "covering"},
    "early_exit=True": {"early_exit": True},
    'early_exit=True, composite_premise="covering"': {
        "early_exit": True,
        "composite_premise": "covering",
    },
}


def _batch_levers(rag: list[dict]) -> tuple[list[str], dict[str, Any]]:
    """Records/s of ``score_batch`` with each of :data:`LEVERS` (runs interleaved), and
    how many claim verdicts equal the default's."""
    from nli_faith.scorer import FaithfulnessScorer

    scorers = {n: FaithfulnessScorer(str(BUNDLED), device="cpu", **o) for n, o in LEVERS.items()}
    rate: dict[str, list[float]] = {n: [] for n in LEVERS}
    got: dict[str, list[str]] = {}
    for k in range(2):
        for n in LEVERS if k % 2 == 0 else list(LEVERS)[::-1]:
            t0 = time.perf_counter()
            out = scorers[n].score_batch(rag)
            rate[n].append(len(rag) / (time.perf_counter() - t0))
            got[n] = [c.verdict for r in out for c in r.claims]
    base = got["default"]
    lines = [
        "",
        f"### `score_batch` options that trade for speed: the same {len(rag)} records, "
        "this version, 2 runs",
        "",
        "| options | records/s (best) | × default | claim verdicts equal to the default's |",
        "|---|---:|---:|---:|",
    ]
    data: dict[str, Any] = {}
    for n in LEVERS:
        same = sum(a == b for a, b in zip(got[n], base)) if len(got[n]) == len(base) else 0
        best = max(rate[n])
        lines.append(
            f"| {n} | {best:.3f} | {best / max(rate['default']):.2f} | {same} of {len(base)} |"
        )
        data[n] = {"records_per_s": best, "same_verdicts": same, "claims": len(base)}
    return lines, data


def overlap(args, bench) -> tuple[list[str], dict[str, Any]]:
    """``score_batch`` throughput with the forwards replayed (what a box whose accelerator
    were free would see): one process, workers planning everything first and then the
    model (as before blocks), and workers planning blocks ahead of the model."""
    from nli_faith.engine.runner import check_n_process
    from nli_faith.scorer import FaithfulnessScorer

    n_process = max(2, check_n_process("auto"))
    from .speed_inputs import workload_records

    recs = [
        {"response": r["response"], "context": r["context"]}
        for r in workload_records(args.data_dir, args.overlap)
    ]
    sc = make_scorer(FaithfulnessScorer, "default")
    logging.getLogger("nli_faith").setLevel(logging.ERROR)
    nli = sc.stages.parts.nli
    nli._runtime = Replay(nli._runtime, {})
    bench.log(f"overlap: {len(recs)} records, untimed pass (runs the model)")
    before = nli.pairs_predicted
    want = sc.score_batch(recs)
    pairs = nli.pairs_predicted - before
    runner = sc.runner
    names = labels = [f"record {k}" for k in range(len(recs))]

    def planned_first() -> list:  # what score_batch(n_process=N) did before blocks
        import dataclasses

        planned = runner._pool(n_process).plan(list(zip(recs, names)))
        planned = [
            dataclasses.replace(p, plan=dataclasses.replace(p.plan, encoded=None))
            if hasattr(p, "plan")
            else p
            for p in planned
        ]
        return [o.result for o in runner.run(planned)]

    modes = {
        "one process": lambda: sc.score_batch(recs),
        f"{n_process} workers plan; then this process tokenizes, runs the model, decides": (
            planned_first
        ),
        f"{n_process} workers plan ahead, tokenize, decide; this process runs the model": (
            lambda: sc.score_batch(recs, labels=labels, n_process=n_process)
        ),
    }
    walls: dict[str, list[float]] = {m: [] for m in modes}
    cpus: dict[str, list[float]] = {m: [] for m in modes}
    same = True
    for r in range(args.rounds):
        for m, fn in modes.items() if r % 2 == 0 else list(modes.items())[::-1]:
            sc.close()  # fresh workers: forked from a parent whose caches are emptied
            clear_caches("nli_faith", [sc])
            runner._pool(n_process)  # forked now, untimed (a scorer keeps its workers)
            c0, t0 = time.process_time(), time.perf_counter()
            got = fn()
            walls[m].append(time.perf_counter() - t0)
            cpus[m].append(time.process_time() - c0)  # this process only, not the workers
            same = same and got == want
    sc.close()
    lines = [
        "",
        f"### Planning beside the model: {len(recs)} workload records ({args.overlap} of each "
        f"set), `score_batch`, forwards replayed, best of {args.rounds}",
        "",
        "| mode | records/s | pairs/s | model process CPU µs/pair | pairs/s it could feed |",
        "|---|---:|---:|---:|---:|",
    ]
    data: dict[str, Any] = {"records": len(recs), "results_equal": same}
    for m, w in walls.items():
        best, cpu = min(w), 1e6 * _median(cpus[m]) / pairs
        lines.append(
            f"| {m} | {len(recs) / best:,.1f} | {pairs / best:,.0f} | {cpu:,.0f} | "
            f"{1e6 / cpu:,.0f} |"
        )
        data[m] = {"records_per_s": len(recs) / best, "seconds": best, "parent_us_per_pair": cpu}
    lines += [
        "",
        f"Same results in every mode: {same}. The model's forwards are replayed, so the "
        "last column is the most (claim, chunk) pairs per second that one model process "
        "could feed an accelerator, whatever its speed, with as many workers as it needs "
        "(the workers' share scales with their number; the model process's does not).",
    ]
    bench.log("overlap done")
    return lines, data


def run(args, bench) -> Outcome:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    body: list[str] = []
    figures: dict[str, Any] = {}
    data: dict[str, Any] = {}
    if args.latency:  # on every core, as a user runs it
        lines, data["end_to_end"] = end_to_end(args, bench, args.against)
        body += lines
        for n, v in data["end_to_end"].items():
            if isinstance(v, dict) and n != "levers":
                figures.update({f"{n} {k}": round(x, 3) for k, x in v.items()})
    if args.overlap:  # on every core
        lines, data["overlap"] = overlap(args, bench)
        body += lines
        for m, v in data["overlap"].items():
            if isinstance(v, dict):
                figures[f"overlap {m} records/s"] = round(v["records_per_s"], 1)
    torch.set_num_threads(1)
    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    except (AttributeError, OSError):
        pass
    memo: dict = {}
    versions = [Version("after", None, args.setups, memo)]
    if args.against is not None:
        versions.insert(0, Version("before", args.against, args.setups, memo))
    names = [v.name for v in versions]
    for setup in args.setups:
        inputs = _inputs(args, SETUPS[setup][1])
        bench.log(f"{setup}: {len(inputs)} records, untimed pass (runs the model)")
        for v in versions:
            v.run(setup, inputs)
        runs: dict[str, list] = {v.name: [] for v in versions}
        for r in range(args.rounds):
            order = versions if r % 2 == 0 else versions[::-1]
            for v in order:
                runs[v.name].append(v.timed(setup, inputs))
            bench.log(f"{setup}: round {r + 1}/{args.rounds}")
        if args.cprofile:
            prof = cProfile.Profile()
            prof.enable()
            versions[-1].timed(setup, inputs)
            prof.disable()
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(args.cprofile)
            print(out.getvalue(), file=sys.stderr)
        per: dict[str, dict[str, Any]] = {}
        for n, rs in runs.items():
            labels = {k for x in rs for k in x["stages"]}
            stages = {k: _median([x["stages"].get(k, 0.0) for x in rs]) for k in labels}
            host = _median(
                [sum(v for k, v in x["stages"].items() if k not in NOT_HOST) for x in rs]
            )
            per[n] = {"stages": stages, "pairs": rs[0]["pairs"], "records": rs[0]["records"],
                      "host_s": host}  # fmt: skip
        same = None
        if len(versions) == 2:
            a, b = (runs[n][0]["verdicts"] for n in names)
            same = a == b
        p = per["after"]
        body += [
            "",
            f"### {setup}: {p['records']} records, {p['pairs']} pairs "
            f"({'score_batch' if SETUPS[setup][1] == 'workload' else 'score, one at a time'})",
            "",
            f"Median of {args.rounds} passes, exclusive time per stage, one core; forwards "
            "replayed (not host-side work)."
            + ("" if same is None else f" Same verdicts in both versions: {same}."),
            "",
            *_table(per, names),
        ]
        for n in names:
            figures[f"{setup} {n} host µs/pair"] = round(
                1e6 * per[n]["host_s"] / max(per[n]["pairs"], 1), 1
            )
            figures[f"{setup} {n} host ms/record"] = round(
                1e3 * per[n]["host_s"] / per[n]["records"], 2
            )
        data[setup] = {n: per[n] for n in names} | {"same_verdicts": same}
    print("\n".join(body))
    return Outcome(body="\n".join(body), figures=figures, data=data)
