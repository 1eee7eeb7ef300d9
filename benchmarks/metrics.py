"""Binary-classification figures of the quality benchmark, by the library's own rules.

The threshold search, the split into halves and balanced accuracy are those of
:mod:`nli_faith.scoring.agreement`, the rules ``nli-faith calibrate`` reports by, so a
benchmark figure and a calibration figure on the same records agree:

* :func:`held_out_half`: the held-out half, seeded and stratified by label
  (:func:`~nli_faith.scoring.agreement.split_halves`);
* :func:`best_threshold`: the gate ``score >= t`` with the best balanced accuracy on a half,
  ``t`` one of the scores, ties to the higher (:func:`~nli_faith.scoring.agreement.best_gate`);
* :func:`balanced_accuracy`: ``(TPR + TNR) / 2`` (:func:`~nli_faith.scoring.agreement.rates`);
* :func:`roc_auc`: scikit-learn's, which needs no threshold.

:func:`split_by_id` is kept for claim-level sets (the cascade benchmark), where every claim
of a record must fall in the record's half: a seeded hash of the record id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from sklearn.metrics import roc_auc_score

from nli_faith.scoring.agreement import SEED, best_gate, rates, split_halves

#: Seed of the calibration / test split. Fixed: changing it changes every reported figure.
SPLIT_SEED = SEED


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """Area under the ROC curve (scikit-learn's); ``None`` when only one class is present.

    Example:
        >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
        0.75
    """
    y = np.asarray(labels, dtype=int)
    return float(roc_auc_score(y, scores)) if len(set(y.tolist())) == 2 else None


def balanced_accuracy(labels: Sequence[int], predictions: Sequence[int]) -> float | None:
    """``(TPR + TNR) / 2``; ``None`` when only one class is in ``labels``.

    Example:
        >>> round(balanced_accuracy([1, 1, 1, 0], [1, 1, 0, 0]), 4)
        0.8333
    """
    return rates(np.asarray(labels, dtype=int), np.asarray(predictions, dtype=int))[0]


def best_threshold(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """The threshold ``t`` (predict faithful iff ``score >= t``) with the best balanced
    accuracy: one of the scores, ties to the higher. ``None`` when only one class is present.

    Example:
        >>> best_threshold([0, 0, 1, 1], [0.1, 0.2, 0.6, 0.9])
        0.6
    """
    y = np.asarray(labels, dtype=int)
    if not (y == 1).any() or not (y == 0).any():
        return None
    return best_gate(y, np.asarray(scores, dtype=np.float64))[0]


def held_out_half(labels: Sequence[int], seed: int = SPLIT_SEED) -> np.ndarray:
    """Boolean mask: ``True`` for records in the test half (stratified by label, seeded)."""
    return split_halves(labels, seed=seed)


def seeded_half(record_id: str, seed: int = SPLIT_SEED) -> int:
    """0 (calibration) or 1 (test), from a seeded SHA-256 of the record id.

    Example:
        >>> seeded_half("q2-0-dodeca") in (0, 1)
        True
    """
    digest = hashlib.sha256(f"{seed}:{record_id}".encode()).digest()
    return digest[0] & 1


def split_by_id(ids: Sequence[str], seed: int = SPLIT_SEED) -> np.ndarray:
    """Boolean mask: ``True`` for records in the test half, by record id (claim-level sets)."""
    return np.array([seeded_half(i, seed) == 1 for i in ids], dtype=bool)


def evaluate_scores(
    labels: Sequence[int], scores: Sequence[float], test_mask: np.ndarray
) -> dict[str, float | None]:
    """Balanced accuracy on the test half (threshold from the calibration half) and AUC on all.

    Returns ``{"balanced_accuracy", "threshold", "calibration_balanced_accuracy", "roc_auc"}``.
    """
    y = np.asarray(labels, dtype=int)
    s = np.asarray(scores, dtype=np.float64)
    test_mask = np.asarray(test_mask, dtype=bool)
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
