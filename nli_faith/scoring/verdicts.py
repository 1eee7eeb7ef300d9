"""Verdicts from the NLI matrix: pure functions over arrays.

The matrix has shape ``(claims, chunks, 3)`` with the last axis
``(entailment, neutral, contradiction)``; a ``mask`` of shape
``(claims, chunks)`` marks the pairs that were scored (all, unless a
pre-filter skipped some).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nli_faith.checks import check_threshold as check_threshold
from nli_faith.nli.labels import CONTRADICT_IDX, ENTAIL_IDX

#: A claim is supported (``yes``) when some chunk entails it with at least this probability.
DEFAULT_ENTAIL_THRESHOLD = 0.5
#: Otherwise it is contradicted (``no``) when some chunk contradicts it with at least this.
DEFAULT_CONTRADICT_THRESHOLD = 0.5


@dataclass(frozen=True)
class ClaimDecisions:
    """Per-claim reductions of the matrix (arrays of length ``claims``)."""

    verdicts: np.ndarray  # "yes" / "no" / "idk"
    p_entail: np.ndarray  # max over chunks
    p_contradict: np.ndarray  # max over chunks
    best_entail_chunk: np.ndarray  # argmax chunk index, -1 if no chunk
    best_contradict_chunk: np.ndarray

    @property
    def evidence_chunk(self) -> np.ndarray:
        """The chunk to show: the contradicting one for ``no``, else the best-entailing one."""
        return np.where(self.verdicts == "no", self.best_contradict_chunk, self.best_entail_chunk)


def decide(
    probs: np.ndarray,
    *,
    mask: np.ndarray | None = None,
    support_mask: np.ndarray | None = None,
    contradict_mask: np.ndarray | None = None,
    number_contradict: np.ndarray | None = None,
    entail_threshold: float = DEFAULT_ENTAIL_THRESHOLD,
    contradict_threshold: float = DEFAULT_CONTRADICT_THRESHOLD,
) -> ClaimDecisions:
    """Reduce a ``(claims, chunks, 3)`` matrix to one verdict per claim.

    Each claim takes its maximum entailment over all chunks: any chunk may
    support it. ``yes`` if that reaches ``entail_threshold``; else ``no`` if
    some chunk contradicts it with at least ``contradict_threshold``; else ``idk``.
    ``mask`` marks the scored pairs; ``support_mask`` marks the chunks allowed
    to support each claim (e.g. those holding every number the claim states), and
    ``contradict_mask`` those allowed to contradict it (e.g. those about the same thing).
    ``number_contradict`` scores (> 0) the chunks that state one of the claim's quantities
    with a different value (:func:`nli_faith.rules.numbers.quantity_mismatch`): a claim no
    chunk supports is then ``no``, with the highest-scoring such chunk as evidence,
    whatever the model's contradiction probability (``p_contradict`` stays the model's).

    Example:
        >>> m = np.array([[[0.9, 0.05, 0.05]], [[0.1, 0.1, 0.8]], [[0.2, 0.7, 0.1]]])
        >>> decide(m).verdicts.tolist()
        ['yes', 'no', 'idk']
    """
    check_threshold("entail_threshold", entail_threshold)
    check_threshold("contradict_threshold", contradict_threshold)
    probs = np.asarray(probs, dtype=np.float32)
    n_claims, n_chunks = probs.shape[:2]
    if n_chunks == 0:
        zeros = np.zeros(n_claims, dtype=np.float32)
        minus = np.full(n_claims, -1)
        return ClaimDecisions(np.full(n_claims, "idk", dtype=object), zeros, zeros, minus, minus)
    ent = probs[..., ENTAIL_IDX]
    con = probs[..., CONTRADICT_IDX]
    if mask is not None:
        ent = np.where(mask, ent, -1.0)
        con = np.where(mask, con, -1.0)
    if support_mask is not None:
        ent = np.where(support_mask, ent, -1.0)
    if contradict_mask is not None:
        con = np.where(contradict_mask, con, -1.0)
    best_e = ent.argmax(axis=1)
    best_c = con.argmax(axis=1)
    rows = np.arange(n_claims)
    p_e = np.clip(ent[rows, best_e], 0.0, 1.0)
    p_c = np.clip(con[rows, best_c], 0.0, 1.0)
    contradicted = p_c >= contradict_threshold
    if number_contradict is not None:
        rule = np.asarray(number_contradict, dtype=np.float32)
        by_rule = (rule > 0).any(axis=1)
        best_c = np.where(by_rule, rule.argmax(axis=1), best_c)
        contradicted = contradicted | by_rule
    verdicts = np.where(p_e >= entail_threshold, "yes", np.where(contradicted, "no", "idk")).astype(
        object
    )
    return ClaimDecisions(verdicts, p_e, p_c, best_e, best_c)
