"""Stage 3, the decision: verdicts, scores, bands, citations and reference labels.

Cheap reductions over an :class:`~nli_faith.engine.infer.NLIMatrix`, so thresholds can
change without running the model again (:func:`aggregate`). The verdict rules themselves
live in :mod:`nli_faith.scoring` (verdicts, bands, citations, composite premises) and
:mod:`nli_faith.rules` (claims decided by rule); this module applies them in order and
builds the :class:`~nli_faith.results.FaithfulnessResult`. :func:`rescore` recomputes a
result's scores after its claims' verdicts changed (the judge cascade's merge).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np

from nli_faith.engine.infer import NLIMatrix
from nli_faith.engine.parts import Parts
from nli_faith.engine.plan import number_mask
from nli_faith.errors import E_CONTEXT_EMPTY, E_EARLY_EXIT_THRESHOLD, OptionError
from nli_faith.results import (
    ClaimVerdict,
    Evidence,
    FaithfulnessResult,
    ReferenceLabel,
    Span,
    UnsupportedSpan,
)
from nli_faith.rules import apply_rules, explain_abstentions
from nli_faith.rules.numbers import quantity_mismatch
from nli_faith.scoring.bands import BandThresholds, assign_bands, nearest_entailment
from nli_faith.scoring.candidates import top_chunks
from nli_faith.scoring.citations import citation_statuses, explain_citations, supporting_mask
from nli_faith.scoring.composite import composite_masks, is_composite
from nli_faith.scoring.reference import explain_reference, reference_label, reference_rates
from nli_faith.scoring.scores import compute_scores, explain
from nli_faith.scoring.verdicts import decide
from nli_faith.text.attribution import misattributed
from nli_faith.text.chunking import Chunk
from nli_faith.text.claims import Claim
from nli_faith.text.lexical import overlap_mask
from nli_faith.text.spans import find_spans, to_response


def aggregate(
    parts: Parts,
    m: NLIMatrix,
    *,
    entail_threshold: float | None = None,
    contradict_threshold: float | None = None,
    band_high: float | None = None,
    band_low: float | None = None,
) -> FaithfulnessResult:
    """Verdicts, bands, scores and reason from a matrix; thresholds default to ``parts``'."""
    entail_threshold = parts.entail_threshold if entail_threshold is None else entail_threshold
    if m.settled_at is not None and entail_threshold > m.settled_at:
        raise OptionError(
            E_EARLY_EXIT_THRESHOLD.format(requested=entail_threshold, settled=m.settled_at)
        )
    if contradict_threshold is None:
        contradict_threshold = parts.contradict_threshold
    support, contra, differs = _masks(parts, m, contradict_threshold)
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
    decided = list(ruled.set_aside) or [None] * len(m.claims)
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
        high=parts.bands.high if band_high is None else band_high,
        low=parts.bands.low if band_low is None else band_low,
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
    spans = [(c.doc_index, c.start, c.end) for c in m.chunks]
    claims_out = []
    for i in kept:
        claim = m.claims[i]
        j = int(d.evidence_chunk[i])
        ev = evidence(m.chunks[j]) if j >= 0 and m.chunks else None
        uncertain = bands[i] == "uncertain"
        claims_out.append(
            ClaimVerdict(
                claim=claim.text if claim.written is None else claim.written,
                start=claim.start,
                end=claim.end,
                verdict=verdicts[i],
                p_entail=round(float(d.p_entail[i]), 4),
                p_contradict=round(float(d.p_contradict[i]), 4),
                evidence=ev,
                cited_docs=None if cited[i] is None else sorted(cited[i]),
                citation=statuses[i],
                unsupported_spans=unsupported_spans(claim, verdicts[i], ev),
                band=str(bands[i]),
                settled=bool(not uncertain),
                candidates=(
                    [evidence(m.chunks[k]) for k in top_chunks(m.probs, m.mask, spans, i)]
                    if uncertain
                    else []
                ),
                rule=ruled.notes[i],
                scored_as=None if claim.written is None else claim.text,
                decision_note=decided[i],
            )
        )
    n_cited = n_wrong = None
    if any(cited[i] is not None for i in kept):
        n_cited = sum(cited[i] is not None for i in kept)
        statuses = [statuses[i] for i in kept]
        n_wrong = statuses.count("misattributed")
        said = explain_citations(statuses, [m.claims[i].text for i in kept])
        reason = " ".join(x for x in (reason, said) if x)
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
        context_empty=bool(kept) and not m.chunks,
    )


def _masks(
    parts: Parts, m: NLIMatrix, contradict_threshold: float
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """Which chunks may support and contradict each claim, and the number conflicts."""
    support = contra = differs = None
    if not (m.claims and m.chunks):
        return support, contra, differs
    claims, chunks = [c.text for c in m.claims], [c.text for c in m.chunks]
    if parts.number_check:
        support = number_mask(m.claims, m.chunks) if m.numbers is None else m.numbers.copy()
        differs = quantity_mismatch(claims, chunks)
        if differs.any():  # a value of another row, year or line supports nothing
            support &= ~misattributed(claims, chunks, differs)
    if parts.contradiction_overlap > 0:
        contra = overlap_mask(claims, chunks, min_share=parts.contradiction_overlap)
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
    return support, contra, differs


def evidence(chunk: Chunk) -> Evidence:
    """The evidence of one chunk; a composite lists every sentence it joins in ``spans``."""
    return Evidence(
        text=chunk.text,
        doc_index=chunk.doc_index,
        start=chunk.start,
        end=chunk.end,
        spans=[Span(p.doc_index, p.start, p.end) for p in (chunk.parts or (chunk,))],
    )


def unsupported_spans(claim: Claim, verdict: str, ev: Evidence | None) -> list[UnsupportedSpan]:
    """The words of a claim that is not supported that its evidence does not back."""
    raw = claim.text if claim.raw is None else claim.raw
    text = claim.text if claim.written is None else claim.written  # the words as written
    out = []
    for span, kind in find_spans(text, ev.text if ev else None, verdict=verdict):
        s, e = to_response(text, raw, claim.start, span)
        out.append(
            UnsupportedSpan(s, e, raw[s - claim.start : e - claim.start], kind, ev and ev.text)
        )
    return out


def unsupported_claims(result: FaithfulnessResult) -> list[int] | None:
    """Indexes of the claims a reference answer is to label (``None``: nothing to check)."""
    if result.error is not None or not result.claims:
        return None
    return [i for i, c in enumerate(result.claims) if c.verdict != "yes"]


def claims_of(result: FaithfulnessResult, idx: Sequence[int]) -> list[Claim]:
    """Claims ``idx`` of a result, to be planned against a reference answer."""
    return [
        Claim(result.claims[i].claim, result.claims[i].start, result.claims[i].end) for i in idx
    ]


def with_reference(
    result: FaithfulnessResult, idx: Sequence[int], against: FaithfulnessResult | None
) -> FaithfulnessResult:
    """``result`` with claims ``idx`` labelled from their verdicts ``against`` the reference."""
    labels: list[ReferenceLabel | None] = [None] * len(result.claims)
    if against is not None:
        for i, v in zip(idx, against.claims):
            labels[i] = reference_label(v.verdict)
    rates = reference_rates(labels)
    return dataclasses.replace(
        result,
        claims=[
            dataclasses.replace(c, reference_label=lab) for c, lab in zip(result.claims, labels)
        ],
        hallucination_rate=rates.hallucination_rate,
        self_knowledge_rate=rates.self_knowledge_rate,
        reason=f"{result.reason} {explain_reference(rates)}",
    )


def rescore(
    result: FaithfulnessResult,
    claims: list[ClaimVerdict],
    *,
    stale_reference: str = "{n} unsupported claims were not checked against the reference.",
) -> FaithfulnessResult:
    """``result`` with new ``claims`` (their verdicts changed): lenient, strict, the counts,
    the reason and the reference rates recomputed; ``soft`` stays (a verdict given by
    someone else brings no probability).

    After a reference check, a claim now supported loses its label; if a claim now
    unsupported was never checked, the rates are ``None`` and ``stale_reference`` (a
    sentence with ``{n}``) says how many.
    """
    verdicts = [c.verdict for c in claims]
    scores = compute_scores(verdicts, [c.p_entail for c in claims])
    reason = explain(scores, verdicts, [c.claim for c in claims])
    rates: dict[str, Any] = {}
    if result.hallucination_rate is not None:
        claims = [
            dataclasses.replace(c, reference_label=None) if c.verdict == "yes" else c
            for c in claims
        ]
        unchecked = [c for c in claims if c.verdict != "yes" and c.reference_label is None]
        if unchecked:  # rates over a part of the unsupported claims would not add up
            rates = {"hallucination_rate": None, "self_knowledge_rate": None}
            reason = f"{reason} {stale_reference.format(n=len(unchecked))}"
        else:
            r = reference_rates([c.reference_label for c in claims])
            rates = {
                "hallucination_rate": r.hallucination_rate,
                "self_knowledge_rate": r.self_knowledge_rate,
            }
            reason = f"{reason} {explain_reference(r)}"
    return dataclasses.replace(
        result,
        lenient=scores.lenient,
        strict=scores.strict,
        n_claims=scores.n_claims,
        n_yes=scores.n_yes,
        n_no=scores.n_no,
        n_idk=scores.n_idk,
        reason=reason,
        claims=claims,
        **rates,
    )
