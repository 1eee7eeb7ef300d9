"""Two NLI models side by side on the human-labelled faithfulness sets, same records.

    python -m research.studies run model_ab --before /path/to/old_model --after default --limit 150

Each set of ``../shared/data/faithfulness`` is sampled the way ``benchmarks.quality
--limit N`` samples it (seeded); every record is scored with ``FaithfulnessScorer(model)``
and its defaults (fp32 ONNX, the same probabilities as torch) for both models. Per set
and model: ROC-AUC of the soft and strict scores, and the balanced accuracy of the
**default decision** (an answer passes when every claim is ``yes``; no threshold is
tuned), each with a rough standard error, and the median soft score of the faithful and
the unfaithful records. Per-record scores are cached in ``--cache-dir`` by model
fingerprint, so a model already scored is not run again.

``--claims`` also scores every sentence-level gold claim of a set that has them (QAGS) on
its own against the record's context, as the set ``NAME:claims``: whether a model moves
the true claims or the wrong ones. ``--data-dir`` may point at any folder with a
``faithfulness/`` of such files (``python -m research.response_dev`` writes one).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from pathlib import Path

import numpy as np

from benchmarks.harness import DEFAULT_DATA_DIR, Outcome
from benchmarks.quality import load_dataset

REPO = Path(__file__).resolve().parents[1]
DATASETS = [
    "begin_dev",
    "q2",
    "begin_test",
    "qags_xsum",
    "qags_cnndm",
    "frank_xsum",
    "xsumfaith",
    "summeval",
]
#: One short context per record: cheap enough to score whole.
WHOLE = ["begin_dev", "q2", "begin_test"]


def fingerprint(model: str) -> str:
    """The hash of the weights, of ``config.json`` (the label order) and, when the folder has
    one, of ``decision.json`` (its thresholds change the default decision): the same weights
    read or decided otherwise are another entry of the cache."""
    from nli_faith.nli.registry import DECISION_FILE, resolve_model

    path = Path(resolve_model(model).path)
    h = hashlib.sha256()
    for f in sorted(path.glob("*.safetensors")):
        h.update(f.read_bytes())
    for name in ("config.json", DECISION_FILE):
        if (path / name).is_file():
            h.update((path / name).read_bytes())
    return h.hexdigest()[:16]


def auc_se(y: np.ndarray, s: np.ndarray) -> tuple[float, float]:
    """ROC-AUC and its Hanley-McNeil standard error."""
    from sklearn.metrics import roc_auc_score

    a = float(roc_auc_score(y, s))
    n1, n0 = int(y.sum()), int((1 - y).sum())
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    se = math.sqrt((a * (1 - a) + (n1 - 1) * (q1 - a * a) + (n0 - 1) * (q2 - a * a)) / (n1 * n0))
    return a, se


def balanced(y: np.ndarray, passed: np.ndarray) -> tuple[float, float]:
    """Balanced accuracy of a fixed decision and a binomial standard error."""
    r1, r0 = passed[y == 1].mean(), (~passed[y == 0]).mean()
    n1, n0 = (y == 1).sum(), (y == 0).sum()
    se = 0.5 * math.sqrt(r1 * (1 - r1) / n1 + r0 * (1 - r0) / n0)
    return float((r1 + r0) / 2), float(se)


def score_model(model: str, recs: list[dict], cache: Path) -> list[dict]:
    """Per-record soft / strict / default decision, cached by model fingerprint."""
    if cache.is_file():
        return json.loads(cache.read_text(encoding="utf-8"))
    from nli_faith import FaithfulnessScorer

    scorer = FaithfulnessScorer(model, device="cpu", backend="onnx", onnx_quantize=False)
    out = []
    for r in scorer.score_batch(recs):
        ok = r.error is None and r.n_claims > 0
        out.append(
            {
                "soft": r.soft if ok else None,
                "strict": r.strict if ok else None,
                "passes": bool(ok and r.n_yes == r.n_claims),
                "n_claims": r.n_claims if r.error is None else 0,
            }
        )
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(out), encoding="utf-8")
    return out


def cache_file(cache_dir: Path, fp: str, part: str, limit: int | None) -> Path:
    """Where :func:`score_model` keeps one model's scores of one set (sample size ``limit``)."""
    return cache_dir / f"{fp}-{part.replace(':', '-')}-{limit or 'all'}.json"


def soft_scores(rows: list[dict], key: str = "soft") -> np.ndarray:
    """The records' soft (or ``key``) scores; 0.5 for a record that could not be scored."""
    return np.array([0.5 if x[key] is None else x[key] for x in rows])


def set_figures(recs: list[dict], rows: list[dict]) -> dict:
    y = np.array([int(r["label"]) for r in recs])
    soft = soft_scores(rows)
    strict = soft_scores(rows, "strict")
    passed = np.array([x["passes"] for x in rows])
    return {
        "n": len(recs),
        "soft_auc": auc_se(y, soft),
        "strict_auc": auc_se(y, strict),
        "decision_bacc": balanced(y, passed),
        "decision_flagged_share": float((~passed).mean()),
        "median_soft": {"faithful": float(np.median(soft[y == 1])),
                        "unfaithful": float(np.median(soft[y == 0]))},
    }  # fmt: skip


def claim_records(recs: list[dict]) -> list[dict]:
    """Each sentence-level gold claim of ``recs`` as a record of its own (same context)."""
    return [
        {"id": f"{r['id']}#{i}", "context": r["context"], "response": c["text"],
         "label": c["label"]}
        for r in recs for i, c in enumerate(r.get("claims") or ())
    ]  # fmt: skip


def render(result: dict) -> str:
    lines = [
        "| set | n | soft ROC-AUC before → after | strict ROC-AUC before → after "
        "| default decision bal. acc. before → after | ≈ SE (soft AUC) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    deltas = []
    for name, s in result["sets"].items():
        b, a = s["before"], s["after"]
        deltas.append(a["soft_auc"][0] - b["soft_auc"][0])
        lines.append(
            f"| {name} | {b['n']} | {100 * b['soft_auc'][0]:.1f} → {100 * a['soft_auc'][0]:.1f} "
            f"| {100 * b['strict_auc'][0]:.1f} → {100 * a['strict_auc'][0]:.1f} "
            f"| {100 * b['decision_bacc'][0]:.1f} → {100 * a['decision_bacc'][0]:.1f} "
            f"| {100 * b['soft_auc'][1]:.1f} |"
        )
    mean = {
        k: {
            w: float(np.mean([s[w][k][0] for s in result["sets"].values()]))
            for w in ("before", "after")
        }
        for k in ("soft_auc", "strict_auc", "decision_bacc")
    }
    cells = " | ".join(
        f"{100 * mean[k]['before']:.1f} → {100 * mean[k]['after']:.1f}"
        for k in ("soft_auc", "strict_auc", "decision_bacc")
    )
    lines.append(f"| *mean* | | {cells} | |")
    result["mean"] = mean
    return "\n".join(lines) + "\n"


TITLE = "Two NLI models side by side on the faithfulness sets"


def add_sample_arguments(ap) -> None:
    """The sets, their seeded sample and the per-model cache (shared with ``model_ensemble``)."""
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--limit", type=int, default=150, help="records per set (seeded sample)")
    ap.add_argument(
        "--whole",
        default=",".join(WHOLE),
        help="sets scored whole whatever --limit (one chunk per record: cheap)",
    )
    ap.add_argument("--cache-dir", type=Path, default=REPO / ".cache" / "model_ab")


def sampled_sets(args):
    """``(name, limit, records)`` of each set of ``--datasets``: its seeded sample of
    ``--limit`` records, or the whole set when ``--whole`` names it (``limit`` None)."""
    for name in [d.strip() for d in args.datasets.split(",") if d.strip()]:
        limit = None if name in args.whole.split(",") else args.limit
        yield name, limit, load_dataset(args.data_dir / "faithfulness" / f"{name}.jsonl", limit)


def add_arguments(ap, name: str) -> None:
    ap.add_argument("--before", required=True, help="model (registry name, folder or hub id)")
    ap.add_argument("--after", default="default")
    add_sample_arguments(ap)
    ap.add_argument(
        "--only", choices=("before", "after"), help="score one model only (fills the cache)"
    )
    ap.add_argument(
        "--claims",
        action="store_true",
        help="also score each sentence-level gold claim on its own (sets that have them, "
        "as NAME:claims): where a model's ranking of true and wrong claims moves",
    )


def run(args, bench) -> Outcome:
    t0 = time.time()
    result = {"sets": {}}
    models = {"before": args.before, "after": args.after}
    result["models"] = {k: {"model": m, "fingerprint": fingerprint(m)} for k, m in models.items()}
    for name, limit, recs in sampled_sets(args):
        parts = {name: recs}
        if args.claims and any(r.get("claims") for r in recs):
            parts[f"{name}:claims"] = claim_records(recs)
        for part, part_recs in parts.items():
            per = {}
            for which, model in models.items():
                if args.only and which != args.only:
                    continue
                fp = result["models"][which]["fingerprint"]
                cache = cache_file(args.cache_dir, fp, part, limit)
                per[which] = set_figures(part_recs, score_model(model, part_recs, cache))
            result["sets"][part] = per
            print(f"{part}: {json.dumps(per)} ({time.time() - t0:.0f} s)", flush=True)
    if args.only:
        return Outcome(body=f"Only the {args.only} model was scored (its cache is filled).")
    table = render(result)
    figures = {f"mean {k}, {w}": round(100 * v, 1) for k, d in result["mean"].items()
               for w, v in d.items()}  # fmt: skip
    return Outcome(body=table, figures=figures, data=result)
