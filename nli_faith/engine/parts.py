"""What every stage of the engine reads: the loaded parts and the settings.

:func:`load_parts` loads the claim splitter, the NLI model and the pre-filter and settles
each threshold (given, else the model's own ``decision.json``, else the library's
default); :class:`Parts` holds them. It is mutable on purpose: a caller may swap the NLI
model for a cache (the benchmarks do) or turn early exit off for calibration, and every
stage sees the change.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from nli_faith.config import (
    DEFAULT_CHUNK_TOKENS,
    DEFAULT_CONTRADICTION_OVERLAP,
    ScorerConfig,
    whole_number,
)
from nli_faith.errors import (
    E_OPTION_TYPE,
    E_OPTION_UNUSED,
    E_PREFILTER_TOP_K_ALONE,
    OptionError,
)
from nli_faith.records import Limits
from nli_faith.scoring.bands import DEFAULT_BAND_HIGH, DEFAULT_BAND_LOW, BandThresholds
from nli_faith.scoring.prefilter import make_prefilter
from nli_faith.scoring.verdicts import (
    DEFAULT_CONTRADICT_THRESHOLD,
    DEFAULT_ENTAIL_THRESHOLD,
    check_threshold,
)
from nli_faith.text.claims import ClaimSplitter

#: Sentences the pre-filter keeps per claim unless told otherwise.
DEFAULT_PREFILTER_TOP_K = 3


@dataclass
class Parts:
    """The loaded parts and settings of one scorer (see ``FaithfulnessScorer`` for each)."""

    splitter: ClaimSplitter
    nli: Any  # NLIModel, or anything with its public methods (a cache)
    prefilter: Any  # a pre-filter with ``select``, or None
    entail_threshold: float
    contradict_threshold: float
    bands: BandThresholds
    limits: Limits
    chunk_tokens: int | None = DEFAULT_CHUNK_TOKENS
    chunk_overlap: int = 1
    sentence_chunks: bool = True
    number_check: bool = True
    contradiction_overlap: float = DEFAULT_CONTRADICTION_OVERLAP
    early_exit: bool = False
    composite: bool = True


def check_options(config: ScorerConfig) -> None:
    """Raise on an option of the wrong type or out of range, naming it (the cheap checks,
    before anything loads; the thresholds the model ships are checked when read)."""
    from nli_faith.errors import E_BACKEND, E_GRANULARITY, E_PREFILTER
    from nli_faith.nli.labels import check_label_map
    from nli_faith.nli.model import check_batch_size
    from nli_faith.scoring.prefilter import PREFILTERS, check_top_k
    from nli_faith.text.claims import GRANULARITIES

    if not isinstance(config.onnx_quantize, bool):
        raise OptionError(
            E_OPTION_TYPE.format(
                name="onnx_quantize", expected="True or False", value=config.onnx_quantize
            )
        )
    for name in ("entail_threshold", "contradict_threshold", "contradiction_overlap",
                 "sentence_chunks", "number_check", "early_exit", "composite",
                 "chunk_overlap", "chunk_tokens"):  # fmt: skip
        optional = name in ("entail_threshold", "contradict_threshold", "chunk_tokens")
        if not (optional and getattr(config, name) is None):  # None: the model's, no limit
            check_setting(name, getattr(config, name))  # held as a loaded scorer's are
    for name in ("device", "dtype", "spacy_model", "prefilter_model", "prefilter"):
        value = getattr(config, name)
        path_ok = name in ("spacy_model", "prefilter_model") and isinstance(value, os.PathLike)
        if value is not None and not isinstance(value, str) and not path_ok:
            raise OptionError(E_OPTION_TYPE.format(name=name, expected="a string", value=value))
    if config.limits is not None and not isinstance(config.limits, Limits):
        raise OptionError(
            E_OPTION_TYPE.format(
                name="limits", expected="a Limits(...) or None", value=config.limits
            )
        )
    for name in ("band_high", "band_low"):
        if getattr(config, name) is not None:
            check_threshold(name, getattr(config, name))
    top_k = config.prefilter_top_k
    if config.prefilter is None and top_k is not None:
        raise OptionError(E_PREFILTER_TOP_K_ALONE.format(top_k=top_k))
    if top_k is not None:
        check_top_k(top_k)
    # the named choices first: a misspelt one is the error, not an option it makes unused
    if config.backend not in ("torch", "onnx"):
        raise OptionError(E_BACKEND.format(backend=config.backend))
    if config.granularity not in GRANULARITIES:
        allowed = ", ".join(GRANULARITIES)
        raise OptionError(E_GRANULARITY.format(granularity=config.granularity, allowed=allowed))
    if config.prefilter is not None and config.prefilter not in PREFILTERS:
        allowed = ", ".join(map(repr, PREFILTERS))
        raise OptionError(E_PREFILTER.format(allowed=allowed, prefilter=config.prefilter))
    unused = [
        ("prefilter_model", "prefilter='embedding'", config.prefilter != "embedding"),
        ("spacy_model", "granularity='clause'", config.granularity != "clause"),
        ("onnx_quantize", "backend='onnx'", config.backend != "onnx"),
    ]
    for name, needs, alone in unused:
        value = getattr(config, name)
        if alone and value not in (None, True):  # onnx_quantize's default is True
            fix = f"add {needs} or leave {name} out"
            raise OptionError(E_OPTION_UNUSED.format(name=name, needs=needs, value=value, fix=fix))
    if config.batch_size is not None:
        check_batch_size(config.batch_size)
    if config.label_map is not None:
        check_label_map(config.label_map)


def check_setting(name: str, value: Any) -> Any:
    """``value`` for the setting ``name`` of a loaded scorer (``scorer.entail_threshold =
    0.7``), checked as the constructor checks it; ``OptionError`` naming it otherwise."""
    if name in ("entail_threshold", "contradict_threshold", "contradiction_overlap"):
        return check_threshold(name, value)
    if name in ("sentence_chunks", "number_check", "early_exit", "composite"):
        if not isinstance(value, bool):
            raise OptionError(
                E_OPTION_TYPE.format(name=name, expected="True or False", value=value)
            )
    elif name == "chunk_overlap" or (name == "chunk_tokens" and value is not None):
        whole_number(name, value, least=0 if name == "chunk_overlap" else 1)
    elif name == "limits" and not isinstance(value, Limits):
        raise OptionError(E_OPTION_TYPE.format(name=name, expected="a Limits(...)", value=value))
    elif name == "bands" and not isinstance(value, BandThresholds):
        expected = "a BandThresholds(high=..., low=...)"
        raise OptionError(E_OPTION_TYPE.format(name=name, expected=expected, value=value))
    return value


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
    overlap = check_threshold("contradiction_overlap", config.contradiction_overlap)
    top_k = config.prefilter_top_k
    selector = make_prefilter(
        config.prefilter,
        top_k=DEFAULT_PREFILTER_TOP_K if top_k is None else top_k,
        model=config.prefilter_model,
        keep_overlap=overlap,
    )
    return Parts(
        splitter=splitter,
        nli=nli,
        prefilter=selector,
        entail_threshold=entail,
        contradict_threshold=contradict,
        bands=BandThresholds(high=chosen["band_high"], low=chosen["band_low"]),
        limits=Limits() if config.limits is None else config.limits,
        chunk_tokens=config.chunk_tokens,
        chunk_overlap=config.chunk_overlap,
        sentence_chunks=config.sentence_chunks,
        number_check=config.number_check,
        contradiction_overlap=overlap,
        early_exit=config.early_exit,
        composite=config.composite,
    )
