"""A memo in front of an NLI model: each distinct (premise, hypothesis) pair is run once.

The engine asks its NLI model for pairs through one method, ``predict``, and reads
``max_length``, ``count_tokens``, ``tokenizer`` and the like from it; :class:`CachedNLI`
answers ``predict`` from what it has already computed and hands every other attribute to
the model it wraps, so it stands in for a scorer's model::

    scorer.nli = CachedNLI(scorer.nli)

Every later call then runs only the pairs it has not seen: scoring the same records under
other thresholds or aggregations, comparing methods that share pairs (a benchmark's
baselines), or scoring answers that repeat the same context. The memo keeps no copies of
the texts: its keys are 16-byte BLAKE2b digests of the pairs. :meth:`CachedNLI.save` and
:meth:`CachedNLI.load` keep it across runs (a ``.npz`` of digests and probabilities); a
saved memo belongs to the model that computed it. It grows with every distinct pair (about
30 bytes a pair); it is not a bounded cache for a long-running service.

Example (any object with ``predict`` stands in for the model here):
    >>> import numpy as np
    >>> class Model:
    ...     runs = 0
    ...     def predict(self, pairs, *, batch_size=None, show_progress_bar=False):
    ...         self.runs += len(pairs)
    ...         return np.array([[0.8, 0.1, 0.1]] * len(pairs), dtype=np.float32)
    >>> nli = CachedNLI(Model())
    >>> nli.predict([("P.", "H."), ("P.", "H.")]).shape, nli.computed
    ((2, 3), 1)
    >>> _ = nli.predict([("P.", "H.")]); nli.nli.runs
    1
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nli_faith.errors import E_OPTION_TYPE, OptionError


def pair_key(premise: str, hypothesis: str) -> bytes:
    """The 16-byte digest a pair is kept under (the premise's length is hashed too, so that
    moving text from premise to hypothesis gives another key)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(str(len(premise)).encode())
    h.update(b":")
    h.update(premise.encode("utf-8", "surrogatepass"))
    h.update(hypothesis.encode("utf-8", "surrogatepass"))
    return h.digest()


class CachedNLI:
    """Wraps an NLI model (an :class:`~nli_faith.nli.model.NLIModel`, or anything with its
    ``predict``); ``predict`` only runs the pairs it has not seen.

    Any other attribute (``tokenizer``, ``max_length``, ``count_tokens``...) is the wrapped
    model's, so the wrapper can stand in for ``FaithfulnessScorer.nli``.

    Args:
        nli: the model to wrap.
        sample_rate: share (0 to 1) of the distinct pairs whose texts are also kept in
            ``self.sample`` (chosen by their digest, so the sample is deterministic), e.g.
            to run the very pairs a run used on another backend.

    Attributes:
        computed: distinct pairs run through the model.
        requested: free for the caller to count the pairs it asked for.
    """

    def __init__(self, nli: Any, *, sample_rate: float = 0.0) -> None:
        if (
            isinstance(sample_rate, bool)
            or not isinstance(sample_rate, (int, float))
            or not 0.0 <= sample_rate <= 1.0
        ):
            raise OptionError(
                E_OPTION_TYPE.format(
                    name="sample_rate", expected="a number from 0 to 1", value=sample_rate
                )
            )
        self.nli = nli
        self._store: dict[bytes, np.ndarray] = {}
        self._sample_below = int(round(256 * sample_rate))
        self.sample: list[tuple[str, str]] = []
        self.computed = 0
        self.requested = 0

    def __getattr__(self, name: str) -> Any:
        if name == "nli":  # not set yet (during unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.nli, name)

    def __len__(self) -> int:
        return len(self._store)

    def save(self, path: str | Path) -> None:
        """Write the computed pairs to ``path`` (``.npz``: digests and probabilities)."""
        keys = np.frombuffer(b"".join(self._store), dtype=np.uint8).reshape(-1, 16)
        probs = np.stack(list(self._store.values())) if self._store else np.zeros((0, 3))
        np.savez(path, keys=keys, probs=probs)

    def load(self, path: str | Path) -> int:
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
        """Probabilities of ``pairs``, shape ``(n, 3)``, as the wrapped model gives them; only
        the pairs not seen before are run (each once, in one call)."""
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
                self._store[k] = np.array(row, dtype=np.float32)
                if k[0] < self._sample_below:
                    self.sample.append(pair)
            self.computed += len(todo)
        if not keys:
            return np.zeros((0, 3), dtype=np.float32)
        return np.stack([self._store[k] for k in keys])
