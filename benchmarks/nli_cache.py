"""A benchmark-local cache in front of :meth:`NLIModel.predict`.

Every method of the quality benchmark runs on the same model, and many of their
(premise, hypothesis) pairs coincide: the scorer's sentence chunks are SummaC's
sentence pairs, and frank_xsum re-annotates the xsumfaith summaries. The cache
computes each distinct pair once per run. Keys are 16-byte BLAKE2b digests of
the pair, so the cache holds no copies of the texts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np


def pair_key(premise: str, hypothesis: str) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    h.update(str(len(premise)).encode())
    h.update(b":")
    h.update(premise.encode("utf-8", "surrogatepass"))
    h.update(hypothesis.encode("utf-8", "surrogatepass"))
    return h.digest()


class CachedNLI:
    """Wraps an ``NLIModel``; ``predict`` only runs the pairs it has not seen.

    Any other attribute (``tokenizer``, ``max_length``, ``count_tokens``...) is the
    wrapped model's, so the wrapper can stand in for ``FaithfulnessScorer.nli``.

    Args:
        nli: the ``NLIModel`` to wrap.
        sample_rate: share of the distinct pairs whose texts are also kept in
            ``self.sample`` (chosen by their digest, so the sample is deterministic),
            e.g. to compare two backends on the very pairs a run used.
    """

    def __init__(self, nli, *, sample_rate: float = 0.0) -> None:
        self.nli = nli
        self._store: dict[bytes, np.ndarray] = {}
        self._sample_below = int(round(256 * sample_rate))
        self.sample: list[tuple[str, str]] = []
        self.computed = 0  # distinct pairs run through the model
        self.requested = 0  # pairs the methods asked for (counted by the caller)

    def __getattr__(self, name: str):
        return getattr(self.nli, name)

    def __len__(self) -> int:
        return len(self._store)

    def save(self, path) -> None:
        """Write the computed pairs to ``path`` (``.npz``: digests and probabilities)."""
        keys = np.frombuffer(b"".join(self._store), dtype=np.uint8).reshape(-1, 16)
        probs = np.stack(list(self._store.values())) if self._store else np.zeros((0, 3))
        np.savez(path, keys=keys, probs=probs)

    def load(self, path) -> int:
        """Add the pairs saved by :meth:`save` in ``path``; returns how many."""
        with np.load(path) as z:
            for k, row in zip(z["keys"], z["probs"]):
                self._store[k.tobytes()] = row.astype(np.float32)
            return len(z["keys"])

    def lookup(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """Cached probabilities of ``pairs`` (``KeyError`` for a pair never predicted)."""
        if not pairs:
            return np.zeros((0, 3), dtype=np.float32)
        return np.stack([self._store[pair_key(p, h)] for p, h in pairs])

    def predict(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        batch_size: int | None = None,
        show_progress_bar: bool = False,
    ) -> np.ndarray:
        keys = [pair_key(p, h) for p, h in pairs]
        todo: dict[bytes, tuple[str, str]] = {}
        for k, pair in zip(keys, pairs):
            if k not in self._store and k not in todo:
                todo[k] = (pair[0], pair[1])
        if todo:
            probs = self.nli.predict(
                list(todo.values()), batch_size=batch_size, show_progress_bar=show_progress_bar
            )
            for (k, pair), row in zip(todo.items(), probs):
                self._store[k] = row
                if k[0] < self._sample_below:
                    self.sample.append(pair)
            self.computed += len(todo)
        if not keys:
            return np.zeros((0, 3), dtype=np.float32)
        return np.stack([self._store[k] for k in keys])
