"""What goes to a judge: one :class:`JudgeItem` per uncertain claim, and its JSONL line.

An escalation line (``nli-faith score ... --escalate uncertain.jsonl``) looks like::

    {"line": 3, "id": "q-17", "claim_index": 1, "claim": "The warranty lasts 36 months.",
     "question": "How long is the warranty?",
     "retrieval_context": ["The warranty lasts 24 months.", ...],
     "evidence": [{"text": "The warranty lasts 24 months.", "doc_index": 0, "start": 0, "end": 29}],
     "nli": {"verdict": "idk", "p_entail": 0.41, "p_contradict": 0.33, "band": "uncertain"}}

``retrieval_context`` is the evidence texts under DeepEval's field name, so the line
can feed an LLM-judge test case directly (``input`` = question, ``actual_output`` =
claim). The judged file has the same keys plus ``verdict`` (``yes`` / ``no`` / ``idk``)
and optionally ``reason``; only ``line``, ``claim_index`` and ``verdict`` are required.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from nli_faith.results import Evidence, FaithfulnessResult


@dataclass(frozen=True)
class JudgeItem:
    """One uncertain claim, with what a judge needs to decide it."""

    line: int  # record line of the scored file (CLI) or record index (Python API)
    claim_index: int
    claim: str
    question: str | None
    evidence: list[Evidence] = field(default_factory=list)
    id: Any = None
    nli_verdict: str = "idk"
    p_entail: float = 0.0
    p_contradict: float = 0.0
    band: str = "uncertain"

    @property
    def evidence_texts(self) -> list[str]:
        return [e.text for e in self.evidence]

    def to_dict(self) -> dict[str, Any]:
        """The escalation line."""
        out: dict[str, Any] = {"line": self.line}
        if self.id is not None:
            out["id"] = self.id
        out |= {
            "claim_index": self.claim_index,
            "claim": self.claim,
            "question": self.question,
            "retrieval_context": self.evidence_texts,
            "evidence": [asdict(e) for e in self.evidence],
            "nli": {
                "verdict": self.nli_verdict,
                "p_entail": self.p_entail,
                "p_contradict": self.p_contradict,
                "band": self.band,
            },
        }
        return out


def items_from_result(
    result: FaithfulnessResult, *, line: int, record_id: Any = None, question: str | None = None
) -> list[JudgeItem]:
    """The claims of ``result`` that need a judge: unsettled, and not judged yet.

    Each carries its candidate chunks (``ClaimVerdict.candidates``), or its one evidence
    chunk when a result made by an older scorer has none.

    Example:
        >>> from nli_faith.results import ClaimVerdict
        >>> c = ClaimVerdict("It is red.", 0, 10, "idk", 0.4, 0.1, None)
        >>> r = FaithfulnessResult(1.0, 0.0, 0.4, 1, 0, 0, 1, "...", [c], n_uncertain=1)
        >>> [i.claim for i in items_from_result(r, line=1)]
        ['It is red.']
    """
    if result.error is not None:
        return []
    out = []
    for k, c in enumerate(result.claims):
        if c.settled or c.source != "nli":
            continue
        evidence = list(c.candidates) or ([c.evidence] if c.evidence is not None else [])
        out.append(
            JudgeItem(
                line=line,
                claim_index=k,
                claim=c.claim,
                question=question,
                evidence=evidence,
                id=record_id,
                nli_verdict=c.verdict,
                p_entail=c.p_entail,
                p_contradict=c.p_contradict,
                band=c.band,
            )
        )
    return out
