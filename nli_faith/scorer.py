"""``FaithfulnessScorer``: claims -> chunks -> NLI matrix -> verdicts -> scores.

The public facade over :mod:`nli_faith.engine`: it builds the one typed configuration
(:class:`~nli_faith.config.ScorerConfig`) from its keyword options, loads the engine's
parts from it and hands every call to the engine's runner (``scorer.stages``: the steps
one at a time).
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import AsyncIterable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from nli_faith.config import (
    DEFAULT_CHUNK_TOKENS,
    DEFAULT_CONTRADICTION_OVERLAP,
    DEFAULT_PREFILTER_TOP_K,
    DEFAULTS,
    ScorerConfig,
    configure,
)
from nli_faith.engine.failures import error_result
from nli_faith.engine.infer import NLIMatrix
from nli_faith.engine.parts import check_options, check_setting, load_parts
from nli_faith.engine.plan import Plan
from nli_faith.engine.runner import Runner
from nli_faith.engine.stages import Stages
from nli_faith.engine.stream import CheckedStream, StreamCheck
from nli_faith.errors import E_NOT_MANY, E_OPTION_TYPE, E_STREAM_PIECES, OptionError
from nli_faith.moved import MOVED
from nli_faith.presets import GUARDRAIL
from nli_faith.records import Record, parse_record
from nli_faith.results import FaithfulnessResult
from nli_faith.scoring.answer_decision import AnswerDecision, bundled_decision
from nli_faith.scoring.gate import Policy
from nli_faith.scoring.thresholds import Decision, Thresholds
from nli_faith.scoring.verdicts import check_threshold

__all__ = [
    "DEFAULT_CHUNK_TOKENS",
    "DEFAULT_CONTRADICTION_OVERLAP",
    "DEFAULT_PREFILTER_TOP_K",
    "GUARDRAIL_OPTIONS",
    "FaithfulnessScorer",
    "NLIMatrix",
    "ScoringPlan",
    "error_result",
]

#: ``FaithfulnessScorer.guardrail()``: int8 ONNX, lexical pre-filter (2 sentences a claim,
#: plus number/name anchors and contradiction candidates) and early exit.
GUARDRAIL_OPTIONS: dict[str, Any] = GUARDRAIL
#: What ``scorer.stages.plan`` returns: claims, chunks and the pairs to score.
ScoringPlan = Plan


class _Setting:
    """A scorer attribute that is the engine's setting of the same name (read and write)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self if obj is None else getattr(obj.parts, self.name)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(obj.parts, self.name, check_setting(self.name, value))


class FaithfulnessScorer:
    """Score how faithful a response is to its retrieved context, claim by claim.

    Args:
        model: registry name (``"default"`` is the bundled model), local path or hub id;
            default: ``config``'s model (``"default"`` without a ``config``).
        config: a :class:`~nli_faith.config.ScorerConfig`, the scorer's options (default:
            ``ScorerConfig()``); every option is documented there, once.
        **overrides: any field of :class:`~nli_faith.config.ScorerConfig` (``device="cpu"``,
            ``backend="onnx"``, ``entail_threshold=0.6``, ``limits=Limits(...)``,
            ``thresholds="thresholds.json"``...), over ``config``. Another name is an
            :class:`~nli_faith.errors.OptionTypeError` naming it and the options spelt like
            it; a bad value an :class:`~nli_faith.errors.OptionError` naming the option,
            before the model loads.

    With ``thresholds`` (a file saved by ``nli-faith calibrate`` for this model), the file's
    options fill those left ``None`` and its record-level gate is
    ``scorer.decision.passes(result)``; :meth:`from_thresholds` also takes a
    loaded file, and defaults ``model`` to the file's. :meth:`from_config` builds the scorer
    a configuration describes, :meth:`guardrail` the CPU-latency preset. A record past one
    of the ``limits`` is refused with an error naming the field and the limit: :meth:`score`
    raises :class:`~nli_faith.errors.RecordError`, :meth:`score_batch` returns that record's
    result with ``error`` set and scores the others.

    The settings of a loaded scorer (``entail_threshold``, ``contradict_threshold``,
    ``chunk_tokens``, ``early_exit``, ``limits``...) can be read and set as attributes
    (``scorer.entail_threshold = 0.7``), checked as the options are.
    ``scorer.stages`` (:class:`~nli_faith.engine.stages.Stages`) runs the pipeline's
    steps one at a time: claims, chunks, plans, NLI matrices, and verdicts re-derived
    from a matrix with other thresholds.

    Citations: a response with markers such as ``[1]`` or ``(Source 2)`` has them taken
    out of its claims' text, and each claim that cites documents reports whether they
    support it (``ClaimVerdict.citation``: ``"supported"``, ``"misattributed"`` when only
    an uncited document does, ``"unsupported"``); ``FaithfulnessResult.n_misattributed``
    counts the misattributed ones. Markers count documents from 1.

    Example:
        >>> scorer = FaithfulnessScorer(device="cpu")
        >>> r = scorer.score("Shipping is free for orders above fifty dollars.",
        ...                  "We provide complimentary delivery on purchases over $50.")
        >>> r.claims[0].verdict
        'yes'
        >>> FaithfulnessScorer(device="cpu", entail_treshold=0.6)
        Traceback (most recent call last):
        ...
        nli_faith.exceptions.OptionTypeError: FaithfulnessScorer has no option \
'entail_treshold'; did you mean entail_threshold? Its options are the fields of ScorerConfig.
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        config: ScorerConfig | None = None,
        **overrides: Any,
    ) -> None:
        if model is not None:
            overrides = {**overrides, "model": model}
        config = configure(config, overrides)
        self._start(
            config, None if config.thresholds is None else Thresholds.load(config.thresholds)
        )

    def _start(self, config: ScorerConfig, thresholds: Thresholds | None) -> None:
        source = config.thresholds or "the thresholds"
        if thresholds is not None:  # the file's options where the configuration leaves None
            config = config.under(thresholds.options)
        #: The loaded parts and settings every stage of the engine reads.
        self.parts = load_parts(config)
        self.runner = Runner(self.parts)
        #: The engine's stages one at a time (:class:`~nli_faith.engine.stages.Stages`).
        self.stages = Stages(self.parts, self.runner)
        if thresholds is not None:
            thresholds.check_model(self.nli, source=source)
        #: Calibrated thresholds (``thresholds=``, :meth:`from_thresholds`), else None: their
        #: gate is ``scorer.decision.passes(result)``.
        self.thresholds: Thresholds | None = thresholds
        #: The learned answer decision of ``answer_decision=``, else None.
        self.learned_decision: AnswerDecision | None = None
        if config.answer_decision is not None:
            self.learned_decision = AnswerDecision.load(
                bundled_decision(self.nli.path)
                if config.answer_decision == "model"
                else config.answer_decision
            )

    @property
    def decision(self) -> Decision | None:
        """The answer-level decision (``decision.passes(result)``; the CLI's ``faithful``):
        the present thresholds' gate, or the learned one of ``answer_decision=`` (which
        takes the gate's place), else None."""
        gate = None if self.thresholds is None else self.thresholds.decision
        if self.learned_decision is None:
            return gate
        return dataclasses.replace(gate or Decision(), learned=self.learned_decision)

    # the engine's settings, read and written through the scorer
    nli = _Setting()
    splitter = _Setting()
    prefilter = _Setting()
    entail_threshold = _Setting()
    contradict_threshold = _Setting()
    bands = _Setting()
    limits = _Setting()
    chunk_tokens = _Setting()
    chunk_overlap = _Setting()
    sentence_chunks = _Setting()
    number_check = _Setting()
    contradiction_overlap = _Setting()
    early_exit = _Setting()
    composite = _Setting()
    composite_premise = _Setting()

    # -- presets ----------------------------------------------------------------

    @classmethod
    def guardrail(cls, model: str = "default", **options: Any) -> FaithfulnessScorer:
        """A scorer set up for CPU latency: :data:`GUARDRAIL_OPTIONS` plus ``options``.

        On a 2-core CPU it scored a 5-sentence answer against three 150-word passages
        in about 95 ms at the median, 160 ms at p95 (``benchmarks/results/speed.md``),
        with the full scan's verdicts on 99.2% of claims of the visible benchmark sets.

        Example:
            >>> scorer = FaithfulnessScorer.guardrail()
            >>> scorer.score("The warranty lasts 36 months.",
            ...              "The warranty lasts 24 months.").claims[0].verdict
            'no'
        """
        return cls(model, config=ScorerConfig.guardrail(), **options)

    @classmethod
    def from_thresholds(
        cls, path: str | Path | Thresholds, model: str | None = None, **options: Any
    ) -> FaithfulnessScorer:
        """A scorer with the thresholds ``nli-faith calibrate`` saved in ``path`` (or
        already loaded).

        ``model`` defaults to the one the file was calibrated for; other weights are a
        :class:`~nli_faith.errors.ThresholdsError`. ``options`` (fields of
        :class:`~nli_faith.config.ScorerConfig`, and ``config=``) are passed on, and the
        file's options (its thresholds and bands) fill those left ``None``. The file's
        record-level gate is then ``scorer.decision.passes(result)``.

        Example:
            >>> scorer = FaithfulnessScorer.from_thresholds("thresholds.json")  # doctest: +SKIP
            >>> r = scorer.score("The sky is blue.", "The sky is blue.")  # doctest: +SKIP
            >>> scorer.decision.passes(r)  # doctest: +SKIP
            True
        """
        if options.get("thresholds") is not None:  # the file is ``path``: a second is dropped
            raise OptionError(
                E_OPTION_TYPE.format(
                    name="thresholds",
                    expected="left out of from_thresholds (its file is the first argument)",
                    value=options["thresholds"],
                )
            )
        loaded = isinstance(path, Thresholds)
        th = path if loaded else Thresholds.load(path)
        base = configure(options.pop("config", None))
        given = {**options, "thresholds": None if loaded else os.fspath(path)}
        if model is None and base.model == DEFAULTS.model:
            model = th.model.model  # the file's model, unless one was chosen
        if model is not None:
            given["model"] = model
        scorer = cls.__new__(cls)
        scorer._start(configure(base, given, where="FaithfulnessScorer.from_thresholds"), th)
        return scorer

    @classmethod
    def from_config(cls, config: ScorerConfig) -> FaithfulnessScorer:
        """The scorer a :class:`~nli_faith.config.ScorerConfig` describes (what the CLI,
        the server, Ray and the adapters build theirs with).

        Example:
            >>> from nli_faith.config import ScorerConfig
            >>> scorer = FaithfulnessScorer.from_config(ScorerConfig.guardrail())
            >>> scorer.early_exit, scorer.nli.backend
            (True, 'onnx')
        """
        check_options(config)
        return cls(config=config)

    # -- scoring: every call goes through the engine's runner ----------------------

    def score(
        self,
        response: str,
        context: str | Sequence[str],
        question: str | None = None,
        *,
        reference: str | None = None,
    ) -> FaithfulnessResult:
        """Score one response against its context (a string or one string per document).

        ``question`` is read only with a short answer that is a phrase, not a sentence
        ("3 years"): it is scored as the claim the answer makes about the question
        (``ClaimVerdict.scored_as``, see :mod:`nli_faith.text.questions`). A bad record
        (wrong types, past a limit) raises :class:`~nli_faith.errors.RecordError`. With a
        ``reference`` answer, the claims the context does not support are also labelled
        hallucination or self-knowledge (``scorer.stages.check_reference``).
        """
        rec = parse_record(
            {
                "response": response,
                "context": context,
                "question": question,
                "reference": reference,
            },
            limits=self.limits,
        )
        return self.runner.score_record(rec)

    def score_batch(
        self,
        records: Iterable[Mapping[str, Any] | Record],
        *,
        show_progress_bar: bool = False,
        labels: Sequence[str] | None = None,
        n_process: int | str = 1,
    ) -> list[FaithfulnessResult]:
        """Score many records: their pairs in one pass over the model (sorted by length and
        packed into full batches; a record's repeated pairs scored once), or, with planning
        workers, in blocks of records planned ahead of the model (one progress bar a
        block).

        Never raises for a record: one that cannot be parsed, is past a limit or fails
        while it is scored yields a result whose ``error`` is ``"<ExceptionType>: message"``,
        and every other record is scored as it would be alone. When a shared model batch
        fails, it is bisected until the records that fail stand alone. ``labels`` name
        the records in warnings (default ``"record <index>"``; the CLI passes line numbers).
        ``n_process > 1`` splits and chunks the records in that many forked worker
        processes (at most one per CPU the process may use; ``"auto"``: one per CPU but
        the one this process keeps for the model; kept for the next call), in blocks
        planned ahead while the model scores the block before; the results are the same
        as with one.
        Records with a reference answer (``reference``, ``ground_truth``,
        ``expected_output``) get a second pass, for all of them together
        (``scorer.stages.check_reference``).

        Example:
            >>> scorer = FaithfulnessScorer(device="cpu")
            >>> out = scorer.score_batch([{"response": None, "context": "x"},
            ...                           {"response": "Paris is in France.",
            ...                            "context": "Paris is the capital of France."}])
            >>> out[0].error
            "RecordError: field 'response' is null; expected a string."
            >>> out[1].claims[0].verdict
            'yes'
        """
        records = list(_many("records", records))
        names = (
            list(_many("labels", labels))
            if labels is not None
            else [f"record {k}" for k in range(len(records))]
        )
        return self.runner.score(records, names, n_process=n_process, progress=show_progress_bar)

    def score_stream(
        self,
        records: Iterable[Mapping[str, Any] | Record],
        *,
        block_size: int = 64,
        n_process: int | str = 1,
        labels: Iterable[str] | None = None,
    ) -> Iterator[FaithfulnessResult]:
        """Score an iterable of records lazily, ``block_size`` records per model pass.

        Yields one result per record, in order; memory stays bounded whatever the input
        length. A block's results come once the next block was read. With ``n_process > 1``
        the worker processes split and chunk the next block and decide the one before
        while the model scores this one, so a block's results come once the next block was
        scored. Results equal :meth:`score_batch`'s on the same blocks. ``labels`` (an
        iterable as long as ``records``) name records in warnings. After :meth:`close`
        an open stream goes on with new workers.

        Example:
            >>> scorer = FaithfulnessScorer(device="cpu")
            >>> rec = {"response": "It is blue.", "context": "The sky is blue."}
            >>> recs = (rec for _ in range(3))
            >>> [r.n_claims for r in scorer.score_stream(recs, block_size=2)]
            [1, 1, 1]
        """
        return self.runner.stream(
            _many("records", records),
            block_size=block_size,
            n_process=n_process,
            labels=None if labels is None else _many("labels", labels),
        )

    def check_stream(
        self,
        pieces: Iterable[str] | AsyncIterable[str],
        context: str | Sequence[str],
        question: str | None = None,
        *,
        block_on_contradiction: bool = False,
        block_below_strict: float | None = None,
    ) -> CheckedStream:
        """Check an answer while it is streamed, sentence by sentence.

        ``pieces`` is the answer as it arrives (tokens, words: any strings), an iterable
        or an async iterable. Iterating the returned stream (``for``, or ``async for``)
        gives a :class:`~nli_faith.results.SentenceCheck` as soon as each sentence is
        complete: its text, the verdicts of its claims with their evidence, and the
        policy's decision. The last sentence is checked when the pieces run out. The
        sentences are those ``score()`` finds, and at the end ``stream.result.result`` is
        what ``score()`` gives for the whole answer (the pairs scored on the way are not
        scored again).

        With ``block_on_contradiction`` (the first contradicted claim) or
        ``block_below_strict`` (the strict score of the answer so far falls below it),
        the stream stops at the first sentence that fails: that sentence's check says
        ``decision="block"``, which claim failed and why, and the rest of ``pieces`` is
        not read. ``stream.result.released`` is the text that passed.

        Example:
            >>> scorer = FaithfulnessScorer.guardrail()
            >>> tokens = iter(["The warranty lasts ", "36 months. ", "Shipping is free."])
            >>> stream = scorer.check_stream(tokens, "The warranty lasts 24 months.",
            ...                              block_on_contradiction=True)
            >>> [(s.text, s.decision) for s in stream]
            [('The warranty lasts 36 months.', 'block')]
            >>> stream.result.released, stream.result.failed_claim.verdict
            ('', 'no')
        """
        if isinstance(pieces, (str, bytes)) or not isinstance(pieces, (Iterable, AsyncIterable)):
            raise OptionError(E_STREAM_PIECES.format(type_name=type(pieces).__name__))
        if block_below_strict is not None:
            check_threshold("block_below_strict", block_below_strict)
        if not isinstance(block_on_contradiction, bool):
            raise OptionError(
                E_OPTION_TYPE.format(
                    name="block_on_contradiction",
                    expected="True or False",
                    value=block_on_contradiction,
                )
            )
        policy = Policy(
            block_on_contradiction=block_on_contradiction, block_below_strict=block_below_strict
        )
        check = StreamCheck(self.parts, context, question, policy=policy)
        return CheckedStream(check, pieces)

    def close(self) -> None:
        """Stop the planning worker processes of ``n_process`` (if any were started).

        They are kept between calls; without ``close()`` they stop when Python exits.
        """
        self.runner.close()

    # -- the old spellings, kept for one release --------------------------------------

    def __getattr__(self, name: str) -> Any:
        """The stage-by-stage methods that moved to ``scorer.stages`` (and ``passes``),
        with a ``DeprecationWarning`` naming the new spelling."""
        if name not in MOVED:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        new, forward = MOVED[name]
        warnings.warn(
            f"FaithfulnessScorer.{name} is deprecated and will be removed in the next "
            f"release; use scorer.{new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return forward(self)


def _many(name: str, items: Any) -> Iterable[Any]:
    """``items`` if it is an iterable of items; a record or a string is refused, naming
    ``name`` (iterating it would score its keys or its characters)."""
    if isinstance(items, (str, bytes, Mapping, Record)) or not isinstance(items, Iterable):
        hint = ": to score one record, call score() or pass [record]" if name == "records" else ""
        items_are = "records" if name == "records" else "names, one a record"
        raise OptionError(
            E_NOT_MANY.format(name=name, items=items_are, kind=type(items).__name__, hint=hint)
        )
    return items
