"""The answer's decision learned from people, leave-one-dataset-out:
``python -m benchmarks run answer_decision_fit ROWS``.

Reads the per-claim rows ``rag_dev --rows FILE`` writes (RAGTruth answers, HotpotQA
answers and the ``--faith-sets``), computes each answer's features with the package's
:func:`nli_faith.scoring.answer_decision.answer_features` (from the claims' verdicts,
scores, evidence and notes, as the scorer would) and fits
:func:`~nli_faith.scoring.answer_decision.fit_answer_decision` (scikit-learn's
``LogisticRegression``) with every dataset but one, then decides the held-out one. A
handful of variants (:data:`VARIANTS`):

* ``balanced, 0.5``: classes weighed alike, faithful when P >= 0.5;
* ``balanced, best BA``: the same fit, the threshold that maximises the mean balanced
  accuracy over the fitting datasets;
* ``+ claim model``: two more features, the least and the mean claim probability of the
  claim-level logistic model of :mod:`benchmarks.learned_decision` (fitted on the same
  folds; the claim labels of :func:`benchmarks.decision_fit.claim_labels`);
* ``few features``: ``any_not_yes``, ``min_entail``, ``min_coverage``, ``share_no``,
  ``conflict`` only.

Datasets weigh alike in every fit (each answer weighs 1 / its dataset's answers).
Figures are development figures; xsumfaith and frank_xsum count as one dataset; RAGTruth's
test split and LLM-AggreFact are never read. ``--write FILE`` stores the
``balanced, 0.5`` decision fitted on every dataset (the one shipped beside the model).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from .decision_fit import claim_labels, dataset_of
from .harness import Outcome, table
from .rag_dev import balanced_accuracy, prf

TITLE = "The answer's learned decision, fitted leave-one-dataset-out (development figures)"
VARIANTS = ("balanced, 0.5", "balanced, best BA", "+ claim model", "few features")
FEW = ("any_not_yes", "min_entail", "min_coverage", "share_no", "conflict")


def add_arguments(p, name: str) -> None:
    p.add_argument("rows", type=Path, nargs="+", help="rows files written by rag_dev --rows")
    p.add_argument("--write", type=Path, default=None, help="JSON file to store it in")


def claims_of(row: dict[str, Any]) -> list[SimpleNamespace]:
    """A row's claims with the fields of a ClaimVerdict that the features read."""
    out = []
    for c in row["claims"]:
        ev = c.get("evidence")
        out.append(SimpleNamespace(
            claim=c["claim"], scored_as=None if c["scored"] == c["claim"] else c["scored"],
            verdict=c["verdict"], p_entail=c["p_entail"], p_contradict=c["p_contradict"],
            evidence=None if ev is None else SimpleNamespace(text=ev), decision_note=c["note"],
        ))  # fmt: skip
    return out


def _weights(rows: list[dict[str, Any]]) -> np.ndarray:
    n: dict[str, int] = defaultdict(int)
    for r in rows:
        n[dataset_of(r)] += 1
    w = np.array([1.0 / n[dataset_of(r)] for r in rows])
    return w * len(w) / w.sum()


def _claim_model(rows: list[dict[str, Any]]):
    from .learned_decision import LearnedDecision, fit

    xs, ys, ds = [], [], []
    for r in rows:
        for c, y in zip(r["claims"], claim_labels(r)):
            if y is not None:
                xs.append(c["features"])
                ys.append(y)
                ds.append(dataset_of(r))
    count: dict[str, int] = defaultdict(int)
    for d in ds:
        count[d] += 1
    w = np.array([1.0 / count[d] for d in ds])
    coef, icpt = fit(np.array(xs), np.array(ys), weight=w * len(w) / w.sum())
    return LearnedDecision(coef=coef, intercept=icpt, threshold=0.5)


def _claim_probs(model, rows: list[dict[str, Any]]) -> np.ndarray:
    out = []
    for r in rows:
        p = model.p_faithful(np.array([c["features"] for c in r["claims"]]))
        out.append([float(p.min()), float(p.mean())])
    return np.array(out)


def _best_mean_ba(p: np.ndarray, rows: list[dict[str, Any]]) -> float:
    grid = np.round(np.arange(0.05, 0.951, 0.01), 2)
    groups: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        groups[dataset_of(r)].append(i)
    y = np.array([r["label"] for r in rows])
    best, best_t = -1.0, 0.5
    for t in grid:
        bas = [balanced_accuracy(list(y[ix]), list(p[ix] < t)) for ix in groups.values()]
        m = float(np.nanmean(bas))
        if m > best:
            best, best_t = m, float(t)
    return best_t


def decide(variant: str, train: list[dict[str, Any]], test: list[dict[str, Any]]):
    """Flags (True: not faithful) of ``test`` by ``variant`` fitted on ``train``."""
    from nli_faith.scoring.answer_decision import FEATURES, fit_answer_decision

    from .learned_decision import FEATURES as CLAIM_FEATURES  # noqa: F401

    def feats(rows):
        return np.vstack([_features(r) for r in rows])

    xtr, xte = feats(train), feats(test)
    ytr = [r["label"] for r in train]
    if variant == "few features":
        keep = [FEATURES.index(f) for f in FEW]
        xtr, xte = xtr[:, keep], xte[:, keep]
    if variant == "+ claim model":
        cm = _claim_model(train)
        xtr = np.hstack([xtr, _claim_probs(cm, train)])
        xte = np.hstack([xte, _claim_probs(cm, test)])
    from sklearn.linear_model import LogisticRegression

    m = LogisticRegression(max_iter=2000, class_weight="balanced")
    m.fit(xtr, ytr, sample_weight=_weights(train))
    t = 0.5
    if variant == "balanced, best BA":
        t = _best_mean_ba(m.predict_proba(xtr)[:, 1], train)
    _ = fit_answer_decision  # the shipped fit is the "balanced, 0.5" variant
    return list(m.predict_proba(xte)[:, 1] < t), t


_CACHE: dict[int, np.ndarray] = {}


def _features(row: dict[str, Any]) -> np.ndarray:
    from nli_faith.scoring.answer_decision import answer_features

    key = id(row)
    if key not in _CACHE:
        _CACHE[key] = answer_features(claims_of(row))
    return _CACHE[key]


def run(args, bench) -> Outcome:
    from nli_faith.scoring.answer_decision import FEATURES, fit_answer_decision

    rows: list[dict[str, Any]] = []
    for path in args.rows:
        with open(path, encoding="utf-8") as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    rows = [r for r in rows if r["claims"]]  # no claim: no decision either way
    datasets = sorted({dataset_of(r) for r in rows})
    base = {id(r): any(c["verdict"] != "yes" for c in r["claims"]) for r in rows}
    flags: dict[str, dict[int, bool]] = {v: {} for v in VARIANTS}
    thresholds: dict[str, dict[str, float]] = {v: {} for v in VARIANTS}
    for ds in datasets:
        train = [r for r in rows if dataset_of(r) != ds]
        test = [r for r in rows if dataset_of(r) == ds]
        for v in VARIANTS:
            f, t = decide(v, train, test)
            thresholds[v][ds] = t
            flags[v].update({id(r): fi for r, fi in zip(test, f)})
        bench.log(f"{ds}: done")
    ba_rows, data = [], {"ba": {}, "ragtruth": {}}
    means: dict[str, float] = {}
    for name in ("today: any claim not yes", *VARIANTS):
        fl = base if name.startswith("today") else flags[name]
        bas = {}
        for ds in datasets:
            rs = [r for r in rows if dataset_of(r) == ds]
            bas[ds] = balanced_accuracy([r["label"] for r in rs], [fl[id(r)] for r in rs])
        means[name] = round(float(np.mean(list(bas.values()))), 1)
        data["ba"][name] = bas
        ba_rows.append([name, *[bas[d] for d in datasets], means[name]])
    rt = [r for r in rows if r["set"] == "ragtruth"]
    f_rows = []
    for name in ("today: any claim not yes", *VARIANTS):
        fl = base if name.startswith("today") else flags[name]
        y = [r["label"] for r in rt]
        per = {"all": prf(y, [fl[id(r)] for r in rt])}
        for task in ("QA", "Summary"):
            sub = [r for r in rt if r["task"] == task]
            per[task] = prf([r["label"] for r in sub], [fl[id(r)] for r in sub])
        data["ragtruth"][name] = per
        f_rows.append([name, per["all"]["f1"], per["all"]["precision"], per["all"]["recall"],
                       per["QA"]["f1"], per["Summary"]["f1"]])  # fmt: skip
    final = fit_answer_decision(
        np.vstack([_features(r) for r in rows]),
        [r["label"] for r in rows],
        weight=_weights(rows),
        threshold=0.5,
        fitted_on=(
            "development fit on human labels, datasets weighed alike: "
            + ", ".join(f"{ds} ({sum(dataset_of(r) == ds for r in rows)})" for ds in datasets)
            + " (rag-dev: RAGTruth training-split answers and HaluEval HotpotQA; "
            "faithfulness/ samples); never RAGTruth's test split or LLM-AggreFact"
        ),
    )
    lodo_rt = data["ragtruth"]["balanced, 0.5"]["all"]
    today_rt = data["ragtruth"]["today: any claim not yes"]["all"]
    wins = (
        lodo_rt["f1"] > today_rt["f1"]
        and means["balanced, 0.5"] >= means["today: any claim not yes"]
    )
    report = {
        "lodo_ragtruth": data["ragtruth"]["balanced, 0.5"],
        "today_ragtruth": data["ragtruth"]["today: any claim not yes"],
        "lodo_balanced_accuracy": data["ba"]["balanced, 0.5"],
        "today_balanced_accuracy": data["ba"]["today: any claim not yes"],
        "default": wins,
    }
    final = type(final)(final.coef, final.intercept, final.threshold, final.fitted_on, report)
    if args.write is not None:
        final.save(args.write)
        bench.log(f"wrote {args.write}")
    body = [
        "Leave-one-dataset-out development figures: each dataset was decided by a fit "
        "(and a threshold) made without it.",
        "",
        "### Balanced accuracy per held-out dataset",
        "",
        table(["decision", *datasets, "mean"], ba_rows),
        "",
        "### RAGTruth answers: the hallucinated class, response level",
        "",
        table(["decision", "F1", "precision", "recall", "F1 QA", "F1 summaries"], f_rows),
        "",
        "Thresholds chosen by `balanced, best BA`: "
        + ", ".join(f"{d} {t}" for d, t in thresholds["balanced, best BA"].items()),
        "",
        "The `balanced, 0.5` decision fitted on every dataset: "
        + ", ".join(f"{k} {v:+.3f}" for k, v in zip(FEATURES, final.coef))
        + f"; intercept {final.intercept:+.3f}; faithful when P >= {final.threshold}.",
    ]
    figures = {
        "RAGTruth F1 (LODO)": lodo_rt["f1"],
        "RAGTruth precision (LODO)": lodo_rt["precision"],
        "RAGTruth recall (LODO)": lodo_rt["recall"],
        "mean balanced accuracy (LODO)": means["balanced, 0.5"],
        "mean balanced accuracy today": means["today: any claim not yes"],
    }
    return Outcome(body="\n".join(body), figures=figures,
                   data={**data, "final": final.to_dict()})  # fmt: skip
