"""Typed results returned by :class:`~nli_faith.scorer.FaithfulnessScorer`."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Verdict = Literal["yes", "no", "idk"]
#: What a claim the context does not support is, by the reference answer (RAGChecker):
#: ``self_knowledge`` if the reference entails it, else ``hallucination``.
ReferenceLabel = Literal["hallucination", "self_knowledge"]
#: Per cited claim: the cited documents support it, only an uncited one does, or none does.
CitationStatus = Literal["supported", "misattributed", "unsupported"]
#: What is wrong with a span of a claim: its evidence states otherwise, or does not say it.
SpanKind = Literal["contradicted", "unsupported"]


@dataclass(frozen=True)
class Span:
    """A character span of one retrieved document: ``context[doc_index][start:end]``."""

    doc_index: int
    start: int
    end: int


@dataclass(frozen=True)
class Evidence:
    """The context chunk that decided a claim's verdict.

    ``spans`` lists every span the evidence is made of: one for an ordinary chunk,
    one per sentence for a composite premise (sentences joined from several places or
    documents, see :mod:`nli_faith.scoring.composite`), whose ``text`` is those
    sentences joined by a space and whose ``doc_index``, ``start``, ``end`` are those
    of its main (best-ranked) sentence.
    """

    text: str
    doc_index: int  # which retrieved document
    start: int  # character span in that document
    end: int
    spans: list[Span] = field(default_factory=list)


@dataclass(frozen=True)
class UnsupportedSpan:
    """Words of a claim that is not supported, the smallest part to blame
    (:mod:`nli_faith.text.spans`): ``response[start:end] == text``.

    ``kind`` is ``"contradicted"`` for a contradicted claim, else ``"unsupported"``;
    ``evidence`` is the text they were compared with (the claim's evidence), or None
    when no context chunk was scored against the claim.
    """

    start: int  # character span in the response
    end: int
    text: str
    kind: SpanKind
    evidence: str | None


@dataclass(frozen=True)
class ClaimVerdict:
    """One claim of the response and what the context says of it."""

    claim: str
    start: int  # character span in the response
    end: int
    verdict: Verdict
    p_entail: float  # best entailment over all chunks
    p_contradict: float  # best contradiction over all chunks
    evidence: Evidence | None  # supporting chunk for yes/idk, contradicting chunk for no
    #: How sure the NLI verdict is: "supported", "contradicted", "not_found" or "uncertain"
    #: (nli_faith.scoring.bands); the verdict rule does not depend on it.
    band: str = "uncertain"
    settled: bool = False  # band is not "uncertain": no judge needed
    source: str = "nli"  # "judge" once an LLM judge's verdict replaced the NLI one
    judge_error: str | None = None  # the judge failed; the NLI verdict is kept
    judge_reason: str | None = None  # the judge's explanation, when it gave one
    #: For an uncertain claim: its most telling chunks (by entailment or contradiction),
    #: best first, to show an LLM judge; empty for settled claims.
    candidates: list[Evidence] = field(default_factory=list)
    #: With a reference answer, for a claim that is not ``yes``: hallucination or self_knowledge.
    reference_label: ReferenceLabel | None = None
    #: Documents the claim cites (0-based indices), when the response carries citation
    #: markers such as ``[1]`` or ``(Source 2)`` and this claim has some; else None.
    cited_docs: list[int] | None = None
    #: For a claim with citations: whether its cited documents support it.
    citation: CitationStatus | None = None
    #: When a rule rather than the model decided the verdict (``nli_faith.rules``): which
    #: rule and why ("absence claim: no part of the context is about ..."); else None.
    rule: str | None = None
    #: For a claim that is not ``yes``: the words of it that its evidence does not back
    #: (the whole claim when nothing smaller is to blame); empty for supported claims.
    unsupported_spans: list[UnsupportedSpan] = field(default_factory=list)
    #: The text the model read when it is not ``claim`` as written (a short answer joined
    #: with its question: "3 years" is scored as "How long should I keep tax records: 3
    #: years."; with ``granularity="clause"``, a verb phrase with its sentence's subject
    #: restored: "left the company." is scored as "Wayne left the company."); None when
    #: the claim was scored as written.
    scored_as: str | None = None
    #: For a model contradiction: the conflict it shows ("conflict: number: '36 months'
    #: against '24 months'"), or that none shows (:mod:`nli_faith.rules.conflicts`); else
    #: None.
    decision_note: str | None = None


@dataclass(frozen=True)
class FaithfulnessResult:
    """Scores of one response against its context.

    ``lenient``, ``strict`` and ``soft`` are ``None`` when the response holds
    no verifiable claim: such a response is never silently scored 1.0.
    """

    lenient: float | None  # (n - contradicted) / n
    strict: float | None  # supported / n
    soft: float | None  # mean best entailment probability
    n_claims: int
    n_yes: int
    n_no: int
    n_idk: int
    reason: str
    claims: list[ClaimVerdict] = field(default_factory=list)
    error: str | None = None  # set when the record could not be scored
    n_uncertain: int = 0  # claims whose NLI band is "uncertain" (sent to a judge, if any)
    n_judged: int = 0  # claims whose verdict came from the judge
    n_judge_errors: int = 0  # uncertain claims the judge failed on (they keep the NLI verdict)
    #: With a reference answer (else None): share of all claims that are unsupported by
    #: the context and not entailed by the reference, and unsupported but entailed by it.
    hallucination_rate: float | None = None
    self_knowledge_rate: float | None = None
    #: Claims carrying citation markers, and those among them supported only by an
    #: uncited document; None when the response has no citation markers.
    n_cited: int | None = None
    n_misattributed: int | None = None
    #: Sentences that decline to answer ("Unable to answer based on the given passages."):
    #: not claims about the world, so left out of ``claims`` and of every score.
    n_abstentions: int = 0
    #: The response's claims were checked against a context that holds no text (no
    #: document, or only empty or blank ones): nothing can support them, so the answer
    #: passes no gate, whatever the score (:func:`nli_faith.scoring.gate.gate`).
    context_empty: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _known(cls, data: Mapping[str, Any]) -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def _evidence(data: Mapping[str, Any] | None) -> Evidence | None:
    return None if data is None else Evidence(**_known(Evidence, data))


def result_from_dict(data: Mapping[str, Any]) -> FaithfulnessResult:
    """A :class:`FaithfulnessResult` from its ``to_dict()`` form (extra keys ignored)."""
    claims = []
    for c in data.get("claims") or []:
        fields = _known(ClaimVerdict, c)
        fields["evidence"] = _evidence(c.get("evidence"))
        fields["candidates"] = [_evidence(e) for e in c.get("candidates") or []]
        fields["unsupported_spans"] = [
            UnsupportedSpan(**_known(UnsupportedSpan, x)) for x in c.get("unsupported_spans") or []
        ]
        claims.append(ClaimVerdict(**fields))
    fields = _known(FaithfulnessResult, data)
    fields["claims"] = claims
    return FaithfulnessResult(**fields)


# -- streamed answers ------------------------------------------------------------------------


@dataclass(frozen=True)
class SentenceCheck:
    """One sentence of a streamed answer, checked as soon as it was complete.

    ``text`` is the answer from the end of the previous sentence to the end of this one
    (joined, the ``text`` of every released sentence is the answer released); ``start``,
    ``end`` its span in the answer. ``decision`` is ``"block"`` when the policy stops the
    stream here (``failed_claim`` and ``reason`` say why; the sentence is not released).
    """

    text: str
    start: int
    end: int
    claims: list[ClaimVerdict]
    decision: Literal["pass", "block"] = "pass"
    reason: str | None = None
    failed_claim: ClaimVerdict | None = None
    strict_so_far: float | None = None


@dataclass(frozen=True)
class StreamResult:
    """The end of a streamed answer's check.

    ``result`` is the answer streamed (up to the failing sentence, if the stream was
    stopped) scored as ``score()`` scores it; ``released`` the text that passed.
    """

    released: str
    blocked: bool
    result: FaithfulnessResult
    reason: str | None = None
    failed_claim: ClaimVerdict | None = None
