"""How much a candidate pre-filter changes the verdicts, measured on a cached full scan.

The NLI matrix of a full scan holds every (claim, chunk) pair, so the verdicts a
pre-filter would give are the full matrix aggregated under the pre-filter's mask:
no model run per candidate. This is how the library's pre-filter settings were
chosen, on the *design* half of the sample only; the figures to quote are those
of the *report* half (a fixed, seeded split of the records).

    python -m benchmarks run prefilter
"""

from __future__ import annotations

import pickle
import time
from pathlib import Path
from typing import Any

import numpy as np

from .harness import DEFAULT_DATA_DIR, Outcome
from .speed_common import rnd
from .speed_inputs import SAMPLE_SETS, spaced_sample

SPLIT_SEED = 0


def candidates(contradiction_overlap: float, *, brief: bool = False) -> dict[str, Any]:
    """The pre-filters compared: name -> object with ``select(claims, chunks, members=)``.

    ``brief``: only the library's two pre-filters at their defaults, and lexical k=2.
    """
    from nli_faith.scoring.prefilter import ChunkPrefilter, LexicalPrefilter

    if brief:
        return {
            'prefilter="lexical" (k=3)': LexicalPrefilter(
                top_k=3, keep_overlap=contradiction_overlap
            ),
            'prefilter="lexical", prefilter_top_k=2': LexicalPrefilter(
                top_k=2, keep_overlap=contradiction_overlap
            ),
            'prefilter="embedding" (k=3)': ChunkPrefilter(top_k=3),
        }
    out: dict[str, Any] = {}
    for k in (1, 2, 3, 5):
        out[f"lexical k={k}"] = LexicalPrefilter(top_k=k)
        out[f"lexical k={k} + gate"] = LexicalPrefilter(top_k=k, keep_overlap=contradiction_overlap)
    for k in (2, 3, 5):
        out[f"embedding k={k}"] = ChunkPrefilter(top_k=k)
    return out


def full_scan(scorer, records: list[dict], cache: Path | None) -> list[Any]:
    """Full-scan NLI matrices of ``records`` (pickled in ``cache`` when given)."""
    if cache is not None and cache.exists():
        with cache.open("rb") as fh:
            saved = pickle.load(fh)
        if saved["ids"] == [(r["set"], r["id"]) for r in records]:
            return saved["mats"]
    plans = [scorer.stages.plan(r["response"], r["context"]) for r in records]
    mats = scorer.stages.matrices(plans)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        with cache.open("wb") as fh:
            pickle.dump({"ids": [(r["set"], r["id"]) for r in records], "mats": mats}, fh)
    return mats


def evaluate(scorer, pf, records: list[dict], mats: list, half: np.ndarray) -> dict[str, Any]:
    """Agreement of ``pf``'s verdicts with the full scan's, per half of the sample."""
    from nli_faith.scorer import NLIMatrix
    from nli_faith.scoring.composite import is_composite
    from nli_faith.text.chunking import sentence_members

    tallies = {
        h: {"claims": 0, "equal": 0, "pairs": 0, "pairs_full": 0, "pruned": 0}
        for h in ("design", "report")
    }
    flips: dict[str, int] = {}
    per_set: dict[str, dict[str, int]] = {}
    select_s = 0.0
    for rec, m, h in zip(records, mats, half):
        if not m.claims or not m.chunks:
            continue
        # the pre-filter ranks the ordinary chunks; composite premises (scored only for
        # their own claim) are kept as the scorer keeps them
        base = ~is_composite(m.chunks)
        chunks = [c for c, b in zip(m.chunks, base) if b]
        t0 = time.perf_counter()
        kept = pf.select(
            [c.text for c in m.claims],
            [c.text for c in chunks],
            members=sentence_members(chunks),
        )
        select_s += time.perf_counter() - t0
        mask = m.mask.copy()
        mask[:, base] = kept
        full = scorer.stages.aggregate(m)
        part = scorer.stages.aggregate(NLIMatrix(m.claims, m.chunks, m.probs, mask))
        t = tallies["design" if h else "report"]
        t["pairs"] += int(mask.sum())
        t["pairs_full"] += int(m.mask.sum())
        s = per_set.setdefault(rec["set"], {"claims": 0, "equal": 0})
        for i, (a, b) in enumerate(zip(full.claims, part.claims)):
            t["claims"] += 1
            t["equal"] += a.verdict == b.verdict
            t["pruned"] += not bool(mask[i].all())
            if not h:
                s["claims"] += 1
                s["equal"] += a.verdict == b.verdict
            if a.verdict != b.verdict:
                key = f"{a.verdict}->{b.verdict}"
                flips[key] = flips.get(key, 0) + 1
    out: dict[str, Any] = {"select_ms_per_record": rnd(1000 * select_s / len(records), 2)}
    for h, t in tallies.items():
        out[h] = {
            **t,
            "agreement": rnd(t["equal"] / t["claims"], 4) if t["claims"] else None,
            "pairs_share": rnd(t["pairs"] / t["pairs_full"], 3) if t["pairs_full"] else None,
        }
    out["report_per_set"] = {
        k: rnd(v["equal"] / v["claims"], 4) for k, v in per_set.items() if v["claims"]
    }
    out["flips_full_to_prefiltered"] = flips
    return out


def render(rep: dict[str, Any]) -> str:
    lines = [
        f"{rep['sample']}. Backend {rep['backend']}. Records split at "
        f"random (seed {SPLIT_SEED}) into a design half ({rep['n_design']} records), on which "
        f"the library's settings were chosen, and a report half ({rep['n_report']} records); "
        "quote the report half. Agreement = share of claims whose verdict equals the full "
        "scan's; pairs = share of the full scan's (claim, chunk) pairs still scored.",
        "",
        "| pre-filter | report agreement | report pairs | design agreement | design pairs "
        "| select ms/record | flips (full->pre-filtered, both halves) |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in rep["results"].items():
        flips = ", ".join(f"{k} {v}" for k, v in sorted(r["flips_full_to_prefiltered"].items()))
        lines.append(
            f"| {name} | {r['report']['agreement']} | {r['report']['pairs_share']} "
            f"| {r['design']['agreement']} | {r['design']['pairs_share']} "
            f"| {r['select_ms_per_record']} | {flips or '-'} |"
        )
    lines += ["", "Report-half agreement per set:", ""]
    sets = list(next(iter(rep["results"].values()))["report_per_set"])
    lines.append("| pre-filter | " + " | ".join(sets) + " |")
    lines.append("|---|" + "---|" * len(sets))
    for name, r in rep["results"].items():
        lines.append(
            f"| {name} | " + " | ".join(str(r["report_per_set"].get(s, "-")) for s in sets) + " |"
        )
    return "\n".join(lines) + "\n"


def study(
    data_dir: Path,
    *,
    per_set: int,
    backend: str = "onnx",
    cache: Path | None = None,
    only: list[str] | None = None,
    brief: bool = False,
) -> dict[str, Any]:
    """Full scan of the sample, then every candidate pre-filter's agreement with it."""
    import logging

    from nli_faith.scorer import FaithfulnessScorer

    logging.getLogger("nli_faith").setLevel(logging.ERROR)
    records = spaced_sample(data_dir, per_set)
    rng = np.random.default_rng(SPLIT_SEED)
    design = np.zeros(len(records), dtype=bool)
    design[rng.permutation(len(records))[: len(records) // 2]] = True
    scorer = FaithfulnessScorer(device="cpu", backend=backend)
    if cache is not None:
        cache = cache.with_name(f"{cache.stem}_{backend}_{per_set}{cache.suffix}")
    t0 = time.perf_counter()
    mats = full_scan(scorer, records, cache)
    full_s = time.perf_counter() - t0
    cands = candidates(scorer.contradiction_overlap, brief=brief)
    if only:
        cands = {k: v for k, v in cands.items() if k in only}
    results = {}
    for name, pf in cands.items():
        results[name] = evaluate(scorer, pf, records, mats, design)
        r = results[name]
        print(f"{name}: report {r['report']['agreement']} pairs {r['report']['pairs_share']}")
    return {
        "sample": f"{per_set} records per set at evenly spaced line numbers of "
        + ", ".join(SAMPLE_SETS),
        "backend": backend + (" (int8, one pair per run)" if backend == "onnx" else ""),
        "full_scan_s": rnd(full_s, 1),
        "n_design": int(design.sum()),
        "n_report": int((~design).sum()),
        "results": results,
    }


TITLE = "Pre-filter agreement with the full scan"


def add_arguments(p, name: str) -> None:
    p.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    p.add_argument("--per-set", type=int, default=100, help="records per set (evenly spaced)")
    p.add_argument("--backend", default="onnx", choices=["torch", "onnx"])
    p.add_argument("--cache", default="runs/prefilter_full.pkl", help="full-scan cache; '' = none")
    p.add_argument("--only", default=None, help="comma-separated candidate names")


def run(args, bench) -> Outcome:
    rep = study(
        Path(args.data_dir),
        per_set=args.per_set,
        backend=args.backend,
        cache=Path(args.cache) if args.cache else None,
        only=[s.strip() for s in args.only.split(",")] if args.only else None,
    )
    return Outcome(body=render(rep), data=rep)
