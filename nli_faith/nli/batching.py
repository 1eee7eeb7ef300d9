"""Per-pair padding: the forward passes of a set of pairs, so that no pair's result
depends on the pairs scored with it.

A pair's padded width changes its probabilities (by up to ~1e-2 in bfloat16, ~1e-6 in
fp32), so a width set by the batch's longest pair would make a record's verdicts depend
on the records scored beside it. Here each pair is padded to its own length rounded up
to :data:`PAD_MULTIPLE`, and a forward pass holds pairs of one width only
(``benchmarks/results/batch_invariance.md`` measures what this buys).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

#: A pair is padded to its length rounded up to a multiple of this (never to its batch's).
PAD_MULTIPLE = 32


@dataclass(frozen=True)
class TokenRows:
    """Rows of token ids of different lengths, packed in one array: row ``k`` is
    ``values[offsets[k]:offsets[k + 1]]``.

    This is how pairs' ids cross from a planning worker to the model's process: pickled
    as two buffers, where a list of lists costs a Python int per token to pickle and to
    rebuild, and the rows of a batch are padded with one gather instead of a loop.

    Example:
        >>> rows = TokenRows.pack([[101, 7, 102], [101, 102]])
        >>> len(rows), rows[1].tolist(), rows.lengths_of(np.array([0, 1])).tolist()
        (2, [101, 102], [3, 2])
        >>> TokenRows.join([rows, TokenRows.pack([[5]])])[2].tolist()
        [5]
    """

    values: np.ndarray
    offsets: np.ndarray  # len(rows) + 1 positions in ``values``

    @classmethod
    def pack(cls, rows: Sequence[Sequence[int]]) -> TokenRows:
        """Rows given as lists (or arrays) of ids."""
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, rows), np.int64, count=len(rows)), out=offsets[1:])
        values = np.fromiter(chain.from_iterable(rows), np.int32, count=int(offsets[-1]))
        return cls(values, offsets)

    @staticmethod
    def join(parts: Sequence[TokenRows]) -> TokenRows:
        """The rows of ``parts``, in order."""
        if not parts:
            return TokenRows.pack([])
        shift = np.cumsum([0, *(len(p.values) for p in parts[:-1])])
        offsets = [p.offsets[:-1] + s for p, s in zip(parts, shift)]
        offsets.append(np.array([shift[-1] + len(parts[-1].values)], dtype=np.int64))
        return TokenRows(np.concatenate([p.values for p in parts]), np.concatenate(offsets))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, k: int) -> np.ndarray:
        n = len(self)
        if not -n <= k < n:
            raise IndexError(f"row {k} of {n}")
        k %= n
        return self.values[self.offsets[k] : self.offsets[k + 1]]

    def __iter__(self) -> Iterator[np.ndarray]:
        return (self[k] for k in range(len(self)))

    def lengths_of(self, sel: np.ndarray) -> np.ndarray:
        """The lengths of the rows ``sel`` (without a pass over all rows)."""
        return self.offsets[sel + 1] - self.offsets[sel]

    def padded(self, sel: np.ndarray, lengths: np.ndarray, width: int, fill: int) -> np.ndarray:
        """The first ``lengths`` ids of the rows ``sel`` as an int64 array ``width`` wide,
        right-padded with ``fill``."""
        cols = np.arange(width)
        inside = cols[None, :] < lengths[:, None]
        out = np.full((len(sel), width), fill, dtype=np.int64)
        out[inside] = self.values[(self.offsets[sel][:, None] + cols[None, :])[inside]]
        return out


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
    ids: TokenRows | Sequence[Sequence[int]],
    types: TokenRows | Sequence[Sequence[int]] | None,
    sel: np.ndarray,
    max_length: int,
    pad_id: int,
    *,
    width: int | None = None,
) -> dict[str, np.ndarray]:
    """Right-padded int64 arrays for the rows ``sel``, at least ``width`` wide.

    A pair longer than ``max_length`` keeps its first ``max_length`` tokens.
    """
    ids, rows = _rows(ids, sel)
    lengths = np.minimum(ids.lengths_of(rows), max_length)  # a pair's types are as long
    width = max(int(lengths.max()), width or 0)
    batch = {
        "input_ids": ids.padded(rows, lengths, width, pad_id),
        "attention_mask": (np.arange(width)[None, :] < lengths[:, None]).astype(np.int64),
    }
    if types is not None:
        types, rows = _rows(types, sel)
        batch["token_type_ids"] = types.padded(rows, lengths, width, 0)
    return batch


def _rows(
    rows: TokenRows | Sequence[Sequence[int]], sel: np.ndarray
) -> tuple[TokenRows, np.ndarray]:
    """``rows`` packed, and where the rows ``sel`` are in it: lists are packed for ``sel``
    alone (no pass over the other rows)."""
    if isinstance(rows, TokenRows):
        return rows, np.asarray(sel)
    return TokenRows.pack([rows[i] for i in sel]), np.arange(len(sel))
