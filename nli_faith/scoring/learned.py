"""A decision learned from people: a claim's scores and rule outcomes to its verdict.

The model's probabilities alone rank hallucinated claims no better than how much of a
claim's wording its context holds; together, with what the rules found, they rank them
better. A small logistic model over a few readable features (:data:`FEATURES`) gives
each claim a probability that people would call it faithful; a claim is ``yes`` when
that reaches the decision's ``threshold``, else it keeps ``no`` when the model and rules
said ``no``, and is ``idk`` otherwise (a model ``yes`` below the threshold is ``idk``; a
model ``idk`` above it is ``yes``). An answer is flagged when any claim is not ``yes``.

The decision is data: the ``"learned"`` entry of ``decision.json`` beside a model's
weights (coefficients, intercept, threshold and what it was fitted on), written by
:func:`fit` (``benchmarks/decision_fit.py`` fits it leave-one-dataset-out on human
labels). A model without one keeps the thresholds' verdicts.

Features of a claim (each in [0, 1]):

* ``p_entail``, ``p_contradict``: its best entailment and contradiction over the chunks
  allowed to support or contradict it (after the rules);
* ``model_yes``, ``model_no``: the verdict before this step;
* ``coverage_evidence``: share of its content words that its evidence chunk holds;
* ``coverage_context``: share of its content words found anywhere in the context;
* ``conflict``: its ``no`` shows an aligned conflict (:mod:`nli_faith.rules.conflicts`);
* ``unexplained``: the model contradicted it with no conflict showing (the conflicts
  rule set the ``no`` aside);
* ``entail_top3``: the mean of its three best entailments (support from more than one
  place), ``entail_sentence``: its best entailment by a single sentence,
  ``entail_composite``: by a composite premise (0 without one);
* ``has_number``: it states a number.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from nli_faith.text.lexical import content_words

__all__ = ["FEATURES", "LearnedDecision", "claim_features", "fit", "learned_for"]

FEATURES = (
    "p_entail",
    "p_contradict",
    "model_yes",
    "model_no",
    "coverage_evidence",
    "coverage_context",
    "conflict",
    "unexplained",
    "entail_top3",
    "entail_sentence",
    "entail_composite",
    "has_number",
)
#: The ``decision.json`` key that holds the learned decision.
KEY = "learned"
#: Apply the learned decision shipped with a model (a switch for studies that measure the
#: verdicts without it, such as fitting it: ``benchmarks/rag_dev.py --no-learned``).
ENABLED = True
#: Studies only: a list to which every scored response's claim texts and feature rows are
#: appended (``(texts, rows)``), so a decision is fitted on what the scorer computes.
FEATURE_SINK: list | None = None
#: The prefix of the rule note a claim gets when this decision changed its verdict.
NOTE = "learned decision"


@dataclass(frozen=True)
class LearnedDecision:
    """Logistic coefficients over :data:`FEATURES` and the ``yes`` threshold."""

    coef: tuple[float, ...]
    intercept: float
    threshold: float
    features: tuple[str, ...] = FEATURES
    fitted_on: str = ""

    def p_faithful(self, x: np.ndarray) -> np.ndarray:
        """P(people call the claim faithful) for rows of features ``x``."""
        x = np.asarray(x, dtype=np.float64).reshape(-1, len(self.coef))
        z = x @ np.asarray(self.coef) + self.intercept
        return 1.0 / (1.0 + np.exp(-z))

    def verdicts(self, x: np.ndarray, verdicts: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """The learned verdicts of claims with features ``x`` and model verdicts."""
        p = self.p_faithful(x)
        out = [
            "yes" if pi >= self.threshold else ("no" if v == "no" else "idk")
            for pi, v in zip(p, verdicts)
        ]
        return out, p

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["coef"] = dict(zip(self.features, self.coef))
        del d["features"]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LearnedDecision:
        names = tuple(d["coef"])
        if names != FEATURES:
            raise ValueError(f"learned decision features {names} are not {FEATURES}")
        return cls(
            coef=tuple(float(d["coef"][k]) for k in names),
            intercept=float(d["intercept"]),
            threshold=float(d["threshold"]),
            fitted_on=str(d.get("fitted_on", "")),
        )


@lru_cache(maxsize=16)
def _load(path: str) -> LearnedDecision | None:
    file = Path(path) / "decision.json"
    if not file.is_file():
        return None
    data = json.loads(file.read_text(encoding="utf-8"))
    return LearnedDecision.from_dict(data[KEY]) if KEY in data else None


def learned_for(nli: Any) -> LearnedDecision | None:
    """The learned decision shipped beside the weights of ``nli`` (an ``NLIModel`` or a
    wrapper of one), else None."""
    if not ENABLED:
        return None
    path = getattr(nli, "path", None)
    return _load(str(path)) if isinstance(path, (str, Path)) else None


def _share(words: frozenset[str], have: frozenset[str]) -> float:
    return len(words & have) / len(words) if words else 1.0


def claim_features(
    claim: str,
    *,
    verdict: str,
    p_entail: float,
    p_contradict: float,
    evidence: str | None,
    context_words: frozenset[str],
    conflict: bool,
    unexplained: bool,
    entail: np.ndarray | None = None,
    sentence: np.ndarray | None = None,
    composite: np.ndarray | None = None,
) -> list[float]:
    """One claim's features, in the order of :data:`FEATURES`; ``entail`` holds its
    entailment by each chunk allowed to support it (-1 elsewhere), ``sentence`` and
    ``composite`` mark the single-sentence and the composite chunks."""
    words = content_words(claim)
    ev = content_words(evidence) if evidence else frozenset()
    e = np.zeros(0) if entail is None else np.clip(np.asarray(entail, dtype=np.float64), 0, 1)
    top3 = float(np.sort(e)[::-1][:3].sum() / 3) if e.size else 0.0
    by_sentence = (
        float(e[sentence].max()) if e.size and sentence is not None and sentence.any() else 0.0
    )
    by_composite = (
        float(e[composite].max()) if e.size and composite is not None and composite.any() else 0.0
    )
    return [
        float(p_entail),
        float(p_contradict),
        float(verdict == "yes"),
        float(verdict == "no"),
        _share(words, ev),
        _share(words, context_words),
        float(conflict),
        float(unexplained),
        top3,
        by_sentence,
        by_composite,
        float(_NUMBER_RE.search(claim) is not None),
    ]


_NUMBER_RE = re.compile(r"\d")


def fit(
    x: np.ndarray,
    y: np.ndarray,
    *,
    weight: np.ndarray | None = None,
    c: float = 1.0,
) -> tuple[tuple[float, ...], float]:
    """Logistic coefficients and intercept for features ``x`` and labels ``y`` (1 =
    faithful), by scikit-learn, rows weighted by ``weight``."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=1000)
    model.fit(np.asarray(x, dtype=np.float64), np.asarray(y), sample_weight=weight)
    coef = tuple(round(float(v), 4) for v in model.coef_[0])
    return coef, round(float(model.intercept_[0]), 4)


def describe(d: LearnedDecision, p: float, before: str) -> str:
    """The rule note of a claim whose verdict this decision changed."""
    odds = "reaches" if p >= d.threshold else "is below"
    return (
        f"{NOTE}: P(faithful) {p:.2f} {odds} {d.threshold:.2f} "
        f"(the model's verdict was {before!r}; logistic over {', '.join(d.features)})"
    )


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))
