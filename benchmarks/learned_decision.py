"""A decision learned from people, as a study: a claim's scores and rule outcomes to its
verdict. It is not shipped: fitted leave-one-dataset-out it did not beat the thresholds
(``results/decision_fit.md``), so the scorer never reads it.

A small logistic model over a few readable features (:data:`FEATURES`) gives each claim
a probability that people would call it faithful; a claim is ``yes`` when that reaches
the decision's ``threshold``, else it keeps ``no`` when the model and rules said ``no``,
and is ``idk`` otherwise. An answer is flagged when any claim is not ``yes``.

The features are computed outside the scorer, from what its stages expose: a record's
NLI matrix (``scorer.stages.matrices_of``) and the result aggregated from it
(``scorer.stages.aggregate``), by :func:`result_features`. ``rag_dev --rows`` writes them
per claim; ``decision_fit`` fits and applies the decision on those rows.

Features of a claim (each in [0, 1]):

* ``p_entail``, ``p_contradict``: the claim's reported probabilities (its best
  entailment and contradiction over the chunks allowed to support or contradict it);
* ``model_yes``, ``model_no``: its verdict;
* ``coverage_evidence``: share of its content words that its evidence chunk holds;
* ``coverage_context``: share of its content words found anywhere in the context;
* ``conflict``: its ``no`` shows an aligned conflict (:mod:`nli_faith.rules.conflicts`);
* ``unexplained``: the model contradicted it with no conflict showing (the conflicts
  rule set the ``no`` aside: the claim has a ``decision_note``);
* ``entail_top3``: the mean of its three best entailments over the pairs the model
  scored (support from more than one place), ``entail_sentence``: its best entailment by
  a single sentence, ``entail_composite``: by a composite premise (0 without one);
* ``has_number``: it states a number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from nli_faith.nli.labels import ENTAIL_IDX
from nli_faith.rules.conflicts import UNEXPLAINED, find_conflict
from nli_faith.scoring.composite import is_composite
from nli_faith.text.chunking import sentence_members
from nli_faith.text.lexical import content_words

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
    entailment by each chunk whose pair was scored (-1 elsewhere), ``sentence`` and
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


def result_features(m: Any, result: Any) -> np.ndarray:
    """The features of each claim of ``result`` (rows of :data:`FEATURES`, in the order of
    ``result.claims``), ``result`` being ``scorer.stages.aggregate(m)`` of the NLI matrix
    ``m``. A claim is matched to its matrix row by its place in the response (claims the
    rules set apart as abstentions have a row but no verdict)."""
    rows = _matrix_rows(m, result)
    plain = [c.text for c in m.chunks if not c.parts]
    context_words = frozenset().union(*(content_words(t) for t in plain))
    ent = np.where(m.mask, m.probs[..., ENTAIL_IDX], -1.0) if m.chunks else None
    composite = is_composite(m.chunks) if m.chunks else None
    sentence = (
        np.array(
            [
                mem == [j] and not c.parts
                for j, (mem, c) in enumerate(zip(sentence_members(m.chunks), m.chunks))
            ]
        )  # fmt: skip
        if m.chunks
        else None
    )
    out = []
    for c, i in zip(result.claims, rows):
        scored = m.claims[i].text
        ev = c.evidence.text if c.evidence is not None else None
        conflict = c.verdict == "no" and ev is not None and find_conflict(scored, ev) is not None
        out.append(
            claim_features(
                scored,
                verdict=c.verdict,
                p_entail=c.p_entail,
                p_contradict=c.p_contradict,
                evidence=ev,
                context_words=context_words,
                conflict=conflict,
                unexplained=(c.decision_note or "").startswith(UNEXPLAINED),
                entail=None if ent is None else ent[i],
                sentence=sentence,
                composite=composite,
            )
        )
    return np.array(out).reshape(len(out), len(FEATURES))


def _matrix_rows(m: Any, result: Any) -> list[int]:
    rows, i = [], 0
    for c in result.claims:
        while (m.claims[i].start, m.claims[i].end) != (c.start, c.end):
            i += 1  # an abstention: not among the result's claims
        rows.append(i)
        i += 1
    return rows


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
