"""Scores and the reason that explains them: pure functions over verdict arrays."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Scores:
    lenient: float | None
    strict: float | None
    soft: float | None
    n_yes: int
    n_no: int
    n_idk: int

    @property
    def n_claims(self) -> int:
        return self.n_yes + self.n_no + self.n_idk


def compute_scores(verdicts: Sequence[str], p_entail: Sequence[float]) -> Scores:
    """Lenient, strict and soft scores from per-claim verdicts.

    * ``lenient = (n - no) / n`` — DeepEval's default formula: ``idk`` counts as faithful.
    * ``strict = yes / n`` — DeepEval with ``penalize_ambiguous_claims=True``.
    * ``soft`` — the mean of each claim's best entailment probability.

    No claims gives ``None`` scores, never 1.0.

    Example:
        >>> s = compute_scores(["yes", "idk", "no", "yes"], [0.9, 0.3, 0.1, 0.8])
        >>> (s.lenient, s.strict, round(s.soft, 3))
        (0.75, 0.5, 0.525)
    """
    v = np.asarray(verdicts, dtype=object)
    n = len(v)
    n_yes, n_no = int((v == "yes").sum()), int((v == "no").sum())
    n_idk = n - n_yes - n_no
    if n == 0:
        return Scores(None, None, None, 0, 0, 0)
    return Scores(
        lenient=(n - n_no) / n,
        strict=n_yes / n,
        soft=float(np.mean(np.asarray(p_entail, dtype=np.float64))),
        n_yes=n_yes,
        n_no=n_no,
        n_idk=n_idk,
    )


def _quote(claims: Sequence[str], idx: Sequence[int], limit: int = 2) -> str:
    shown = [f'"{_short(claims[i])}"' for i in idx[:limit]]
    more = len(idx) - len(shown)
    return "; ".join(shown) + (f" and {more} more" if more > 0 else "")


def _short(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def explain(scores: Scores, verdicts: Sequence[str], claims: Sequence[str]) -> str:
    """A reason that agrees with the numbers: it names contradicted and unsupported claims."""
    n = scores.n_claims
    if n == 0:
        return "The response holds no verifiable claims, so it is not scored."
    head = (
        f"{scores.n_yes} of {n} claims are supported by the context, "
        f"{scores.n_no} contradicted, {scores.n_idk} not found in it "
        f"(strict {scores.strict:.2f}, lenient {scores.lenient:.2f})."
    )
    v = list(verdicts)
    parts = [head]
    if scores.n_no:
        idx = [i for i, x in enumerate(v) if x == "no"]
        parts.append(f"Contradicted: {_quote(claims, idx)}.")
    if scores.n_idk:
        idx = [i for i, x in enumerate(v) if x == "idk"]
        parts.append(f"Unsupported (not found in the context): {_quote(claims, idx)}.")
        if scores.n_no == 0 and scores.n_idk > n / 2:
            parts.append(
                "Nothing is contradicted, but most claims are unsupported, so the lenient "
                "score overstates faithfulness; trust the strict score."
            )
    if scores.n_yes == n:
        parts.append("Every claim is supported.")
    return " ".join(parts)
