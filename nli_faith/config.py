"""One typed scorer configuration, from which every door builds its scorer.

:class:`ScorerConfig` holds the options of :class:`~nli_faith.scorer.FaithfulnessScorer`
that the doors expose (the CLI's scorer flags have exactly its field names as ``dest``),
its presets (:meth:`ScorerConfig.guardrail`, and calibrated ``thresholds`` saved by
``nli-faith calibrate``), and :meth:`ScorerConfig.build`. The CLI
(:func:`nli_faith.cli.options.config_from_args`), the server's settings, Ray actors and the
adapters all take or build this one object; it travels between processes as JSON.

Example:
    >>> cfg = ScorerConfig.guardrail(prefilter_top_k=3)
    >>> cfg.backend, cfg.prefilter, cfg.prefilter_top_k, cfg.early_exit
    ('onnx', 'lexical', 3, True)
    >>> ScorerConfig.from_dict(cfg.to_dict()) == cfg
    True
    >>> sorted(ScorerConfig(entail_threshold=0.6).options())[:4]
    ['backend', 'batch_size', 'composite', 'device']
"""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from nli_faith.presets import GUARDRAIL
from nli_faith.records import Limits

if TYPE_CHECKING:  # pragma: no cover
    from nli_faith.scorer import FaithfulnessScorer

#: Fields left out of the scorer's keyword options when ``None`` (the scorer's default).
_DEFAULTED = ("entail_threshold", "contradict_threshold", "band_high", "band_low")


@dataclass(frozen=True)
class ScorerConfig:
    """A scorer's configuration (fields: the keyword options of ``FaithfulnessScorer``;
    ``None`` is the scorer's default). ``thresholds``: a file saved by ``nli-faith
    calibrate``, whose options apply under the fields set here and whose gate decides
    each record's ``faithful``."""

    model: str = "default"
    device: str | None = None
    backend: str = "torch"
    onnx_quantize: bool = True
    batch_size: int | None = None
    granularity: str = "sentence"
    entail_threshold: float | None = None
    contradict_threshold: float | None = None
    prefilter: str | None = None
    prefilter_top_k: int | None = None
    early_exit: bool = False
    band_high: float | None = None
    band_low: float | None = None
    composite: bool = True
    limits: Limits = field(default_factory=Limits)
    thresholds: str | None = None

    @classmethod
    def guardrail(cls, **changes: Any) -> ScorerConfig:
        """The ``guardrail`` preset (:data:`GUARDRAIL`), with ``changes`` over it."""
        return cls(**{**GUARDRAIL, **changes})

    def options(self) -> dict[str, Any]:
        """Keyword options of ``FaithfulnessScorer`` (besides ``model``)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        del out["model"], out["thresholds"]
        return {k: v for k, v in out.items() if not (k in _DEFAULTED and v is None)}

    def build(self) -> FaithfulnessScorer:
        """The scorer this configuration describes."""
        from nli_faith.scorer import FaithfulnessScorer

        if self.thresholds is not None:
            return FaithfulnessScorer.from_thresholds(self.thresholds, self.model, **self.options())
        return FaithfulnessScorer(self.model, **self.options())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScorerConfig:
        limits = data.get("limits")
        if isinstance(limits, dict):
            data = {**data, "limits": Limits(**limits)}
        return cls(**data)

    def replace(self, **changes: Any) -> ScorerConfig:
        return replace(self, **changes)


FIELDS = tuple(f.name for f in dataclasses.fields(ScorerConfig))
