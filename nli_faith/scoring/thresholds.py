"""Calibrated thresholds, saved as JSON by ``nli-faith calibrate`` and read by the scorer.

A thresholds file holds two things:

* ``options``: scorer options (``entail_threshold``, ``contradict_threshold`` and, when
  labelled claims allowed choosing them, the judge's ``band_high`` / ``band_low``; any
  keyword of :class:`~nli_faith.scorer.FaithfulnessScorer` may appear), applied when
  the scorer is built with :meth:`~nli_faith.scorer.FaithfulnessScorer.from_thresholds`;
* ``decision``: the record-level gate, ``faithful = result.<score> >= min_score``
  (``score`` is ``strict`` by default), which :meth:`Decision.passes` decides with the
  one gate (:func:`~nli_faith.scoring.gate.gate`: never with an empty context); or, when
  it holds ``learned`` (``nli-faith calibrate --fit-decision``), an answer decision
  learned from the labels (:class:`~nli_faith.scoring.answer_decision.AnswerDecision`),
  which then decides instead. Files without ``learned`` read as before.

It also records the model it was calibrated for (registry name or path, resolved name,
SHA-256 of the weight files): using it with other weights is a
:class:`~nli_faith.errors.ThresholdsError`. ``report`` keeps the calibration's figures.

Example:
    >>> d = Decision(score="strict", min_score=0.75)
    >>> from nli_faith.results import FaithfulnessResult
    >>> r = FaithfulnessResult(lenient=1.0, strict=0.8, soft=0.7, n_claims=5, n_yes=4,
    ...                        n_no=0, n_idk=1, reason="")
    >>> d.passes(r)
    True
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from nli_faith.errors import (
    E_THRESHOLD,
    E_THRESHOLDS_FILE,
    E_THRESHOLDS_MODEL,
    E_THRESHOLDS_SCORE,
    ThresholdsError,
)
from nli_faith.scoring.answer_decision import AnswerDecision, read_json_file
from nli_faith.scoring.gate import SCORES, Ruling, gate

FORMAT = "nli-faith-thresholds/1"
#: The scorer options a thresholds file may set: the thresholds calibration chooses.
OPTIONS = ("entail_threshold", "contradict_threshold", "band_high", "band_low")


@dataclass(frozen=True)
class Decision:
    """Record-level gate: a record is faithful when ``result.<score> >= min_score``; with
    ``learned``, when the learned answer decision says so (the gate is then unused)."""

    score: str = "strict"
    min_score: float = 0.5
    learned: AnswerDecision | None = None

    def __post_init__(self) -> None:
        if self.score not in SCORES:
            raise ThresholdsError(E_THRESHOLDS_SCORE.format(allowed=SCORES, score=self.score))
        number = isinstance(self.min_score, (int, float)) and not isinstance(self.min_score, bool)
        if not number or not 0.0 <= self.min_score <= 1.0:  # NaN fails the range too
            raise ThresholdsError(E_THRESHOLD.format(name="min_score", value=self.min_score))

    def ruling(self, result: Any) -> Ruling:
        """The gate's ruling on ``result`` (a result, or its output row) by this decision."""
        if self.learned is not None:
            return self.learned.ruling(result)
        return gate(result, score=self.score, min_score=self.min_score)

    @property
    def by(self) -> str:
        """What decides: ``"learned decision"`` or the gate (``"strict >= 0.5"``)."""
        return (
            "learned decision"
            if self.learned is not None
            else f"{self.score} >= {self.min_score:g}"
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"score": self.score, "min_score": self.min_score}
        if self.learned is not None:
            out["learned"] = self.learned.to_dict()
        return out

    def passes(self, result: Any) -> bool | None:
        """``True``/``False`` for a scored result (``False`` with an empty context);
        ``None`` when it has no score (an error, or no verifiable claim)."""
        return self.ruling(result).passed


@dataclass(frozen=True)
class ModelId:
    """Which model the thresholds were calibrated for."""

    model: str  # as given to FaithfulnessScorer: registry name, local path or hub id
    name: str  # resolved name
    weights_sha256: str | None

    @classmethod
    def of(cls, model: str, nli: Any) -> ModelId:
        """The identity of a loaded :class:`~nli_faith.nli.model.NLIModel`."""
        from nli_faith.nli.fingerprint import weights_sha256

        local = Path(model).expanduser()
        if local.is_dir():  # a checkpoint folder: kept absolute, to work from any directory
            model = str(local.resolve())
        return cls(model=model, name=nli.name, weights_sha256=weights_sha256(nli.path))


@dataclass(frozen=True)
class Thresholds:
    """The content of a thresholds file (see the module docstring)."""

    model: ModelId
    options: dict[str, float]
    decision: Decision
    report: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "model": asdict(self.model),
            "options": dict(self.options),
            "decision": self.decision.to_dict(),
            "report": self.report,
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "thresholds") -> Thresholds:
        def bad(problem: str) -> ThresholdsError:
            return ThresholdsError(E_THRESHOLDS_FILE.format(path=source, problem=problem))

        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise bad(f"'format' is not {FORMAT!r}")
        try:
            model = ModelId(**data["model"])
            options = {str(k): float(v) for k, v in data["options"].items()}
            gate_fields = dict(data["decision"])
            learned = gate_fields.pop("learned", None)
            if learned is not None:
                learned = AnswerDecision.from_dict(learned, source=f"{source}: decision.learned")
            decision = Decision(**gate_fields, learned=learned)
        except ThresholdsError as err:
            raise bad(str(err)) from err
        except (KeyError, TypeError, AttributeError, ValueError) as err:
            raise bad(f"{type(err).__name__}: {err}") from err
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise bad(f"'options' holds {unknown}, which are not among {list(OPTIONS)}")
        for name, value in options.items():
            if not 0.0 <= value <= 1.0:
                raise bad(E_THRESHOLD.format(name=name, value=value))
        return cls(model=model, options=options, decision=decision, report=data.get("report", {}))

    @classmethod
    def load(cls, path: str | Path) -> Thresholds:
        if not isinstance(path, (str, Path)) or not str(path).strip():
            raise ThresholdsError(E_THRESHOLDS_FILE.format(path=path, problem="not a file name"))
        return cls.from_dict(read_json_file(path, E_THRESHOLDS_FILE), source=str(path))

    def check_model(self, nli: Any, *, source: str = "the thresholds file") -> None:
        """Raise :class:`ThresholdsError` unless ``nli`` runs the weights calibrated on."""
        actual = ModelId.of(self.model.model, nli)
        same = (
            actual.weights_sha256 == self.model.weights_sha256
            if actual.weights_sha256 and self.model.weights_sha256
            else actual.name == self.model.name
        )
        if not same:
            raise ThresholdsError(
                E_THRESHOLDS_MODEL.format(
                    path=source,
                    expected=self.model.name,
                    expected_sha=_short(self.model.weights_sha256),
                    actual=actual.name,
                    actual_sha=_short(actual.weights_sha256),
                    given=self.model.model,
                )
            )


def _short(sha: str | None) -> str:
    return sha[:12] + "…" if sha else "unknown"
