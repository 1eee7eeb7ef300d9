"""Confidence bands: how sure the NLI verdict of each claim is (pure functions over arrays).

The verdict rule (:func:`~nli_faith.scoring.verdicts.decide`) is unchanged; the band
only says whether the verdict can be trusted as it is (the claim is *settled*
locally) or should go to a slower judge (an LLM) because the matrix is ambiguous.
Two thresholds decide it:

* ``band_high``: a ``yes`` whose best entailment reaches it is **supported**; a ``no``
  whose best contradiction reaches it is **contradicted**.
* ``band_low``: an ``idk`` is **not_found** when no chunk comes even this close:
  every scored chunk's entailment (before the number check, so a chunk that would
  support the claim but for a number still counts as close) and every chunk's
  contradiction (among the chunks allowed to contradict) stay below it.

Everything else is **uncertain**: a ``yes`` or ``no`` near its threshold, or an
``idk`` with some chunk half-way there. The defaults were chosen on a seeded design
half of the visible claim-level data (``python -m benchmarks.cascade``): the setting
that settles most claims while the settled claims agree with people at least as often
as :data:`TARGET_AGREEMENT` on that half.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from nli_faith.errors import E_BAND_ORDER, OptionError
from nli_faith.nli.labels import ENTAIL_IDX
from nli_faith.scoring.verdicts import check_threshold

Band = Literal["supported", "contradicted", "not_found", "uncertain"]

#: The band names; every one but ``uncertain`` is settled.
BANDS: tuple[str, ...] = ("supported", "contradicted", "not_found", "uncertain")
#: ``yes`` / ``no`` at or above this probability are settled.
DEFAULT_BAND_HIGH = 0.99
#: ``idk`` whose nearest chunk stays below this is settled as not found.
DEFAULT_BAND_LOW = 0.3
#: The agreement with human labels the defaults were chosen to reach on the design half.
TARGET_AGREEMENT = 0.9


@dataclass(frozen=True)
class BandThresholds:
    """The two band thresholds, checked: ``0 <= low <= high <= 1``.

    Example:
        >>> BandThresholds(high=0.9, low=0.1).high
        0.9
    """

    high: float = DEFAULT_BAND_HIGH
    low: float = DEFAULT_BAND_LOW

    def __post_init__(self) -> None:
        check_threshold("band_high", self.high)
        check_threshold("band_low", self.low)
        if self.low > self.high:
            raise OptionError(E_BAND_ORDER.format(low=self.low, high=self.high))


def nearest_entailment(probs: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Each claim's largest entailment over its scored chunks, before any support mask.

    Example:
        >>> m = np.array([[[0.2, 0.7, 0.1], [0.6, 0.3, 0.1]]])
        >>> [round(float(x), 2) for x in nearest_entailment(m, np.array([[True, False]]))]
        [0.2]
    """
    probs = np.asarray(probs, dtype=np.float32)
    if probs.shape[1] == 0:
        return np.zeros(probs.shape[0], dtype=np.float32)
    ent = probs[..., ENTAIL_IDX]
    if mask is not None:
        ent = np.where(mask, ent, 0.0)
    return ent.max(axis=1)


def assign_bands(
    verdicts: np.ndarray,
    p_entail: np.ndarray,
    p_contradict: np.ndarray,
    p_near: np.ndarray,
    *,
    thresholds: BandThresholds = BandThresholds(),
) -> np.ndarray:
    """One band per claim, from its verdict and the matrix reductions.

    ``p_entail`` / ``p_contradict`` are those the verdict was decided on
    (:class:`~nli_faith.scoring.verdicts.ClaimDecisions`); ``p_near`` is
    :func:`nearest_entailment`.

    Example:
        >>> v = np.array(["yes", "yes", "no", "idk", "idk"], dtype=object)
        >>> pe = np.array([0.995, 0.6, 0.02, 0.03, 0.4])
        >>> pc = np.array([0.01, 0.1, 0.995, 0.02, 0.05])
        >>> assign_bands(v, pe, pc, pe).tolist()
        ['supported', 'uncertain', 'contradicted', 'not_found', 'uncertain']
    """
    v = np.asarray(verdicts, dtype=object)
    pe = np.asarray(p_entail, dtype=np.float64)
    pc = np.asarray(p_contradict, dtype=np.float64)
    near = np.maximum(np.asarray(p_near, dtype=np.float64), pe)
    hi, lo = thresholds.high, thresholds.low
    out = np.full(len(v), "uncertain", dtype=object)
    out[(v == "yes") & (pe >= hi)] = "supported"
    out[(v == "no") & (pc >= hi)] = "contradicted"
    out[(v == "idk") & (near < lo) & (pc < lo)] = "not_found"
    return out


def is_settled(bands: np.ndarray) -> np.ndarray:
    """``True`` where the band is not ``uncertain``."""
    return np.asarray(bands, dtype=object) != "uncertain"
