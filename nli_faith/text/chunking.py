"""Context chunking: sentence windows that fit the model, with nothing silently truncated.

Each document is cut into windows of whole sentences whose token count fits
the budget (the model's limit less the claim and special tokens), with an
overlap of ``overlap`` sentences between neighbours. A sentence longer than
the budget is itself split at token boundaries, and a warning is logged.
Every chunk keeps its document index and its character span, so that
``docs[c.doc_index][c.start:c.end] == c.text``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nli_faith.text.sentences import sentence_spans_many

logger = logging.getLogger(__name__)

#: ``count(texts) -> token counts`` (no special tokens).
CountTokens = Callable[[list[str]], list[int]]
#: ``offsets(text) -> [(start, end), ...]`` character span of each token.
TokenOffsets = Callable[[str], list[tuple[int, int]]]


@dataclass(frozen=True)
class Chunk:
    """A window of consecutive sentences of one document."""

    text: str
    doc_index: int
    start: int
    end: int


def _split_long(
    doc: str,
    start: int,
    end: int,
    budget: int,
    offsets: TokenOffsets,
    count_tokens: CountTokens | None = None,
) -> list[tuple[int, int]]:
    """Cut one over-long sentence into pieces of at most ``budget`` tokens.

    With ``count_tokens``, a piece whose own tokenization comes out longer than its slice
    of the sentence's tokens ("##ing" is one token, "ing" alone may be two) is cut again.
    """
    toks = [(start + s, start + e) for s, e in offsets(doc[start:end]) if e > s]
    pieces = []
    for i in range(0, len(toks), budget):
        part = toks[i : i + budget]
        pieces.append((part[0][0], part[-1][1]))
    if count_tokens is None or not pieces:
        return pieces or [(start, end)]
    out = []
    for (a, b), n in zip(pieces, count_tokens([doc[a:b] for a, b in pieces])):
        if n <= budget or b - a <= 1:
            out.append((a, b))
        else:
            out.extend(_split_long(doc, a, b, max(1, budget - (n - budget)), offsets, count_tokens))
    return out


def chunk_document(
    doc: str,
    spans: Sequence[tuple[int, int]],
    *,
    doc_index: int,
    budget: int,
    count_tokens: CountTokens,
    token_offsets: TokenOffsets,
    overlap: int = 1,
    sentences: bool = True,
) -> list[Chunk]:
    """Windows over one document's sentence ``spans`` (from :mod:`nli_faith.text.sentences`).

    With ``sentences=True`` every sentence is also a chunk of its own, so that
    a claim resting on one sentence is judged against that sentence alone
    (a small NLI model is most reliable on short premises), while the windows
    still serve claims that need several sentences.
    """
    if budget < 1:
        raise ValueError(f"chunk budget must be at least 1 token, got {budget}")
    units: list[tuple[int, int]] = []
    sizes: list[int] = []
    counts = count_tokens([doc[s:e] for s, e in spans]) if spans else []
    for (s, e), n in zip(spans, counts):
        if n <= budget:
            units.append((s, e))
            sizes.append(n)
            continue
        logger.warning(
            "document %d: a sentence of %d tokens exceeds the %d-token chunk budget; "
            "it is split into pieces (chars %d-%d).",
            doc_index,
            n,
            budget,
            s,
            e,
        )
        pieces = _split_long(doc, s, e, budget, token_offsets, count_tokens)
        units.extend(pieces)
        sizes.extend(count_tokens([doc[a:b] for a, b in pieces]))
    chunks: list[Chunk] = []
    if sentences and len(units) > 1:
        chunks.extend(Chunk(doc[s:e], doc_index, s, e) for s, e in units)
    i = 0
    while i < len(units):
        j, total = i, 0
        while j < len(units) and (j == i or total + sizes[j] <= budget):
            total += sizes[j]
            j += 1
        # Sentences joined can tokenize a little longer than apart: check the window itself.
        while j - i > 1 and count_tokens([doc[units[i][0] : units[j - 1][1]]])[0] > budget:
            j -= 1
        start, end = units[i][0], units[j - 1][1]
        if not (sentences and j - i == 1 and len(units) > 1):  # already a sentence chunk
            chunks.append(Chunk(doc[start:end], doc_index, start, end))
        if j >= len(units):
            break
        i = max(i + 1, j - overlap)
    return chunks


def chunk_documents(
    docs: Sequence[str],
    *,
    budget: int,
    count_tokens: CountTokens,
    token_offsets: TokenOffsets,
    overlap: int = 1,
    sentences: bool = True,
) -> list[Chunk]:
    """Chunk every document; the result is flat, in document order."""
    all_spans = sentence_spans_many(list(docs))
    out: list[Chunk] = []
    for k, (doc, spans) in enumerate(zip(docs, all_spans)):
        out.extend(
            chunk_document(
                doc,
                spans,
                doc_index=k,
                budget=budget,
                count_tokens=count_tokens,
                token_offsets=token_offsets,
                overlap=overlap,
                sentences=sentences,
            )
        )
    return out


def sentence_members(chunks: Sequence[Chunk]) -> list[list[int]]:
    """For each chunk, the indices of the single-sentence chunks inside its span.

    A chunk that contains no smaller chunk of its document is its own member.
    """
    by_doc: dict[int, list[int]] = {}
    for j, c in enumerate(chunks):
        by_doc.setdefault(c.doc_index, []).append(j)
    members: list[list[int]] = []
    for j, c in enumerate(chunks):
        inside = [
            k
            for k in by_doc[c.doc_index]
            if k != j
            and c.start <= chunks[k].start
            and chunks[k].end <= c.end
            and (chunks[k].start, chunks[k].end) != (c.start, c.end)
        ]
        members.append(inside or [j])
    return members
