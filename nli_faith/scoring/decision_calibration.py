"""Fit an answer decision on the user's own labels (``nli-faith calibrate --fit-decision``).

The records are split into the seeded, label-stratified halves of
:func:`~nli_faith.scoring.agreement.split_halves`; the logistic decision of
:mod:`nli_faith.scoring.answer_decision` is fitted on one half (classes weighed alike,
faithful when P >= 0.5) and reported on the other beside the default rule, "faithful
when every claim is ``yes``". Records that were not scored or hold no claim are left
out.

Example (toy answers: faithful ones are well supported):
    >>> from types import SimpleNamespace as NS
    >>> rng = np.random.default_rng(0)
    >>> def answer(ok):
    ...     pe = float(np.clip(rng.normal(0.8 if ok else 0.4, 0.2), 0, 1))
    ...     c = NS(claim="x", scored_as=None, verdict="yes" if pe > 0.5 else "idk",
    ...            p_entail=pe, p_contradict=0.1, evidence=None, decision_note=None)
    ...     return NS(error=None, context_empty=False, claims=[c])
    >>> labels = [1, 0] * 40
    >>> cal = calibrate_answer_decision([answer(y) for y in labels], labels, n_boot=200)
    >>> cal.held_out.n, cal.decision.threshold
    (40, 0.5)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from nli_faith.errors import E_DECISION_NEEDS_LABELS, ThresholdsError
from nli_faith.scoring.agreement import (
    N_BOOT,
    SEED,
    Figures,
    HeldOutDelta,
    figures,
    held_out_comparison,
    split_halves,
)
from nli_faith.scoring.answer_decision import AnswerDecision, answer_features, fit_answer_decision

#: The rule the learned decision is compared with: faithful when every claim is ``yes``.
DEFAULT_RULE = "every claim yes"


@dataclass(frozen=True)
class DecisionCalibration(HeldOutDelta):
    """The fitted decision and its figures on the held-out half beside the default rule."""

    decision: AnswerDecision
    calibration: Figures  # learned, on the half it was fitted on
    held_out: Figures  # learned, other half
    default_held_out: Figures  # every claim yes, other half
    delta: float | None  # held-out balanced accuracy, learned minus the default rule
    delta_ci95: tuple[float, float] | None
    n_left_out: int  # records not scored or without a claim

    def verdict(self) -> str:
        """One sentence: does the learned decision beat the default rule on held-out records?"""
        if self.delta is None:
            return "Held-out balanced accuracy is undefined (one class only in the held-out half)."
        change = self.change()
        if self.improved:
            return f"The learned decision improves held-out balanced accuracy by {change}."
        return (
            f"The learned decision does NOT reliably improve held-out balanced accuracy over "
            f"'{DEFAULT_RULE}': {change}."
        )

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["decision"] = self.decision.to_dict()
        out["default_rule"] = DEFAULT_RULE
        out["improved"] = self.improved
        out["verdict"] = self.verdict()
        return out


def calibrate_answer_decision(
    results: Sequence[Any],
    labels: Sequence[int],
    *,
    seed: int = SEED,
    n_boot: int = N_BOOT,
    fitted_on: str = "",
) -> DecisionCalibration:
    """Fit on a seeded half of ``results`` (the scorer's, with the options the decision
    will be used with) and ``labels`` (1 faithful, 0 not); report on the other half."""
    usable = [k for k, r in enumerate(results) if not getattr(r, "error", None) and list(r.claims)]
    y = np.asarray([labels[k] for k in usable], dtype=int)
    test = split_halves(y, seed=seed)
    cal = ~test
    n_pos, n_neg = int((y[cal] == 1).sum()), int((y[cal] == 0).sum())
    if min(n_pos, n_neg) < 2 or min((y[test] == 1).sum(), (y[test] == 0).sum()) < 1:
        raise ThresholdsError(E_DECISION_NEEDS_LABELS.format(n_pos=n_pos, n_neg=n_neg))
    x = np.vstack([answer_features(results[k].claims) for k in usable])
    decision = fit_answer_decision(x[cal], y[cal], threshold=0.5, fitted_on=fitted_on)
    learned = np.array([decision.faithful(results[k]) for k in usable], dtype=int)
    rule = np.array([all(c.verdict == "yes" for c in results[k].claims) for k in usable], dtype=int)
    held, held_default, delta, delta_ci = held_out_comparison(
        y[test], learned[test], rule[test], seed=seed, n_boot=n_boot
    )
    return DecisionCalibration(
        decision=decision,
        calibration=figures(y[cal], learned[cal], seed=seed, n_boot=n_boot),
        held_out=held,
        default_held_out=held_default,
        delta=delta,
        delta_ci95=delta_ci,
        n_left_out=len(results) - len(usable),
    )
