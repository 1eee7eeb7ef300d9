"""Prototypes of cheaper candidate pre-filters, measured beside the library's (sections 3, 5).

NOT library code: it plugs into ``FaithfulnessScorer.prefilter`` (which only needs
``select(claims, chunks) -> bool mask``) to show what a change to
``nli_faith/prefilter.py`` would buy. Differences from ``ChunkPrefilter``:

* only "atomic" chunks (those that contain no other chunk: the sentence chunks when
  ``sentence_chunks=True``) go through the bi-encoder; a window chunk takes the best
  similarity of the sentences it contains. Windows are long (up to 256 tokens) and, in one
  padded batch with the short claims, made the bi-encoder cost as much as the NLI pass;
* batches of 8 (sentence-transformers sorts by length), so little padding;
* optional bfloat16 weights for the bi-encoder (CPUs with AVX512-BF16 / AMX).

Top-k and the number/name anchors are the library's own functions, unchanged.

``LexicalPrefilter`` goes further and uses no model at all (IDF-weighted content-word
coverage of the claim), for the latency budget of a guardrail.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class ProtoPrefilter:
    def __init__(self, *, top_k: int = 3, dtype: str | None = "bfloat16", batch_size: int = 8):
        from nli_faith.prefilter import default_embedder_path

        self.top_k = top_k
        self.model_name = default_embedder_path()
        self.dtype = dtype
        self.batch_size = batch_size
        self._model = None

    def _encoder(self):
        if self._model is None:
            import torch
            from sentence_transformers import SentenceTransformer

            model = SentenceTransformer(self.model_name, device="cpu")
            if self.dtype:
                model = model.to(getattr(torch, self.dtype))
            self._model = model
        return self._model

    @staticmethod
    def atoms(chunks: Sequence[str]) -> list[list[int]]:
        """For each chunk, the indices of the atomic chunks it contains (itself if atomic)."""
        order = sorted(range(len(chunks)), key=lambda j: len(chunks[j]))
        atomic: list[int] = []
        members: list[list[int]] = [[] for _ in chunks]
        for j in order:
            inside = [
                a for a in atomic if len(chunks[a]) < len(chunks[j]) and chunks[a] in chunks[j]
            ]
            if inside:
                members[j] = inside
            else:
                atomic.append(j)
                members[j] = [j]
        return members

    def select(self, claims: Sequence[str], chunks: Sequence[str]) -> np.ndarray:
        from nli_faith.prefilter import anchor_mask, top_k_mask

        if len(chunks) <= self.top_k:
            return np.ones((len(claims), len(chunks)), dtype=bool)
        members = self.atoms(chunks)
        atomic = sorted({a for m in members for a in m})
        pos = {a: i for i, a in enumerate(atomic)}
        emb = (
            self._encoder()
            .encode(
                list(claims) + [chunks[a] for a in atomic],
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
            )
            .astype(np.float32)
        )
        sim_atoms = emb[: len(claims)] @ emb[len(claims) :].T
        sim = np.stack([sim_atoms[:, [pos[a] for a in m]].max(axis=1) for m in members], axis=1)
        return top_k_mask(sim, self.top_k) | anchor_mask(claims, chunks)


class LexicalPrefilter:
    """Prototype pre-filter with no model at all: the ``top_k`` chunks whose content words
    cover the most of the claim's (IDF-weighted over this request's chunks), plus the
    library's number/name anchors. Uses ``nli_faith.lexical.content_words`` when the
    library has it (spaCy's stop-word list), else a plain word split."""

    def __init__(self, *, top_k: int = 3) -> None:
        self.top_k = top_k

    @staticmethod
    def _words(text: str) -> set[str]:
        try:
            from nli_faith.lexical import content_words
        except ImportError:  # older library
            import re

            return {w for w in re.findall(r"[^\W_]+", text.lower()) if len(w) > 3}
        return content_words(text)

    def select(self, claims: Sequence[str], chunks: Sequence[str]) -> np.ndarray:
        from nli_faith.prefilter import anchor_mask, top_k_mask

        if len(chunks) <= self.top_k:
            return np.ones((len(claims), len(chunks)), dtype=bool)
        chunk_words = [self._words(c) for c in chunks]
        df: dict[str, int] = {}
        for ws in chunk_words:
            for w in ws:
                df[w] = df.get(w, 0) + 1
        n = len(chunks)
        sim = np.zeros((len(claims), n), dtype=np.float32)
        for i, claim in enumerate(claims):
            idf = {w: float(np.log((n + 1) / (df.get(w, 0) + 0.5))) for w in self._words(claim)}
            total = sum(idf.values()) or 1.0
            for j, ws in enumerate(chunk_words):
                # coverage of the claim, with a small preference for shorter chunks on ties
                sim[i, j] = sum(v for w, v in idf.items() if w in ws) / total - 1e-6 * len(ws)
        return top_k_mask(sim, self.top_k) | anchor_mask(claims, chunks)
