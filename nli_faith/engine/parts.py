"""What every stage of the engine reads: the loaded parts and the settings.

:func:`load_parts` loads the claim splitter, the NLI model and the pre-filter and settles
each threshold (given, else the model's own ``decision.json``, else the library's
default); :class:`Parts` holds them. It is mutable on purpose: a caller may swap the NLI
model for a cache (the benchmarks do) or turn early exit off for calibration, and every
stage sees the change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nli_faith.errors import E_PREFILTER_TOP_K_ALONE
from nli_faith.records import Limits
from nli_faith.scoring.bands import DEFAULT_BAND_HIGH, DEFAULT_BAND_LOW, BandThresholds
from nli_faith.scoring.prefilter import make_prefilter
from nli_faith.scoring.verdicts import (
    DEFAULT_CONTRADICT_THRESHOLD,
    DEFAULT_ENTAIL_THRESHOLD,
    check_threshold,
)
from nli_faith.text.claims import ClaimSplitter

#: Default largest chunk, in tokens: long enough for several sentences, short
#: enough to stay close to the premise lengths the bundled model was trained on.
DEFAULT_CHUNK_TOKENS = 256
#: Sentences the pre-filter keeps per claim unless told otherwise.
DEFAULT_PREFILTER_TOP_K = 3
#: Share of a claim's content words a chunk must hold to count as contradicting it.
DEFAULT_CONTRADICTION_OVERLAP = 0.3


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


def load_parts(
    model: str = "default",
    *,
    device: str | None = None,
    backend: str = "torch",
    onnx_quantize: bool = True,
    dtype: str | None = None,
    batch_size: int | None = None,
    granularity: str = "sentence",
    spacy_model: str | None = None,
    entail_threshold: float | None = None,
    contradict_threshold: float | None = None,
    label_map: Mapping[str, int] | None = None,
    max_length: int | None = None,
    chunk_tokens: int | None = DEFAULT_CHUNK_TOKENS,
    chunk_overlap: int = 1,
    sentence_chunks: bool = True,
    number_check: bool = True,
    contradiction_overlap: float = DEFAULT_CONTRADICTION_OVERLAP,
    prefilter: str | None = None,
    prefilter_top_k: int | None = None,
    prefilter_model: str | None = None,
    early_exit: bool = False,
    composite: bool = True,
    band_high: float | None = None,
    band_low: float | None = None,
    limits: Limits | None = None,
) -> Parts:
    """Load the parts the options describe (the options of ``FaithfulnessScorer``)."""
    from nli_faith.nli.model import NLIModel
    from nli_faith.nli.registry import decision_defaults

    splitter = ClaimSplitter(
        granularity=granularity, spacy_model=spacy_model, context_statements=True
    )
    nli = NLIModel(
        model,
        device=device,
        backend=backend,
        onnx_quantize=onnx_quantize,
        dtype=dtype,
        label_map=label_map,
        max_length=max_length,
        batch_size=batch_size,
    )
    # A threshold not given: the model's own (decision.json beside its weights), else ours.
    shipped = decision_defaults(nli.path)
    given = {
        "entail_threshold": (entail_threshold, DEFAULT_ENTAIL_THRESHOLD),
        "contradict_threshold": (contradict_threshold, DEFAULT_CONTRADICT_THRESHOLD),
        "band_high": (band_high, DEFAULT_BAND_HIGH),
        "band_low": (band_low, DEFAULT_BAND_LOW),
    }
    chosen = {k: shipped.get(k, d) if v is None else v for k, (v, d) in given.items()}
    entail = check_threshold("entail_threshold", chosen["entail_threshold"])
    contradict = check_threshold("contradict_threshold", chosen["contradict_threshold"])
    overlap = check_threshold("contradiction_overlap", contradiction_overlap)
    if prefilter is None and prefilter_top_k is not None:
        raise ValueError(E_PREFILTER_TOP_K_ALONE.format(top_k=prefilter_top_k))
    selector = make_prefilter(
        prefilter,
        top_k=DEFAULT_PREFILTER_TOP_K if prefilter_top_k is None else prefilter_top_k,
        model=prefilter_model,
        keep_overlap=overlap,
    )
    return Parts(
        splitter=splitter,
        nli=nli,
        prefilter=selector,
        entail_threshold=entail,
        contradict_threshold=contradict,
        bands=BandThresholds(high=chosen["band_high"], low=chosen["band_low"]),
        limits=Limits() if limits is None else limits,
        chunk_tokens=chunk_tokens,
        chunk_overlap=chunk_overlap,
        sentence_chunks=sentence_chunks,
        number_check=number_check,
        contradiction_overlap=overlap,
        early_exit=early_exit,
        composite=composite,
    )
