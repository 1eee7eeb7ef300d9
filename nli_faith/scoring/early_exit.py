"""Early exit: score a claim's most promising chunk first, and stop once it supports the claim.

A claim is ``yes`` as soon as *one* chunk entails it (and may support it), whatever the
other chunks say, so the other pairs of a supported claim cannot change its verdict. The
scorer runs the model in two rounds: each claim against its most promising sentence,
then the remaining candidates of the claims that round did not settle. Verdicts are
those of scoring every pair; only a supported claim's ``p_entail`` and evidence may come
from a lesser chunk than the best. Pure functions over arrays.
"""

from __future__ import annotations

import numpy as np

from nli_faith.nli.labels import ENTAIL_IDX


def first_candidates(
    similarity: np.ndarray, mask: np.ndarray, preferred: np.ndarray | None = None
) -> np.ndarray:
    """For each claim, the one candidate to score first: ``(claims, chunks)`` bool.

    The most similar chunk among those in ``mask``, taken among the ``preferred`` chunks
    (e.g. single sentences: short, so cheap) when the claim has any.

    Example:
        >>> sim = np.array([[0.2, 0.9, 0.5], [0.1, 0.2, 0.3]])
        >>> mask = np.array([[True, False, True], [False, False, False]])
        >>> first_candidates(sim, mask).tolist()
        [[False, False, True], [False, False, False]]
    """
    sim = np.where(mask, similarity, -np.inf)
    if preferred is not None:
        pref = np.where(preferred[None, :], sim, -np.inf)
        has_pref = np.isfinite(pref).any(axis=1)
        sim = np.where(has_pref[:, None], pref, sim)
    first = np.zeros(mask.shape, dtype=bool)
    rows = np.flatnonzero(np.isfinite(sim).any(axis=1))
    first[rows, sim[rows].argmax(axis=1)] = True
    return first


def settled_claims(
    probs: np.ndarray,
    scored: np.ndarray,
    *,
    entail_threshold: float,
    support_mask: np.ndarray | None = None,
) -> np.ndarray:
    """Claims that a scored pair already supports: their verdict is ``yes`` whatever else.

    Example:
        >>> probs = np.array([[[0.9, 0.05, 0.05]], [[0.3, 0.6, 0.1]]])
        >>> settled_claims(probs, np.ones((2, 1), bool), entail_threshold=0.5).tolist()
        [True, False]
    """
    ok = scored if support_mask is None else scored & support_mask
    return (np.where(ok, probs[..., ENTAIL_IDX], -1.0) >= entail_threshold).any(axis=1)
