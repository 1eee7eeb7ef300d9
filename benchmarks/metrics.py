"""Binary-classification metrics for the quality benchmark.

* :func:`roc_auc`, :func:`balanced_accuracy` — scikit-learn's, ``None`` for one class.
* :func:`seeded_half` / :func:`split_by_id` — a fixed split of a dataset into a
  calibration half (where a threshold is chosen) and a test half (where it is scored),
  from a seeded hash of each record's id: the same record always falls in the same half.
* :func:`best_threshold` — the threshold maximising balanced accuracy on one half.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

#: Seed of the calibration / test split. Fixed: changing it changes every reported figure.
SPLIT_SEED = 0


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """Area under the ROC curve (scikit-learn's); ``None`` when only one class is present.

    Example:
        >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        0.75
    """
    y = np.asarray(labels, dtype=int)
    return float(roc_auc_score(y, scores)) if len(set(y.tolist())) == 2 else None


def balanced_accuracy(labels: Sequence[int], predictions: Sequence[int]) -> float | None:
    """``(TPR + TNR) / 2`` (scikit-learn's); ``None`` when only one class is in ``labels``.

    Example:
        >>> round(balanced_accuracy([1, 1, 1, 0], [1, 1, 0, 0]), 4)
        0.8333
    """
    y = np.asarray(labels, dtype=int)
    if len(set(y.tolist())) != 2:
        return None
    return float(balanced_accuracy_score(y, np.asarray(predictions, dtype=int)))


def best_threshold(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """The threshold ``t`` (predict faithful iff ``score >= t``) with the best balanced accuracy.

    Candidates are the midpoints between consecutive distinct scores, plus one
    below the smallest and one above the largest. Ties go to the lowest
    threshold. ``None`` when only one class is present.

    Example:
        >>> best_threshold([0, 0, 1, 1], [0.1, 0.2, 0.6, 0.9])
        0.4
    """
    y = np.asarray(labels, dtype=int)
    s = np.asarray(scores, dtype=np.float64)
    n_pos = int((y == 1).sum())
    n_neg = len(y) - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    u = np.unique(s)
    cands = np.concatenate(([u[0] - 1.0], (u[:-1] + u[1:]) / 2.0, [u[-1] + 1.0]))
    # positives / negatives with score >= each candidate, via sorted scores
    pos_sorted = np.sort(s[y == 1])
    neg_sorted = np.sort(s[y == 0])
    tp = n_pos - np.searchsorted(pos_sorted, cands, side="left")
    tn = np.searchsorted(neg_sorted, cands, side="left")
    ba = (tp / n_pos + tn / n_neg) / 2.0
    return float(cands[int(np.argmax(ba))])


def seeded_half(record_id: str, seed: int = SPLIT_SEED) -> int:
    """0 (calibration) or 1 (test), from a seeded SHA-256 of the record id.

    Example:
        >>> seeded_half("q2-0-dodeca") in (0, 1)
        True
    """
    digest = hashlib.sha256(f"{seed}:{record_id}".encode()).digest()
    return digest[0] & 1


def split_by_id(ids: Sequence[str], seed: int = SPLIT_SEED) -> np.ndarray:
    """Boolean mask: ``True`` for records in the test half."""
    return np.array([seeded_half(i, seed) == 1 for i in ids], dtype=bool)


def evaluate_scores(
    labels: Sequence[int], scores: Sequence[float], test_mask: np.ndarray
) -> dict[str, float | None]:
    """Balanced accuracy on the test half (threshold from the calibration half) and AUC on all.

    Returns ``{"balanced_accuracy", "threshold", "calibration_balanced_accuracy", "roc_auc"}``.
    """
    y = np.asarray(labels, dtype=int)
    s = np.asarray(scores, dtype=np.float64)
    cal = ~test_mask
    t = best_threshold(y[cal], s[cal])
    ba = cal_ba = None
    if t is not None:
        ba = balanced_accuracy(y[test_mask], (s[test_mask] >= t).astype(int))
        cal_ba = balanced_accuracy(y[cal], (s[cal] >= t).astype(int))
    return {
        "balanced_accuracy": ba,
        "threshold": t,
        "calibration_balanced_accuracy": cal_ba,
        "roc_auc": roc_auc(y, s),
    }
