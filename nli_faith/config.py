"""One typed scorer configuration, the single source of every scorer option.

:class:`ScorerConfig` holds every option of :class:`~nli_faith.scorer.FaithfulnessScorer`:
each field carries its documentation (``field.metadata["doc"]``, gathered into the class
docstring), its default and its check, and a configuration is checked when it is made
(:meth:`ScorerConfig.__post_init__`), before anything loads. The scorer takes one
(``FaithfulnessScorer(model, config=None, **overrides)``, the overrides being field names),
the engine loads its parts from it (:func:`~nli_faith.engine.parts.load_parts`), the CLI
generates its scorer flags from the fields (:func:`nli_faith.cli.options.add_scorer_options`),
and the server's settings, Ray actors and the adapters all take or build this one object; it
travels between processes as JSON (:meth:`~ScorerConfig.to_dict`, :meth:`~ScorerConfig.from_dict`).

The checks it shares with the stages (thresholds, batch sizes, label maps, the named
choices) are in :mod:`nli_faith.checks`; the one reading of the environment for the
scorer (``OMP_NUM_THREADS``, ``NLI_FAITH_CACHE``, ``XDG_CACHE_HOME``) is in
:mod:`nli_faith.environment`: :meth:`ScorerConfig.resolved_threads` and
:meth:`ScorerConfig.resolved_onnx_cache_dir` turn the fields left ``None`` into the values
the engine hands the NLI runtime, in the process that loads it (a Ray actor's own
``OMP_NUM_THREADS``, for one); no stage reads the environment.

Example:
    >>> cfg = ScorerConfig.guardrail(prefilter_top_k=3)
    >>> cfg.backend, cfg.prefilter, cfg.prefilter_top_k, cfg.early_exit
    ('onnx', 'lexical', 3, True)
    >>> ScorerConfig.from_dict(cfg.to_dict()) == cfg
    True
    >>> ScorerConfig(entail_threshold=0.6).options()["entail_threshold"]
    0.6
    >>> ScorerConfig(backend="tensorflow")
    Traceback (most recent call last):
    ...
    nli_faith.exceptions.OptionError: backend must be 'torch' or 'onnx', got 'tensorflow'.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from nli_faith.checks import (
    BACKENDS,
    COMPOSITE_PREMISES,
    GRANULARITIES,
    PREFILTERS,
    check_batch_size,
    check_flag,
    check_label_map,
    check_setting,
    check_threshold,
    check_top_k,
    whole_number,
)
from nli_faith.environment import env_onnx_cache_dir, env_threads
from nli_faith.errors import (
    E_BACKEND,
    E_GRANULARITY,
    E_OPTION_TYPE,
    E_OPTION_UNKNOWN,
    E_OPTION_UNUSED,
    E_PREFILTER,
    E_PREFILTER_TOP_K_ALONE,
    OptionError,
    OptionTypeError,
)
from nli_faith.presets import GUARDRAIL
from nli_faith.records import Limits

#: Default largest chunk, in tokens: long enough for several sentences, short
#: enough to stay close to the premise lengths the bundled model was trained on.
DEFAULT_CHUNK_TOKENS = 256
#: Share of a claim's content words a chunk must hold to count as contradicting it.
DEFAULT_CONTRADICTION_OVERLAP = 0.3
#: Sentences the pre-filter keeps per claim unless told otherwise.
DEFAULT_PREFILTER_TOP_K = 3
#: How a composite premise picks its sentences, by default (``composite_premise``).
DEFAULT_COMPOSITE_PREMISE = "ranked"


def unknown_options(names: Any, *, where: str = "FaithfulnessScorer") -> None:
    """``OptionTypeError`` (a ``TypeError``) for the first of ``names`` that is no field of
    :class:`ScorerConfig`, naming it and the fields spelt like it.

    Example:
        >>> unknown_options(["device", "entail_treshold"])
        Traceback (most recent call last):
        ...
        nli_faith.exceptions.OptionTypeError: FaithfulnessScorer has no option \
'entail_treshold'; did you mean entail_threshold? Its options are the fields of ScorerConfig.
    """
    for name in names:
        if name not in FIELDS:
            close = difflib.get_close_matches(str(name), FIELDS, n=3, cutoff=0.75)
            if name in (f.name for f in fields(Limits)):
                hint = f"; it is a limit: pass limits=Limits({name}=...)."
            else:
                hint = f"; did you mean {' or '.join(close)}?" if close else "."
            raise OptionTypeError(E_OPTION_UNKNOWN.format(where=where, name=name, hint=hint))


def configure(
    config: ScorerConfig | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    where: str = "FaithfulnessScorer",
) -> ScorerConfig:
    """``config`` (default ``ScorerConfig()``) with ``overrides`` (field names) over it:
    what ``FaithfulnessScorer(config=..., **overrides)`` and ``score_dataset`` build. A
    ``config`` that is no :class:`ScorerConfig` is an ``OptionError``, a name that is no
    field an ``OptionTypeError`` naming ``where`` and the fields spelt like it.

    Example:
        >>> configure(ScorerConfig.guardrail(), {"prefilter_top_k": 4}).prefilter_top_k
        4
    """
    if config is None:
        config = DEFAULTS
    if not isinstance(config, ScorerConfig):
        expected = "a ScorerConfig (ScorerConfig.from_dict(d) reads a dict)"
        raise OptionError(E_OPTION_TYPE.format(name="config", expected=expected, value=config))
    overrides = dict(overrides or {})
    unknown_options(overrides, where=where)
    return replace(config, **overrides) if overrides else config


# -- the configuration ---------------------------------------------------------------------


def _option(default: Any = None, doc: str = "", **meta: Any) -> Any:
    """A field with its documentation (``metadata["doc"]``) and, for the CLI, its
    ``metavar``, ``choices`` or extra ``flags`` (in ``metadata``)."""
    if isinstance(default, Limits):
        return field(default_factory=Limits, metadata={"doc": doc, **meta})
    return field(default=default, metadata={"doc": doc, **meta})


@dataclass(frozen=True)
class ScorerConfig:
    """A scorer's configuration: every option of ``FaithfulnessScorer``, checked when made.

    ``None`` is the default the model or the library chooses (for the thresholds and
    bands: the model's own ``decision.json``, else 0.5 / 0.5 / 0.99 / 0.3).
    ``FaithfulnessScorer.from_config(config)`` builds the scorer it describes, and
    ``FaithfulnessScorer(model, config=config, **overrides)`` the same with ``overrides``
    (field names) over it. A bad value is an :class:`~nli_faith.errors.OptionError` naming
    the field, raised here, before anything loads.
    """

    model: str = _option(
        "default",
        "registry name (``'default'``: the bundled model), local path or hub id.",
        metavar="NAME",
    )
    device: str | None = _option(
        None, "``cpu``, ``cuda``, ``cuda:1``...; default: CUDA when available.", metavar="DEVICE"
    )
    backend: str = _option(
        "torch",
        "``torch``, or ``onnx`` for ONNX Runtime on the CPU (``onnx`` in the guardrail preset).",
        choices=BACKENDS,
    )
    onnx_quantize: bool = _option(
        True,
        "with ``backend='onnx'``, the int8 graph (default, fastest) or, if False, the fp32 "
        "graph (same verdicts as torch in float32).",
        flags=("--onnx-fp32",),
    )
    onnx_cache_dir: str | None = _option(
        None,
        "with ``backend='onnx'``, the folder where ONNX exports of a model that ships none are "
        "cached; default: ``$NLI_FAITH_CACHE/onnx``, else ``$XDG_CACHE_HOME/nli-faith/onnx``, "
        "else ``~/.cache/nli-faith/onnx``.",
        metavar="DIR",
    )
    dtype: str | None = _option(
        None,
        "torch weights: ``float32``, ``bfloat16`` or ``float16``; default bf16 (or fp16) on "
        "CUDA, and on CPU bf16 where the CPU has it natively (AVX512-BF16, AMX: measured 2.5x "
        "faster than fp32 with the same verdicts), else fp32.",
        metavar="DTYPE",
    )
    batch_size: int | None = _option(
        None,
        "NLI pairs per forward pass; default 32, or 1 with the int8 ONNX graph (whose outputs "
        "would otherwise depend on the batch; see ``NLIModel``).",
        metavar="N",
    )
    threads: int | None = _option(
        None,
        "CPU threads the NLI model computes with (torch's threads on the CPU; with ONNX, the "
        "workers that run one pair each, or ONNX Runtime's threads for batches); default: "
        "``OMP_NUM_THREADS`` when set to a count (Ray sets it to an actor's CPUs), else the "
        "cores this process may use.",
        metavar="N",
    )
    granularity: str = _option(
        "sentence",
        "``sentence`` (rule-based) or ``clause`` (needs a spaCy parser).",
        choices=GRANULARITIES,
    )
    spacy_model: str | None = _option(
        None, "spaCy pipeline for ``granularity='clause'``.", metavar="NAME"
    )
    entail_threshold: float | None = _option(
        None,
        "a claim is ``yes`` when its best entailment reaches this; default: the model's "
        "``decision.json`` (the bundled model's was chosen on a development split of its "
        "training data), else 0.5.",
        metavar="X",
    )
    contradict_threshold: float | None = _option(
        None,
        "otherwise ``no`` when its best contradiction reaches this; default: the model's "
        "``decision.json``, else 0.5.",
        metavar="X",
    )
    label_map: Mapping[str, int] | None = _option(
        None,
        "which model output is which label, e.g. ``{'entailment': 0, 'neutral': 1, "
        "'contradiction': 2}``; default: the model's config.",
        metavar="NAME=INDEX,...",
    )
    max_length: int | None = _option(
        None, "token limit of one (chunk, claim) pair; default: the model's.", metavar="N"
    )
    chunk_tokens: int | None = _option(
        DEFAULT_CHUNK_TOKENS,
        "largest chunk in tokens (capped by what the model leaves after the claim); None "
        "(``--chunk-tokens none``): only that cap.",
        metavar="N",
    )
    chunk_overlap: int = _option(1, "sentences shared by neighbouring chunks.", metavar="N")
    sentence_chunks: bool = _option(
        True,
        "also score each claim against every context sentence alone: short premises are "
        "where a small NLI model is most reliable.",
    )
    number_check: bool = _option(
        True,
        "a chunk can support a claim only if it holds every number the claim states, in "
        "digits or words: NLI models read 'thirty-six' and 'twenty-four' as near-synonyms "
        "far too often.",
    )
    contradiction_overlap: float = _option(
        DEFAULT_CONTRADICTION_OVERLAP,
        "a chunk can contradict a claim only if it holds at least this share of the claim's "
        "content words (0 turns the check off), so that a heading or an unrelated sentence "
        "cannot turn 'not found' into 'contradicted'.",
        metavar="X",
    )
    prefilter: str | None = _option(
        None,
        "score each claim only against its likely chunks: None (every chunk), ``lexical`` "
        "(the ``prefilter_top_k`` sentences sharing most of its content words, with their "
        "windows, every chunk sharing a number or a name with it, and every chunk allowed to "
        "contradict it; no model, well under 1 ms) or ``embedding`` (top sentences by a "
        "sentence-transformers bi-encoder).",
        choices=PREFILTERS,
    )
    prefilter_top_k: int | None = _option(
        None,
        f"sentences kept per claim by the pre-filter (default {DEFAULT_PREFILTER_TOP_K}; 2 in "
        "the guardrail preset); only with ``prefilter``.",
        metavar="N",
    )
    prefilter_model: str | None = _option(
        None, "sentence-transformers model for ``prefilter='embedding'``.", metavar="NAME"
    )
    early_exit: bool = _option(
        False,
        "score each claim against its most promising sentence first, and its other chunks "
        "only if that sentence does not support it. The model's verdicts are those of scoring "
        "every pair (up to padding noise with torch); a supported claim's ``p_entail``, band "
        "and evidence may come from a lesser chunk (so may a rule's verdict that reads the "
        "supporting chunk), and its matrix cannot be re-aggregated with a higher "
        "``entail_threshold``. CPU ``score_batch`` on RAG-sized records runs about 2.5x "
        "faster.",
    )
    composite: bool = _option(
        True,
        "also score each claim against a composite premise: sentences from all documents "
        "joined in document order (see ``composite_premise``), for support "
        "spread over sentences or documents. A composite can support its claim, never "
        "contradict it; its evidence lists every span it joins (``Evidence.spans``).",
    )
    composite_premise: str = _option(
        DEFAULT_COMPOSITE_PREMISE,
        "how a composite premise picks its sentences (``nli_faith.scoring.composite``): "
        "``ranked`` (MiniCheck's premise: the sentences of all documents that best match the "
        "claim, as many as fit the chunk budget) or ``covering`` (its best few sentences, each "
        "kept only if it adds claim words the better-ranked ones lack, with guards against "
        "joining things that do not belong together); only with ``composite``.",
        choices=COMPOSITE_PREMISES,
    )
    band_high: float | None = _option(
        None,
        "confidence band (``ClaimVerdict.band``): a ``yes`` whose best entailment, or a ``no`` "
        "whose best contradiction, reaches this is settled; default: the model's "
        "``decision.json``, else 0.99.",
        metavar="X",
    )
    band_low: float | None = _option(
        None,
        "an ``idk`` is settled as ``not_found`` when no chunk's entailment or contradiction "
        "reaches this (default: the model's ``decision.json``, else 0.3). Claims in neither "
        "band are ``uncertain``: the ones worth sending to an LLM judge (``nli_faith.judge``). "
        "With ``early_exit`` a supported claim can be ``uncertain`` where the full scan would "
        "settle it (more escalation, never less).",
        metavar="X",
    )
    answer_decision: str | None = _option(
        None,
        "an answer decision learned from people: a JSON file (``AnswerDecision.save``), or "
        "``model`` for the one shipped beside the model's weights. "
        "``scorer.decision.passes(result)`` (the CLI's ``faithful`` field, with "
        "``decided_by`` 'learned decision') then decides an answer from its claims' "
        "verdicts, scores and coverage instead of a score gate. None: no learned decision "
        "(a thresholds file from ``nli-faith calibrate --fit-decision`` carries its own).",
        metavar="FILE",
    )
    limits: Limits = _option(
        Limits(),
        "resource limits on one record (``Limits``: response and context characters, "
        "documents, claims after splitting); None is ``Limits()``. A record past one is "
        "refused with an error naming the field and the limit: ``score`` raises "
        "``RecordError``, ``score_batch`` returns that record's result with ``error`` set and "
        "scores the others.",
    )
    thresholds: str | None = _option(
        None,
        "a file saved by ``nli-faith calibrate`` for this model (other weights are a "
        "``ThresholdsError``): its options fill those left None here, and its record-level "
        "gate is ``scorer.decision.passes(result)`` (the CLI's ``faithful`` field).",
        metavar="FILE",
    )

    def __post_init__(self) -> None:
        """Check every field (the cheap checks, before anything loads; the thresholds a
        model ships are checked when read), naming the first bad one; a path is kept as
        its text and ``limits=None`` as ``Limits()``."""
        set_ = object.__setattr__
        for name in ("model", "spacy_model", "prefilter_model", "thresholds", "onnx_cache_dir",
                     "answer_decision"):  # fmt: skip
            if isinstance(getattr(self, name), os.PathLike):
                set_(self, name, os.fspath(getattr(self, name)))
        if self.limits is None:
            set_(self, "limits", Limits())
        check_flag("onnx_quantize", self.onnx_quantize)
        for name in ("entail_threshold", "contradict_threshold", "contradiction_overlap",
                     "sentence_chunks", "number_check", "early_exit", "composite",
                     "composite_premise", "chunk_overlap", "chunk_tokens"):  # fmt: skip
            optional = name in ("entail_threshold", "contradict_threshold", "chunk_tokens")
            if not (optional and getattr(self, name) is None):  # None: the model's, no limit
                set_(self, name, check_setting(name, getattr(self, name)))
        for name in ("model", "device", "dtype", "spacy_model", "prefilter_model", "prefilter",
                     "thresholds", "onnx_cache_dir", "answer_decision"):  # fmt: skip
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise OptionError(E_OPTION_TYPE.format(name=name, expected="a string", value=value))
        if not isinstance(self.limits, Limits):
            raise OptionError(
                E_OPTION_TYPE.format(
                    name="limits", expected="a Limits(...) or None", value=self.limits
                )
            )
        for name in ("band_high", "band_low"):
            if getattr(self, name) is not None:
                set_(self, name, check_threshold(name, getattr(self, name)))
        top_k = self.prefilter_top_k
        if self.prefilter is None and top_k is not None:
            raise OptionError(E_PREFILTER_TOP_K_ALONE.format(top_k=top_k))
        if top_k is not None:
            check_top_k(top_k)
        # the named choices first: a misspelt one is the error, not an option it makes unused
        if self.backend not in BACKENDS:
            raise OptionError(E_BACKEND.format(backend=self.backend))
        if self.granularity not in GRANULARITIES:
            allowed = ", ".join(GRANULARITIES)
            raise OptionError(E_GRANULARITY.format(granularity=self.granularity, allowed=allowed))
        if self.prefilter is not None and self.prefilter not in PREFILTERS:
            allowed = ", ".join(map(repr, PREFILTERS))
            raise OptionError(E_PREFILTER.format(allowed=allowed, prefilter=self.prefilter))
        unused = [
            ("prefilter_model", "prefilter='embedding'", self.prefilter != "embedding"),
            ("spacy_model", "granularity='clause'", self.granularity != "clause"),
            ("onnx_quantize", "backend='onnx'", self.backend != "onnx"),
            ("onnx_cache_dir", "backend='onnx'", self.backend != "onnx"),
        ]
        if not self.composite and self.composite_premise != DEFAULT_COMPOSITE_PREMISE:
            fix = "add composite=True or leave composite_premise out"
            raise OptionError(
                E_OPTION_UNUSED.format(
                    name="composite_premise",
                    needs="composite=True",
                    value=self.composite_premise,
                    fix=fix,
                )
            )
        for name, needs, alone in unused:
            value = getattr(self, name)
            if alone and value not in (None, True):  # onnx_quantize's default is True
                fix = f"add {needs} or leave {name} out"
                raise OptionError(
                    E_OPTION_UNUSED.format(name=name, needs=needs, value=value, fix=fix)
                )
        if self.batch_size is not None:
            check_batch_size(self.batch_size)
        if self.threads is not None:
            whole_number("threads", self.threads, least=1)
        if self.label_map is not None:
            check_label_map(self.label_map)

    @classmethod
    def guardrail(cls, **changes: Any) -> ScorerConfig:
        """The ``guardrail`` preset (:data:`~nli_faith.presets.GUARDRAIL`), with
        ``changes`` over it."""
        unknown_options(changes, where="ScorerConfig.guardrail")
        return cls(**{**GUARDRAIL, **changes})

    def options(self) -> dict[str, Any]:
        """Every field but ``model``: ``FaithfulnessScorer(config.model, **config.options())``
        is the scorer this configuration describes."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "model"}

    def under(self, options: Mapping[str, Any]) -> ScorerConfig:
        """This configuration with ``options`` (a thresholds file's) in the fields it
        leaves ``None``; a name that is no field is a ``TypeError``."""
        unknown_options(options, where="ScorerConfig")
        return replace(self, **{k: v for k, v in options.items() if getattr(self, k) is None})

    def resolved_threads(self, environ: Mapping[str, str] | None = None) -> int:
        """:attr:`threads`, or when ``None`` what the environment gives (:func:`env_threads`:
        ``OMP_NUM_THREADS`` when a count, else the usable cores); ``environ`` defaults to
        ``os.environ``, read when called (the engine calls it where the model loads).

        Example:
            >>> ScorerConfig(threads=2).resolved_threads({"OMP_NUM_THREADS": "8"})
            2
            >>> ScorerConfig().resolved_threads({"OMP_NUM_THREADS": "8"})
            8
        """
        return self.threads if self.threads is not None else env_threads(environ)

    def resolved_onnx_cache_dir(self, environ: Mapping[str, str] | None = None) -> str:
        """:attr:`onnx_cache_dir`, or when ``None`` what the environment gives
        (:func:`env_onnx_cache_dir`); ``environ`` defaults to ``os.environ``.

        Example:
            >>> ScorerConfig().resolved_onnx_cache_dir({"NLI_FAITH_CACHE": "/srv/c"})
            '/srv/c/onnx'
        """
        if self.onnx_cache_dir is not None:
            return os.fspath(Path(self.onnx_cache_dir).expanduser())
        return env_onnx_cache_dir(environ)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ScorerConfig:
        unknown_options(data, where="ScorerConfig")
        limits = data.get("limits")
        if isinstance(limits, Mapping):
            data = {**data, "limits": Limits(**limits)}
        return cls(**data)

    def replace(self, **changes: Any) -> ScorerConfig:
        """This configuration with ``changes`` (field names; another name is an
        ``OptionTypeError`` naming the fields spelt like it)."""
        unknown_options(changes, where="ScorerConfig")
        return replace(self, **changes)


#: The field names, in order.
FIELDS = tuple(f.name for f in dataclasses.fields(ScorerConfig))
#: Each field's default (``limits``: ``Limits()``).
DEFAULTS = ScorerConfig()


def _document_fields() -> None:
    """Gather the fields' documentation into the class docstring (its ``Attributes``)."""
    lines = ["", "    Attributes:"]
    for f in dataclasses.fields(ScorerConfig):
        lines.append(f"        {f.name}: {f.metadata['doc']}")
    ScorerConfig.__doc__ = (ScorerConfig.__doc__ or "").rstrip() + "\n" + "\n".join(lines) + "\n"


_document_fields()
