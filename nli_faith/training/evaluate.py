"""Accuracy and per-class F1 of an NLI model on ``{premise, hypothesis, label}`` files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np

from .data import NOT_ENTAILMENT_ID, NLIExample, read_nli_jsonl

_NAMES3 = ("entailment", "neutral", "contradiction")


def _f1(gold: np.ndarray, pred: np.ndarray, cls: int) -> float:
    tp = int(((pred == cls) & (gold == cls)).sum())
    fp = int(((pred == cls) & (gold != cls)).sum())
    fn = int(((pred != cls) & (gold == cls)).sum())
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


def metrics(rows: list[NLIExample], probs: np.ndarray) -> dict:
    """3-way files: argmax over 3 classes. Binary files: entailment iff it is the argmax."""
    gold = np.array([r.label for r in rows])
    pred3 = probs.argmax(axis=1)
    if (gold == NOT_ENTAILMENT_ID).any():
        gold_b = (gold == 0).astype(int)
        pred_b = (pred3 == 0).astype(int)
        return {
            "n": len(rows),
            "kind": "binary",
            "accuracy": float((gold_b == pred_b).mean()),
            "f1": {
                "entailment": _f1(gold_b, pred_b, 1),
                "not_entailment": _f1(gold_b, pred_b, 0),
            },
        }
    return {
        "n": len(rows),
        "kind": "3-way",
        "accuracy": float((gold == pred3).mean()),
        "f1": {name: _f1(gold, pred3, i) for i, name in enumerate(_NAMES3)},
    }


def synthetic_metrics(recs: list[dict], probs: np.ndarray) -> dict:
    """Share of held-out synthetic contradictions predicted as contradiction, by kind."""
    pred = probs.argmax(axis=1)
    by_kind: dict[str, list[bool]] = {}
    for rec, p in zip(recs, pred):
        want = 2 if rec["label"] == "contradiction" else 0
        by_kind.setdefault(rec["kind"], []).append(bool(p == want))
    out = {k: {"n": len(v), "correct": float(np.mean(v))} for k, v in sorted(by_kind.items())}
    contra = [ok for rec, ok in zip(recs, (pred == 2)) if rec["label"] == "contradiction"]
    num_ent = [
        bool(p == 2)
        for rec, p in zip(recs, pred)
        if rec["label"] == "contradiction" and rec["kind"] != "negation"
    ]
    out["all_contradictions_predicted_contradiction"] = float(np.mean(contra)) if contra else None
    out["number_and_entity_predicted_contradiction"] = float(np.mean(num_ent)) if num_ent else None
    out["label_counts"] = dict(Counter(r["label"] for r in recs))
    return out


def evaluate_files(
    nli, files: list[Path], *, limit: int | None = None, batch_size: int = 128
) -> dict[str, dict]:
    """Run ``nli`` (an :class:`~nli_faith.nli.model.NLIModel`) on each file; its metrics."""
    results: dict[str, dict] = {}
    for path in files:
        rows = read_nli_jsonl(path)[:limit] if limit else read_nli_jsonl(path)
        probs = nli.predict([(r.premise, r.hypothesis) for r in rows], batch_size=batch_size)
        if all(r.source.startswith("synthetic") for r in rows):
            lines = path.read_text(encoding="utf-8").splitlines()[: len(rows)]
            recs = [json.loads(line) for line in lines]
            results[path.stem] = metrics(rows, probs) | {
                "synthetic": synthetic_metrics(recs, probs)
            }
        else:
            results[path.stem] = metrics(rows, probs)
    return results


def to_markdown(results: dict[str, dict]) -> str:
    lines = [
        "| eval file | rows | accuracy | F1 entailment | F1 neutral | F1 contradiction "
        "| F1 not_entailment |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in results.items():
        f = r["f1"]
        cells = [
            f"{100 * f[k]:.1f}" if k in f else "–"
            for k in ("entailment", "neutral", "contradiction", "not_entailment")
        ]
        lines.append(
            f"| {name} | {r['n']:,} | {100 * r['accuracy']:.1f} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"
