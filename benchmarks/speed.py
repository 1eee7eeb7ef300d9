"""Speed benchmark of nli-faith on this machine: ``python -m benchmarks run speed``.

Every comparison is measured in the same run (interleaved rounds, medians) and given as a ratio.

Sections (``--sections 1,3,...``):

1. overhead: ``score_batch`` pairs/s over a fixed workload / bare batched forwards on the
   same (chunk, claim) pairs (pre-tokenized, length-sorted, same batch size); torch and onnx.
2. naive: the same pairs one at a time through ``transformers.pipeline`` vs ``score_batch``.
3. guardrail latency: p50/p95 of ``scorer.score`` on 200 standard requests, several configs.
4. claim splitting: sentences/s per core, rule-based and parser (clause) modes.
5. long context: full scan vs the pre-filters (and early exit); pre-filter verdict agreement
   on a sample of the visible sets (``benchmarks.prefilter_study``, report half).
6. GPU: figures read from ``--gpu-results`` (written by ``run speed_gpu``), and
   the host-side preparation rate that bounds GPU ``predict`` (measured on this CPU).
7. backend agreement: ONNX int8 / fp32 and torch bf16 vs torch fp32 on the same sample.
8. scale: GPU end-to-end / bare forwards (CUDA only), the streaming
   CLI's records/s and peak RSS on 10,000 and 100,000 records, Ray Data with 1 and 2 CPU
   actors beside ``score_batch`` (``benchmarks.speed_scale``).

``--update WHY`` re-measures only ``--sections`` and replaces them in the existing results.

``python -m benchmarks run speed_gpu`` runs only the GPU path, which imports no spaCy.
The machine is shared: every section records the CPU share other processes took while
it ran (``foreign_share``) and the load average at its start and end.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import time
from pathlib import Path
from typing import Any

from .harness import DEFAULT_DATA_DIR, RESULTS_DIR, Outcome
from .speed_common import (
    CpuMonitor,
    cpu_info,
    measure_foreign_load,
    median,
    padded_batches,
    percentile,
    rnd,
    timed,
    usable_cores,
    versions,
    wait_for_quiet,
)
from .speed_scale import section_scale

TARGETS = {
    "overhead_ratio": 0.85,
    "naive_speedup": 3.0,
    "p50_ms": 100.0,
    "p95_ms": 250.0,
    "rule_sentences_per_s_per_core": 5000.0,
    "prefilter_agreement": 0.99,
    "gpu_end_to_end_ratio": 0.8,
}
ALL_SECTIONS = (1, 2, 3, 4, 5, 6, 7, 8)
#: A request round counts as "quiet" when other processes took less than this CPU share.
QUIET_SHARE = 0.10


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ------------------------------------------------------------------------------ shared state


class Bench:
    """Loaded scorers and cached results shared between sections."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.quick = args.quick
        self.data_dir = Path(args.data_dir)
        self._scorers: dict[tuple, Any] = {}
        self._sample_cache: dict[str, Any] = {}

    def scorer(self, **kw: Any):
        from nli_faith.scorer import FaithfulnessScorer

        key = tuple(sorted(kw.items()))
        if key not in self._scorers:
            self._scorers[key] = FaithfulnessScorer(device="cpu", **kw)
        return self._scorers[key]


def _unique_pairs(scorer, records: list[dict]) -> tuple[list[tuple[str, str]], int]:
    """The (chunk, claim) pairs ``score_batch`` sends to the model, deduplicated in order."""
    pairs: list[tuple[str, str]] = []
    import numpy as np

    for r in records:
        p = scorer.stages.plan(r["response"], r["context"])
        for i, j in zip(*np.nonzero(p.mask)):
            pairs.append((p.chunks[j].text, p.claims[i].text))
    return list(dict.fromkeys(pairs)), len(pairs)


def _has_onnx_fp32() -> bool:
    """Whether this version of the library has ``onnx_quantize`` (fp32 ONNX graph)."""
    import inspect

    from nli_faith.scorer import FaithfulnessScorer

    return "onnx_quantize" in inspect.signature(FaithfulnessScorer).parameters


def _bare_batches(nli, pairs: list[tuple[str, str]], batch_size: int, backend: str) -> list:
    """The same inputs ``NLIModel.predict`` builds, padded once (torch tensors for torch)."""
    batches = padded_batches(nli, pairs, batch_size)
    if backend != "torch":
        return batches
    import torch

    return [{k: torch.from_numpy(v) for k, v in b.items()} for b in batches]


def _run_bare(nli, batches: list, backend: str) -> None:
    if backend == "torch":
        import torch

        model = nli.torch_model
        with torch.inference_mode():
            for b in batches:
                model(**b).logits  # noqa: B018
    elif nli._runtime.run_threads > 1:  # the library's one-pair runs, side by side
        from nli_faith.nli.onnx import run_pool

        list(run_pool(nli._runtime.run_threads).map(nli.onnx_session.run, batches))
    else:
        for b in batches:
            nli.onnx_session.run(b)


def _pair_tokens(nli, pairs: list[tuple[str, str]]) -> float:
    enc = nli.tokenizer([p for p, _ in pairs], [h for _, h in pairs], truncation=False)
    return sum(min(len(x), nli.max_length) for x in enc["input_ids"]) / max(1, len(pairs))


# ------------------------------------------------------------------------------ section 1


def section_overhead(b: Bench) -> dict[str, Any]:
    from .speed_inputs import WORKLOAD_SETS, workload_records

    per_set = 2 if b.quick else b.args.workload_per_set
    rounds = 1 if b.quick else 3
    records = workload_records(b.data_dir, per_set)
    out: dict[str, Any] = {
        "workload": {
            "sets": list(WORKLOAD_SETS),
            "records_per_set": per_set,
            "records": len(records),
            "selection": "first N records of each set, in file order",
        },
        "rounds": rounds,
        "method": "interleaved rounds (bare then score_batch, then the other way round) per "
        "backend; median time per method; ratio = median over rounds of t_bare / t_score_batch",
        "backends": {},
    }
    variants = [("torch", {"backend": "torch"})]
    if not b.args.no_onnx:
        variants.append(("onnx", {"backend": "onnx"}))
        if _has_onnx_fp32():
            variants.append(("onnx-fp32", {"backend": "onnx", "onnx_quantize": False}))
    for backend, kw in variants:
        sc = b.scorer(**kw)
        nli = sc.nli
        kind = kw["backend"]
        if kind == "torch":  # the default dtype depends on the CPU
            backend = f"torch {str(nli.torch_model.dtype).replace('torch.', '')}"
        pairs, n_all = _unique_pairs(sc, records)
        batches = _bare_batches(nli, pairs, nli.batch_size, kind)
        log(f"  s1 {backend}: {len(pairs)} unique pairs ({n_all} with duplicates)")
        sc.score_batch(records[: max(3, len(records) // 10)])  # warm-up
        _run_bare(nli, batches[-3:], kind)
        t_bare, t_sb, ratios = [], [], []
        mon = CpuMonitor()
        for r in range(rounds):  # alternate which goes first, against drifting load
            if r % 2 == 0:
                tb, _ = timed(lambda: _run_bare(nli, batches, kind))  # noqa: B023
                ts, _ = timed(lambda: sc.score_batch(records))  # noqa: B023
            else:
                ts, _ = timed(lambda: sc.score_batch(records))  # noqa: B023
                tb, _ = timed(lambda: _run_bare(nli, batches, kind))  # noqa: B023
            t_bare.append(tb)
            t_sb.append(ts)
            ratios.append(tb / ts)
            log(f"  s1 {backend} round {r}: bare {tb:.2f}s score_batch {ts:.2f}s")
        # where score_batch's extra time goes (measured once, outside the timed rounds)
        stages = sc.stages
        t_plan, plans = timed(lambda: [stages.plan(x["response"], x["context"]) for x in records])  # noqa: B023
        t_tok, _ = timed(
            lambda: nli.tokenizer([p for p, _ in pairs], [h for _, h in pairs], truncation=False)  # noqa: B023
        )
        mats = sc.stages.matrices(plans)
        t_agg, _ = timed(lambda: [sc.stages.aggregate(m) for m in mats])  # noqa: B023
        tb_med, ts_med = median(t_bare), median(t_sb)
        out["backends"][backend] = {
            "unique_pairs": len(pairs),
            "pairs_with_duplicates": n_all,
            "mean_pair_tokens": rnd(_pair_tokens(nli, pairs), 1),
            "batch_size": nli.batch_size,
            "n_batches": len(batches),
            "bare_s": [rnd(x) for x in t_bare],
            "score_batch_s": [rnd(x) for x in t_sb],
            "bare_pairs_per_s": rnd(len(pairs) / tb_med, 1),
            "score_batch_pairs_per_s": rnd(len(pairs) / ts_med, 1),
            "ratio": rnd(median(ratios)),
            "ratio_per_round": [rnd(x) for x in ratios],
            "breakdown_s": {
                "plan (claims + chunking)": rnd(t_plan),
                "tokenize all pairs": rnd(t_tok),
                "aggregate (verdicts)": rnd(t_agg),
                "score_batch - bare (total overhead)": rnd(ts_med - tb_med),
            },
            "cpu": mon.stop(),
        }
    return out


# ------------------------------------------------------------------------------ section 2


def section_naive(b: Bench) -> dict[str, Any]:
    import numpy as np
    import torch
    from transformers import pipeline

    from .speed_inputs import workload_records

    per_set = 2 if b.quick else b.args.workload_per_set
    records = workload_records(b.data_dir, per_set)
    sc = b.scorer(backend="torch")
    pairs, n_all = _unique_pairs(sc, records)
    n_sub = 12 if b.quick else b.args.naive_pairs
    step = max(1, len(pairs) // n_sub)
    sub = pairs[::step][:n_sub]
    rounds = 1 if b.quick else 2
    path = sc.nli.path
    pipe = pipeline(
        "text-classification", model=path, top_k=None, device="cpu", dtype=torch.float32
    )
    inputs = [{"text": p, "text_pair": h} for p, h in sub]
    for x in inputs[:3]:
        pipe(x)
    sc.score_batch(records[:3])
    sc_o = None if b.args.no_onnx else b.scorer(backend="onnx")
    if sc_o is not None:
        sc_o.score_batch(records[:3])
    sc_fp = b.scorer(backend="torch", dtype="float32")
    sc_fp.score_batch(records[:3])
    t_naive, t_sb, t_sbo, speedups, speedups_o = [], [], [], [], []
    t_fp, speedups_fp = [], []
    mon = CpuMonitor()
    outs = None
    for r in range(rounds):
        tn, outs = timed(lambda: [pipe(x) for x in inputs])  # noqa: B023
        ts, _ = timed(lambda: sc.score_batch(records))
        t_naive.append(tn)
        t_sb.append(ts)
        speedups.append((len(pairs) / ts) / (len(sub) / tn))
        if sc_o is not None:
            to, _ = timed(lambda: sc_o.score_batch(records))
            t_sbo.append(to)
            speedups_o.append((len(pairs) / to) / (len(sub) / tn))
        tfp, _ = timed(lambda: sc_fp.score_batch(records))
        t_fp.append(tfp)
        speedups_fp.append((len(pairs) / tfp) / (len(sub) / tn))
        log(f"  s2 round {r}: naive {len(sub)} pairs {tn:.2f}s, score_batch {ts:.2f}s")
    # same model, same pairs: check the probabilities agree
    want = sc.nli.predict(sub)
    names = ("entailment", "neutral", "contradiction")
    got = np.array([[{d["label"]: d["score"] for d in o}[n] for n in names] for o in outs])
    # transformers' default (dtype="auto": the checkpoint's float16 weights, on CPU)
    n_auto = 6 if b.quick else min(40, len(sub))
    pipe_auto = pipeline("text-classification", model=path, top_k=None, device="cpu")
    pipe_auto(inputs[0])
    t_auto, _ = timed(lambda: [pipe_auto(x) for x in inputs[:n_auto]])
    naive_pps = len(sub) / median(t_naive)
    return {
        "workload": f"section 1 workload: {len(records)} records, {len(pairs)} unique pairs",
        "naive": "pipeline('text-classification', model=<bundled>, top_k=None, "
        "dtype=torch.float32), one {'text': premise, 'text_pair': hypothesis} per call",
        "subsample": f"every {step}th unique pair of the workload: {len(sub)} pairs "
        f"(mean {rnd(_pair_tokens(sc.nli, sub), 1)} tokens vs "
        f"{rnd(_pair_tokens(sc.nli, pairs), 1)} for all); naive pairs/s extrapolated per pair",
        "rounds": rounds,
        "naive_s": [rnd(x) for x in t_naive],
        "score_batch_s": [rnd(x) for x in t_sb],
        "naive_pairs_per_s": rnd(naive_pps, 1),
        "naive_ms_per_pair": rnd(1000 / naive_pps, 1),
        "score_batch_pairs_per_s": rnd(len(pairs) / median(t_sb), 1),
        "speedup": rnd(median(speedups), 2),
        "speedup_per_round": [rnd(x, 2) for x in speedups],
        "onnx_score_batch_pairs_per_s": rnd(len(pairs) / median(t_sbo), 1) if t_sbo else None,
        "onnx_speedup": rnd(median(speedups_o), 2) if speedups_o else None,
        "fp32_score_batch_pairs_per_s": rnd(len(pairs) / median(t_fp), 1),
        "fp32_speedup": rnd(median(speedups_fp), 2),
        "torch_default_dtype": str(sc.nli.torch_model.dtype).replace("torch.", ""),
        "max_abs_prob_diff_naive_vs_predict": float(f"{np.abs(got - want).max():.2e}"),
        "naive_default_dtype": {
            "dtype": str(pipe_auto.model.dtype),
            "pairs": n_auto,
            "pairs_per_s": rnd(n_auto / t_auto, 1),
            "note": "transformers 5 loads the checkpoint's stored dtype by default; the "
            "bundled config says float16, which is slow on CPU",
        },
        "torch_threads": torch.get_num_threads(),
        "cpu": mon.stop(),
    }


# ------------------------------------------------------------------------------ section 3


def _guardrail() -> dict[str, Any]:
    from nli_faith.scorer import GUARDRAIL_OPTIONS

    return dict(GUARDRAIL_OPTIONS)


LATENCY_CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("torch default", {}),
    ("onnx default", {"backend": "onnx"}),
    ("onnx, early_exit", {"backend": "onnx", "early_exit": True}),
    ('onnx, prefilter="lexical"', {"backend": "onnx", "prefilter": "lexical"}),
    ('onnx, prefilter="embedding"', {"backend": "onnx", "prefilter": "embedding"}),
    ("FaithfulnessScorer.guardrail() (prefilter_top_k=2)", _guardrail()),
    ("guardrail() with prefilter_top_k=3", {**_guardrail(), "prefilter_top_k": 3}),
    ("onnx, sentence_chunks=False", {"backend": "onnx", "sentence_chunks": False}),
]
#: What the answer's sentences are (see speed_inputs.guardrail_requests) and the verdict
#: one would expect; used only to show *which* claims change verdict between configs.
ANSWER_ROLES = (
    ("passage-1 sentence", "yes"),
    ("summary sentence", None),
    ("passage-2 sentence", "yes"),
    ("number changed / 'not'", "no"),
    ("unrelated sentence", "idk"),
)


def _verdicts(result) -> list[str]:
    return [c.verdict for c in result.claims]


def _agree(a: list[list[str]], ref: list[list[str]]) -> dict[str, Any]:
    same = total = 0
    for x, y in zip(a, ref):
        if len(x) != len(y):
            total += max(len(x), len(y))
            continue
        total += len(x)
        same += sum(p == q for p, q in zip(x, y))
    return {"claims": total, "equal": same, "agreement": rnd(same / total, 4) if total else None}


def section_latency(b: Bench) -> dict[str, Any]:
    from .host_profile import clear_caches
    from .speed_inputs import guardrail_requests

    n_req = 12 if b.quick else b.args.latency_requests
    warm = 3 if b.quick else 5
    reqs = guardrail_requests(b.data_dir, n_req + warm)
    configs = [
        (name, kw)
        for name, kw in LATENCY_CONFIGS
        if not (b.args.no_onnx and kw.get("backend"))
        and ("onnx_quantize" not in kw or _has_onnx_fp32())
    ]
    scorers = {name: b.scorer(**kw) for name, kw in configs}
    for sc in scorers.values():  # warm-up (loads the bi-encoder, first-call costs)
        for r in reqs[:warm]:
            sc.score(r["response"], r["context"])
    timed_reqs = reqs[warm:]
    lat: dict[str, list[float]] = {name: [] for name, _ in configs}
    verdicts: dict[str, list[list[str]]] = {name: [] for name, _ in configs}
    pairs: dict[str, list[int]] = {name: [] for name, _ in configs}
    order = [name for name, _ in configs]
    mon = CpuMonitor()
    round_foreign: list[float] = []
    for i, r in enumerate(timed_reqs):
        rot = order[i % len(order) :] + order[: i % len(order)]  # rotate the position
        rmon = CpuMonitor()
        for name in rot:
            sc = scorers[name]
            clear_caches("nli_faith", [sc])  # new to the library: no text of it cached
            t, res = timed(lambda: sc.score(r["response"], r["context"]))  # noqa: B023
            lat[name].append(t * 1000)
            verdicts[name].append(_verdicts(res))
        round_foreign.append(rmon.stop().get("foreign_share", 0.0))
        if i % 20 == 19 or i == len(timed_reqs) - 1:
            log(f"  s3 {i + 1}/{len(timed_reqs)} requests")
    # shape of the requests and pairs per config (counted once, outside timing)
    for name, sc in scorers.items():
        for r in timed_reqs[: min(40, len(timed_reqs))]:
            pairs[name].append(
                int(sc.stages.matrices([sc.stages.plan(r["response"], r["context"])])[0].mask.sum())
            )
    ref = verdicts["torch default"]
    ref_onnx = verdicts.get("onnx default")
    quiet = [i for i, f in enumerate(round_foreign) if f < QUIET_SHARE]
    rows = []
    for name, kw in configs:
        xs = lat[name]
        row = {
            "config": name,
            "options": kw,
            "p50_ms": rnd(percentile(xs, 50), 1),
            "p95_ms": rnd(percentile(xs, 95), 1),
            "mean_ms": rnd(sum(xs) / len(xs), 1),
            "max_ms": rnd(max(xs), 1),
            "quiet_requests": len(quiet),
            "quiet_p50_ms": rnd(percentile([xs[i] for i in quiet], 50), 1) if quiet else None,
            "quiet_p95_ms": rnd(percentile([xs[i] for i in quiet], 95), 1) if quiet else None,
            "mean_pairs_per_request": rnd(sum(pairs[name]) / len(pairs[name]), 1),
            "agreement_vs_torch_default": _agree(verdicts[name], ref),
        }
        if ref_onnx is not None:
            row["agreement_vs_onnx_default"] = _agree(verdicts[name], ref_onnx)
        roles = []
        for k, (role, expected) in enumerate(ANSWER_ROLES):
            got = [v[k] for v in verdicts[name] if len(v) == len(ANSWER_ROLES)]
            counts = {x: got.count(x) for x in ("yes", "no", "idk")}
            same = [
                v[k] == w[k]
                for v, w in zip(verdicts[name], ref)
                if len(v) == len(w) == len(ANSWER_ROLES)
            ]
            roles.append(
                {
                    "role": role,
                    "expected": expected,
                    "verdicts": counts,
                    "agreement_vs_torch_default": rnd(sum(same) / len(same), 4) if same else None,
                }
            )
        row["by_role"] = roles
        row["meets_target"] = (
            row["p50_ms"] <= TARGETS["p50_ms"] and row["p95_ms"] <= TARGETS["p95_ms"]
        )
        rows.append(row)
    sc0 = scorers["torch default"]
    c0 = [sc0.stages.plan(r["response"], r["context"]) for r in timed_reqs[:40]]
    return {
        "requests": len(timed_reqs),
        "warmup_requests": warm,
        "request": "3 passages of ~150 words (2 from one CNN/DM article, 1 from the next "
        "article as noise) + a 5-sentence answer: 3 sentences from the passages or a "
        "system summary (supported), 1 with a number changed, 1 from an unrelated article",
        "mean_passage_words": rnd(
            sum(len(p.split()) for r in timed_reqs for p in r["context"]) / (3 * len(timed_reqs)),
            1,
        ),
        "mean_claims": rnd(sum(len(p.claims) for p in c0) / len(c0), 2),
        "mean_chunks_default": rnd(sum(len(p.chunks) for p in c0) / len(c0), 1),
        "method": "each request scored alone with scorer.score(), the library's text caches "
        "and the tokenizer's id cache emptied before each call (no text of it seen before); "
        "configs interleaved request by request (rotating order) so that machine load hits "
        "all alike",
        "quiet_rounds": sum(f < QUIET_SHARE for f in round_foreign),
        "quiet_definition": f"request rounds (all configs on one request) during which other "
        f"processes took < {QUIET_SHARE:.0%} of the CPUs",
        "round_foreign_share_median": rnd(median(round_foreign), 3),
        "rows": rows,
        "note": "pairs = (claim, chunk) pairs actually scored (after the pre-filter and "
        "early exit), mean over the first 40 requests",
        "cpu": mon.stop(),
    }


# ------------------------------------------------------------------------------ section 4


def section_split(b: Bench) -> dict[str, Any]:
    from nli_faith.text.claims import ClaimSplitter
    from nli_faith.text.sentences import sentence_spans

    from .speed_inputs import llm_answers

    n_rule = 200 if b.quick else 3000
    n_parse = 60 if b.quick else 800
    answers = llm_answers(b.data_dir, n_rule)
    rule = ClaimSplitter()
    rule.split(answers[0])
    n_sent = sum(len(sentence_spans(a)) for a in answers)
    n_claims = sum(len(rule.split(a)) for a in answers)
    rounds = 1 if b.quick else 3

    def rate(fn, n_sentences: int) -> dict[str, Any]:
        walls, cpus = [], []
        for _ in range(rounds):
            c0 = os.times()
            t, _ = timed(fn)
            c1 = os.times()
            walls.append(t)
            cpus.append(
                (c1.user + c1.system + c1.children_user + c1.children_system)
                - (c0.user + c0.system + c0.children_user + c0.children_system)
            )
        w, c = median(walls), median(cpus)
        return {
            "wall_s": rnd(w),
            "cpu_s": rnd(c),
            "sentences_per_s": rnd(n_sentences / w, 0),
            "sentences_per_cpu_s": rnd(n_sentences / c, 0) if c > 0 else None,
        }

    out: dict[str, Any] = {
        "answers": "deterministic LLM-like Markdown answers (paragraphs, bullets, numbered "
        "lists, headings, bold, citations, pleasantries) from the sets' responses",
        "rule_answers": len(answers),
        "rule_sentences": n_sent,
        "rule_claims": n_claims,
        "sentences": "segments found by nli_faith.text.sentences.sentence_spans (headings, "
        "list items and pleasantries count; dropped ones are not claims)",
    }
    mon = CpuMonitor()
    r_split = rate(lambda: [rule.split(a) for a in answers], n_sent)
    r_many = rate(lambda: rule.split_many(answers), n_sent)
    out["rule_split"] = r_split
    out["rule_split_many"] = r_many
    log(
        f"  s4 rule: {r_split['sentences_per_s']} sent/s (split), "
        f"{r_many['sentences_per_s']} (many)"
    )
    try:
        clause = ClaimSplitter(granularity="clause")
    except Exception as err:  # no parser installed
        out["parser"] = {"error": str(err)}
        out["cpu"] = mon.stop()
        return out
    p_answers = answers[:n_parse]
    clause.split_many(p_answers[:20])
    p_sent = sum(len(sentence_spans(a)) for a in p_answers)
    p1 = rate(lambda: clause.split_many(p_answers, n_process=1), p_sent)
    p2 = rate(lambda: clause.split_many(p_answers, n_process=2), p_sent)
    p1["sentences_per_s_per_core"] = p1["sentences_per_s"]
    p2["sentences_per_s_per_core"] = rnd(p2["sentences_per_s"] / 2, 0)
    out["parser"] = {
        "model": getattr(clause._parser, "meta", {}).get("name"),
        "answers": len(p_answers),
        "sentences": p_sent,
        "n_process_1": p1,
        "n_process_2": p2,
        "note": "n_process=2 includes starting the worker processes (fork) in each call",
    }
    log(f"  s4 parser: {p1['sentences_per_s']} sent/s (1 proc), {p2['sentences_per_s']} (2 procs)")
    out["cpu"] = mon.stop()
    return out


# ------------------------------------------------------------------------------ section 5/7


def _sample_results(b: Bench, key: str, **kw: Any) -> dict[str, Any]:
    """Matrices and results of every sample record under one scorer config (cached)."""
    if key in b._sample_cache:
        return b._sample_cache[key]
    from .speed_inputs import spaced_sample

    per_set = 3 if b.quick else b.args.sample_per_set
    records = spaced_sample(b.data_dir, per_set)
    sc = b.scorer(**kw)
    mats, results = [], []
    t0 = time.perf_counter()
    for r in records:
        m = sc.stages.matrices([sc.stages.plan(r["response"], r["context"])])[0]
        mats.append(m)
        results.append(sc.stages.aggregate(m))
    secs = time.perf_counter() - t0
    log(f"  sample {key}: {len(records)} records in {secs:.1f}s")
    b._sample_cache[key] = {
        "records": records,
        "mats": mats,
        "results": results,
        "seconds": rnd(secs, 1),
    }
    return b._sample_cache[key]


def section_long(b: Bench) -> dict[str, Any]:

    from .speed_inputs import long_context

    tokens = 2000 if b.quick else b.args.long_tokens
    sc_t = b.scorer(backend="torch")
    lc = long_context(b.data_dir, tokens, sc_t.nli.count_tokens)
    backends = ["torch"] + ([] if b.args.no_onnx else ["onnx"])
    configs = []
    for be in backends:
        configs += [
            (f"{be} full scan", {"backend": be}),
            (f'{be} prefilter="embedding"', {"backend": be, "prefilter": "embedding"}),
            (f'{be} prefilter="lexical"', {"backend": be, "prefilter": "lexical"}),
            (
                f'{be} prefilter="lexical", early_exit',
                {"backend": be, "prefilter": "lexical", "early_exit": True},
            ),
        ]
    rounds_full = 1 if b.quick else 2
    rows = []
    mon = CpuMonitor()
    verd: dict[str, list[str]] = {}
    for name, kw in configs:
        sc = b.scorer(**kw)
        filtered = "full" not in name
        mask = sc.stages.matrices([sc.stages.plan(lc["response"], lc["context"])])[
            0
        ].mask  # pairs scored; warm-up
        claims, chunks = mask.shape[0], mask.shape[1]
        n = max(rounds_full, 3) if filtered else rounds_full
        ts = []
        for _ in range(n):
            t, res = timed(lambda: sc.score(lc["response"], lc["context"]))  # noqa: B023
            ts.append(t)
        verd[name] = _verdicts(res)
        rows.append(
            {
                "config": name,
                "seconds": [rnd(x, 2) for x in ts],
                "median_s": rnd(median(ts), 2),
                "claims": claims,
                "chunks": chunks,
                "pairs_scored": int(mask.sum()),
                "chunks_kept_per_claim": rnd(float(mask.sum(axis=1).mean()), 1),
                "verdicts": verd[name],
            }
        )
        log(f"  s5 {name}: {median(ts):.2f}s, {int(mask.sum())} pairs")
    speedups = {}
    for be in backends:
        full = next(r for r in rows if r["config"] == f"{be} full scan")
        for r in rows:
            if r["config"].startswith(be) and r is not full:
                speedups[r["config"]] = rnd(full["median_s"] / r["median_s"], 2)
    out: dict[str, Any] = {
        "context": f"{lc['n_docs']} whole CNN/DM articles (qags_cnndm, summeval), "
        f"{lc['context_tokens']} tokens",
        "answer": lc["response"],
        "rows": rows,
        "speedup_prefilter": speedups,
        "cpu": mon.stop(),
    }
    # agreement with the full scan on the visible sets: the pre-filters' masks applied to
    # one full-scan matrix per record (int8 ONNX runs one pair at a time, so a pair's
    # probabilities do not depend on which other pairs are scored)
    from .prefilter_study import study

    per_set = 3 if b.quick else b.args.agreement_per_set
    out["agreement"] = study(b.data_dir, per_set=per_set, backend="onnx", brief=True)
    return out


def section_backends(b: Bench) -> dict[str, Any]:
    full_t = _sample_results(b, "torch fp32 full", backend="torch", dtype="float32")
    out: dict[str, Any] = {
        "sample": "the section 5 sample",
        "reference": "torch float32, full scan",
    }
    if not b.args.no_onnx:
        full_o = _sample_results(b, "onnx full", backend="onnx")
        out["onnx_int8"] = _compare(full_t, full_o)
        if _has_onnx_fp32():
            full_f = _sample_results(b, "onnx fp32 full", backend="onnx", onnx_quantize=False)
            out["onnx_fp32"] = _compare(full_t, full_f)
    full_bf = _sample_results(b, "torch bf16 full", backend="torch", dtype="bfloat16")
    out["torch_bf16"] = _compare(full_t, full_bf)
    return out


def _compare(full_t: dict, full_o: dict) -> dict[str, Any]:
    import numpy as np

    claims = equal = 0
    max_claim_diff = 0.0
    pair_diffs = []
    flips: list[dict[str, Any]] = []
    for rec, mt, rt, mo, ro in zip(
        full_t["records"], full_t["mats"], full_t["results"], full_o["mats"], full_o["results"]
    ):
        for ct, co in zip(rt.claims, ro.claims):
            claims += 1
            equal += ct.verdict == co.verdict
            max_claim_diff = max(max_claim_diff, abs(ct.p_entail - co.p_entail))
            if ct.verdict != co.verdict and len(flips) < 10:
                flips.append(
                    {
                        "set": rec["set"],
                        "reference": [ct.verdict, ct.p_entail, ct.p_contradict],
                        "other": [co.verdict, co.p_entail, co.p_contradict],
                    }
                )
        if mt.mask.any():
            pair_diffs.append(np.abs(mt.probs[..., 0] - mo.probs[..., 0])[mt.mask])
    d = np.concatenate(pair_diffs) if pair_diffs else np.zeros(1)
    return {
        "seconds": full_o["seconds"],
        "seconds_reference": full_t["seconds"],
        "claims": claims,
        "equal_verdicts": equal,
        "agreement": rnd(equal / claims, 4) if claims else None,
        "max_abs_claim_p_entail_diff": rnd(max_claim_diff, 4),
        "pairs": int(d.size),
        "max_abs_pair_p_entail_diff": rnd(float(d.max()), 4),
        "mean_abs_pair_p_entail_diff": rnd(float(d.mean()), 5),
        "p99_abs_pair_p_entail_diff": rnd(float(np.percentile(d, 99)), 4),
        "flips": flips,
    }


# ------------------------------------------------------------------------------ section 6


def section_gpu(b: Bench) -> dict[str, Any]:
    path = Path(b.args.gpu_results) if b.args.gpu_results else None
    if path is None or not path.is_file():
        out: dict[str, Any] = {"available": False, "note": "no GPU was available in this run"}
    else:
        data = json.loads(path.read_text())
        out = {"available": True, "source": path.name, "results": data.get("data", data)}
    out["host_prep"] = _host_prep(b)
    return out


def _host_prep(b: Bench) -> dict[str, Any]:
    """What the per-text token cache buys: the ids of every pair, assembled from each
    distinct text's cached ids (as ``NLIModel`` does for the ONNX runtime, cold cache)
    against tokenizing every pair whole, then padding, on the section 5 sample's
    full-scan pairs (chunks recur across claims, as in real batch jobs).
    """
    import numpy as np

    from nli_faith.nli.batching import pad_batch
    from nli_faith.nli.tokens import PairEncoder

    from .speed_inputs import spaced_sample

    records = spaced_sample(b.data_dir, 3 if b.quick else 40)
    sc = b.scorer(backend="torch")
    pairs, _ = _unique_pairs(sc, records)
    tok = sc.nli.tokenizer
    batch = 256

    def pad(ids, types) -> None:
        order = np.argsort(-np.array([len(x) for x in ids]), kind="stable")
        for start in range(0, len(order), batch):
            pad_batch(ids, types, order[start : start + batch], sc.nli.max_length, 0)

    def cached() -> None:
        pad(*PairEncoder(tok).pair_ids(pairs))

    def per_pair() -> None:
        enc = tok([p for p, _ in pairs], [h for _, h in pairs], truncation=False)
        pad(enc["input_ids"], enc.get("token_type_ids"))

    t_new, t_old = [], []
    for _ in range(1 if b.quick else 3):
        t_new.append(timed(cached)[0])
        t_old.append(timed(per_pair)[0])
    return {
        "records": len(records),
        "pairs": len(pairs),
        "distinct_premises": len({p for p, _ in pairs}),
        "distinct_hypotheses": len({h for _, h in pairs}),
        "batch_size": batch,
        "predict_noop_pairs_per_s": rnd(len(pairs) / median(t_new), 0),
        "tokenize_every_pair_pairs_per_s": rnd(len(pairs) / median(t_old), 0),
        "speedup": rnd(median(t_old) / median(t_new), 2),
        "cores": usable_cores(),
    }


# ------------------------------------------------------------------------------ driver


def threads_info() -> dict[str, Any]:
    """How the run used the cores (the harness records the machine itself)."""
    import torch

    from nli_faith.config import DEFAULTS

    return {
        "cpu": cpu_info(),
        "versions": versions(
            "torch", "onnxruntime", "transformers", "sentence-transformers", "spacy", "numpy"
        ),
        "torch_threads": torch.get_num_threads(),
        "torch_interop_threads": torch.get_num_interop_threads(),
        # int8: one pair per run, runs side by side on single-threaded workers (NLIModel)
        "onnxruntime_threads": f"int8: {DEFAULTS.resolved_threads()} runs x 1 thread; fp32: "
        f"1 run x {DEFAULTS.resolved_threads()} intra-op threads",
        "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS"),
    }


SECTIONS = {
    1: ("overhead", section_overhead),
    2: ("naive", section_naive),
    3: ("latency", section_latency),
    4: ("claim_splitting", section_split),
    5: ("long_context", section_long),
    6: ("gpu", section_gpu),
    7: ("backend_agreement", section_backends),
    8: ("scale", section_scale),
}


TITLE = "nli-faith speed benchmark"
TITLES = {"speed_gpu": "GPU: bare forwards against NLIModel.predict"}


def add_arguments(p, name: str) -> None:
    p.add_argument("--quick", action="store_true", help="small workloads, a smoke run")
    if name == "speed_gpu":  # imports no spaCy: runs on a bare GPU machine
        p.add_argument("--gpu-device", default=None, help="default cuda if any")
        p.add_argument("--gpu-pairs", type=int, default=None, help="default 8192")
        return
    p.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR), help="default: ../shared/data")
    p.add_argument("--sections", default=",".join(map(str, ALL_SECTIONS)), help="e.g. 1,3,5")
    p.add_argument(
        "--gpu-results", default=str(RESULTS_DIR / "speed_gpu.json"), help="from run speed_gpu"
    )
    p.add_argument("--no-onnx", action="store_true", help="skip the ONNX backend")
    p.add_argument("--workload-per-set", type=int, default=12)
    p.add_argument("--naive-pairs", type=int, default=120)
    p.add_argument("--latency-requests", type=int, default=200)
    p.add_argument("--sample-per-set", type=int, default=25)
    p.add_argument("--long-tokens", type=int, default=10_000)
    p.add_argument(
        "--agreement-per-set", type=int, default=100, help="section 5 agreement sample size"
    )
    p.add_argument("--scale-records", type=int, default=100_000, help="section 8 large file")
    p.add_argument("--scale-real-records", type=int, default=500, help="section 8, bundled model")
    p.add_argument("--scale-ray-records", type=int, default=200, help="section 8, Ray")
    p.add_argument(
        "--update",
        default=None,
        metavar="WHY",
        help="re-measure only --sections and replace them in OUT_DIR/speed.json, noting WHY",
    )
    p.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        help="before each section wait up to this many seconds for other processes to use "
        "< 15%% of the CPUs (shared machine); default 0",
    )


def run(args, harness) -> Outcome:
    if args.benchmark == "speed_gpu":
        from .speed_gpu import run_gpu_only

        data = run_gpu_only(quick=args.quick, device=args.gpu_device, n_pairs=args.gpu_pairs)
        return Outcome(body=f"Device {data.get('device')}.", data=data)

    import logging

    import torch

    logging.getLogger("nli_faith").setLevel(logging.ERROR)  # over-long sentence warnings
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    torch.set_num_threads(usable_cores())
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except Exception:  # pragma: no cover
        pass
    wanted = [int(x) for x in args.sections.split(",") if x.strip()]
    bench = Bench(args)
    started = dt.datetime.now().astimezone()
    idle_before = measure_foreign_load(3.0)
    log(f"load before: {idle_before}")
    report: dict[str, Any] = {
        "quick": args.quick,
        "started": started.isoformat(timespec="seconds"),
        "machine": threads_info(),
        "load_before": idle_before,
        "targets": TARGETS,
        "sections": {},
    }
    mon = CpuMonitor()
    for k in wanted:
        name, fn = SECTIONS[k]
        quiet = wait_for_quiet(args.wait_quiet) if k != 6 else None
        log(f"section {k}: {name} (waited for a quiet machine: {quiet})")
        t0 = time.perf_counter()
        try:
            res = fn(bench)
        except Exception as err:  # keep the other sections
            import traceback

            traceback.print_exc()
            res = {"error": f"{type(err).__name__}: {err}"}
        res["section_wall_s"] = rnd(time.perf_counter() - t0, 1)
        if quiet is not None:
            res["waited_for_quiet"] = quiet
        report["sections"][name] = res
        gc.collect()
    report["cpu_whole_run"] = mon.stop()
    report["load_after"] = measure_foreign_load(3.0)
    report["finished"] = dt.datetime.now().astimezone().isoformat(timespec="seconds")
    old_path = Path(args.out_dir) / "speed.json"
    if args.update and old_path.exists():
        old = json.loads(old_path.read_text())["data"]
        old["sections"].update(report["sections"])
        old.setdefault("updates", []).append(
            {
                "sections": list(report["sections"]),
                "started": report["started"],
                "finished": report["finished"],
                "cpu": report["machine"].get("cpu"),  # a VM's host CPU can change
                "threads": report["machine"].get("onnxruntime_threads"),
                "load_before": report["load_before"],
                "why": args.update,
            }
        )
        report = old
    from .speed_report import render, summary_rows

    return Outcome(body=render(report), figures=dict(summary_rows(report)), data=report)
