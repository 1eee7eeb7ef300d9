"""An answer's decision learned from people: its claims' verdicts and scores to faithful or not.

In the spirit of SummaC-Conv's learned aggregation: a small logistic model over readable
features of an answer's claims (:data:`FEATURES`, each in [0, 1], computed from a
:class:`~nli_faith.results.FaithfulnessResult` alone by :func:`answer_features`) gives
the probability that people would call the answer faithful; the answer is faithful when
that reaches the decision's ``threshold``.

A decision is data: feature names, coefficients, intercept, threshold and what it was
fitted on, stored as JSON (:meth:`AnswerDecision.save`, :meth:`AnswerDecision.load`).
Applying one is a dot product in numpy; only fitting (:func:`fit_answer_decision`)
imports scikit-learn, when called.

Features of an answer (over its claims; an answer with no claim has no decision):

* ``any_not_yes``: some claim is not ``yes`` (the default rule, as one feature);
* ``share_yes``, ``share_no``: shares of ``yes`` and ``no`` claims;
* ``min_entail``, ``mean_entail``: the least and the mean best entailment;
* ``max_contradict``: the strongest contradiction;
* ``min_coverage``, ``mean_coverage``: share of a claim's content words its evidence
  holds (lexical coverage), least and mean;
* ``conflict``: some ``no`` shows a conflict (a number, name or negation that differs:
  :mod:`nli_faith.rules.conflicts`);
* ``share_number``: share of claims that state a number (the claims' kind).

The answer's length and whether it is a short answer scored with its question are left
out: across the development datasets they tell the dataset apart, not the faithful
answers (fitted with them, leave-one-dataset-out balanced accuracy fell on xsumfaith
from 56.7 to 50.5).

Example:
    >>> from nli_faith.results import ClaimVerdict, FaithfulnessResult
    >>> c = ClaimVerdict(claim="It opened in 1990.", start=0, end=18, verdict="yes",
    ...                  p_entail=0.9, p_contradict=0.01, evidence=None)
    >>> r = FaithfulnessResult(lenient=1.0, strict=1.0, soft=0.9, n_claims=1, n_yes=1,
    ...                        n_no=0, n_idk=0, reason="", claims=[c])
    >>> d = AnswerDecision(coef=(-3.0,) + (0.0,) * (len(FEATURES) - 1), intercept=1.5,
    ...                    threshold=0.5)
    >>> d.faithful(r), round(float(d.p_faithful(answer_features(r.claims))[0]), 3)
    (True, 0.818)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nli_faith.errors import E_DECISION_FIELD, E_DECISION_FILE, E_GATE_NO_CONTEXT, ThresholdsError
from nli_faith.scoring.gate import Ruling
from nli_faith.text.lexical import content_words

FORMAT = "nli-faith-answer-decision/1"
#: Beside a checkpoint's weights: the answer decision fitted for that model.
DECISION_FILE = "answer_decision.json"
FEATURES = (
    "any_not_yes",
    "share_yes",
    "share_no",
    "min_entail",
    "mean_entail",
    "max_contradict",
    "min_coverage",
    "mean_coverage",
    "conflict",
    "share_number",
)
#: How a claim's ``decision_note`` starts when its ``no`` shows a conflict.
CONFLICT_NOTE = "conflict:"
_NUMBER_RE = re.compile(r"\d")


def coverage(claim: str, evidence: str | None) -> float:
    """Share of ``claim``'s content words that ``evidence`` holds (1.0 for a claim
    without content words, 0.0 without evidence)."""
    words = content_words(claim)
    if not words:
        return 1.0
    if not evidence:
        return 0.0
    return len(words & content_words(evidence)) / len(words)


def claim_numbers(claims: Sequence[Any]) -> list[list[float]]:
    """Per claim: verdict yes, verdict no, p_entail, p_contradict, coverage, conflict,
    number (the rows :func:`answer_features` reduces)."""
    rows = []
    for c in claims:
        verdict, claim = _get(c, "verdict"), _get(c, "claim")
        evidence = _get(c, "evidence")
        ev = _get(evidence, "text") if evidence is not None else None
        note = _get(c, "decision_note") or ""
        rows.append([
            float(verdict == "yes"),
            float(verdict == "no"),
            float(_get(c, "p_entail")),
            float(_get(c, "p_contradict")),
            coverage(_get(c, "scored_as") or claim, ev),
            float(verdict == "no" and note.startswith(CONFLICT_NOTE)),
            float(_NUMBER_RE.search(claim) is not None),
        ])  # fmt: skip
    return rows


def _get(obj: Any, name: str) -> Any:
    """A field of a result or claim, or of its output row (a scored JSON line)."""
    return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)


def answer_features(claims: Sequence[Any]) -> np.ndarray:
    """The features of an answer with ``claims`` (:class:`~nli_faith.results.ClaimVerdict`
    or anything with its fields), one row of :data:`FEATURES`; an empty row for none."""
    if not claims:
        return np.zeros((0, len(FEATURES)))
    a = np.array(claim_numbers(claims), dtype=np.float64)
    yes, no, pe, pc, cov, conflict, number = a.T
    row = [
        float(yes.min() < 1),
        float(yes.mean()),
        float(no.mean()),
        float(pe.min()),
        float(pe.mean()),
        float(pc.max()),
        float(cov.min()),
        float(cov.mean()),
        float(conflict.max()),
        float(number.mean()),
    ]
    return np.array([row])


@dataclass(frozen=True)
class AnswerDecision:
    """Logistic coefficients over :data:`FEATURES`, the intercept and the threshold."""

    coef: tuple[float, ...]
    intercept: float
    threshold: float = 0.5
    fitted_on: str = ""
    report: dict[str, Any] | None = None  # the fit's figures, kept as written

    def p_faithful(self, x: np.ndarray) -> np.ndarray:
        """P(people call the answer faithful) for rows of features ``x``."""
        x = np.asarray(x, dtype=np.float64).reshape(-1, len(self.coef))
        z = x @ np.asarray(self.coef, dtype=np.float64) + self.intercept
        return 1.0 / (1.0 + np.exp(-z))

    def ruling(self, result: Any) -> Ruling:
        """The decision on ``result`` (a result, or its output row), in the order of the
        one gate (:func:`~nli_faith.scoring.gate.gate`): not decided when it could not be
        scored or holds no claim, not faithful with an empty context, else by the model."""
        error = _get(result, "error")
        if error:
            return Ruling(None, "not_scored", f"the answer could not be scored: {error}")
        if _get(result, "context_empty"):
            return Ruling(False, "no_context", str(E_GATE_NO_CONTEXT))
        claims = _get(result, "claims") or []
        if not claims:
            return Ruling(None, "no_claims", "the answer holds no verifiable claim to check.")
        p = float(self.p_faithful(answer_features(claims))[0])
        if p < self.threshold:
            reason = f"the learned decision gives P(faithful) {p:.2f}, below {self.threshold:g}."
            return Ruling(False, "below", reason)
        reason = f"the learned decision gives P(faithful) {p:.2f}, at least {self.threshold:g}."
        return Ruling(True, "passed", reason)

    def faithful(self, result: Any) -> bool | None:
        """``True``/``False`` by :meth:`ruling`; ``None`` when not decided."""
        return self.ruling(result).passed

    passes = faithful

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "features": list(FEATURES),
            "coef": [round(float(v), 6) for v in self.coef],
            "intercept": round(float(self.intercept), 6),
            "threshold": round(float(self.threshold), 4),
            "fitted_on": self.fitted_on,
        }
        if self.report is not None:
            out["report"] = self.report
        return out

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "decision") -> AnswerDecision:
        """Check every field; a bad one is a :class:`~nli_faith.errors.ThresholdsError`
        naming it."""

        def bad(name: str, problem: str) -> ThresholdsError:
            return ThresholdsError(
                E_DECISION_FIELD.format(path=source, field=name, problem=problem)
            )

        def number(name: str, v: Any) -> float:
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            if not ok:
                raise bad(name, f"must be a finite number, got {v!r}")
            return float(v)

        if not isinstance(data, dict):
            raise bad("(top level)", f"must be a JSON object, got {type(data).__name__}")
        if data.get("format") != FORMAT:
            raise bad("format", f"must be {FORMAT!r}, got {data.get('format')!r}")
        if data.get("features") != list(FEATURES):
            raise bad(
                "features",
                f"must be {list(FEATURES)} (this version's features), got {data.get('features')!r}",
            )
        coef = data.get("coef")
        if not isinstance(coef, list) or len(coef) != len(FEATURES):
            raise bad("coef", f"must be a list of {len(FEATURES)} numbers, got {coef!r}")
        coef_t = tuple(number(f"coef[{i}]", v) for i, v in enumerate(coef))
        intercept = number("intercept", data.get("intercept"))
        threshold = number("threshold", data.get("threshold"))
        if not 0.0 <= threshold <= 1.0:
            raise bad("threshold", f"must lie in [0, 1], got {threshold}")
        fitted_on = data.get("fitted_on", "")
        if not isinstance(fitted_on, str):
            raise bad("fitted_on", f"must be a string, got {fitted_on!r}")
        report = data.get("report")
        if report is not None and not isinstance(report, dict):
            raise bad("report", f"must be an object, got {report!r}")
        return cls(coef_t, intercept, threshold, fitted_on, report)

    @classmethod
    def load(cls, path: str | Path) -> AnswerDecision:
        return cls.from_dict(read_json_file(path, E_DECISION_FILE), source=str(path))


def read_json_file(path: str | Path, message: Any) -> Any:
    """The JSON value in the file ``path``, or a :class:`ThresholdsError` of ``message``
    (a ``Message`` with ``{path}`` and ``{problem}``) that says why it cannot be read."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ThresholdsError(
            message.format(path=path, problem=f"invalid JSON: {err.msg}")
        ) from err
    except (OSError, UnicodeDecodeError) as err:
        problem = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise ThresholdsError(
            message.format(path=path, problem=f"cannot be read: {problem}")
        ) from err


def bundled_decision(model_path: str | Path) -> Path:
    """The answer decision shipped beside the weights in ``model_path``; a
    :class:`~nli_faith.errors.ThresholdsError` when that model ships none."""
    file = Path(model_path) / DECISION_FILE
    if not file.is_file():
        raise ThresholdsError(
            E_DECISION_FILE.format(
                path=file, problem="this model ships no answer decision; fit one on your labels"
            )
        )
    return file


def fit_answer_decision(
    x: np.ndarray,
    y: Sequence[int],
    *,
    weight: np.ndarray | None = None,
    balanced: bool = True,
    c: float = 1.0,
    threshold: float | None = None,
    fitted_on: str = "",
) -> AnswerDecision:
    """Fit the decision on answers' features ``x`` and people's labels ``y`` (1 faithful)
    with scikit-learn's ``LogisticRegression`` (classes weighed alike when ``balanced``,
    rows by ``weight``). ``threshold`` None: the one that maximises balanced accuracy on
    ``x`` (:func:`best_threshold`); else that one (0.5 is the balanced fit's own)."""
    from sklearn.linear_model import LogisticRegression

    x = np.asarray(x, dtype=np.float64).reshape(-1, len(FEATURES))
    y_a = np.asarray(y, dtype=int)
    model = LogisticRegression(C=c, max_iter=2000, class_weight="balanced" if balanced else None)
    model.fit(x, y_a, sample_weight=weight)
    d = AnswerDecision(
        coef=tuple(float(v) for v in model.coef_[0]),
        intercept=float(model.intercept_[0]),
        fitted_on=fitted_on,
    )
    t = best_threshold(d.p_faithful(x), y_a) if threshold is None else threshold
    return AnswerDecision(d.coef, d.intercept, round(float(t), 4), fitted_on)


def balanced_accuracy(y: Sequence[int], faithful: Sequence[bool]) -> float:
    """Mean of the recalls of both classes (NaN when one class is absent)."""
    y_a = np.asarray(y, dtype=int)
    f = np.asarray(faithful, dtype=bool)
    pos, neg = y_a == 1, y_a == 0
    if not pos.any() or not neg.any():
        return float("nan")
    return float((f[pos].mean() + (~f[neg]).mean()) / 2)


def best_threshold(p: np.ndarray, y: Sequence[int]) -> float:
    """The threshold in 0.05 ... 0.95 whose decision ``p >= t`` has the best balanced
    accuracy on labels ``y`` (the lowest of equals)."""
    grid = np.round(np.arange(0.05, 0.951, 0.01), 2)
    scores = [balanced_accuracy(y, p >= t) for t in grid]
    return float(grid[int(np.nanargmax(scores))]) if not all(map(math.isnan, scores)) else 0.5
