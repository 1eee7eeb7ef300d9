"""Fit the learned decision leave-one-dataset-out: ``python -m benchmarks run decision_fit``.

Reads the per-claim rows that ``rag_dev --rows FILE`` writes (RAGTruth answers, HotpotQA
answers and any ``--faith-sets`` scored with them, each claim with the features
:mod:`benchmarks.learned_decision` computes from the scorer's stages) and fits that
module's logistic decision with scikit-learn, then applies it to the rows (what the
answers' decisions would have been); the scorer itself never reads it:

* claim labels: a RAGTruth claim is hallucinated when it overlaps a human span; a claim
  of a faithful answer is faithful; the one claim of a hallucinated one-claim answer is
  hallucinated; the claims of other hallucinated answers have no label (they are left out
  of the fit, not of the evaluation);
* datasets weigh alike (each claim weighs 1 / its dataset's labelled claims; weighing
  the classes alike within each measured worse);
* the ``yes`` threshold is the one that maximises the mean response-level balanced
  accuracy over the fitting datasets (flag an answer when any claim is not ``yes``).

Every figure is leave-one-dataset-out: the decision that scores a dataset was fitted
and thresholded without it (xsumfaith and frank_xsum, the same summaries, count as one).
These are development figures (the data README's rule for a decision layer). RAGTruth's
test split and LLM-AggreFact are never read. ``--write FILE`` stores the decision fitted
on every dataset as JSON (:meth:`~benchmarks.learned_decision.LearnedDecision.to_dict`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from .harness import Outcome, table
from .rag_dev import balanced_accuracy, prf

TITLE = "The learned decision, fitted leave-one-dataset-out (development figures)"
#: Sets that share their responses count as one dataset.
GROUPS = {"frank_xsum": "xsumfaith"}
THRESHOLDS = np.round(np.arange(0.05, 0.96, 0.01), 2)


def add_arguments(p, name: str) -> None:
    p.add_argument("rows", type=Path, nargs="+", help="rows files written by rag_dev --rows")
    p.add_argument("--c", type=float, default=1.0, help="inverse L2 strength")
    p.add_argument("--write", type=Path, default=None, help="JSON file to store it in")


def dataset_of(row: dict[str, Any]) -> str:
    return GROUPS.get(row["set"], row["set"])


def claim_labels(row: dict[str, Any]) -> list[int | None]:
    """Per claim: 1 faithful, 0 hallucinated, None unknown."""
    claims = row["claims"]
    if row["set"] == "ragtruth":
        spans = row.get("spans") or []
        return [0 if any(s < c["end"] and c["start"] < e for s, e, *_ in spans) else 1
                for c in claims]  # fmt: skip
    if row["label"] == 1:
        return [1] * len(claims)
    return [0] if len(claims) == 1 else [None] * len(claims)


def fixed(c: dict[str, Any]) -> bool:
    """A verdict another rule decided: the learned decision keeps it."""
    return bool(c.get("rule"))


def flags_at(rows: list[dict[str, Any]], probs: list[np.ndarray], t: float) -> list[bool]:
    out = []
    for r, p in zip(rows, probs):
        f = False
        for c, pi in zip(r["claims"], p):
            v = c["verdict"] if fixed(c) else ("yes" if pi >= t else "not")
            f = f or v != "yes"
        out.append(f)
    return out


def fit_on(rows: list[dict[str, Any]], c: float):
    from .learned_decision import LearnedDecision, fit

    xs, ys, ws = [], [], []
    count: dict[str, int] = defaultdict(int)
    labelled = []
    for r in rows:
        for cl, y in zip(r["claims"], claim_labels(r)):
            if y is not None and not fixed(cl):
                labelled.append((dataset_of(r), cl["features"], y))
                count[dataset_of(r)] += 1
    for ds, x, y in labelled:  # each dataset alike
        xs.append(x)
        ys.append(y)
        ws.append(1.0 / count[ds])
    coef, icpt = fit(np.array(xs), np.array(ys), weight=np.array(ws) * len(ws), c=c)
    d = LearnedDecision(coef=coef, intercept=icpt, threshold=0.5)
    by_ds: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_ds[dataset_of(r)].append(r)
    best, best_t = -1.0, 0.5
    for t in THRESHOLDS:
        bas = []
        for rs in by_ds.values():
            probs = [d.p_faithful(np.array([cl["features"] for cl in r["claims"]]))
                     if r["claims"] else np.zeros(0) for r in rs]  # fmt: skip
            ba = balanced_accuracy([r["label"] for r in rs], flags_at(rs, probs, float(t)))
            if ba == ba:
                bas.append(ba)
        if bas and np.mean(bas) > best:
            best, best_t = float(np.mean(bas)), float(t)
    return LearnedDecision(coef=coef, intercept=icpt, threshold=round(best_t, 2))


def evaluate(d, rows: list[dict[str, Any]]) -> dict[str, Any]:
    probs = [d.p_faithful(np.array([cl["features"] for cl in r["claims"]]))
             if r["claims"] else np.zeros(0) for r in rows]  # fmt: skip
    flags = flags_at(rows, probs, d.threshold)
    base = [any(cl["verdict"] != "yes" for cl in r["claims"]) for r in rows]
    y = [r["label"] for r in rows]
    out = {"n": len(rows), "ba": balanced_accuracy(y, flags),
           "ba_before": balanced_accuracy(y, base), "threshold": d.threshold}  # fmt: skip
    if rows and rows[0]["set"] == "ragtruth":
        out["all"] = prf(y, flags)
        out["before"] = prf(y, base)
        for task in ("QA", "Summary"):
            idx = [i for i, r in enumerate(rows) if r["task"] == task]
            out[task] = prf([y[i] for i in idx], [flags[i] for i in idx])
            out[f"{task}_before"] = prf([y[i] for i in idx], [base[i] for i in idx])
    return out


def run(args, bench) -> Outcome:
    rows: list[dict[str, Any]] = []
    for path in args.rows:
        with open(path, encoding="utf-8") as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    datasets = sorted({dataset_of(r) for r in rows})
    lodo: dict[str, Any] = {}
    trows = []
    for ds in datasets:
        train = [r for r in rows if dataset_of(r) != ds]
        test = [r for r in rows if dataset_of(r) == ds]
        d = fit_on(train, args.c)
        ev = evaluate(d, test)
        ev["coef"] = d.to_dict()["coef"]
        lodo[ds] = ev
        f1 = ev.get("all", {}).get("f1")
        f1b = ev.get("before", {}).get("f1")
        trows.append([ds, ev["n"], ev["ba_before"], ev["ba"], f1b, f1, d.threshold])
        bench.log(f"{ds}: BA {ev['ba_before']} -> {ev['ba']}, F1 {f1b} -> {f1}")
    final = fit_on(rows, args.c)
    fitted_on = (
        "leave-one-dataset-out development fit on human labels: "
        + ", ".join(f"{ds} ({sum(dataset_of(r) == ds for r in rows)})" for ds in datasets)
        + " (rag-dev: RAGTruth training-split answers and HaluEval HotpotQA; faithfulness/ "
        "samples); never RAGTruth's test split or LLM-AggreFact"
    )
    final = type(final)(final.coef, final.intercept, final.threshold, fitted_on=fitted_on)
    if args.write is not None:
        args.write.write_text(json.dumps(final.to_dict(), indent=2) + "\n")
        bench.log(f"wrote {args.write}")
    body = [
        "Leave-one-dataset-out development figures: each row's decision was fitted and "
        "thresholded without that dataset.",
        "",
        table(
            [
                "held-out dataset",
                "answers",
                "BA before",
                "BA learned",
                "F1 before",
                "F1 learned",
                "threshold",
            ],
            trows,
        ),  # fmt: skip
        "",
        "The decision fitted on every dataset: "
        + ", ".join(f"{k} {v:+.3f}" for k, v in final.to_dict()["coef"].items())
        + f"; intercept {final.intercept:+.3f}; yes when P(faithful) >= {final.threshold}.",
    ]
    figures: dict[str, Any] = {}
    if "ragtruth" in lodo:
        rt = lodo["ragtruth"]
        figures = {"RAGTruth F1 (LODO)": rt["all"]["f1"],
                   "RAGTruth precision (LODO)": rt["all"]["precision"],
                   "RAGTruth recall (LODO)": rt["all"]["recall"],
                   "RAGTruth F1 QA (LODO)": rt["QA"]["f1"],
                   "RAGTruth F1 summaries (LODO)": rt["Summary"]["f1"]}  # fmt: skip
    return Outcome(body="\n".join(body), figures=figures,
                   data={"lodo": lodo, "final": final.to_dict()})  # fmt: skip
