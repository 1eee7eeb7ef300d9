"""Choose the judge's confidence bands on labelled claims: pure functions over arrays.

The bands (:mod:`nli_faith.scoring.bands`) decide which claims are settled locally and
which go to an LLM judge. The rule that chose the library's defaults, applied to the
user's own labels: among the settings of :data:`BAND_GRID`, the one that **settles the
most claims while the settled claims agree with the labels at least ``target`` of the
time** (ties: the higher agreement). If no setting reaches the target, the one with
the best agreement, flagged ``target_met=False``.

A settled claim *agrees* when its band matches its label: ``supported`` with 1,
``contradicted`` / ``not_found`` with 0.

Example:
    >>> import numpy as np
    >>> v = np.array(["yes", "yes", "no", "idk"], dtype=object)
    >>> pe, pc = np.array([0.99, 0.7, 0.01, 0.05]), np.array([0.0, 0.1, 0.99, 0.02])
    >>> f = settled_figures(v, pe, pc, pe, np.array([1, 0, 0, 0]), high=0.95, low=0.1)
    >>> f.settled, f.settled_agreement
    (3, 1.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from nli_faith.scoring.bands import (
    DEFAULT_BAND_HIGH,
    DEFAULT_BAND_LOW,
    TARGET_AGREEMENT,
    BandThresholds,
    assign_bands,
)

#: Band settings tried: (band_high, band_low), band_low <= band_high.
BAND_GRID: tuple[tuple[float, float], ...] = tuple(
    (hi, lo)
    for hi in (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.98, 0.99)
    for lo in (0.01, 0.02, 0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)
    if lo <= hi
)


@dataclass(frozen=True)
class BandFigures:
    """How many claims a band setting settles, and how often those agree with the labels."""

    n: int
    settled: int
    settled_share: float | None
    settled_agreement: float | None  # None when nothing is settled


@dataclass(frozen=True)
class BandCalibration:
    """The chosen bands and their figures on both halves (see the module doc)."""

    band_high: float
    band_low: float
    target_agreement: float
    target_met: bool
    labels: str  # where the claim labels came from
    calibration: BandFigures  # chosen bands, on the half they were chosen on
    held_out: BandFigures  # chosen bands, other half
    default_held_out: BandFigures  # library defaults, other half

    def to_dict(self) -> dict[str, Any]:
        """As JSON-ready values, shares rounded to 4 decimals."""
        return _rounded(asdict(self))

    def verdict(self) -> str:
        """One sentence on the held-out half: settled share and agreement, against the defaults."""

        def pct(v: float | None) -> str:
            return "–" if v is None else f"{100 * v:.1f}%"

        new, old = self.held_out, self.default_held_out
        met = "" if self.target_met else " (no setting reached the target on the first half)"
        return (
            f"Judge bands band_high={self.band_high:g}, band_low={self.band_low:g}{met}: on "
            f"the held-out half they settle {pct(new.settled_share)} of {new.n} claims, "
            f"{pct(new.settled_agreement)} of them agreeing with the labels (defaults "
            f"{DEFAULT_BAND_HIGH:g}/{DEFAULT_BAND_LOW:g}: {pct(old.settled_share)} settled, "
            f"{pct(old.settled_agreement)} agreeing; target {pct(self.target_agreement)})."
        )


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def settled_figures(
    verdicts: np.ndarray,
    p_entail: np.ndarray,
    p_contradict: np.ndarray,
    p_near: np.ndarray,
    labels: np.ndarray,
    *,
    high: float,
    low: float,
) -> BandFigures:
    """:class:`BandFigures` of one band setting over claims with labels (1 supported)."""
    bands = assign_bands(
        verdicts, p_entail, p_contradict, p_near, thresholds=BandThresholds(high=high, low=low)
    )
    return figures_of_bands(bands, labels)


def figures_of_bands(bands: np.ndarray, labels: np.ndarray) -> BandFigures:
    """:class:`BandFigures` of bands already assigned."""
    bands = np.asarray(bands, dtype=object)
    labels = np.asarray(labels, dtype=int)
    settled = bands != "uncertain"
    agree = (bands == "supported").astype(int) == labels
    n = len(bands)
    return BandFigures(
        n=n,
        settled=int(settled.sum()),
        settled_share=float(settled.mean()) if n else None,  # unrounded: compared to targets
        settled_agreement=float(agree[settled].mean()) if settled.any() else None,
    )


def choose_bands(
    design: Mapping[tuple[float, float], tuple[float | None, float | None]], target: float
) -> tuple[tuple[float, float], bool]:
    """The setting settling most claims at agreement >= ``target``, and whether any did.

    ``design`` maps ``(band_high, band_low)`` to ``(settled_share, settled_agreement)``.

    Example:
        >>> choose_bands({(0.9, 0.1): (0.8, 0.85), (0.99, 0.01): (0.4, 0.95)}, 0.9)
        ((0.99, 0.01), True)
    """
    ok = [k for k, (_, agreement) in design.items() if (agreement or 0) >= target]
    if ok:
        return max(ok, key=lambda k: (design[k][0] or 0, design[k][1] or 0)), True
    return max(design, key=lambda k: design[k][1] or 0), False


def calibrate_bands(
    verdicts: np.ndarray,
    p_entail: np.ndarray,
    p_contradict: np.ndarray,
    p_near: np.ndarray,
    labels: np.ndarray,
    held_out: np.ndarray,
    *,
    target: float = TARGET_AGREEMENT,
    grid: Sequence[tuple[float, float]] = BAND_GRID,
    source: str = "claim labels",
) -> BandCalibration:
    """Choose bands on the claims outside ``held_out``; report them on those inside.

    Every array has one entry per labelled claim (``p_near``:
    :func:`~nli_faith.scoring.bands.nearest_entailment`).
    """
    arrays = [np.asarray(a) for a in (verdicts, p_entail, p_contradict, p_near, labels)]
    test = np.asarray(held_out, dtype=bool)

    def on(half: np.ndarray, hi: float, lo: float) -> BandFigures:
        return settled_figures(*(a[half] for a in arrays), high=hi, low=lo)

    design = {k: on(~test, *k) for k in grid}
    (hi, lo), met = choose_bands(
        {k: (f.settled_share, f.settled_agreement) for k, f in design.items()}, target
    )
    return BandCalibration(
        band_high=hi,
        band_low=lo,
        target_agreement=target,
        target_met=met,
        labels=source,
        calibration=design[(hi, lo)],
        held_out=on(test, hi, lo),
        default_held_out=on(test, DEFAULT_BAND_HIGH, DEFAULT_BAND_LOW),
    )
