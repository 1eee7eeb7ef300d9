"""Calibrate thresholds on the user's own labels: pure functions over cached NLI matrices.

The model runs once per record (``scorer.stages.matrices_of``); every candidate
threshold is then tried by re-aggregating the cached matrices with the scorer's own
:meth:`~nli_faith.engine.stages.Stages.aggregate`, so verdicts follow exactly the rule
the scorer applies when it is used.

What is calibrated (see ``README.md``, "Calibrate on your own labels"):

* the record-level gate ``faithful = result.<score> >= min_score`` (``score`` is
  ``strict`` by default: the share of claims the context supports);
* the claim-level threshold that score depends on (:data:`KNOBS`): ``entail_threshold``
  for ``strict`` (a claim is ``yes`` when its best entailment reaches it) and
  ``contradict_threshold`` for ``lenient``; ``soft`` depends on none. With per-claim
  labels, the claim threshold is chosen on the claims (their balanced accuracy), then
  ``min_score`` on the records; without, both are chosen together on the records;
* the LLM judge's confidence bands (``band_high``, ``band_low``: which claims are
  settled locally, which go to the judge), by the rule of
  :mod:`nli_faith.scoring.band_calibration` (most claims settled while the settled ones
  agree with the labels at least ``target_agreement`` of the time), on labelled claims:
  the per-claim labels, or else the records that split into one claim (whose record
  label is that claim's label). With fewer than :data:`MIN_BAND_CLAIMS` such claims
  the defaults are kept and ``band_note`` says why.

The objective is balanced accuracy, or with ``target_precision`` the highest recall of
faithful records among gates whose precision (share of passed records that are
faithful) reaches the target. Choices are made on a seeded, label-stratified half; the
figures are reported on the other half, with a bootstrap 95% confidence interval, beside
those of the defaults (``entail_threshold=0.5``, ``contradict_threshold=0.5``,
``strict >= 0.5``: DeepEval's default threshold).

Example (a toy aggregate: each "matrix" is already its record's score):
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> rng = np.random.default_rng(0)
    >>> labels = np.array([1, 0] * 40)
    >>> soft = np.clip(0.3 * labels + rng.random(80) * 0.7, 0, 1)
    >>> agg = lambda m, **kw: SimpleNamespace(soft=m, strict=m, lenient=m, error=None)
    >>> cal = calibrate(list(soft), labels, aggregate=agg, score="soft", n_boot=200)
    >>> 0 <= cal.decision.min_score <= 1, cal.held_out.n + cal.calibration.n
    (True, 80)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from nli_faith.errors import (
    E_BAND_CALIBRATION_FEW,
    E_BANDS_KEPT,
    E_CALIBRATION_CLASSES,
    E_CALIBRATION_FEW,
    E_CLAIM_LABELS_ONE_CLASS,
    E_THRESHOLDS_SCORE,
    ThresholdsError,
)
from nli_faith.scoring.agreement import (
    N_BOOT,
    SEED,
    Figures,
    HeldOutDelta,
    best_gate,
    figures,
    held_out_comparison,
    rates,
    split_halves,
)
from nli_faith.scoring.band_calibration import BAND_GRID, BandCalibration, calibrate_bands
from nli_faith.scoring.bands import TARGET_AGREEMENT, nearest_entailment
from nli_faith.scoring.labelled import (
    ClaimLabel,
    LabelledRecord,
    claim_predictions,
    claim_spans,
    parse_labelled,
)
from nli_faith.scoring.thresholds import SCORES, Decision
from nli_faith.scoring.verdicts import DEFAULT_CONTRADICT_THRESHOLD, DEFAULT_ENTAIL_THRESHOLD

#: The claim-level scorer option each record score depends on (None: no option).
#: Another knob (e.g. a judge band threshold) plugs in here and in :data:`DEFAULTS`.
KNOBS: dict[str, str | None] = {
    "strict": "entail_threshold",
    "lenient": "contradict_threshold",
    "soft": None,
}
DEFAULTS: dict[str, float] = {
    "entail_threshold": DEFAULT_ENTAIL_THRESHOLD,
    "contradict_threshold": DEFAULT_CONTRADICT_THRESHOLD,
}
#: The record gate without calibration: DeepEval's default metric threshold.
DEFAULT_MIN_SCORE = 0.5
#: Candidate claim thresholds: 0.05, 0.10, ..., 0.95.
GRID = tuple(round(0.05 * k, 2) for k in range(1, 20))
#: Labelled claims needed (both halves together, each half holding both labels) to
#: choose the judge's bands.
MIN_BAND_CLAIMS = 20
#: Usable records below which the result carries a note that its figures are rough.
ADVISED_RECORDS = 100


@dataclass(frozen=True)
class Calibration(HeldOutDelta):
    """The chosen thresholds and their figures on both halves."""

    options: dict[str, float]
    decision: Decision
    objective: str  # "balanced_accuracy" or "recall at precision >= X"
    target_met: bool  # False when no gate reached the target precision on the first half
    seed: int
    calibration: Figures  # calibrated thresholds, on the half they were chosen on
    default_calibration: Figures  # default thresholds, same half (calibrated >= this, by search)
    held_out: Figures  # calibrated thresholds, other half
    default_held_out: Figures  # default thresholds, other half
    delta: float | None  # held-out balanced accuracy, calibrated minus default
    delta_ci95: tuple[float, float] | None  # paired bootstrap
    n_unscored: int  # records left out: no verifiable claim, or an error
    claims_held_out: Figures | None = None
    claims_default_held_out: Figures | None = None
    bands: BandCalibration | None = None  # the judge's bands, when labelled claims allow
    band_note: str | None = None  # why the bands were not calibrated
    notes: tuple[str, ...] = ()  # what else the user should know (few records, claim labels)

    def verdict(self) -> str:
        """One sentence: do the calibrated thresholds improve on the defaults?"""
        if self.delta is None:
            return "Held-out balanced accuracy is undefined (one class only in the held-out half)."
        hi = self.delta_ci95[1] if self.delta_ci95 else float("nan")
        change = self.change()
        if self.improved:
            return f"Calibrated thresholds improve held-out balanced accuracy by {change}."
        if hi < 0:
            return (
                f"Calibrated thresholds are WORSE than the defaults on the held-out half: "
                f"{change}; keep the defaults (or label more records)."
            )
        return (
            f"Calibrated thresholds do NOT reliably improve held-out balanced accuracy over the "
            f"defaults: {change}; the defaults serve as well on these labels."
        )

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["decision"] = asdict(self.decision)
        out["improved"] = self.improved
        out["verdict"] = self.verdict()
        if self.bands is not None:
            out["bands"] = {**self.bands.to_dict(), "verdict": self.bands.verdict()}
        return out


# -- calibration -------------------------------------------------------------------------------


@dataclass
class _Cache:
    """Aggregated results per knob value (each matrix aggregated once per value)."""

    matrices: Sequence[Any]
    aggregate: Callable[..., Any]
    knob: str | None
    results: dict[float | None, list[Any]] = field(default_factory=dict)

    def at(self, value: float | None) -> list[Any]:
        if value not in self.results:
            kw = {} if self.knob is None else {self.knob: value}
            self.results[value] = [self.aggregate(m, **kw) for m in self.matrices]
        return self.results[value]


def _scores(results: Sequence[Any], score: str) -> np.ndarray:
    return np.array(
        [
            np.nan if r.error is not None or getattr(r, score) is None else getattr(r, score)
            for r in results
        ],
        dtype=np.float64,
    )


def calibrate(
    matrices: Sequence[Any],
    labels: Sequence[int],
    *,
    aggregate: Callable[..., Any],
    claim_labels: Sequence[Sequence[ClaimLabel]] | None = None,
    score: str = "strict",
    target_precision: float | None = None,
    seed: int = SEED,
    n_boot: int = N_BOOT,
    grid: Sequence[float] = GRID,
    calibrate_judge_bands: bool = True,
    target_agreement: float = TARGET_AGREEMENT,
    band_grid: Sequence[tuple[float, float]] | None = None,
) -> Calibration:
    """Choose thresholds on a seeded half of labelled records; report on the other half.

    ``matrices[i]`` is record ``i``'s NLI matrix, ``labels[i]`` 1 (faithful) or 0;
    ``aggregate(matrix, **{knob: value})`` gives its result (``scorer.stages.aggregate``).
    With ``calibrate_judge_bands`` the judge's bands are chosen too (module doc), at
    ``target_agreement`` over ``band_grid`` (default
    :data:`~nli_faith.scoring.band_calibration.BAND_GRID`).
    """
    band_grid = BAND_GRID if band_grid is None else band_grid
    if score not in SCORES:
        raise ThresholdsError(E_THRESHOLDS_SCORE.format(allowed=SCORES, score=score))
    knob = KNOBS[score]
    cache = _Cache(matrices, aggregate, knob)
    y_all = np.asarray(labels, dtype=int)
    default_value = DEFAULTS.get(knob) if knob else None
    scored = ~np.isnan(_scores(cache.at(default_value), score))
    y = y_all[scored]
    if min((y == 1).sum(), (y == 0).sum()) < 2:
        raise ThresholdsError(
            E_CALIBRATION_CLASSES.format(n_pos=int((y == 1).sum()), n_neg=int((y == 0).sum()))
        )
    keep = np.flatnonzero(scored)
    test = split_halves(y, seed=seed)
    cal = ~test

    def record_scores(value: float | None) -> np.ndarray:
        return _scores(cache.at(value), score)[keep]

    def claim_pairs(value: float | None, half: np.ndarray) -> np.ndarray:
        results = cache.at(value)
        pairs = [
            pair
            for k, in_half in zip(keep, half)
            if in_half
            for pair in claim_predictions(results[k], claim_labels[k])
        ]
        return np.array(pairs, dtype=int).reshape(-1, 2)

    notes: list[str] = []
    if len(y) < ADVISED_RECORDS:
        notes.append(
            E_CALIBRATION_FEW.format(
                n=len(y),
                n_pos=int((y == 1).sum()),
                n_neg=int((y == 0).sum()),
                advised=ADVISED_RECORDS,
            )
        )
    use_claims = (
        knob == "entail_threshold"
        and claim_labels is not None
        and any(len(c) for c in claim_labels)
    )
    if use_claims:
        claim_y = claim_pairs(default_value, cal)[:, 0]
        n_pos, n_neg = int((claim_y == 1).sum()), int((claim_y == 0).sum())
        if min(n_pos, n_neg) == 0:
            use_claims = False
            notes.append(E_CLAIM_LABELS_ONE_CLASS.format(n_pos=n_pos, n_neg=n_neg))

    def closeness(v: float | None) -> float:
        return 0.0 if v is None else -abs(v - default_value)

    values: Sequence[float | None] = grid if knob else [None]
    if use_claims:  # the claim threshold on the claims, then the gate on the records

        def claim_ba(v: float) -> float:
            pairs = claim_pairs(v, cal)
            return rates(pairs[:, 0], pairs[:, 1])[0] or 0.0

        values = [max(values, key=lambda v: (claim_ba(v), closeness(v)))]
    # (target met, objective, closeness to the default, value, gate); ties: nearest default
    best = max(
        (
            (met, obj, closeness(v), v, gate)
            for v in values
            for gate, obj, met in [
                best_gate(y[cal], record_scores(v)[cal], target_precision=target_precision)
            ]
        ),
        key=lambda c: c[:3],
    )
    met, _, _, value, gate = best

    s_new, s_old = record_scores(value), record_scores(default_value)
    p_new = (s_new >= gate).astype(int)
    p_old = (s_old >= DEFAULT_MIN_SCORE).astype(int)
    held, held_default, delta, delta_ci = held_out_comparison(
        y[test], p_new[test], p_old[test], seed=seed, n_boot=n_boot
    )

    claims_new = claims_old = None
    if use_claims:
        pn, po = claim_pairs(value, test), claim_pairs(default_value, test)
        claims_new = figures(pn[:, 0], pn[:, 1], seed=seed, n_boot=n_boot)
        claims_old = figures(po[:, 0], po[:, 1], seed=seed, n_boot=n_boot)

    options = dict(DEFAULTS)
    if knob is not None and value is not None:
        options[knob] = float(value)
    bands, band_note = None, None
    if not calibrate_judge_bands:
        band_note = E_BANDS_KEPT
    else:
        table = _band_table(matrices, cache.at(value), keep, test, y, claim_labels)
        if table is None:
            band_note = E_BAND_CALIBRATION_FEW.format(min_claims=MIN_BAND_CLAIMS)
        else:
            *arrays, half, source = table
            bands = calibrate_bands(
                *arrays, half, target=target_agreement, grid=band_grid, source=source
            )
            options["band_high"], options["band_low"] = bands.band_high, bands.band_low
    objective = (
        "balanced_accuracy"
        if target_precision is None
        else f"recall at precision >= {target_precision:g}"
    )
    return Calibration(
        options=options,
        decision=Decision(score=score, min_score=round(float(gate), 6)),
        objective=objective,
        target_met=met,
        seed=seed,
        calibration=figures(y[cal], p_new[cal], seed=seed, n_boot=n_boot),
        default_calibration=figures(y[cal], p_old[cal], seed=seed, n_boot=n_boot),
        held_out=held,
        default_held_out=held_default,
        delta=delta,
        delta_ci95=delta_ci,
        n_unscored=int((~scored).sum()),
        claims_held_out=claims_new,
        claims_default_held_out=claims_old,
        bands=bands,
        band_note=band_note,
        notes=tuple(notes),
    )


def _band_table(
    matrices: Sequence[Any],
    results: Sequence[Any],
    keep: np.ndarray,
    test: np.ndarray,
    y: np.ndarray,
    claim_labels: Sequence[Sequence[ClaimLabel]] | None,
) -> tuple[np.ndarray, ...] | None:
    """Per labelled claim: verdict, p_entail, p_contradict, p_near, label, held-out flag,
    and where the labels came from; ``None`` when too few claims carry a label.

    A claim's label is the smallest of the labelled spans it overlaps (per-claim labels);
    a record without them that split into exactly one claim lends it its own label.
    """
    rows: list[tuple[str, float, float, float, int, bool]] = []
    sources = set()
    for k, in_test, record_label in zip(keep, test, y):
        result, m = results[k], matrices[k]
        if getattr(result, "claims", None) is None or not hasattr(m, "probs"):
            return None  # not scorer matrices (a toy aggregate): nothing to band
        near = nearest_entailment(m.probs, m.mask) if len(m.claims) else []
        spans = claim_labels[k] if claim_labels is not None else []
        for i, c in enumerate(result.claims):
            if spans:
                hit = [s.label for s in spans if s.start < c.end and c.start < s.end]
                if not hit:
                    continue
                label = min(hit)
                sources.add("claim labels")
            elif len(result.claims) == 1:
                label = int(record_label)
                sources.add("single-claim records")
            else:
                continue
            rows.append(
                (c.verdict, c.p_entail, c.p_contradict, float(near[i]), label, bool(in_test))
            )
    if len(rows) < MIN_BAND_CLAIMS:
        return None
    cols = list(zip(*rows))
    labels, half = np.array(cols[4], dtype=int), np.array(cols[5], dtype=bool)
    if any(len(set(labels[h].tolist())) < 2 for h in (half, ~half)):
        return None
    return (
        np.array(cols[0], dtype=object),
        np.array(cols[1], dtype=np.float64),
        np.array(cols[2], dtype=np.float64),
        np.array(cols[3], dtype=np.float64),
        labels,
        half,
        " and ".join(sorted(sources)),
    )


__all__ = [
    "DEFAULT_MIN_SCORE",
    "Calibration",
    "ClaimLabel",
    "Figures",
    "LabelledRecord",
    "best_gate",
    "calibrate",
    "claim_spans",
    "figures",
    "parse_labelled",
    "split_halves",
]
