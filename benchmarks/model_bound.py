"""How much of this CPU the model's forwards use: the bound on CPU batch speed.

    python -m benchmarks run model_bound --data-dir ../shared/data
    python -m benchmarks run model_bound --records 24 --rounds 3

``score_batch`` with the default set-up over RAG-sized records (the first ``--records``
RAGTruth answers of ``rag-dev``, three passages or a news article and a paragraph of answer;
without ``rag-dev``, the workload's news records), every pass new to the library's caches.
In the same passes it times the model's forwards (the runtime's ``_probabilities``) and
counts their arithmetic (``torch.utils.flop_counter``: the matrix products of the padded
batches, as run). Beside it, the machine's rate for the same products alone: each linear
layer's shape of the model, in the model's dtype and threads, rows as many as a batch's
tokens.

What it answers: if the forwards ran at the rate of bare matrix products and nothing else
took any time, how much faster could ``score_batch`` be, doing the same arithmetic (the same
pairs, padded the same way, so the same probabilities)? That is the ceiling of any speed-up
that keeps every verdict and score on this CPU; a larger one needs less arithmetic (fewer
pairs, shorter premises, early exit, int8), which changes them.
"""

from __future__ import annotations

import json
import logging
import statistics
import time
from pathlib import Path
from typing import Any

from .harness import DEFAULT_DATA_DIR, Outcome

TITLE = "How much of this CPU the model's forwards use (the bound on CPU batch speed)"


def add_arguments(p, name: str) -> None:
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--records", type=int, default=24, help="RAG-sized records")
    p.add_argument("--rounds", type=int, default=3, help="timed score_batch passes")


def rag_sized_records(data_dir: Path, n: int) -> tuple[list[dict[str, Any]], str]:
    """The first ``n`` RAGTruth answers of ``rag-dev`` (else the workload's news records)."""
    path = data_dir / "rag-dev" / "ragtruth_train_labelled.jsonl"
    if path.exists():
        with path.open(encoding="utf-8") as f:
            rows = [json.loads(line) for _, line in zip(range(n), f)]
        recs = [
            {"response": r["response"], "context": r["context"], "question": r.get("question")}
            for r in rows
        ]
        return recs, f"the first {len(recs)} RAGTruth answers of rag-dev"
    from .speed_inputs import workload_records

    recs = [
        {"response": x["response"], "context": x["context"]}
        for x in workload_records(data_dir, n)
        if x["set"] in ("summeval", "qags_cnndm")
    ][:n]
    return recs, f"{len(recs)} news records of the workload sets"


class TimedForward:
    """Wraps a runtime's forward (``_probabilities``): its seconds, batches and tokens."""

    def __init__(self, runtime) -> None:
        self.runtime, self.real = runtime, runtime._probabilities
        self.seconds, self.batches, self.rows, self.padded, self.tokens = 0.0, 0, 0, 0, 0
        self.padded_sq = self.tokens_sq = 0  # sum over rows of width² and of length²

    def __enter__(self) -> TimedForward:
        self.runtime._probabilities = self._timed
        return self

    def __exit__(self, *exc) -> None:
        del self.runtime._probabilities  # back to the class's method

    def _timed(self, batch, *args):
        t0 = time.perf_counter()
        out = self.real(batch, *args)
        self.seconds += time.perf_counter() - t0
        self.batches += 1
        rows, width = batch["input_ids"].shape
        lengths = batch["attention_mask"].sum(axis=1).astype("int64")
        self.rows += rows  # pairs the model ran (each distinct pair once)
        self.padded += rows * width
        self.tokens += int(lengths.sum())
        self.padded_sq += rows * width * width
        self.tokens_sq += int((lengths * lengths).sum())
        return out


def attention_flops(layers: int, hidden: int, width_sq: int) -> int:
    """Attention arithmetic of rows whose widths' squares sum to ``width_sq``: Q·Kᵀ and
    A·V, 2·w²·d per head each, over ``hidden`` = heads · d, in every layer."""
    return layers * 4 * hidden * width_sq


def split_flops(counts: dict) -> tuple[int, int]:
    """(linear layers', attention's) arithmetic of a ``FlopCounterMode``'s global counts:
    the matrix products of the linear layers (``addmm``, ``mm``) and any other operator
    counted (batched products or attention kernels that the counter has a formula for)."""
    linear = sum(n for op, n in counts.items() if str(op).split(".")[-1] in ("addmm", "mm"))
    return linear, sum(counts.values()) - linear


def matmul_rate(model, rows: int, repeats: int = 20) -> dict[str, float]:
    """GFLOP/s of ``rows`` x in @ out products at each linear shape of ``model``."""
    import torch

    dtype = next(model.parameters()).dtype
    shapes = sorted({tuple(m.weight.shape) for m in model.modules()
                     if isinstance(m, torch.nn.Linear) and m.weight.shape[0] > 8})  # fmt: skip
    rates = {}
    with torch.inference_mode():
        for out_f, in_f in shapes:
            x = torch.randn(rows, in_f, dtype=dtype)
            w = torch.randn(in_f, out_f, dtype=dtype)
            for _ in range(3):
                x @ w
            best = float("inf")
            for _ in range(3):
                t0 = time.perf_counter()
                for _ in range(repeats):
                    x @ w
                best = min(best, time.perf_counter() - t0)
            rates[f"{rows}x{in_f}x{out_f}"] = 2 * rows * in_f * out_f * repeats / best / 1e9
    return rates


def op_times(scorer, recs) -> tuple[dict[str, float], float]:
    """Self CPU seconds of each torch operator in one ``score_batch`` pass, largest first,
    and their total."""
    from torch.profiler import ProfilerActivity, profile

    from .host_profile import clear_caches

    clear_caches("nli_faith", [scorer])
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        scorer.score_batch(recs)
    times = {e.key: e.self_cpu_time_total / 1e6 for e in prof.key_averages()}
    times = dict(sorted(times.items(), key=lambda kv: -kv[1]))
    return times, sum(times.values())


def run(args, bench) -> Outcome:
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    from nli_faith.scorer import FaithfulnessScorer

    from .host_profile import clear_caches, make_scorer

    logging.getLogger("nli_faith").setLevel(logging.ERROR)
    recs, what = rag_sized_records(args.data_dir, args.records)
    if not recs:
        raise SystemExit(f"no records under {args.data_dir}")
    sc = make_scorer(FaithfulnessScorer, "default")
    nli = sc.stages.parts.nli
    runtime, model = nli._runtime, nli.torch_model
    if model is None or not hasattr(runtime, "_probabilities"):
        raise SystemExit("model_bound measures the torch backend's forwards")
    sc.score_batch(recs[:2])  # first-call costs
    first = matmul_rate(model, 32 * 96)  # the bare products before the passes ...
    passes = []
    want = None
    for k in range(args.rounds):
        clear_caches("nli_faith", [sc])
        before = nli.pairs_predicted
        with TimedForward(runtime) as fwd:
            t0 = time.perf_counter()
            out = sc.score_batch(recs)
            wall = time.perf_counter() - t0
        got = [[c.verdict for c in r.claims] for r in out]
        want = got if want is None else want
        passes.append({"wall": wall, "forward": fwd.seconds, "pairs": nli.pairs_predicted - before,
                       "batches": fwd.batches, "rows": fwd.rows, "padded": fwd.padded,
                       "tokens": fwd.tokens,
                       "padded_sq": fwd.padded_sq, "tokens_sq": fwd.tokens_sq,
                       "same": got == want})  # fmt: skip
        bench.log(f"pass {k + 1}/{args.rounds}: {wall:.2f} s, forwards {fwd.seconds:.2f} s")
    clear_caches("nli_faith", [sc])
    counter = FlopCounterMode(display=False)
    with counter:
        sc.score_batch(recs)
    linear, counted = split_flops(counter.get_flop_counts().get("Global", {}))
    ops, in_ops = op_times(sc, recs)
    best = min(passes, key=lambda p: p["wall"])
    asked, pairs = best["pairs"], best["rows"]  # pairs asked for; distinct ones the model ran
    padded, tokens = best["padded"], best["tokens"]
    cfg = model.config
    # torch's CPU attention kernel has no formula in the counter (2.13): counted from widths
    attention = counted or attention_flops(cfg.num_hidden_layers, cfg.hidden_size,
                                           best["padded_sq"])  # fmt: skip
    flops = linear + attention
    rows = max(1, round(padded / best["batches"]))
    rates = matmul_rate(model, rows)  # ... and after, at a batch's tokens: the best of both
    peak_before = max(first.values())
    peak = max(max(rates.values()), peak_before)
    fwd_rate = flops / best["forward"] / 1e9
    ceiling = best["wall"] * peak * 1e9 / flops
    unpadded = linear * tokens / padded + attention * best["tokens_sq"] / best["padded_sq"]
    ceiling_unpadded = best["wall"] * peak * 1e9 / unpadded
    linear_s = ops.get("aten::addmm", 0.0)  # the linear layers' products
    figures = {
        "records": len(recs),
        "pairs asked for": asked,
        "pairs the model ran": pairs,
        "score_batch pairs/s": round(pairs / best["wall"], 1),
        "forwards pairs/s": round(pairs / best["forward"], 1),
        "forwards share of score_batch": round(best["forward"] / best["wall"], 3),
        "GFLOP per pair": round(flops / pairs / 1e9, 3),
        "forwards GFLOP/s": round(fwd_rate),
        "matmul GFLOP/s": round(peak),
        "forwards / matmul rate": round(fwd_rate / peak, 3),
        "ceiling × score_batch, same arithmetic": round(ceiling, 2),
        "ceiling × score_batch, no padding": round(ceiling_unpadded, 2),
        "linear layers' share of the model's op time": round(linear_s / in_ops, 3),
        "linear layers' GFLOP/s": round(linear / linear_s / 1e9) if linear_s else None,
    }
    lines = [
        f"{what}: {asked:,} (claim, premise) pairs asked for, {pairs:,} distinct ones run "
        f"by the model in {best['batches']} batches (per-pair figures are per pair run); "
        f"{tokens / pairs:.1f} tokens a pair, {padded / pairs:.1f} padded "
        f"({torch.get_num_threads()} torch threads, {next(model.parameters()).dtype}). "
        f"Best of {args.rounds} `score_batch` passes, each new to the caches; the same "
        f"verdicts in every pass: {all(p['same'] for p in passes)}.",
        "",
        "| measure | value |",
        "|---|---:|",
        f"| `score_batch` | {pairs / best['wall']:,.1f} pairs/s ({len(recs) / best['wall']:.2f} "
        "records/s) |",
        f"| the model's forwards inside it | {best['forward']:.2f} of {best['wall']:.2f} s "
        f"({100 * best['forward'] / best['wall']:.1f}%) |",
        f"| arithmetic of the forwards | {flops / pairs / 1e9:.3f} GFLOP a pair "
        f"({100 * attention / flops:.0f}% attention) |",
        f"| forwards' rate | {fwd_rate:,.0f} GFLOP/s |",
        f"| bare matrix products at the model's shapes (best, before and after the passes) "
        f"| {peak:,.0f} GFLOP/s |",
        f"| forwards / bare products | {fwd_rate / peak:.2f} |",
        f"| **`score_batch` ceiling, same arithmetic** | **{ceiling:.2f}×** |",
        f"| `score_batch` ceiling with no padding at all | {ceiling_unpadded:.2f}× |",
        "",
        "Where the forwards' time goes (`torch.profiler`, one more pass, self CPU time of "
        "the operators):",
        "",
        "| operator | share | s |",
        "|---|---:|---:|",
        *[f"| `{op}` | {100 * t / in_ops:.1f}% | {t:.3f} |" for op, t in list(ops.items())[:8]],
        "",
        (
            f"The linear layers' products run at {linear / linear_s / 1e9:,.0f} GFLOP/s inside "
            f"the model, against {peak:,.0f} bare; the rest of the time goes to the other "
            f"operators, attention first ({100 * attention / flops:.0f}% of the arithmetic)."
            if linear_s
            else "The profile holds no `aten::addmm`."
        ),
        "",
        "Bare matrix products, each linear layer's shape (rows: a batch's padded tokens):",
        "",
        "| shape (rows x in x out) | GFLOP/s |",
        "|---|---:|",
        *[f"| {shape} | {rate:,.0f} |" for shape, rate in rates.items()],
        "",
        "A ceiling is `score_batch`'s time over the time its arithmetic would take at the "
        "best bare products' rate measured here with nothing else running (no softmax, no "
        "normalisation, no activation, no planning): the same pairs, padded the same way, "
        "cannot be scored faster on this CPU unless the products themselves run faster "
        "than torch's do alone (and another kernel rounds differently). The second "
        "ceiling also drops every padded token, which changes the kernels' shapes and so "
        "the low bits of the probabilities. More needs less arithmetic (fewer or shorter "
        "pairs, early exit, int8), which changes scores.",
    ]
    data = {"passes": passes, "linear_flops": linear, "attention_flops": attention, "matmul": rates,
            "matmul_before": first,
            "median_wall": statistics.median(p["wall"] for p in passes)}  # fmt: skip
    return Outcome("\n".join(lines), figures, data)
