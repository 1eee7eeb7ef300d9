"""``FaithfulnessScorer``: claims -> chunks -> NLI matrix -> verdicts -> scores.

The NLI matrix (:class:`NLIMatrix`) is the expensive part and is built once;
verdicts and scores are cheap reductions over it (:meth:`FaithfulnessScorer.aggregate`),
so thresholds can be changed without running the model again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import count, islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from nli_faith.errors import (
    E_BLOCK_SIZE,
    E_CONTEXT_EMPTY,
    E_EARLY_EXIT_THRESHOLD,
    E_LONG_CLAIMS,
    E_N_PROCESS,
    E_PREFILTER_TOP_K_ALONE,
    RecordError,
)
from nli_faith.presets import GUARDRAIL
from nli_faith.records import Limits, Record, as_context, parse_record
from nli_faith.results import ClaimVerdict, Evidence, FaithfulnessResult, Span, UnsupportedSpan
from nli_faith.rules import apply_rules, explain_abstentions, rule_rows
from nli_faith.scoring.bands import (
    DEFAULT_BAND_HIGH,
    DEFAULT_BAND_LOW,
    BandThresholds,
    assign_bands,
    nearest_entailment,
)
from nli_faith.scoring.candidates import top_chunks
from nli_faith.scoring.citations import (
    citation_statuses,
    cited_chunks_mask,
    explain_citations,
    supporting_mask,
)
from nli_faith.scoring.composite import composite_masks, is_composite, plan_composites
from nli_faith.scoring.early_exit import first_candidates, settled_claims
from nli_faith.scoring.isolate import describe, run_isolated
from nli_faith.scoring.parallel import PlanPool, fork_available
from nli_faith.scoring.prefilter import coverage_similarity, make_prefilter
from nli_faith.scoring.reference import explain_reference, reference_label, reference_rates
from nli_faith.scoring.scores import compute_scores, explain
from nli_faith.scoring.verdicts import (
    DEFAULT_CONTRADICT_THRESHOLD,
    DEFAULT_ENTAIL_THRESHOLD,
    check_threshold,
    decide,
)
from nli_faith.text.align import align_premise
from nli_faith.text.attribution import misattributed
from nli_faith.text.chunking import Chunk, chunk_documents, sentence_members
from nli_faith.text.citations import assign_citations, find_citations, strip_citations
from nli_faith.text.claims import Claim, ClaimSplitter
from nli_faith.text.enumerations import drop_self_counts
from nli_faith.text.fit import fit_claims
from nli_faith.text.lexical import overlap_mask
from nli_faith.text.numerals import number_support_mask, quantity_mismatch
from nli_faith.text.spans import find_spans, to_response

if TYPE_CHECKING:  # pragma: no cover
    from nli_faith.scoring.thresholds import Thresholds

logger = logging.getLogger(__name__)

#: Default largest chunk, in tokens: long enough for several sentences, short
#: enough to stay close to the premise lengths the bundled model was trained on.
DEFAULT_CHUNK_TOKENS = 256
#: Sentences the pre-filter keeps per claim unless told otherwise.
DEFAULT_PREFILTER_TOP_K = 3
#: Share of a claim's content words a chunk must hold to count as contradicting it.
DEFAULT_CONTRADICTION_OVERLAP = 0.3
#: ``FaithfulnessScorer.guardrail()``: int8 ONNX, lexical pre-filter (2 sentences a claim,
#: plus number/name anchors and contradiction candidates) and early exit.
GUARDRAIL_OPTIONS: dict[str, Any] = GUARDRAIL
#: Claims longer than this share of the model's limit are cut for budgeting.
_MAX_CLAIM_SHARE = 0.5


@dataclass(frozen=True)
class NLIMatrix:
    """The NLI "image" of one response: ``probs[claim, chunk] = (entail, neutral, contradict)``."""

    claims: list[Claim]
    chunks: list[Chunk]
    probs: np.ndarray  # (claims, chunks, 3)
    mask: np.ndarray  # (claims, chunks) bool: pairs that were scored
    #: With early exit, the entailment threshold that settled claims: verdicts re-derived
    #: with a higher one would be wrong (the skipped pairs were never scored).
    settled_at: float | None = None


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
        from nli_faith.nli.model import NLIModel
        from nli_faith.nli.registry import decision_defaults

        self.splitter = ClaimSplitter(
            granularity=granularity, spacy_model=spacy_model, context_statements=True
        )
        self.nli = NLIModel(
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
        shipped = decision_defaults(self.nli.path)
        given = {
            "entail_threshold": (entail_threshold, DEFAULT_ENTAIL_THRESHOLD),
            "contradict_threshold": (contradict_threshold, DEFAULT_CONTRADICT_THRESHOLD),
            "band_high": (band_high, DEFAULT_BAND_HIGH),
            "band_low": (band_low, DEFAULT_BAND_LOW),
        }
        chosen = {k: shipped.get(k, d) if v is None else v for k, (v, d) in given.items()}
        self.entail_threshold = check_threshold("entail_threshold", chosen["entail_threshold"])
        self.contradict_threshold = check_threshold(
            "contradict_threshold", chosen["contradict_threshold"]
        )
        band_high, band_low = chosen["band_high"], chosen["band_low"]
        self.chunk_tokens = chunk_tokens
        self.chunk_overlap = chunk_overlap
        self.sentence_chunks = sentence_chunks
        self.number_check = number_check
        self.contradiction_overlap = check_threshold("contradiction_overlap", contradiction_overlap)
        if prefilter is None and prefilter_top_k is not None:
            raise ValueError(E_PREFILTER_TOP_K_ALONE.format(top_k=prefilter_top_k))
        self.prefilter = make_prefilter(
            prefilter,
            top_k=DEFAULT_PREFILTER_TOP_K if prefilter_top_k is None else prefilter_top_k,
            model=prefilter_model,
            keep_overlap=self.contradiction_overlap,
        )
        self.early_exit = early_exit
        self.composite = composite
        self.bands = BandThresholds(high=band_high, low=band_low)
        self.limits = Limits() if limits is None else limits
        #: Calibrated thresholds (:meth:`from_thresholds`), for :meth:`passes`; else None.
        self.thresholds = None

    # -- the expensive part ---------------------------------------------------

    def _claim_tokens(self) -> int:
        """The most tokens a claim may have: the rest of the window is for the chunk."""
        room = self.nli.max_length - self.nli.num_special_tokens
        return max(1, int(room * _MAX_CLAIM_SHARE))

    def _budget(self, claims: Sequence[Claim]) -> int:
        room = self.nli.max_length - self.nli.num_special_tokens
        longest = max(self.nli.count_tokens([c.text for c in claims]), default=0)
        budget = room - min(longest, self._claim_tokens())
        return max(16, min(budget, self.chunk_tokens or budget))

    @staticmethod
    def _number_mask(claims: Sequence[Claim], chunks: Sequence[Chunk]) -> np.ndarray:
        """The number check; a count the claim's own list proves is not asked of the context."""
        return number_support_mask(
            [drop_self_counts(c.text) for c in claims], [c.text for c in chunks]
        )

    def _token_offsets(self, text: str) -> list[tuple[int, int]]:
        # verbose=False: an over-long sentence is split by the chunker, which says so;
        # transformers' own "Token indices sequence length" warning would only confuse
        enc = self.nli.tokenizer(
            text, add_special_tokens=False, return_offsets_mapping=True, verbose=False
        )
        return [tuple(o) for o in enc["offset_mapping"]]

    def claims(self, response: str, *, record: str = "the record") -> list[Claim]:
        """The response's claims, each short enough to sit beside a chunk in the model.

        A longer claim is split at clause, comma or word boundaries (one warning naming
        ``record``); more claims than ``limits.max_claims`` is a
        :class:`~nli_faith.errors.RecordError`.
        """
        fitted = fit_claims(
            self.splitter.split(response),
            max_tokens=self._claim_tokens(),
            token_offsets=self._token_offsets,
            count_tokens=self.nli.count_tokens,
            response=response,
        )
        if fitted.n_split:
            logger.warning(
                E_LONG_CLAIMS.format(
                    record=record,
                    n_split=fitted.n_split,
                    max_tokens=self._claim_tokens(),
                    n_pieces=fitted.n_pieces,
                )
            )
        self.limits.check_claims(len(fitted.claims))
        claims = [replace(c, raw=response[c.start : c.end]) for c in fitted.claims]
        return self._cited(response, claims)

    def chunk(self, context: str | Sequence[str], claims: Sequence[Claim]) -> list[Chunk]:
        """Split the context into chunks that fit the model beside the longest claim."""
        return chunk_documents(
            as_context(context),
            budget=self._budget(claims),
            count_tokens=self.nli.count_tokens,
            token_offsets=self._token_offsets,
            overlap=self.chunk_overlap,
            sentences=self.sentence_chunks,
        )

    @staticmethod
    def _cited(response: str, claims: list[Claim]) -> list[Claim]:
        """With citation markers: the claims stripped of them and told what they cite."""
        markers = find_citations(response)
        if not markers or not claims:
            return claims
        cites = assign_citations(markers, [(c.start, c.end) for c in claims])
        return [replace(c, text=strip_citations(c.text), cites=d) for c, d in zip(claims, cites)]

    def _plan(
        self, response: str, context: str | Sequence[str], *, record: str = "the record"
    ) -> tuple[list, list, np.ndarray]:
        return self._plan_claims(self.claims(response, record=record), context)

    def _plan_claims(
        self, claims: list[Claim], context: str | Sequence[str]
    ) -> tuple[list, list, np.ndarray]:
        docs = as_context(context)
        chunks = self.chunk(docs, claims) if claims else []
        if self.prefilter is not None and claims and chunks:
            mask = self.prefilter.select(
                [c.text for c in claims],
                [c.text for c in chunks],
                members=sentence_members(chunks),
            )
        else:
            mask = np.ones((len(claims), len(chunks)), dtype=bool)
        if self.composite and claims and chunks:
            extra, extra_mask = plan_composites(
                [c.text for c in claims],
                chunks,
                count_tokens=self.nli.count_tokens,
                budget=self._budget(claims),
            )
            if extra:
                chunks = chunks + extra
                mask = np.hstack([mask, extra_mask])
        if claims:  # rules stage: claims about the context itself need no model pair
            mask &= ~rule_rows(claims)[:, None]
        return claims, chunks, mask

    def _run(self, plans, masks: list[np.ndarray], probs: list[np.ndarray], progress: bool) -> None:
        """Score the pairs in ``masks`` (one per plan) into ``probs``, in one model pass."""
        pairs: list[tuple[str, str]] = []
        for (claims, chunks, _), mask in zip(plans, masks):
            for i, j in zip(*np.nonzero(mask)):
                claim = claims[i].text
                pairs.append((align_premise(chunks[j].text, claim), claim))
        if not pairs:
            return
        flat = self.nli.predict(pairs, show_progress_bar=progress)
        pos = 0
        for mask, p in zip(masks, probs):
            n = int(mask.sum())
            p[mask] = flat[pos : pos + n]
            pos += n

    def _first_round(
        self, plans, probs: list[np.ndarray], progress: bool
    ) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """Early exit: score each claim's most promising sentence.

        Returns the pairs scored and the pairs still to score (those of unsettled claims).
        """
        firsts = []
        for claims, chunks, mask in plans:
            if not claims or not chunks:
                firsts.append(np.zeros_like(mask))
                continue
            texts = [c.text for c in chunks]
            members = sentence_members(chunks)
            sentences = np.array([m == [j] for j, m in enumerate(members)])
            sim = coverage_similarity([c.text for c in claims], texts)
            # composites are scored in the second round, only for claims still unsettled
            firsts.append(first_candidates(sim, mask & ~is_composite(chunks)[None, :], sentences))
        self._run(plans, firsts, probs, progress)
        todo = []
        for (claims, chunks, mask), first, p in zip(plans, firsts, probs):
            rest = mask & ~first
            if first.any():
                support = self._number_mask(claims, chunks) if self.number_check else None
                if any(c.cites is not None for c in claims):  # only cited documents settle
                    cited = cited_chunks_mask([c.cites for c in claims], chunks)
                    support = cited if support is None else support & cited
                done = settled_claims(
                    p, first, entail_threshold=self.entail_threshold, support_mask=support
                )
                rest[done] = False
            todo.append(rest)
        return firsts, todo

    def _fill(self, plans: list[tuple[list, list, np.ndarray]], show_progress_bar: bool):
        probs = [np.zeros((len(c), len(k), 3), dtype=np.float32) for c, k, _ in plans]
        todo = [mask for _, _, mask in plans]
        firsts = [np.zeros_like(mask) for mask in todo]
        if self.early_exit:
            firsts, todo = self._first_round(plans, probs, show_progress_bar)
        self._run(plans, todo, probs, show_progress_bar)
        settled_at = self.entail_threshold if self.early_exit else None
        return [
            NLIMatrix(claims, chunks, p, first | rest, settled_at)
            for (claims, chunks, _), first, rest, p in zip(plans, firsts, todo, probs)
        ]

    def matrix(self, response: str, context: str | Sequence[str]) -> NLIMatrix:
        """Build the claims x chunks x labels NLI matrix for one response."""
        return self._fill([self._plan(response, context)], False)[0]

    # -- the cheap part -------------------------------------------------------

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
        entail_threshold = self.entail_threshold if entail_threshold is None else entail_threshold
        if m.settled_at is not None and entail_threshold > m.settled_at:
            raise ValueError(
                E_EARLY_EXIT_THRESHOLD.format(requested=entail_threshold, settled=m.settled_at)
            )
        contradict_threshold = (
            self.contradict_threshold if contradict_threshold is None else contradict_threshold
        )
        support = contra = differs = None
        if m.claims and m.chunks:
            claims, chunks = [c.text for c in m.claims], [c.text for c in m.chunks]
            if self.number_check:
                support = self._number_mask(m.claims, m.chunks)
                differs = quantity_mismatch(claims, chunks)
                if differs.any():  # a value of another row, year or line supports nothing
                    support &= ~misattributed(claims, chunks, differs)
            if self.contradiction_overlap > 0:
                contra = overlap_mask(claims, chunks, min_share=self.contradiction_overlap)
            if is_composite(m.chunks).any():
                c_support, contra = composite_masks(
                    m.probs,
                    m.mask,
                    m.chunks,
                    contradict_mask=contra,
                    contradict_threshold=contradict_threshold,
                    rule_conflict=None if differs is None else np.asarray(differs) > 0,
                )
                support = c_support if support is None else support & c_support
                if differs is not None:  # a composite never contradicts, by rule either
                    differs = np.where(is_composite(m.chunks)[None, :], 0, differs)
        d = decide(
            m.probs,
            mask=m.mask,
            support_mask=support,
            contradict_mask=contra,
            number_contradict=differs,
            entail_threshold=entail_threshold,
            contradict_threshold=contradict_threshold,
        )
        # rules stage (nli_faith.rules): verdicts decided by rule, abstentions set apart
        ruled = apply_rules(m.claims, m.chunks, d)
        d, kept = ruled.decisions, ruled.kept
        cited = [c.cites for c in m.claims]
        statuses: list[str | None] = [None] * len(m.claims)
        if any(c is not None for c in cited):
            ok = (
                supporting_mask(
                    m.probs, mask=m.mask, support_mask=support, entail_threshold=entail_threshold
                )
                if m.chunks
                else np.zeros((len(m.claims), 0), dtype=bool)
            )
            statuses = citation_statuses(ok, cited, m.chunks)
        verdicts = list(d.verdicts)
        scores = compute_scores([verdicts[i] for i in kept], d.p_entail[kept])
        thresholds = BandThresholds(
            high=self.bands.high if band_high is None else band_high,
            low=self.bands.low if band_low is None else band_low,
        )
        bands = assign_bands(
            d.verdicts,
            d.p_entail,
            d.p_contradict,
            nearest_entailment(m.probs, m.mask),
            thresholds=thresholds,
        )
        reason = explain(scores, [verdicts[i] for i in kept], [m.claims[i].text for i in kept])
        if len(kept) < len(m.claims):
            reason = f"{reason} {explain_abstentions(len(m.claims) - len(kept))}"
        if m.claims and not m.chunks:
            reason = f"{E_CONTEXT_EMPTY} {reason}"
        claims_out = []
        spans = [(c.doc_index, c.start, c.end) for c in m.chunks]
        for i in kept:
            claim = m.claims[i]
            j = int(d.evidence_chunk[i])
            ev = None
            if j >= 0 and m.chunks:
                ev = _evidence(m.chunks[j])
            claims_out.append(
                ClaimVerdict(
                    claim=claim.text,
                    start=claim.start,
                    end=claim.end,
                    verdict=verdicts[i],
                    p_entail=round(float(d.p_entail[i]), 4),
                    p_contradict=round(float(d.p_contradict[i]), 4),
                    evidence=ev,
                    cited_docs=None if cited[i] is None else sorted(cited[i]),
                    citation=statuses[i],
                    unsupported_spans=_unsupported_spans(claim, verdicts[i], ev),
                    band=str(bands[i]),
                    settled=bool(bands[i] != "uncertain"),
                    candidates=(
                        []
                        if bands[i] != "uncertain"
                        else [_evidence(m.chunks[j]) for j in top_chunks(m.probs, m.mask, spans, i)]
                    ),
                    rule=ruled.notes[i],
                )
            )
        n_cited = n_wrong = None
        if any(cited[i] is not None for i in kept):
            n_cited = sum(cited[i] is not None for i in kept)
            statuses = [statuses[i] for i in kept]
            n_wrong = statuses.count("misattributed")
            reason = " ".join(
                x
                for x in (reason, explain_citations(statuses, [m.claims[i].text for i in kept]))
                if x
            )
        return FaithfulnessResult(
            lenient=scores.lenient,
            strict=scores.strict,
            soft=scores.soft,
            n_claims=scores.n_claims,
            n_yes=scores.n_yes,
            n_no=scores.n_no,
            n_idk=scores.n_idk,
            reason=reason,
            claims=claims_out,
            n_cited=n_cited,
            n_misattributed=n_wrong,
            n_uncertain=int((bands[kept] == "uncertain").sum()),
            n_abstentions=len(m.claims) - len(kept),
        )

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

    def matrix_batch(
        self, records: Sequence[Mapping[str, Any] | Record], *, show_progress_bar: bool = False
    ) -> list[NLIMatrix | Exception]:
        """The NLI matrices of many records, in one model pass (what :meth:`score_batch`
        aggregates); a record that cannot be parsed or scored gets its exception in place.

        Calibration builds these once and re-aggregates them for every candidate threshold.
        """
        plans: dict[int, tuple[list, list, np.ndarray]] = {}
        out: dict[int, NLIMatrix | Exception] = {}
        for k, rec in enumerate(records):
            try:
                r = parse_record(rec, limits=self.limits)
                plans[k] = self._plan(r.response, r.context, record=f"record {k}")
            except Exception as err:  # noqa: BLE001 - the record's error, not the batch's
                out[k] = err
        filled = run_isolated(lambda ps: self._fill(ps, show_progress_bar), list(plans.values()))
        out.update(zip(plans, filled))
        return [out[k] for k in range(len(records))]

    # -- facade -----------------------------------------------------------------

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
        result = self.aggregate(self.matrix(rec.response, rec.context))
        return self.check_reference([result], [rec.reference])[0]

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
        items = list(zip(records, names))
        return self._score_planned(self._plan_records(items, n_process), show_progress_bar)

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
        if block_size < 1:
            raise ValueError(E_BLOCK_SIZE.format(block_size=block_size))
        names = labels if labels is not None else (f"record {k}" for k in count())
        it = zip(records, names)
        pool = self._plan_pool(n_process)
        plan = pool.plan_async if pool is not None else self._plan_now
        block = list(islice(it, block_size))
        pending = plan(block) if block else None
        while pending is not None:
            block = list(islice(it, block_size))
            following = plan(block) if block else None  # planned while this block is scored
            yield from self._score_planned(pending.get(), False)
            pending = following

    def _score_planned(self, planned: list, show_progress_bar: bool) -> list[FaithfulnessResult]:
        """Results of planned records (a ``(plan, reference)``, or the error text of a record
        that failed); records with a reference answer then get :meth:`check_reference`."""
        out = {k: error_result(p) for k, p in enumerate(planned) if isinstance(p, str)}
        plans = {k: p[0] for k, p in enumerate(planned) if not isinstance(p, str)}
        references = {k: p[1] for k, p in enumerate(planned) if not isinstance(p, str)}
        matrices = run_isolated(lambda ps: self._fill(ps, show_progress_bar), list(plans.values()))
        for k, m in zip(plans, matrices):
            try:
                out[k] = (
                    error_result(describe(m)) if isinstance(m, Exception) else self.aggregate(m)
                )
            except Exception as err:  # noqa: BLE001
                out[k] = error_result(describe(err))
        results = [out[k] for k in range(len(planned))]
        return self.check_reference(results, [references.get(k) for k in range(len(planned))])

    # -- planning on several cores ---------------------------------------------------

    def _plan_record(self, item: tuple[Any, str]) -> tuple[tuple, str | None] | str:
        """Claims, chunks and pair mask of one ``(record, name)`` with its reference answer,
        or its error text.

        A :class:`~nli_faith.errors.RecordError` in place of a record (a line that was not
        valid JSON, say) stands for a record that failed before scoring: its error.
        """
        rec, name = item
        if isinstance(rec, RecordError):
            return describe(rec)
        try:
            r = parse_record(rec, limits=self.limits)
            return self._plan(r.response, r.context, record=name), r.reference
        except Exception as err:  # noqa: BLE001 - the record's error, not the batch's
            return describe(err)

    def _plan_now(self, records: list) -> _Done:
        return _Done([self._plan_record(rec) for rec in records])

    def _plan_pool(self, n_process: int) -> PlanPool | None:
        """The forked planning workers for ``n_process`` (kept), or None for in-process."""
        if n_process < 1:
            raise ValueError(E_N_PROCESS.format(n_process=n_process))
        if n_process == 1 or not fork_available():
            return None
        pools = self.__dict__.setdefault("_plan_pools", {})
        if n_process not in pools:
            pools[n_process] = PlanPool(self, n_process)
        return pools[n_process]

    def close(self) -> None:
        """Stop the planning worker processes of ``n_process`` (if any were started).

        They are kept between calls; without ``close()`` they stop when Python exits.
        """
        for pool in self.__dict__.pop("_plan_pools", {}).values():
            pool.close()

    def _plan_records(self, records: list, n_process: int) -> list:
        pool = self._plan_pool(n_process)
        if pool is None or len(records) < 2 * n_process:
            return self._plan_now(records).get()
        return pool.plan(records)

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
        todo: list[tuple[int, list[int]]] = []
        plans = []
        for k, (res, ref) in enumerate(zip(results, references, strict=True)):
            if ref is None or res.error is not None or not res.claims:
                continue
            idx = [i for i, c in enumerate(res.claims) if c.verdict != "yes"]
            todo.append((k, idx))
            if idx:
                claims = [
                    Claim(res.claims[i].claim, res.claims[i].start, res.claims[i].end) for i in idx
                ]
                plans.append(self._plan_claims(claims, [ref]))
        checked = iter(run_isolated(lambda ps: self._fill(ps, False), plans))
        out = list(results)
        for k, idx in todo:
            labels: list = [None] * len(out[k].claims)
            try:
                if idx:
                    m = next(checked)
                    if isinstance(m, Exception):
                        raise m
                    for i, v in zip(idx, self.aggregate(m).claims):
                        labels[i] = reference_label(v.verdict)
            except Exception as err:  # noqa: BLE001 - the record's error, not the batch's
                out[k] = error_result(describe(err))
                continue
            rates = reference_rates(labels)
            out[k] = replace(
                out[k],
                claims=[replace(c, reference_label=lab) for c, lab in zip(out[k].claims, labels)],
                hallucination_rate=rates.hallucination_rate,
                self_knowledge_rate=rates.self_knowledge_rate,
                reason=f"{out[k].reason} {explain_reference(rates)}",
            )
        return out

    # -- the same pass, in steps (for callers that batch across requests) -----------

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
        return ScoringPlan(*self._plan(response, context))

    def matrices(self, plans: Sequence[ScoringPlan]) -> list[NLIMatrix]:
        """The NLI matrix of each plan, with the pairs of all of them in one model pass
        (as :meth:`score_batch` does); :meth:`aggregate` turns each into a result."""
        return self._fill([(p.claims, p.chunks, p.mask) for p in plans], False)


@dataclass(frozen=True)
class ScoringPlan:
    """What :meth:`FaithfulnessScorer.plan` decided for one response: its claims, the
    context chunks and which (claim, chunk) pairs the model will score."""

    claims: list[Claim]
    chunks: list[Chunk]
    mask: np.ndarray  # (claims, chunks) bool

    @property
    def n_pairs(self) -> int:
        """Pairs to score (early exit may score fewer)."""
        return int(self.mask.sum())


@dataclass(frozen=True)
class _Done:
    """A result already computed, with the ``get()`` of an asynchronous one."""

    value: Any

    def get(self) -> Any:
        return self.value


def _evidence(chunk: Chunk) -> Evidence:
    """The evidence of one chunk; a composite lists every sentence it joins in ``spans``."""
    return Evidence(
        text=chunk.text,
        doc_index=chunk.doc_index,
        start=chunk.start,
        end=chunk.end,
        spans=[Span(p.doc_index, p.start, p.end) for p in (chunk.parts or (chunk,))],
    )


def _unsupported_spans(claim: Claim, verdict: str, ev: Evidence | None) -> list[UnsupportedSpan]:
    """The words of a claim that is not supported that its evidence does not back."""
    raw = claim.text if claim.raw is None else claim.raw
    out = []
    for span, kind in find_spans(claim.text, ev.text if ev else None, verdict=verdict):
        s, e = to_response(claim.text, raw, claim.start, span)
        out.append(
            UnsupportedSpan(s, e, raw[s - claim.start : e - claim.start], kind, ev and ev.text)
        )
    return out


def error_result(message: str) -> FaithfulnessResult:
    return FaithfulnessResult(
        lenient=None,
        strict=None,
        soft=None,
        n_claims=0,
        n_yes=0,
        n_no=0,
        n_idk=0,
        reason=f"Not scored: {message}",
        error=message,
    )
