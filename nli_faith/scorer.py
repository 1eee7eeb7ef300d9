"""``FaithfulnessScorer``: claims -> chunks -> NLI matrix -> verdicts -> scores.

The public facade over :mod:`nli_faith.engine`: it loads the parts (:func:`load_parts`)
and hands every call to the engine's stages and runner. The NLI matrix
(:class:`NLIMatrix`) is the expensive part and is built once; verdicts and scores are
cheap reductions over it (:meth:`FaithfulnessScorer.aggregate`), so thresholds can be
changed without running the model again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nli_faith.engine import decide, infer, plan
from nli_faith.engine.failures import error_result
from nli_faith.engine.infer import NLIMatrix
from nli_faith.engine.parts import (
    DEFAULT_CHUNK_TOKENS,
    DEFAULT_CONTRADICTION_OVERLAP,
    DEFAULT_PREFILTER_TOP_K,
    load_parts,
)
from nli_faith.engine.plan import Plan
from nli_faith.engine.runner import Runner
from nli_faith.presets import GUARDRAIL
from nli_faith.records import Limits, Record, parse_record
from nli_faith.results import FaithfulnessResult
from nli_faith.text.chunking import Chunk
from nli_faith.text.claims import Claim

if TYPE_CHECKING:  # pragma: no cover
    from nli_faith.scoring.thresholds import Thresholds

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
#: What :meth:`FaithfulnessScorer.plan` returns: claims, chunks and the pairs to score.
ScoringPlan = Plan


class _Setting:
    """A scorer attribute that is the engine's setting of the same name (read and write)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return self if obj is None else getattr(obj.parts, self.name)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(obj.parts, self.name, value)


class FaithfulnessScorer:
    """Score how faithful a response is to its retrieved context, claim by claim.

    Args:
        model: registry name (``"default"`` is the bundled model), local path or hub id.
        device: ``"cpu"``, ``"cuda"``...; default: CUDA when available.
        backend: ``"torch"``, or ``"onnx"`` for ONNX Runtime on the CPU.
        onnx_quantize: with ``backend="onnx"``, the int8 graph (default, fastest) or, if
            False, the fp32 graph (same verdicts as torch in float32).
        dtype: torch weights: ``"float32"``, ``"bfloat16"`` or ``"float16"``; default bf16
            (or fp16) on CUDA, and on CPU bf16 where the CPU has it natively (AVX512-BF16,
            AMX: measured 2.5x faster than fp32 with the same verdicts), else fp32.
        batch_size: NLI pairs per forward pass; default 32, or 1 with the int8 ONNX graph
            (whose outputs would otherwise depend on the batch; see ``NLIModel``).
        granularity: ``"sentence"`` (rule-based, default) or ``"clause"`` (needs a spaCy parser).
        spacy_model: spaCy pipeline for ``granularity="clause"``.
        entail_threshold: a claim is ``yes`` when its best entailment reaches this.
        contradict_threshold: otherwise ``no`` when its best contradiction reaches this.
            These two and the bands below default to the model's own choice, the
            ``decision.json`` beside its weights (the bundled model's was chosen on a
            development split of its training data), else 0.5 / 0.5 / 0.99 / 0.3.
        label_map: override of the model's output indices.
        max_length: token limit of one (chunk, claim) pair; default: the model's.
        chunk_tokens: largest chunk in tokens (capped by what the model leaves after the claim).
        chunk_overlap: sentences shared by neighbouring chunks.
        sentence_chunks: also score each claim against every context sentence alone
            (default True): short premises are where a small NLI model is most reliable.
        number_check: a chunk can support a claim only if it holds every number the claim
            states, in digits or words (default True): NLI models read "thirty-six" and
            "twenty-four" as near-synonyms far too often.
        contradiction_overlap: a chunk can contradict a claim only if it holds at least this
            share of the claim's content words (default 0.3; 0 turns the check off), so that
            a heading or an unrelated sentence cannot turn "not found" into "contradicted".
        prefilter: score each claim only against its likely chunks: ``None`` (default,
            every chunk), ``"lexical"`` (the ``prefilter_top_k`` sentences sharing most of
            its content words, with their windows, every chunk sharing a number or a name
            with it, and every chunk allowed to contradict it; no model, well under 1 ms)
            or ``"embedding"`` (top sentences by a sentence-transformers bi-encoder).
        prefilter_top_k: sentences kept per claim by the pre-filter (default 3); only
            with ``prefilter``.
        prefilter_model: sentence-transformers model for ``prefilter="embedding"``.
        early_exit: score each claim against its most promising sentence first, and its
            other chunks only if that sentence does not support it (default False). The
            verdicts are those of scoring every pair; a supported claim's ``p_entail``
            (and so the soft score) and evidence may come from a lesser chunk, and its
            matrix cannot be re-aggregated with a higher ``entail_threshold``. With torch
            the two rounds batch pairs differently, so probabilities can move by padding
            noise (~1e-6 in fp32, more in bf16) and a claim right at a threshold could flip.
        composite: also score each claim against a composite premise: its best few
            sentences from all documents joined in document order (default True; see
            :mod:`nli_faith.scoring.composite`), for support spread over sentences or
            documents. A composite can support its claim, never contradict it; its
            evidence lists every span it joins (``Evidence.spans``).
        band_high: confidence band (``ClaimVerdict.band``): a ``yes`` whose best entailment,
            or a ``no`` whose best contradiction, reaches this is settled (default 0.99).
        band_low: an ``idk`` is settled as ``not_found`` when no chunk's entailment or
            contradiction reaches this (default 0.3). Claims in neither band are
            ``uncertain``: the ones worth sending to an LLM judge (``nli_faith.judge``).
            The defaults were chosen on a design half of human claim labels
            (``python -m benchmarks.cascade``). With ``early_exit`` a supported claim's
            entailment may come from a lesser chunk, so it can be ``uncertain`` where the
            full scan would settle it (more escalation, never less).
        limits: resource limits on one record (:class:`~nli_faith.records.Limits`: response
            and context characters, documents, claims after splitting); default ``Limits()``.
            A record past one is refused with an error naming the field and the limit:
            :meth:`score` raises :class:`~nli_faith.errors.RecordError`, :meth:`score_batch`
            returns that record's result with ``error`` set and scores the others.

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
    """

    def __init__(
        self,
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
    ) -> None:
        options = dict(locals())
        del options["self"], options["model"]
        #: The loaded parts and settings every stage of the engine reads.
        self.parts = load_parts(model, **options)
        self.runner = Runner(self.parts)
        #: Calibrated thresholds (:meth:`from_thresholds`), for :meth:`passes`; else None.
        self.thresholds: Thresholds | None = None

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
        return cls(model, **{**GUARDRAIL_OPTIONS, **options})

    @classmethod
    def from_thresholds(
        cls, path: str | Path | Thresholds, model: str | None = None, **options: Any
    ) -> FaithfulnessScorer:
        """A scorer with the thresholds ``nli-faith calibrate`` saved in ``path`` (or
        already loaded).

        ``model`` defaults to the one the file was calibrated for; other weights are a
        :class:`~nli_faith.errors.ThresholdsError`. ``options`` are passed on (and win
        over the file's). :meth:`passes` then applies the file's record-level gate.

        Example:
            >>> scorer = FaithfulnessScorer.from_thresholds("thresholds.json")  # doctest: +SKIP
            >>> r = scorer.score("The sky is blue.", "The sky is blue.")  # doctest: +SKIP
            >>> scorer.passes(r)  # doctest: +SKIP
            True
        """
        from nli_faith.scoring.thresholds import Thresholds

        th = path if isinstance(path, Thresholds) else Thresholds.load(path)
        scorer = cls(th.model.model if model is None else model, **{**th.options, **options})
        th.check_model(scorer.nli, source=str(path))
        scorer.thresholds = th
        return scorer

    def passes(self, result: FaithfulnessResult) -> bool | None:
        """The calibrated record-level decision (``thresholds.decision``): is ``result``
        faithful? ``None`` without thresholds, or when the result has no score."""
        return None if self.thresholds is None else self.thresholds.decision.passes(result)

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

        ``question`` is accepted for API symmetry with RAG evaluators; the
        score depends only on the response and the context. A bad record (wrong types,
        past a limit) raises :class:`~nli_faith.errors.RecordError`. With a ``reference``
        answer, the claims the context does not support are also labelled
        hallucination or self-knowledge (:meth:`check_reference`).
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
        n_process: int = 1,
    ) -> list[FaithfulnessResult]:
        """Score many records in one pass over the model (pairs sorted and deduplicated globally).

        Never raises for a record: one that cannot be parsed, is past a limit or fails
        while it is scored yields a result whose ``error`` is ``"<ExceptionType>: message"``,
        and every other record is scored as it would be alone. When a shared model batch
        fails, it is bisected until the records that fail stand alone. ``labels`` name
        the records in warnings (default ``"record <index>"``; the CLI passes line numbers).
        ``n_process > 1`` splits and chunks the records in that many forked worker
        processes (kept for the next call); the results are the same as with one.
        Records with a reference answer (``reference``, ``ground_truth``,
        ``expected_output``) get a second pass, for all of them together:
        :meth:`check_reference`.

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
        records = list(records)
        names = list(labels) if labels is not None else [f"record {k}" for k in range(len(records))]
        return self.runner.score(records, names, n_process=n_process, progress=show_progress_bar)

    def score_stream(
        self,
        records: Iterable[Mapping[str, Any] | Record],
        *,
        block_size: int = 64,
        n_process: int = 1,
        labels: Iterable[str] | None = None,
    ) -> Iterator[FaithfulnessResult]:
        """Score an iterable of records lazily, ``block_size`` records per model pass.

        Yields one result per record, in order; memory stays bounded whatever the input
        length. With ``n_process > 1`` the worker processes split and chunk the next block
        while the model scores this one. Results equal :meth:`score_batch`'s on the same
        blocks. ``labels`` (an iterable as long as ``records``) name records in warnings.

        Example:
            >>> scorer = FaithfulnessScorer(device="cpu")
            >>> rec = {"response": "It is blue.", "context": "The sky is blue."}
            >>> recs = (rec for _ in range(3))
            >>> [r.n_claims for r in scorer.score_stream(recs, block_size=2)]
            [1, 1, 1]
        """
        return self.runner.stream(
            records, block_size=block_size, n_process=n_process, labels=labels
        )

    def check_reference(
        self, results: Sequence[FaithfulnessResult], references: Sequence[str | None]
    ) -> list[FaithfulnessResult]:
        """Label each claim the context does not support by a reference answer (RAGChecker).

        Every claim of ``results[k]`` whose verdict is not ``yes`` is scored against
        ``references[k]`` exactly as against a context (the reference is one more
        premise set, chunked the same way; one model pass for all results): a claim the
        reference supports is ``self_knowledge``, any other is ``hallucination``. The
        result gains ``hallucination_rate`` and ``self_knowledge_rate`` (shares of all
        its claims) and a sentence in its reason. A ``None`` reference, an error result
        or one with no claims is returned unchanged; a record whose reference cannot be
        scored gets an error result, as in :meth:`score_batch`.

        Example:
            >>> scorer = FaithfulnessScorer(device="cpu")
            >>> r = scorer.score("The Eiffel Tower is in Paris. It was finished in 1889.",
            ...                  "The Eiffel Tower is a landmark in Paris.")
            >>> r = scorer.check_reference([r], ["The tower was completed in 1889."])[0]
            >>> [c.reference_label for c in r.claims], r.self_knowledge_rate
            ([None, 'self_knowledge'], 0.5)
        """
        return self.runner.check_reference(results, references)

    def close(self) -> None:
        """Stop the planning worker processes of ``n_process`` (if any were started).

        They are kept between calls; without ``close()`` they stop when Python exits.
        """
        self.runner.close()

    # -- the stages, one at a time (calibration, tests, callers that batch themselves) ---

    def claims(self, response: str, *, record: str = "the record") -> list[Claim]:
        """The response's claims, each short enough to sit beside a chunk in the model.

        A longer claim is split at clause, comma or word boundaries (one warning naming
        ``record``); more claims than ``limits.max_claims`` is a
        :class:`~nli_faith.errors.RecordError`.
        """
        return plan.split_claims(self.parts, response, record=record)

    def chunk(self, context: str | Sequence[str], claims: Sequence[Claim]) -> list[Chunk]:
        """Split the context into chunks that fit the model beside the longest claim."""
        return plan.chunk(self.parts, context, claims)

    def plan(self, response: str, context: str | Sequence[str]) -> ScoringPlan:
        """Split ``response`` into claims and ``context`` into chunks, and pick the pairs to
        score; no model call. :meth:`matrices` scores many plans in one model pass.

        Example:
            >>> scorer = FaithfulnessScorer.guardrail()
            >>> plans = [scorer.plan("It is 24 months.", "The warranty lasts 24 months."),
            ...          scorer.plan("Delivery is free.", "Shipping costs nothing.")]
            >>> [p.n_pairs for p in plans]
            [1, 1]
            >>> [scorer.aggregate(m).n_claims for m in scorer.matrices(plans)]
            [1, 1]
        """
        return plan.plan_response(self.parts, response, context)

    def matrices(self, plans: Sequence[ScoringPlan]) -> list[NLIMatrix]:
        """The NLI matrix of each plan, with the pairs of all of them in one model pass
        (as :meth:`score_batch` does); :meth:`aggregate` turns each into a result."""
        return infer.fill(self.parts, plans)

    def matrix(self, response: str, context: str | Sequence[str]) -> NLIMatrix:
        """Build the claims x chunks x labels NLI matrix for one response."""
        return infer.fill(self.parts, [plan.plan_response(self.parts, response, context)])[0]

    def matrix_batch(
        self, records: Sequence[Mapping[str, Any] | Record], *, show_progress_bar: bool = False
    ) -> list[NLIMatrix | Exception]:
        """The NLI matrices of many records, in one model pass (what :meth:`score_batch`
        aggregates); a record that cannot be parsed or scored gets its exception in place.

        Calibration builds these once and re-aggregates them for every candidate threshold.
        """
        return self.runner.matrices(records, show_progress_bar)

    def aggregate(
        self,
        m: NLIMatrix,
        *,
        entail_threshold: float | None = None,
        contradict_threshold: float | None = None,
        band_high: float | None = None,
        band_low: float | None = None,
    ) -> FaithfulnessResult:
        """Verdicts, bands, scores and reason from a matrix; thresholds default to the scorer's."""
        return decide.aggregate(
            self.parts,
            m,
            entail_threshold=entail_threshold,
            contradict_threshold=contradict_threshold,
            band_high=band_high,
            band_low=band_low,
        )
