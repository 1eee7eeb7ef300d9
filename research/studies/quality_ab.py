"""Before / after on the same records: nli-faith's scores from two versions, one model pass.

    git worktree add /tmp/before <older commit>
    python -m research.studies run quality_ab --before-src /tmp/before [--limit 100]

For a change to the scorer, the baselines of :mod:`benchmarks.quality` do not move; only
nli-faith's strict / lenient / soft figures do. This scores each set's seeded sample
(the same records ``benchmarks.quality --limit N`` takes) with the older library found
in ``--before-src`` and with this checkout's, behind one NLI cache, so a pair both
versions ask for is run once: about the cost of one scorer pass, where two full quality
runs would cost four. The older ``nli_faith`` is copied under the name
``nli_faith_before`` (its imports rewritten) so that both load in one process.

Per set: balanced accuracy (test half, threshold from the calibration half) and ROC-AUC,
before and after, their difference and a rough standard error (as in ``quality.md``).
Progress is printed after every set.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from benchmarks.before import BUNDLED, import_before
from benchmarks.harness import DEFAULT_DATA_DIR, Outcome
from benchmarks.metrics import evaluate_scores, held_out_half
from benchmarks.quality import load_dataset
from benchmarks.report import std_error
from nli_faith.nli.cache import CachedNLI

#: Cheapest first, so that a run cut short still covers most sets.
ORDER = [
    "begin_dev",
    "q2",
    "begin_test",
    "qags_xsum",
    "frank_xsum",
    "xsumfaith",
    "qags_cnndm",
    "summeval",
]
#: Sets small or cheap enough to score whole by default (one chunk per record).
WHOLE = {"begin_dev", "q2"}
METRICS = ("balanced_accuracy", "roc_auc")
KEYS = ("strict", "lenient", "soft")


def _scores(results, key: str) -> np.ndarray:
    return np.array([0.5 if getattr(r, key) is None else getattr(r, key) for r in results])


def _decision_bacc(labels: np.ndarray, results) -> float:
    """Balanced accuracy of the default decision: an answer passes when every claim is
    ``yes`` (no threshold tuned; abstentions are not claims)."""
    passed = np.array(
        [r.error is None and r.n_claims > 0 and r.n_yes == r.n_claims for r in results]
    )
    return float(((passed[labels == 1]).mean() + (~passed[labels == 0]).mean()) / 2)


def compare(name: str, recs: list[dict], before, after, plain=None) -> dict:
    labels = np.array([int(r["label"]) for r in recs])
    test = held_out_half(labels)
    batch = [{"response": r["response"], "context": r["context"]} for r in recs]
    t0 = time.perf_counter()
    res_b = before.score_batch(batch)
    t1 = time.perf_counter()
    res_a = after.score_batch(batch)
    t2 = time.perf_counter()
    res_p = plain.score_batch(batch) if plain is not None else None
    d = {
        "n": len(recs),
        "n_test": int(test.sum()),
        "positive_share": float(labels.mean()),
    }
    out: dict = {**d, "seconds_before": round(t1 - t0, 1), "seconds_after": round(t2 - t1, 1)}
    for key in KEYS:
        mb = evaluate_scores(labels, _scores(res_b, key), test)
        ma = evaluate_scores(labels, _scores(res_a, key), test)
        mp = evaluate_scores(labels, _scores(res_p, key), test) if res_p is not None else None
        for metric in METRICS:
            b, a = mb[metric], ma[metric]
            out[f"{key}_{metric}"] = {
                "before": b,
                "after": a,
                "after_no_composite": None if mp is None else mp[metric],
                "delta": None if a is None or b is None else a - b,
                "se": std_error(metric, a, d),
            }
    for tag, res in (("before", res_b), ("after", res_a)):
        out[f"decision_bacc_{tag}"] = _decision_bacc(labels, res)
    verd_b = [c.verdict for r in res_b for c in r.claims]
    verd_a = [c.verdict for r in res_a for c in r.claims]
    out["claims_before"], out["claims_after"] = len(verd_b), len(verd_a)
    out["yes_share_before"] = round(verd_b.count("yes") / max(len(verd_b), 1), 4)
    out["yes_share_after"] = round(verd_a.count("yes") / max(len(verd_a), 1), 4)
    if res_p is not None:
        verd_p = [c.verdict for r in res_p for c in r.claims]
        out["yes_share_after_no_composite"] = round(verd_p.count("yes") / max(len(verd_p), 1), 4)
    out["composite_evidence_claims"] = sum(
        len(c.evidence.spans) > 1 for r in res_a for c in r.claims if c.evidence is not None
    )
    out["errors_after"] = sum(r.error is not None for r in res_a)
    return out


def _f(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def render(rep: dict) -> str:
    lines = [
        f"Before = `{rep['before_src']}`, after = this checkout. Backend {rep['backend']}; "
        "the same seeded sample of each set as `benchmarks.quality --limit N` "
        f"(limit {rep['limit']}; {', '.join(sorted(WHOLE))} whole). Figures ×100; SE = rough "
        "standard error of the after figure (as in quality.md); a before/after gap on the "
        "same records is less noisy than that.",
        "",
        "Each cell: before → after (after with `composite=False`), so the composite "
        "premises' own effect is the second arrow's gap.",
        "",
        "| set | n | metric | strict | lenient | soft | ≈ 1 SE | yes share | claims with "
        "composite evidence |",
        "|---|---:|---|---|---|---|---:|---|---:|",
    ]
    for name, r in rep["datasets"].items():
        for metric in METRICS:
            cells = []
            for key in KEYS:
                v = r[f"{key}_{metric}"]
                cells.append(
                    f"{_f(v['before'])} → {_f(v['after'])} ({_f(v.get('after_no_composite'))})"
                )
            se = r[f"soft_{metric}"]["se"]
            label = "balanced acc." if metric == "balanced_accuracy" else "ROC-AUC"
            lines.append(
                f"| {name} | {r['n']} | {label} | "
                + " | ".join(cells)
                + f" | {_f(se)} | {_f(r['yes_share_before'])} → {_f(r['yes_share_after'])} "
                f"({_f(r.get('yes_share_after_no_composite'))}) | "
                f"{r['composite_evidence_claims']} |"
            )
    lines += [
        "",
        "The default decision (an answer passes when every claim is `yes`, no threshold "
        "tuned), against the soft score's ROC-AUC:",
        "",
        "| set | n | soft ROC-AUC before → after | default decision bal. acc. before → after |",
        "|---|---:|---|---|",
    ]
    for name, r in rep["datasets"].items():
        auc = r["soft_roc_auc"]
        lines.append(
            f"| {name} | {r['n']} | {_f(auc['before'])} → {_f(auc['after'])} | "
            f"{_f(r.get('decision_bacc_before'))} → {_f(r.get('decision_bacc_after'))} |"
        )
    return "\n".join(lines) + "\n"


TITLE = "nli-faith before / after on the same records"


def add_arguments(p, name: str) -> None:
    p.add_argument("--before-src", type=Path, required=True, help="checkout of the older version")
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--limit", type=int, default=100, help="records per set (seeded sample)")
    p.add_argument("--datasets", default=",".join(ORDER))
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument(
        "--nli-cache",
        type=Path,
        help="file (.npz) of model outputs: read first if it exists, written after every set",
    )


def run(args, bench) -> Outcome:
    logging.getLogger("nli_faith").setLevel(logging.ERROR)
    logging.getLogger("nli_faith_before").setLevel(logging.ERROR)
    import transformers

    transformers.logging.set_verbosity_error()
    from nli_faith.scorer import FaithfulnessScorer

    Before = import_before(args.before_src.resolve())
    after = FaithfulnessScorer(
        str(BUNDLED), device="cpu", backend="onnx", onnx_quantize=False, batch_size=args.batch_size
    )
    before = Before(
        str(BUNDLED), device="cpu", backend="onnx", onnx_quantize=False, batch_size=args.batch_size
    )
    plain = FaithfulnessScorer(
        str(BUNDLED),
        device="cpu",
        backend="onnx",
        onnx_quantize=False,
        batch_size=args.batch_size,
        composite=False,
    )
    cache = CachedNLI(after.nli)
    after.nli = cache
    before.nli = cache
    plain.nli = cache  # its pairs are a subset of after's: no extra model work
    if args.nli_cache is not None and args.nli_cache.is_file():
        print(f"{cache.load(args.nli_cache):,} pairs read from {args.nli_cache}", flush=True)
    rep = {
        "before_src": str(args.before_src),
        "backend": "onnx-fp32",
        "limit": args.limit,
        "datasets": {},
    }
    t0 = time.perf_counter()
    for name in [d for d in args.datasets.split(",") if d]:
        limit = None if name in WHOLE else args.limit
        recs = load_dataset(args.data_dir / "faithfulness" / f"{name}.jsonl", limit)
        rep["datasets"][name] = compare(name, recs, before, after, plain)
        rep["wall_seconds"] = round(time.perf_counter() - t0, 1)
        rep["distinct_pairs"] = cache.computed
        if args.nli_cache is not None:
            cache.save(args.nli_cache)
        print(f"[{name}] done at {rep['wall_seconds']:.0f}s, {cache.computed:,} pairs", flush=True)
    return Outcome(body=render(rep), data=rep)
