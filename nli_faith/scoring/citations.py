"""Citation checks: do a claim's cited documents support it? Pure functions.

For a claim that cites documents (see :mod:`nli_faith.text.citations`), the chunks
that support it (entailment at the threshold, past the same gates as its verdict)
decide:

* ``"supported"``: a chunk lying wholly in cited documents supports it;
* ``"misattributed"``: only chunks of uncited documents support it (the claim is
  right, its citation is wrong);
* ``"unsupported"``: no chunk supports it.

A composite chunk lies in every document it joins sentences from.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nli_faith.nli.labels import ENTAIL_IDX
from nli_faith.text.chunking import Chunk


def chunk_documents_of(chunk: Chunk) -> frozenset[int]:
    """The documents a chunk lies in (several for a composite)."""
    if chunk.parts:
        return frozenset(p.doc_index for p in chunk.parts)
    return frozenset({chunk.doc_index})


def citation_status(supporting: Sequence[frozenset[int]], cited: frozenset[int]) -> str:
    """``"supported"``, ``"misattributed"`` or ``"unsupported"`` for one cited claim.

    ``supporting`` holds the documents of each chunk that supports the claim.

    Example:
        >>> citation_status([frozenset({2})], frozenset({0}))
        'misattributed'
        >>> citation_status([frozenset({2}), frozenset({0, 1})], frozenset({0, 1}))
        'supported'
        >>> citation_status([], frozenset({0}))
        'unsupported'
    """
    if any(docs <= cited for docs in supporting):
        return "supported"
    return "misattributed" if supporting else "unsupported"


def supporting_mask(
    probs: np.ndarray,
    *,
    mask: np.ndarray,
    support_mask: np.ndarray | None,
    entail_threshold: float,
) -> np.ndarray:
    """``(claims, chunks)`` bool: the scored pairs whose chunk supports the claim.

    Example:
        >>> probs = np.array([[[0.9, 0.05, 0.05], [0.2, 0.7, 0.1]]])
        >>> supporting_mask(probs, mask=np.ones((1, 2), bool), support_mask=None,
        ...                 entail_threshold=0.5).tolist()
        [[True, False]]
    """
    ok = mask & (probs[..., ENTAIL_IDX] >= entail_threshold)
    return ok if support_mask is None else ok & support_mask


def cited_chunks_mask(
    cited: Sequence[frozenset[int] | None], chunks: Sequence[Chunk]
) -> np.ndarray:
    """``(claims, chunks)`` bool: chunks inside the claim's cited documents (all, if it cites none).

    Example:
        >>> ch = [Chunk("a", 0, 0, 1), Chunk("b", 1, 0, 1)]
        >>> cited_chunks_mask([frozenset({1}), None], ch).tolist()
        [[False, True], [True, True]]
    """
    docs = [chunk_documents_of(c) for c in chunks]
    mask = np.ones((len(cited), len(chunks)), dtype=bool)
    for i, c in enumerate(cited):
        if c is not None:
            mask[i] = [d <= c for d in docs]
    return mask


def citation_statuses(
    supporting: np.ndarray,
    cited: Sequence[frozenset[int] | None],
    chunks: Sequence[Chunk],
) -> list[str | None]:
    """:func:`citation_status` of every claim (None for a claim that cites nothing)."""
    docs = [chunk_documents_of(c) for c in chunks]
    out: list[str | None] = []
    for i, c in enumerate(cited):
        if c is None:
            out.append(None)
        else:
            out.append(citation_status([docs[j] for j in np.flatnonzero(supporting[i])], c))
    return out


def explain_citations(statuses: Sequence[str | None], claims: Sequence[str]) -> str:
    """A sentence on misattributed citations for the result's reason ("" when none).

    Example:
        >>> explain_citations(["supported", "misattributed"], ["A.", "B."])
        '1 of 2 cited claims cite the wrong document: only an uncited one supports "B.".'
    """
    cited = [i for i, s in enumerate(statuses) if s is not None]
    wrong = [i for i in cited if statuses[i] == "misattributed"]
    if not wrong:
        return ""
    shown = "; ".join(f'"{claims[i]}"' for i in wrong[:2])
    more = f" and {len(wrong) - 2} more" if len(wrong) > 2 else ""
    return (
        f"{len(wrong)} of {len(cited)} cited claims cite the wrong document: "
        f"only an uncited one supports {shown}{more}."
    )
