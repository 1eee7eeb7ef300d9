"""One typed scorer configuration, from which every door builds its scorer.

:class:`ScorerConfig` holds every option of :class:`~nli_faith.scorer.FaithfulnessScorer`
(its fields are the scorer's keyword parameters, with the same defaults; a test keeps the
two lists equal), its presets (:meth:`ScorerConfig.guardrail`, and the calibrated
``thresholds`` saved by ``nli-faith calibrate``). The scorer builds one from its keyword
arguments and the engine loads its parts from it
(:func:`~nli_faith.engine.parts.load_parts`);
``FaithfulnessScorer.from_config(config)`` builds the scorer a configuration describes. The
CLI (:func:`nli_faith.cli.options.config_from_args`: its scorer flags have the field names
as ``dest``), the server's settings, Ray actors and the adapters all take or build this one
object; it travels between processes as JSON (:meth:`to_dict`, :meth:`from_dict`).

Example:
    >>> cfg = ScorerConfig.guardrail(prefilter_top_k=3)
    >>> cfg.backend, cfg.prefilter, cfg.prefilter_top_k, cfg.early_exit
    ('onnx', 'lexical', 3, True)
    >>> ScorerConfig.from_dict(cfg.to_dict()) == cfg
    True
    >>> ScorerConfig(entail_threshold=0.6).options()["entail_threshold"]
    0.6
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from nli_faith.errors import E_WHOLE_NUMBER, OptionError
from nli_faith.presets import GUARDRAIL
from nli_faith.records import Limits, is_whole

#: Default largest chunk, in tokens: long enough for several sentences, short
#: enough to stay close to the premise lengths the bundled model was trained on.
DEFAULT_CHUNK_TOKENS = 256
#: Share of a claim's content words a chunk must hold to count as contradicting it.
DEFAULT_CONTRADICTION_OVERLAP = 0.3


def whole_number(name: str, value: object, *, least: int) -> int:
    """``value`` if it is an ``int`` (not a bool) of at least ``least``, else ``ValueError``.

    Example:
        >>> whole_number("chunk_overlap", -1, least=0)
        Traceback (most recent call last):
        ...
        nli_faith.exceptions.OptionError: chunk_overlap must be a whole number of at least 0, \
got -1.
    """
    if not is_whole(value, least):
        raise OptionError(E_WHOLE_NUMBER.format(name=name, least=least, value=value))
    return int(value)


@dataclass(frozen=True)
class ScorerConfig:
    """A scorer's configuration: the keyword options of ``FaithfulnessScorer`` (each
    documented there; ``None`` is the scorer's default, for the thresholds and bands the
    model's own ``decision.json``). ``thresholds``: a file saved by ``nli-faith
    calibrate``, whose options fill the fields left ``None`` here and whose gate decides
    each record's ``faithful``."""

    model: str = "default"
    device: str | None = None
    backend: str = "torch"
    onnx_quantize: bool = True
    dtype: str | None = None
    batch_size: int | None = None
    granularity: str = "sentence"
    spacy_model: str | None = None
    entail_threshold: float | None = None
    contradict_threshold: float | None = None
    label_map: Mapping[str, int] | None = None
    max_length: int | None = None
    chunk_tokens: int | None = DEFAULT_CHUNK_TOKENS
    chunk_overlap: int = 1
    sentence_chunks: bool = True
    number_check: bool = True
    contradiction_overlap: float = DEFAULT_CONTRADICTION_OVERLAP
    prefilter: str | None = None
    prefilter_top_k: int | None = None
    prefilter_model: str | None = None
    early_exit: bool = False
    composite: bool = True
    band_high: float | None = None
    band_low: float | None = None
    limits: Limits = field(default_factory=Limits)
    thresholds: str | None = None

    @classmethod
    def guardrail(cls, **changes: Any) -> ScorerConfig:
        """The ``guardrail`` preset (:data:`~nli_faith.presets.GUARDRAIL`), with
        ``changes`` over it."""
        return cls(**{**GUARDRAIL, **changes})

    def options(self) -> dict[str, Any]:
        """Every field but ``model``: ``FaithfulnessScorer(config.model, **config.options())``
        is the scorer this configuration describes."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "model"}

    def under(self, options: Mapping[str, Any]) -> ScorerConfig:
        """This configuration with ``options`` (a thresholds file's) in the fields it
        leaves ``None``; a name that is no field is a ``TypeError``."""
        return replace(self, **{k: v for k, v in options.items() if getattr(self, k, None) is None})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ScorerConfig:
        limits = data.get("limits")
        if isinstance(limits, Mapping):
            data = {**data, "limits": Limits(**limits)}
        return cls(**data)

    def replace(self, **changes: Any) -> ScorerConfig:
        return replace(self, **changes)


FIELDS = tuple(f.name for f in dataclasses.fields(ScorerConfig))
