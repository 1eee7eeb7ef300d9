"""Quality benchmark: nli-faith against human faithfulness labels, beside the baselines.

    python -m benchmarks run quality [--data-dir ../shared/data] [--limit N] [--backend onnx]

Reads every human-labelled set in ``<data-dir>/faithfulness/`` and scores each
record with nli-faith (strict, lenient, soft) and three baselines on the same
bundled NLI model (SummaC-ZS-style, single pass, token overlap; see
:mod:`benchmarks.baselines`). All methods' (premise, hypothesis) pairs of a block
of records go through the model in one deduplicated call, behind a cache shared
by the whole run (:mod:`nli_faith.nli.cache`), so no pair is computed twice.

Per dataset and method: balanced accuracy on a seeded test half with the
threshold chosen on the other half, and ROC-AUC on the whole set, by the rules of
``nli-faith calibrate`` (:mod:`nli_faith.scoring.agreement`, through
:mod:`benchmarks.metrics`). Also the bundled model's accuracy on the NLI eval
files, the mission's edge cases and the evidence edge cases.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from nli_faith.nli.cache import CachedNLI

from .backend_check import torch_check
from .baselines import single_pass_pair, single_pass_scores, summac_grid, summac_score
from .baselines import token_overlap as overlap_score
from .harness import DEFAULT_DATA_DIR, Outcome
from .metrics import SPLIT_SEED, evaluate_scores, held_out_half
from .report import METHODS, render_markdown

REPO = Path(__file__).resolve().parents[1]
#: Every method runs on the bundled model.
MODEL = "default"

#: Human-labelled sets scored by default, in report order.
DATASETS = [
    "xsumfaith",
    "frank_xsum",
    "qags_cnndm",
    "qags_xsum",
    "summeval",
    "begin_dev",
    "begin_test",
    "q2",
]
#: Present in the data dir but skipped by default: a superset of begin_dev, only
#: for comparing with TRUE's published BEGIN figures.
OPTIONAL_DATASETS = ["begin_dev_true"]

#: Score substituted for a record a method cannot score (nli-faith: no verifiable
#: claim; baselines: no word / sentence), at the middle of the method's range.
NEUTRAL = {"summac_zs": 0.0, "single_pass_e_minus_c": 0.0}
DEFAULT_NEUTRAL = 0.5

logger = logging.getLogger("benchmarks.quality")


# -- data ------------------------------------------------------------------------------------


def load_dataset(path: Path, limit: int | None) -> list[dict]:
    """The records of one JSONL file; with ``limit``, a seeded sample kept in file order."""
    with path.open(encoding="utf-8") as f:
        recs = [json.loads(line) for line in f if line.strip()]
    if limit is not None and limit < len(recs):
        rng = np.random.default_rng(SPLIT_SEED)
        keep = np.sort(rng.choice(len(recs), size=limit, replace=False))
        recs = [recs[i] for i in keep]
    return recs


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# -- scoring ---------------------------------------------------------------------------------


def score_block(scorer, cache: CachedNLI, recs: Sequence[dict]) -> tuple[list[dict], int, int]:
    """Every method's scores for a block of records.

    Returns the rows, the pairs all methods asked for, and the pairs the scorer
    asked for that were not planned here (0 unless the scorer's planning changed).

    The scorer's pairs are planned with its public API (``splitter.split``,
    ``chunk``) only to put them in the same model call as the baselines' pairs and
    to count claims / chunks; the scores themselves come from
    ``scorer.score_batch``, which then finds every pair in the cache.
    """
    nli = scorer.nli
    plans, grids, singles, pairs = [], [], [], []
    for r in recs:
        claims = scorer.splitter.split(r["response"])
        chunks = scorer.stages.chunks(r["context"], claims) if claims else []
        plans.append((len(claims), len(chunks)))
        pairs.extend((ch.text, cl.text) for cl in claims for ch in chunks)
        grid = summac_grid(nli, r["response"], r["context"])
        grids.append(grid)
        pairs.extend(grid.pairs)
        sp = single_pass_pair(nli, r["response"], r["context"])
        singles.append(sp)
        pairs.append((sp.premise, sp.hypothesis))
    cache.predict(pairs)  # one call: deduplicated, length-sorted, cached for the run

    before = cache.computed
    results = scorer.score_batch(
        [{"response": r["response"], "context": r["context"]} for r in recs]
    )
    unplanned = cache.computed - before  # 0 unless the scorer plans differently from here

    rows = []
    for r, (n_claims, n_chunks), grid, sp, res in zip(recs, plans, grids, singles, results):
        sp_scores = single_pass_scores(cache.lookup([(sp.premise, sp.hypothesis)])[0])
        rows.append(
            {
                "id": r["id"],
                "label": int(r["label"]),
                "strict": res.strict,
                "lenient": res.lenient,
                "soft": res.soft,
                "summac_zs": summac_score(grid, cache.lookup(grid.pairs)),
                "single_pass": sp_scores["p_entail"],
                "single_pass_e_minus_c": sp_scores["e_minus_c"],
                "token_overlap": overlap_score(r["response"], r["context"]),
                "n_claims": n_claims,
                "n_chunks": n_chunks,
                "n_pairs": n_claims * n_chunks,
                "n_summac_pairs": len(grid.pairs),
                "single_pass_truncated": sp.truncated,
                "error": res.error,
            }
        )
    return rows, len(pairs), unplanned


def dataset_summary(name: str, rows: list[dict], seconds: float, unplanned: int) -> dict:
    """Metrics of every method on one dataset, plus its size and cost figures."""
    labels = np.array([r["label"] for r in rows])
    test = held_out_half(labels)
    methods, none_counts = {}, {}
    keys = [k for k, _ in METHODS] + ["single_pass_e_minus_c"]
    for key in keys:
        raw = [r[key] for r in rows]
        none_counts[key] = sum(v is None for v in raw)
        neutral = NEUTRAL.get(key, DEFAULT_NEUTRAL)
        scores = np.array([neutral if v is None else v for v in raw], dtype=np.float64)
        methods[key] = evaluate_scores(labels, scores, test)
    return {
        "dataset": name,
        "n": len(rows),
        "positive_share": float(labels.mean()) if len(rows) else None,
        "n_calibration": int((~test).sum()),
        "n_test": int(test.sum()),
        "mean_claims": float(np.mean([r["n_claims"] for r in rows])),
        "mean_chunks": float(np.mean([r["n_chunks"] for r in rows])),
        "mean_pairs": float(np.mean([r["n_pairs"] for r in rows])),
        "mean_summac_pairs": float(np.mean([r["n_summac_pairs"] for r in rows])),
        "no_claim_rows": sum(r["strict"] is None for r in rows),
        "error_rows": sum(r["error"] is not None for r in rows),
        "single_pass_truncated_share": float(np.mean([r["single_pass_truncated"] for r in rows])),
        "none_counts": none_counts,
        "methods": methods,
        "seconds": round(seconds, 1),
        "scorer_pairs_not_prefetched": unplanned,
    }


def run_dataset(scorer, cache, name: str, recs: list[dict], block_size: int, t0: float):
    rows, unplanned = [], 0
    start = time.perf_counter()
    for i in range(0, len(recs), block_size):
        block_rows, n_requested, extra = score_block(scorer, cache, recs[i : i + block_size])
        rows.extend(block_rows)
        cache.requested += n_requested
        unplanned += extra
        print(
            f"[{name}] {len(rows)}/{len(recs)} rows | dataset {time.perf_counter() - start:.0f}s"
            f" | total {time.perf_counter() - t0:.0f}s | distinct pairs run {cache.computed:,}"
            f" of {cache.requested:,} requested",
            flush=True,
        )
    return rows, dataset_summary(name, rows, time.perf_counter() - start, unplanned)


# -- run metadata ----------------------------------------------------------------------------


def model_info(nli, backend: str) -> dict:
    folder = Path(nli.path)
    weights = folder / "model.safetensors"
    info = {
        "name": nli.name,
        "path": str(folder),
        "backend": backend,
        "max_length": nli.max_length,
        "weights_file": str(weights),
        "weights_sha256": sha256_file(weights) if weights.is_file() else None,
    }
    session = getattr(nli, "onnx_session", None)  # the ONNX Runtime session (backend="onnx")
    onnx_path = getattr(session, "path", None)
    if onnx_path is not None:
        info["onnx_file"] = str(onnx_path)
        info["onnx_sha256"] = sha256_file(Path(onnx_path))
    return info


# -- command line ------------------------------------------------------------------------------


TITLE = "Quality benchmark: nli-faith against human faithfulness labels"


def add_arguments(p, name: str) -> None:
    p.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA_DIR,
        help="holds faithfulness/*.jsonl and nli/eval/*.jsonl (default: ../shared/data "
        "relative to the repository root)",
    )
    p.add_argument(
        "--datasets",
        default=",".join(DATASETS),
        help="comma-separated dataset names (default: %(default)s; begin_dev_true is "
        "available but skipped by default)",
    )
    p.add_argument("--limit", type=int, default=None, help="rows per dataset and NLI eval file")
    p.add_argument(
        "--backend",
        choices=("torch", "onnx-fp32", "onnx"),
        default="onnx-fp32",
        help="onnx-fp32 (default): the bundled model exported to fp32 ONNX, the same "
        "probabilities as torch and about 3x faster on this CPU; onnx: the shipped int8 "
        "export, faster still but its top label differs from fp32 on ~5%% of pairs",
    )
    p.add_argument("--model", default=MODEL, help="registry name, folder or hub id")
    p.add_argument("--block-size", type=int, default=128, help="records per model call")
    p.add_argument("--batch-size", type=int, default=32, help="NLI pairs per forward pass")
    p.add_argument("--skip-nli-eval", action="store_true", help="leave out the NLI table")
    p.add_argument(
        "--torch-check-rate",
        type=float,
        default=1 / 256,
        help="with --backend onnx: share of the run's distinct pairs re-scored with the fp32 "
        "torch backend to measure the int8 drift (0 to skip; default 1/256)",
    )
    p.add_argument(
        "--scores-out", type=Path, default=None, help="also write per-record scores (JSONL)"
    )


def run(args, bench) -> Outcome:
    args.datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    if args.limit is not None and args.limit < 1:
        raise SystemExit("--limit must be at least 1")
    t0 = time.perf_counter()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    # one over-long sentence per document is expected in news articles: it is split, not lost
    logging.getLogger("nli_faith.text.chunking").setLevel(logging.ERROR)
    import transformers

    transformers.logging.set_verbosity_error()
    from nli_faith.scorer import FaithfulnessScorer
    from nli_faith.training.evaluate import evaluate_files
    from tests.suites.edge_cases import run_edge_cases
    from tests.suites.evidence_cases import run_evidence_cases, summarize

    data_dir = args.data_dir.resolve()
    faith_dir = data_dir / "faithfulness"
    missing = [d for d in args.datasets if not (faith_dir / f"{d}.jsonl").is_file()]
    if missing:
        raise SystemExit(f"error: no {', '.join(missing)} in {faith_dir}")

    scorer = FaithfulnessScorer(
        args.model,
        device="cpu",
        backend="torch" if args.backend == "torch" else "onnx",
        onnx_quantize=args.backend != "onnx-fp32",  # int8 for "onnx"; unused with torch
        batch_size=args.batch_size,
    )
    raw_nli = scorer.nli
    check_rate = args.torch_check_rate if args.backend == "onnx" else 0.0
    cache = CachedNLI(raw_nli, sample_rate=check_rate)
    scorer.nli = cache  # every method, the scorer included, goes through the one cache

    summaries, all_rows = {}, {}
    for name in args.datasets:
        recs = load_dataset(faith_dir / f"{name}.jsonl", args.limit)
        rows, summary = run_dataset(scorer, cache, name, recs, args.block_size, t0)
        summaries[name] = summary
        all_rows[name] = rows

    t_edge = time.perf_counter()
    edge = run_edge_cases(scorer)
    edge_seconds = time.perf_counter() - t_edge
    print(f"edge cases: {sum(c['passed'] for c in edge)}/{len(edge)} passed", flush=True)
    t_evidence = time.perf_counter()
    evidence = run_evidence_cases(scorer)
    evidence_seconds = time.perf_counter() - t_evidence
    ev_sum = summarize(evidence)
    print(f"evidence cases: {ev_sum['passed']}/{ev_sum['n']} passed", flush=True)

    nli_eval, nli_seconds = {}, 0.0
    if not args.skip_nli_eval:
        t_nli = time.perf_counter()
        files = sorted((data_dir / "nli" / "eval").glob("*.jsonl"))
        nli_eval = evaluate_files(raw_nli, files, limit=args.limit, batch_size=args.batch_size)
        nli_seconds = time.perf_counter() - t_nli
        print(f"NLI eval: {len(files)} files in {nli_seconds:.0f}s", flush=True)

    drift, drift_seconds = None, 0.0
    if check_rate > 0:
        t_drift = time.perf_counter()
        drift = torch_check(args.model, cache.sample, cache.lookup(cache.sample), args.batch_size)
        drift_seconds = time.perf_counter() - t_drift
        print(
            f"torch check: {drift['pairs']['n']} pairs in {drift_seconds:.0f}s, argmax agreement"
            f" {drift['pairs'].get('argmax_agreement', float('nan')):.3f}",
            flush=True,
        )

    wall = time.perf_counter() - t0
    result = {
        "data_dir": str(data_dir),
        "limit": args.limit,
        "split_seed": SPLIT_SEED,
        "model": model_info(raw_nli, args.backend),
        "scorer": {
            "entail_threshold": scorer.entail_threshold,
            "contradict_threshold": scorer.contradict_threshold,
            "chunk_tokens": scorer.chunk_tokens,
            "chunk_overlap": scorer.chunk_overlap,
            "sentence_chunks": scorer.sentence_chunks,
            "number_check": scorer.number_check,
            "granularity": scorer.splitter.granularity,
            "composite": getattr(scorer, "composite", None),
        },
        "wall_seconds": round(wall, 1),
        "seconds": {
            "datasets": {k: v["seconds"] for k, v in summaries.items()},
            "edge_cases": round(edge_seconds, 1),
            "evidence_cases": round(evidence_seconds, 1),
            "nli_eval": round(nli_seconds, 1),
            "torch_check": round(drift_seconds, 1),
        },
        "nli_pairs": {"requested": cache.requested, "distinct_run": cache.computed},
        "datasets": summaries,
        "edge_cases": edge,
        "evidence_cases": {"summary": ev_sum, "cases": evidence},
        "nli_eval": nli_eval,
        "torch_check": drift,
    }
    if args.scores_out is not None:
        args.scores_out.parent.mkdir(parents=True, exist_ok=True)
        with args.scores_out.open("w", encoding="utf-8") as f:
            for name, rows in all_rows.items():
                for r in rows:
                    f.write(json.dumps({"dataset": name} | r, ensure_ascii=False) + "\n")
    means = {
        k: np.mean([d["methods"][k]["roc_auc"] or 0.5 for d in summaries.values()])
        for k in ("soft", "strict", "token_overlap")
        if all(k in d["methods"] for d in summaries.values())
    }
    return Outcome(
        body=render_markdown(result),
        figures={f"mean ROC-AUC x100, {k}": round(100 * v, 1) for k, v in means.items()}
        | {"evidence cases passed": f"{ev_sum['passed']} / {ev_sum['n']}"},
        data=result,
    )
