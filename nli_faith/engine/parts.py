"""What every stage of the engine reads: the loaded parts and the settings.

:func:`load_parts` loads the claim splitter, the NLI model and the pre-filter and settles
each threshold (given, else the model's own ``decision.json``, else the library's
default); :class:`Parts` holds them. It is mutable on purpose: a caller may swap the NLI
model for a cache (the benchmarks do) or turn early exit off for calibration, and every
stage sees the change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from nli_faith.checks import check_setting as check_option
from nli_faith.config import (
    DEFAULT_PREFILTER_TOP_K,
    DEFAULTS,
    ScorerConfig,
)
from nli_faith.errors import E_OPTION_TYPE, OptionError
from nli_faith.records import Limits
from nli_faith.scoring.bands import DEFAULT_BAND_HIGH, DEFAULT_BAND_LOW, BandThresholds
from nli_faith.scoring.prefilter import make_prefilter
from nli_faith.scoring.verdicts import (
    DEFAULT_CONTRADICT_THRESHOLD,
    DEFAULT_ENTAIL_THRESHOLD,
    check_threshold,
)
from nli_faith.text.claims import ClaimSplitter

__all__ = ["DEFAULT_PREFILTER_TOP_K", "SETTINGS", "Parts", "check_options", "check_setting",
           "load_parts"]  # fmt: skip

#: The configuration's fields that a loaded scorer holds as they are (and may change).
SETTINGS = ("chunk_tokens", "chunk_overlap", "sentence_chunks", "number_check",
            "contradiction_overlap", "early_exit", "composite", "composite_premise")  # fmt: skip


@dataclass
class Parts:
    """The loaded parts and settings of one scorer (each documented on
    :class:`~nli_faith.config.ScorerConfig`)."""

    splitter: ClaimSplitter
    nli: Any  # NLIModel, or anything with its public methods (a cache)
    prefilter: Any  # a pre-filter with ``select``, or None
    entail_threshold: float
    contradict_threshold: float
    bands: BandThresholds
    limits: Limits
    # the settings, with the configuration's defaults (:data:`SETTINGS`)
    chunk_tokens: int | None = DEFAULTS.chunk_tokens
    chunk_overlap: int = DEFAULTS.chunk_overlap
    sentence_chunks: bool = DEFAULTS.sentence_chunks
    number_check: bool = DEFAULTS.number_check
    contradiction_overlap: float = DEFAULTS.contradiction_overlap
    early_exit: bool = DEFAULTS.early_exit
    composite: bool = DEFAULTS.composite
    composite_premise: str = DEFAULTS.composite_premise


def check_options(config: ScorerConfig) -> None:
    """Raise on an option of the wrong type or out of range, naming it: a
    :class:`~nli_faith.config.ScorerConfig` checks itself when made, so this checks that
    ``config`` is one (kept for callers that check before loading)."""
    if not isinstance(config, ScorerConfig):
        expected = "a ScorerConfig (ScorerConfig.from_dict(d) reads a dict)"
        raise OptionError(E_OPTION_TYPE.format(name="config", expected=expected, value=config))


def check_setting(name: str, value: Any) -> Any:
    """``value`` for the setting ``name`` of a loaded scorer (``scorer.entail_threshold =
    0.7``), checked as the configuration checks the option; ``OptionError`` naming it otherwise."""
    if name == "limits" and not isinstance(value, Limits):
        raise OptionError(E_OPTION_TYPE.format(name=name, expected="a Limits(...)", value=value))
    if name == "bands" and not isinstance(value, BandThresholds):
        expected = "a BandThresholds(high=..., low=...)"
        raise OptionError(E_OPTION_TYPE.format(name=name, expected=expected, value=value))
    return check_option(name, value)


def load_parts(config: ScorerConfig) -> Parts:
    """Load the parts ``config`` describes (its ``thresholds`` file is the facade's)."""
    from nli_faith.nli.model import NLIModel
    from nli_faith.nli.registry import decision_defaults

    check_options(config)  # before the model loads: a typo costs no load
    splitter = ClaimSplitter(
        granularity=config.granularity, spacy_model=config.spacy_model, context_statements=True
    )
    nli = NLIModel(
        config.model,
        device=config.device,
        backend=config.backend,
        onnx_quantize=config.onnx_quantize,
        dtype=config.dtype,
        label_map=config.label_map,
        max_length=config.max_length,
        batch_size=config.batch_size,
        # the environment is read here, at the edge, in the process that loads the model
        threads=config.resolved_threads(),
        cache_dir=config.resolved_onnx_cache_dir() if config.backend == "onnx" else None,
    )
    # A threshold not given: the model's own (decision.json beside its weights), else ours.
    shipped = decision_defaults(nli.path)
    given = {
        "entail_threshold": (config.entail_threshold, DEFAULT_ENTAIL_THRESHOLD),
        "contradict_threshold": (config.contradict_threshold, DEFAULT_CONTRADICT_THRESHOLD),
        "band_high": (config.band_high, DEFAULT_BAND_HIGH),
        "band_low": (config.band_low, DEFAULT_BAND_LOW),
    }
    chosen = {k: shipped.get(k, d) if v is None else v for k, (v, d) in given.items()}
    entail = check_threshold("entail_threshold", chosen["entail_threshold"])
    contradict = check_threshold("contradict_threshold", chosen["contradict_threshold"])
    top_k = config.prefilter_top_k
    selector = make_prefilter(
        config.prefilter,
        top_k=DEFAULT_PREFILTER_TOP_K if top_k is None else top_k,
        model=config.prefilter_model,
        keep_overlap=config.contradiction_overlap,
    )
    return Parts(
        splitter=splitter,
        nli=nli,
        prefilter=selector,
        entail_threshold=entail,
        contradict_threshold=contradict,
        bands=BandThresholds(high=chosen["band_high"], low=chosen["band_low"]),
        limits=config.limits,
        **{name: getattr(config, name) for name in SETTINGS},
    )
