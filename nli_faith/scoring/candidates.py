"""The few chunks worth showing a judge for one claim: a pure function over the matrix."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nli_faith.nli.labels import CONTRADICT_IDX, ENTAIL_IDX

#: Chunks handed to an LLM judge per uncertain claim.
DEFAULT_JUDGE_CHUNKS = 3


def top_chunks(
    probs: np.ndarray,
    mask: np.ndarray | None,
    spans: Sequence[tuple[int, int, int]],
    row: int,
    *,
    k: int = DEFAULT_JUDGE_CHUNKS,
) -> list[int]:
    """Indices of claim ``row``'s ``k`` most telling chunks, best first.

    A chunk ranks by its larger probability of entailing or contradicting the claim
    (before the number check and the contradiction gate: a chunk that states another
    number is exactly what a judge should read). ``spans`` holds each chunk's
    ``(doc_index, start, end)``; a chunk lying inside one already chosen is skipped,
    since the judge has read it.

    Example:
        >>> p = np.array([[[0.1, 0.8, 0.1], [0.7, 0.2, 0.1], [0.6, 0.3, 0.1], [0.0, 0.2, 0.8]]])
        >>> top_chunks(p, None, [(0, 60, 70), (0, 0, 50), (0, 5, 20), (1, 0, 9)], 0, k=3)
        [3, 1, 0]
    """
    if probs.shape[1] == 0 or k <= 0:
        return []
    score = np.maximum(probs[row, :, ENTAIL_IDX], probs[row, :, CONTRADICT_IDX]).astype(float)
    if mask is not None:
        score = np.where(mask[row], score, -1.0)
    chosen: list[int] = []
    for j in np.argsort(-score, kind="stable"):
        if score[j] < 0 or len(chosen) >= k:
            break
        d, s, e = spans[j]
        inside = any(spans[c][0] == d and spans[c][1] <= s and e <= spans[c][2] for c in chosen)
        if not inside:
            chosen.append(int(j))
    return chosen
