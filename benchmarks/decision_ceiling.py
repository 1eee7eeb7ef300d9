"""How far any answer-level decision over the model's claim outputs could go on rag-dev.

Used by ``python -m benchmarks run rag_dev``. From each RAGTruth answer's scored claims
(their entailment and contradiction probabilities and verdicts), a handful of answer
features; then, for the hallucinated class:

* each feature alone, its threshold chosen on the very answers it is measured on;
* a logistic regression over all of them, fitted and thresholded on the very answers it is
  measured on (in-sample: optimistic, the ceiling of a linear decision over these outputs);
* the same regression cross-validated by grounding source (5 folds; each answer's decision
  fitted without its source's six answers), thresholded on the scored answers.

These are diagnostics of the model's outputs on development data, not decisions to ship:
whatever a decision layer learns from these outputs, in-sample is its best case.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

FEATURES = (
    "lowest P(entail)",
    "mean P(entail)",
    "second-lowest P(entail)",
    "highest P(contradict)",
    "claims not yes",
    "share not yes",
    "claims no",
    "claims",
    "QA task",
)
#: per-claim features of :mod:`benchmarks.learned_decision` added by their lowest value in
#: the answer: how much of the claim its evidence and its context cover, and the model's
#: entailment from the claim's best three sentences and its best sentence
CLAIM_FEATURES = ("coverage_evidence", "coverage_context", "entail_top3", "entail_sentence")
#: features where a lower value means more likely hallucinated
_LOWER_FLAGS = {"lowest P(entail)", "mean P(entail)", "second-lowest P(entail)",
                *(f"lowest {n}" for n in CLAIM_FEATURES)}  # fmt: skip


def answer_features(result: Any, task: str) -> list[float]:
    """The answer's features, in :data:`FEATURES` order (an answer with no claim reads as
    fully supported)."""
    claims = result.claims
    qa = float(task == "QA")
    if not claims:
        return [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, qa]
    pe = np.sort([c.p_entail for c in claims])
    not_yes = sum(c.verdict != "yes" for c in claims)
    return [
        float(pe[0]),
        float(pe.mean()),
        float(pe[1] if len(pe) > 1 else pe[0]),
        float(max(c.p_contradict for c in claims)),
        float(not_yes),
        not_yes / len(claims),
        float(sum(c.verdict == "no" for c in claims)),
        float(len(claims)),
        qa,
    ]


def threshold_scan(scores: Sequence[float], hallucinated: Sequence[int]) -> list[tuple]:
    """(F1, precision, recall) of flagging ``score >= t``, for every distinct score ``t``."""
    s, y = np.asarray(scores, dtype=float), np.asarray(hallucinated) == 1
    out = []
    for t in np.unique(s):
        flag = s >= t
        tp = int((flag & y).sum())
        if tp == 0:
            continue
        p, r = tp / int(flag.sum()), tp / int(y.sum())
        out.append((2 * p * r / (p + r), p, r))
    return out


def _percent(f1: float, p: float, r: float) -> dict[str, float]:
    return {"f1": round(100 * f1, 1), "precision": round(100 * p, 1), "recall": round(100 * r, 1)}


def best_f1(scores, hallucinated) -> dict[str, float]:
    return _percent(*max(threshold_scan(scores, hallucinated)))


def best_precision(scores, hallucinated, least_recall: float = 0.75) -> dict[str, float] | None:
    """The threshold with the highest precision among those keeping ``least_recall``."""
    kept = [x for x in threshold_scan(scores, hallucinated) if x[2] >= least_recall]
    if not kept:
        return None
    return _percent(*max(kept, key=lambda x: (x[1], x[0])))


def lowest_claim_features(features: Any) -> list[float]:
    """The lowest value in an answer of each of :data:`CLAIM_FEATURES`, from its claims'
    rows of :data:`benchmarks.learned_decision.FEATURES` (1.0 with no claim)."""
    from .learned_decision import FEATURES as CLAIM_ROW

    cols = [CLAIM_ROW.index(n) for n in CLAIM_FEATURES]
    if features is None or not len(features):
        return [1.0] * len(cols)
    rows = np.asarray(features, dtype=float)
    return [float(rows[:, c].min()) for c in cols]


def ceilings(
    results: Sequence[Any], records: Sequence[dict[str, Any]], claim_features=None
) -> dict[str, Any]:
    """Each decision's best threshold on RAGTruth answers (``records`` carry ``label``,
    ``task_type`` and ``source_id``); with ``claim_features`` (each answer's claim rows of
    :func:`benchmarks.rag_dev.features_of`), also the :data:`CLAIM_FEATURES`."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x = np.array([answer_features(o, r["task_type"]) for o, r in zip(results, records)])
    names = list(FEATURES)
    if claim_features is not None:
        x = np.hstack([x, np.array([lowest_claim_features(f) for f in claim_features])])
        names += [f"lowest {n}" for n in CLAIM_FEATURES]
    y = np.array([1 - r["label"] for r in records])  # 1: hallucinated
    groups = [r["source_id"] for r in records]
    out: dict[str, Any] = {}
    for k, name in enumerate(names):
        if name == "QA task":
            continue
        score = -x[:, k] if name in _LOWER_FLAGS else x[:, k]
        out[f"{name} alone, in-sample"] = (best_f1(score, y), best_precision(score, y))
    fit = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
    score = fit.fit(x, y).predict_proba(x)[:, 1]
    out["logistic, all features, in-sample"] = (best_f1(score, y), best_precision(score, y))
    folds = min(5, len(set(groups)))
    if folds >= 2:
        cv = GroupKFold(n_splits=folds)
        score = cross_val_predict(fit, x, y, groups=groups, cv=cv, method="predict_proba")[:, 1]
        out["logistic, cross-validated by source"] = (best_f1(score, y), best_precision(score, y))
    return out


def ceiling_lines(found: dict[str, Any]) -> list[str]:
    """The page's section."""
    rows = []
    for name, (f1, prec) in found.items():
        at = "–" if prec is None else f"{prec['precision']} / {prec['recall']} / {prec['f1']}"
        rows.append(f"| {name} | {f1['f1']} | {f1['precision']} | {f1['recall']} | {at} |")
    return [
        "### How far a decision over these claim outputs could go (RAGTruth answers)",
        "",
        "Answer features from the scored claims; each decision's threshold chosen on the "
        "very answers it is measured on. In-sample figures are a best case, not a decision "
        "to ship (`benchmarks/decision_ceiling.py`).",
        "",
        "| decision | best F1 | its precision | its recall | best precision with recall ≥ 75 "
        "(P / R / F1) |",
        "|---|---:|---:|---:|---|",
        *rows,
    ]
