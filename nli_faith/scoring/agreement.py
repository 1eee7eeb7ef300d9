"""How well a record gate agrees with labels: the statistics of calibration.

Point figures come from scikit-learn (balanced accuracy, precision, recall), the gate
search from its ROC curve (every distinct score is a candidate threshold), and the
confidence intervals from SciPy's bootstrap (percentile intervals; the interval of a
difference between two gates uses paired resamples). A resample that holds one class
only has no balanced accuracy and is left out of the interval.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import bootstrap
from sklearn.metrics import balanced_accuracy_score, precision_score, recall_score, roc_curve

SEED = 0
N_BOOT = 2000


@dataclass(frozen=True)
class Figures:
    """Agreement of a gate with the labels on one set of records (or claims)."""

    n: int
    n_faithful: int
    balanced_accuracy: float | None
    ci95: tuple[float, float] | None  # bootstrap percentile interval of balanced accuracy
    precision: float | None  # of the "faithful" decision
    recall: float | None


def split_halves(labels: Sequence[int], *, seed: int = SEED) -> np.ndarray:
    """Boolean mask of the held-out half, stratified by label and seeded.

    Example:
        >>> m = split_halves([1, 1, 0, 0, 1, 0], seed=0)
        >>> int(m.sum()), sorted(int(v) for v in np.asarray([1, 1, 0, 0, 1, 0])[m])
        (2, [0, 1])
    """
    y = np.asarray(labels, dtype=int)
    rng = np.random.default_rng(seed)
    test = np.zeros(len(y), dtype=bool)
    for cls in (0, 1):
        idx = rng.permutation(np.flatnonzero(y == cls))
        test[idx[: len(idx) // 2]] = True
    return test


def rates(y: np.ndarray, p: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """(balanced accuracy, precision, recall) of predictions ``p`` (1 = faithful); all
    ``None`` when ``y`` holds one class only, precision ``None`` when nothing passed.

    Example:
        >>> rates(np.array([1, 1, 0, 0]), np.array([1, 0, 0, 0]))
        (0.75, 1.0, 0.5)
    """
    y, p = np.asarray(y, dtype=int), np.asarray(p, dtype=int)
    if not (y == 1).any() or not (y == 0).any():
        return None, None, None
    ba = float(balanced_accuracy_score(y, p))
    precision = float(precision_score(y, p, zero_division=0)) if (p == 1).any() else None
    return ba, precision, float(recall_score(y, p))


def _ba(y: np.ndarray, p: np.ndarray, axis: int = -1) -> np.ndarray:
    """Balanced accuracy along ``axis`` (NaN where a class is missing), for resamples."""
    pos, neg = y == 1, y == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        tpr = (pos & (p == 1)).sum(axis) / pos.sum(axis)
        tnr = (neg & (p == 0)).sum(axis) / neg.sum(axis)
    return (tpr + tnr) / 2.0


def _ba_difference(y: np.ndarray, a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    return _ba(y, a, axis) - _ba(y, b, axis)


def bootstrap_interval(
    statistic, *samples: np.ndarray, seed: int = SEED, n_boot: int = N_BOOT
) -> tuple[float, float] | None:
    """The 95% percentile interval of ``statistic`` over paired bootstrap resamples of
    ``samples`` (resamples where it is NaN left out); ``None`` if none is defined."""
    if len(samples[0]) < 2:
        return None
    with warnings.catch_warnings():  # degenerate resamples: handled below
        warnings.simplefilter("ignore")
        res = bootstrap(
            samples,
            statistic,
            paired=True,
            vectorized=True,
            n_resamples=n_boot,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
    dist = res.bootstrap_distribution
    dist = dist[~np.isnan(dist)]
    if dist.size == 0:
        return None
    lo, hi = np.percentile(dist, [2.5, 97.5])
    return round(float(lo), 4), round(float(hi), 4)


def figures(
    y: Sequence[int], p: Sequence[int], *, seed: int = SEED, n_boot: int = N_BOOT
) -> Figures:
    """:class:`Figures` of predictions ``p`` against labels ``y``, with a bootstrap CI."""
    y, p = np.asarray(y, dtype=int), np.asarray(p, dtype=int)
    ba, precision, recall = rates(y, p)
    ci = None if ba is None else bootstrap_interval(_ba, y, p, seed=seed, n_boot=n_boot)
    r = lambda v: None if v is None else round(v, 4)  # noqa: E731
    return Figures(len(y), int(y.sum()), r(ba), ci, r(precision), r(recall))


def difference_interval(
    y: np.ndarray, a: np.ndarray, b: np.ndarray, *, seed: int = SEED, n_boot: int = N_BOOT
) -> tuple[float, float] | None:
    """95% interval of balanced accuracy of ``a`` minus that of ``b`` (paired resamples)."""
    return bootstrap_interval(_ba_difference, y, a, b, seed=seed, n_boot=n_boot)


def best_gate(
    y: Sequence[int], s: Sequence[float], *, target_precision: float | None = None
) -> tuple[float, float, bool]:
    """The ``min_score`` (one of the scores; faithful iff ``s >= min_score``) that is best.

    Returns ``(min_score, objective, target_met)``: the objective is balanced accuracy, or
    with ``target_precision`` the recall among gates reaching that precision (if none does,
    the most precise gate, with ``target_met=False``). Ties go to the higher threshold.

    Example:
        >>> best_gate([0, 0, 1, 1], [0.1, 0.2, 0.6, 0.9])
        (0.6, 1.0, True)
    """
    y, s = np.asarray(y, dtype=int), np.asarray(s, dtype=np.float64)
    n_pos, n_neg = int((y == 1).sum()), int((y == 0).sum())
    with warnings.catch_warnings():  # one class only: its rate is NaN, read as 0 below
        warnings.simplefilter("ignore")
        fpr, tpr, cands = roc_curve(y, s, pos_label=1, drop_intermediate=False)
    # the first point is the threshold nothing passes; then every distinct score, high to low
    fpr, tpr, cands = (np.nan_to_num(v[1:]) for v in (fpr, tpr, cands))
    ba = (tpr + 1.0 - fpr) / 2.0
    if target_precision is None:
        k = int(np.argmax(ba))  # the first maximum: the higher threshold
        return float(cands[k]), float(ba[k]), True
    tp, fp = np.rint(tpr * n_pos), np.rint(fpr * n_neg)
    precision = tp / np.maximum(tp + fp, 1)
    ok = precision >= target_precision - 1e-12
    if ok.any():
        k = int(np.argmax(np.where(ok, tpr, -1.0)))
        return float(cands[k]), float(tpr[k]), True
    k = int(np.argmax(precision))
    return float(cands[k]), float(tpr[k]), False


def held_out_comparison(
    y: np.ndarray, new: np.ndarray, old: np.ndarray, *, seed: int = SEED, n_boot: int = N_BOOT
) -> tuple[Figures, Figures, float | None, tuple[float, float] | None]:
    """Figures of predictions ``new`` and ``old`` against labels ``y`` (a held-out half),
    the difference of their balanced accuracies (``None`` where one is undefined) and its
    paired 95% interval."""
    held = figures(y, new, seed=seed, n_boot=n_boot)
    held_old = figures(y, old, seed=seed, n_boot=n_boot)
    if held.balanced_accuracy is None or held_old.balanced_accuracy is None:
        return held, held_old, None, None
    delta = round(held.balanced_accuracy - held_old.balanced_accuracy, 4)
    return held, held_old, delta, difference_interval(y, new, old, seed=seed, n_boot=n_boot)


class HeldOutDelta:
    """For a calibration's report: ``delta`` (held-out balanced accuracy, calibrated minus
    default) and its bootstrap ``delta_ci95``; :attr:`improved` when the interval lies
    above zero, :meth:`change` the figure as the reports print it."""

    delta: float | None
    delta_ci95: tuple[float, float] | None

    @property
    def improved(self) -> bool:
        """Calibrated beats the default on the held-out half (not only by chance)."""
        return self.delta is not None and self.delta_ci95 is not None and self.delta_ci95[0] > 0

    def change(self) -> str:
        """``+0.040 (95% CI +0.008 to +0.072)``."""
        lo, hi = self.delta_ci95 or (float("nan"), float("nan"))
        return f"{self.delta:+.3f} (95% CI {lo:+.3f} to {hi:+.3f})"
