"""Per-pair padding: the forward passes of a set of pairs, so that no pair's result
depends on the pairs scored with it.

A pair's padded width changes its probabilities (by up to ~1e-2 in bfloat16, ~1e-6 in
fp32), so a width set by the batch's longest pair would make a record's verdicts depend
on the records scored beside it. Here each pair is padded to its own length rounded up
to :data:`PAD_MULTIPLE`, and a forward pass holds pairs of one width only
(``benchmarks/results/batch_invariance.md`` measures what this buys).
"""

from __future__ import annotations

import numpy as np

#: A pair is padded to its length rounded up to a multiple of this (never to its batch's).
PAD_MULTIPLE = 32


def batch_plan(
    lengths: np.ndarray, *, batch_size: int, max_length: int
) -> list[tuple[np.ndarray, int]]:
    """(rows, padded width) of each forward pass over pairs of token ``lengths``.

    Longest first. With ``batch_size`` 1 a pair is its own width; otherwise every pair is
    padded to its length rounded up to :data:`PAD_MULTIPLE` (at most ``max_length``), and
    a batch holds pairs of one width only, so no pair's width depends on the others.

    Example:
        >>> [(rows.tolist(), w) for rows, w in batch_plan(np.array([10, 40, 30, 33]),
        ...                                              batch_size=2, max_length=512)]
        [([1, 3], 64), ([2, 0], 32)]
    """
    order = np.argsort(-lengths, kind="stable")
    capped = np.minimum(lengths[order], max_length)
    if batch_size == 1:
        return [(order[k : k + 1], int(capped[k])) for k in range(len(order))]
    widths = np.minimum(-(-capped // PAD_MULTIPLE) * PAD_MULTIPLE, max_length)
    plan = []
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and end - start < batch_size and widths[end] == widths[start]:
            end += 1
        plan.append((order[start:end], int(widths[start])))
        start = end
    return plan


def pad_batch(
    ids: list[list[int]],
    types: list[list[int]] | None,
    sel: np.ndarray,
    max_length: int,
    pad_id: int,
    *,
    width: int | None = None,
) -> dict[str, np.ndarray]:
    """Right-padded int64 arrays for the rows ``sel``, at least ``width`` wide.

    A pair longer than ``max_length`` keeps its first ``max_length`` tokens.
    """
    lengths = np.array([min(len(ids[i]), max_length) for i in sel])
    width = max(int(lengths.max()), width or 0)
    input_ids = np.full((len(sel), width), pad_id, dtype=np.int64)
    type_ids = np.zeros((len(sel), width), dtype=np.int64) if types is not None else None
    for row, i in enumerate(sel):
        n = lengths[row]
        input_ids[row, :n] = ids[i][:n]
        if type_ids is not None:
            type_ids[row, :n] = types[i][:n]
    batch = {
        "input_ids": input_ids,
        "attention_mask": (np.arange(width)[None, :] < lengths[:, None]).astype(np.int64),
    }
    if type_ids is not None:
        batch["token_type_ids"] = type_ids
    return batch
