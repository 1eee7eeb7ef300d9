"""How far averaging NLI models goes on the faithfulness sets: each model alone, and the mean
of the soft scores of every group of two or more of them.

    python -m research.studies run model_ensemble --limit 500 \\
        --models default S4=runs/gS4 E1=runs/E1/model

A model is a registry name, folder or hub id, optionally labelled ``LABEL=MODEL``. Each
record is scored by each model exactly as ``model_ab`` scores it (same seeded sample,
same per-model cache, so a model ``model_ab`` has scored costs nothing here); a group's
score of a record is the mean of its members' soft scores. The table gives every group's
soft ROC-AUC per set and its mean over the sets, best first, and last an oracle that takes,
set by set, the group that ranks that set best.

What it is for: distilling an ensemble of teachers into one student (``nli-faith train
--teacher A B``) rarely ranks better than the ensemble itself. If no group of the
candidate teachers beats the best of them by much, no student of theirs will either, and a
stronger teacher is needed rather than another mix of the same ones.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from benchmarks.harness import Outcome
from research.studies.model_ab import (
    add_sample_arguments,
    auc_se,
    cache_file,
    fingerprint,
    sampled_sets,
    score_model,
    soft_scores,
)

TITLE = "Averaging NLI models on the faithfulness sets: how far an ensemble goes"


def add_arguments(ap, name: str) -> None:
    ap.add_argument(
        "--models", nargs="+", required=True, help="models, each MODEL or LABEL=MODEL (2 or more)"
    )
    ap.add_argument("--max-size", type=int, default=3, help="largest group averaged")
    add_sample_arguments(ap)


def labelled(specs: list[str]) -> dict[str, str]:
    """``{label: model}`` from ``MODEL`` or ``LABEL=MODEL`` arguments."""
    out: dict[str, str] = {}
    for spec in specs:
        label, sep, model = spec.partition("=")
        label, model = (label, model) if sep else (spec, spec)
        if not label or not model:
            raise SystemExit(f"--models: {spec!r} is neither MODEL nor LABEL=MODEL")
        if label in out:
            raise SystemExit(f"--models: the label {label!r} is given twice")
        out[label] = model
    if len(out) < 2:
        raise SystemExit("--models: give at least two models to average")
    return out


def run(args, bench) -> Outcome:
    t0 = time.time()
    models = labelled(args.models)
    prints = {label: fingerprint(model) for label, model in models.items()}
    gold, soft = {}, {}
    for name, limit, recs in sampled_sets(args):
        gold[name] = np.array([int(r["label"]) for r in recs])
        for label, model in models.items():
            cache = cache_file(args.cache_dir, prints[label], name, limit)
            soft[label, name] = soft_scores(score_model(model, recs, cache))
        if bench is not None:
            bench.log(f"{name}: {len(recs)} records, {time.time() - t0:.0f} s")

    groups = []
    for size in range(1, min(args.max_size, len(models)) + 1):
        for members in itertools.combinations(models, size):
            aucs = {
                name: auc_se(y, np.mean([soft[m, name] for m in members], axis=0))
                for name, y in gold.items()
            }
            mean = float(np.mean([a for a, _ in aucs.values()]))
            groups.append({"members": list(members), "soft_auc": aucs, "mean_soft_auc": mean})
    groups.sort(key=lambda g: -g["mean_soft_auc"])
    singles = [g for g in groups if len(g["members"]) == 1]
    # An oracle that picks, set by set, the group that ranks it best: no single model or
    # mean of these models does better on every set at once.
    per_set_best = {s: max(g["soft_auc"][s][0] for g in groups) for s in gold}
    best, best_single = groups[0], singles[0]
    result = {
        "models": {
            label: {"model": m, "fingerprint": prints[label]} for label, m in models.items()
        },
        "groups": groups,
        "per_set_best": per_set_best,
    }
    figures = {
        "best single model, mean soft ROC-AUC": round(100 * best_single["mean_soft_auc"], 1),
        "best single model": best_single["members"][0],
        "best group, mean soft ROC-AUC": round(100 * best["mean_soft_auc"], 1),
        "best group": " + ".join(best["members"]),
        "best group per set (an oracle), mean soft ROC-AUC": round(
            100 * float(np.mean(list(per_set_best.values()))), 1
        ),
    }
    return Outcome(body=render(groups, per_set_best), figures=figures, data=result)


def render(groups: list[dict], per_set_best: dict[str, float]) -> str:
    sets = list(per_set_best)
    head = "| models (soft scores averaged) | " + " | ".join(sets) + " | *mean* |"
    lines = [head, "|---|" + "---:|" * (len(sets) + 1)]
    for g in groups:
        cells = " | ".join(f"{100 * g['soft_auc'][s][0]:.1f}" for s in sets)
        lines.append(f"| {' + '.join(g['members'])} | {cells} | {100 * g['mean_soft_auc']:.1f} |")
    best = " | ".join(f"{100 * per_set_best[s]:.1f}" for s in sets)
    oracle = 100 * float(np.mean(list(per_set_best.values())))
    lines.append(f"| *the best group of each set (an oracle)* | {best} | {oracle:.1f} |")
    ses = " | ".join(f"{100 * groups[-1]['soft_auc'][s][1]:.1f}" for s in sets)
    lines.append(f"| *≈ SE* | {ses} | |")
    return "\n".join(lines) + "\n"
