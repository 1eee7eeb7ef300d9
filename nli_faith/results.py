"""Typed results returned by :class:`~nli_faith.scorer.FaithfulnessScorer`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Verdict = Literal["yes", "no", "idk"]
#: What a claim the context does not support is, by the reference answer (RAGChecker):
#: ``self_knowledge`` if the reference entails it, else ``hallucination``.
ReferenceLabel = Literal["hallucination", "self_knowledge"]


@dataclass(frozen=True)
class Evidence:
    """The context chunk that decided a claim's verdict."""

    text: str
    doc_index: int  # which retrieved document
    start: int  # character span in that document
    end: int


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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
