"""Hallucination or self-knowledge: unsupported claims judged by a reference answer.

RAGChecker-style evaluations split the claims the context does not support (``no`` or
``idk``) in two: those the reference (ground-truth) answer entails are *self-knowledge*
(true, but not from the retrieved context); the others, which the reference contradicts
or lacks, are *hallucinations*. Both rates are shares of all the response's claims, as in
RAGChecker. Pure functions over verdicts; the scorer supplies the verdicts of each claim
against the reference (``FaithfulnessScorer.check_reference``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nli_faith.results import ReferenceLabel


def reference_label(verdict_against_reference: str) -> ReferenceLabel:
    """Label of a claim the context does not support, from its verdict against the reference.

    Example:
        >>> reference_label("yes"), reference_label("idk"), reference_label("no")
        ('self_knowledge', 'hallucination', 'hallucination')
    """
    return "self_knowledge" if verdict_against_reference == "yes" else "hallucination"


@dataclass(frozen=True)
class ReferenceRates:
    n_hallucination: int
    n_self_knowledge: int
    hallucination_rate: float | None  # None when there are no claims
    self_knowledge_rate: float | None


def reference_rates(labels: Sequence[ReferenceLabel | None]) -> ReferenceRates:
    """Counts and rates over all claims of a response (``None`` = supported by the context).

    Example:
        >>> r = reference_rates([None, "hallucination", "self_knowledge", "hallucination"])
        >>> (r.hallucination_rate, r.self_knowledge_rate)
        (0.5, 0.25)
    """
    n = len(labels)
    n_hal = sum(label == "hallucination" for label in labels)
    n_sk = sum(label == "self_knowledge" for label in labels)
    if n == 0:
        return ReferenceRates(0, 0, None, None)
    return ReferenceRates(n_hal, n_sk, n_hal / n, n_sk / n)


def explain_reference(rates: ReferenceRates) -> str:
    """The sentence the reason gains when a reference answer was given.

    Example:
        >>> print(explain_reference(reference_rates([None, "hallucination", "self_knowledge"])))
        ... # doctest: +NORMALIZE_WHITESPACE
        Against the reference answer: 1 unsupported claim is a hallucination (not in the
        reference either), 1 is self-knowledge (entailed by the reference, not by the context).
    """
    if rates.hallucination_rate is None:
        return ""
    if rates.n_hallucination == rates.n_self_knowledge == 0:
        return "Against the reference answer: no claim is unsupported, so none is hallucinated."
    hal = "claim is a hallucination" if rates.n_hallucination == 1 else "claims are hallucinations"
    return (
        f"Against the reference answer: {rates.n_hallucination} unsupported {hal} "
        f"(not in the reference either), {rates.n_self_knowledge} "
        f"{'is' if rates.n_self_knowledge == 1 else 'are'} self-knowledge "
        "(entailed by the reference, not by the context)."
    )
