"""Context chunking: sentence windows that fit the model, with nothing silently truncated.

Each document is cut into windows of whole sentences whose token count fits
the budget (the model's limit less the claim and special tokens), with an
overlap of ``overlap`` sentences between neighbours. A sentence longer than
the budget is itself split at token boundaries, and a warning is logged.
Every chunk keeps its document index and its character span, so that
``docs[c.doc_index][c.start:c.end] == c.text`` for prose; structured data (JSON, tables,
CSV, ``key: value`` lines) is read as short statements (:mod:`nli_faith.text.structured`)
whose ``text`` is what the model reads while the span points at the original data.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from nli_faith.text.lexical import content_words
from nli_faith.text.line_structure import line_kind
from nli_faith.text.sentences import sentence_spans_many
from nli_faith.text.structured import StructuredBlock, structured_blocks

logger = logging.getLogger(__name__)

#: ``count(texts) -> token counts`` (no special tokens).
CountTokens = Callable[[list[str]], list[int]]
#: ``offsets(text) -> [(start, end), ...]`` character span of each token.
TokenOffsets = Callable[[str], list[tuple[int, int]]]


@dataclass(frozen=True)
class Chunk:
    """A window of consecutive sentences of one document.

    A *composite* chunk (see :mod:`nli_faith.scoring.composite`) joins sentences from
    anywhere in the context: ``parts`` lists them in document order, and ``doc_index``,
    ``start``, ``end`` are those of its main (best-ranked) sentence. Ordinary chunks
    have no parts.
    """

    text: str
    doc_index: int
    start: int
    end: int
    parts: tuple[Chunk, ...] = field(default=(), repr=False)


@dataclass(frozen=True)
class _Unit:
    """A sentence, a piece of one, or a statement read from structured data."""

    text: str
    start: int
    end: int
    verbatim: bool  # text == doc[start:end]
    part: bool = False  # a field of a record: a chunk of its own, not in windows
    heading: str = ""  # the section heading, prefixed when the unit is a chunk alone

    @property
    def alone(self) -> str:
        """The text of this unit as a chunk of its own."""
        return f"{self.heading}: {self.text}" if self.heading else self.text


def _units(doc: str, spans: Sequence[tuple[int, int]], structured: bool) -> list[_Unit]:
    """Sentences, with structured blocks (JSON, tables...) replaced by their statements."""
    blocks = structured_blocks(doc) if structured else ()
    if not blocks:
        return [_Unit(doc[s:e], s, e, True) for s, e in spans]
    units: list[_Unit] = []
    for s, e in spans:
        for a, b in _outside(s, e, blocks):
            piece = doc[a:b]
            if any(ch.isalnum() for ch in piece):
                a += len(piece) - len(piece.lstrip())
                b -= len(piece) - len(piece.rstrip())
                units.append(_Unit(doc[a:b], a, b, True))
    for block in blocks:
        units.extend(_Unit(st.text, st.start, st.end, False, st.part) for st in block.statements)
    units.sort(key=lambda u: (u.start, u.part, -u.end))
    return units


_HEADING_MARKS_RE = re.compile(r"^[ \t]*#{1,6}[ \t]*|[ \t]+#+[ \t]*$|\*\*|__|:[ \t]*$")


def _with_headings(doc: str, units: list[_Unit]) -> list[_Unit]:
    """Give each sentence the Markdown heading of its section, where the sentence shares
    no content word with it ("## Gold tier" / "The annual fee is $120.")."""
    if "#" not in doc and "**" not in doc and "__" not in doc:
        return units
    headings: list[tuple[int, int, str]] = []
    pos = 0
    for line in doc.split("\n"):
        if line_kind(line) == "heading":
            title = _HEADING_MARKS_RE.sub("", line).strip()
            if title:
                headings.append((pos, pos + len(line), title))
        pos += len(line) + 1
    if not headings:
        return units
    ends = [e for _, e, _ in headings]
    out = []
    for u in units:
        k = bisect_right(ends, u.start) - 1
        if k >= 0 and u.verbatim and line_kind(u.text) != "heading":
            title = headings[k][2]
            words = content_words(title)
            if words and not words & content_words(u.text):
                u = _Unit(u.text, u.start, u.end, u.verbatim, u.part, title)
        out.append(u)
    return out


def _outside(s: int, e: int, blocks: Sequence[StructuredBlock]) -> list[tuple[int, int]]:
    """The parts of ``[s, e)`` that no block covers."""
    out, pos = [], s
    for block in blocks:
        if block.end <= pos or block.start >= e:
            continue
        if block.start > pos:
            out.append((pos, block.start))
        pos = max(pos, block.end)
    if pos < e:
        out.append((pos, e))
    return out


def _split_long(
    unit: _Unit, budget: int, offsets: TokenOffsets, count_tokens: CountTokens | None = None
) -> list[_Unit]:
    """Cut one over-long unit into pieces of at most ``budget`` tokens.

    With ``count_tokens``, a piece whose own tokenization comes out longer than its slice
    of the unit's tokens ("##ing" is one token, "ing" alone may be two) is cut again.
    """
    toks = [(s, e) for s, e in offsets(unit.text) if e > s]
    pieces = []
    for i in range(0, len(toks), budget):
        a, b = toks[i : i + budget][0][0], toks[i : i + budget][-1][1]
        if unit.verbatim:
            pieces.append(
                _Unit(unit.text[a:b], unit.start + a, unit.start + b, True, heading=unit.heading)
            )
        else:  # a linearised statement: every piece points at the whole source span
            pieces.append(_Unit(unit.text[a:b], unit.start, unit.end, False, unit.part))
    if count_tokens is None or not pieces:
        return pieces or [unit]
    out = []
    for piece, n in zip(pieces, count_tokens([p.text for p in pieces])):
        if n <= budget or len(piece.text) <= 1:
            out.append(piece)
        else:
            out.extend(_split_long(piece, max(1, budget - (n - budget)), offsets, count_tokens))
    return out


def _window_text(doc: str, window: Sequence[_Unit]) -> str:
    if all(u.verbatim for u in window):
        return doc[window[0].start : window[-1].end]
    return " ".join(u.text for u in window)


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
    structured: bool = True,
) -> list[Chunk]:
    """Windows over one document's sentence ``spans`` (from :mod:`nli_faith.text.sentences`).

    With ``sentences=True`` every sentence is also a chunk of its own, so that
    a claim resting on one sentence is judged against that sentence alone
    (a small NLI model is most reliable on short premises), while the windows
    still serve claims that need several sentences.

    With ``structured=True`` (default) JSON, tables, CSV and ``key: value`` blocks are
    read as the short statements of :mod:`nli_faith.text.structured`: such a chunk's
    ``text`` is the statement the model reads, and ``doc[start:end]`` the data it was
    read from. A single field of a record is a chunk of its own (with
    ``sentences=True``) but is not repeated inside windows.

    Under a Markdown heading, a sentence's own chunk reads ``"{heading}: {sentence}"``
    when the sentence shares no content word with the heading; its span stays on the
    sentence.
    """
    if budget < 1:
        raise ValueError(f"chunk budget must be at least 1 token, got {budget}")
    raw = _with_headings(doc, _units(doc, spans, structured))
    units: list[_Unit] = []
    sizes: list[int] = []
    counts = count_tokens([u.text for u in raw]) if raw else []
    for u, n in zip(raw, counts):
        if n <= budget:
            units.append(u)
            sizes.append(n)
            continue
        logger.warning(
            "document %d: a sentence of %d tokens exceeds the %d-token chunk budget; "
            "it is split into pieces (chars %d-%d).",
            doc_index,
            n,
            budget,
            u.start,
            u.end,
        )
        pieces = _split_long(u, budget, token_offsets, count_tokens)
        units.extend(pieces)
        sizes.extend(count_tokens([p.text for p in pieces]))
    chunks: list[Chunk] = []
    if sentences and len(units) > 1:
        headed = [k for k, u in enumerate(units) if u.heading]
        fits = dict(zip(headed, count_tokens([units[k].alone for k in headed]))) if headed else {}
        chunks.extend(
            Chunk(u.alone if fits.get(k, 0) <= budget else u.text, doc_index, u.start, u.end)
            for k, u in enumerate(units)
        )
    parts = [u.part for u in units]
    sizes = [n for n, part in zip(sizes, parts) if not part]
    units = [u for u in units if not u.part]
    i = 0
    while i < len(units):
        j, total = i, 0
        while j < len(units) and (j == i or total + sizes[j] <= budget):
            total += sizes[j]
            j += 1
        # Sentences joined can tokenize a little longer than apart: check the window itself.
        while j - i > 1 and count_tokens([_window_text(doc, units[i:j])])[0] > budget:
            j -= 1
        window = units[i:j]
        if not (sentences and j - i == 1 and len(parts) > 1):  # already a sentence chunk
            chunks.append(
                Chunk(_window_text(doc, window), doc_index, window[0].start, window[-1].end)
            )
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
    structured: bool = True,
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
                structured=structured,
            )
        )
    return out


def sentence_members(chunks: Sequence[Chunk]) -> list[list[int]]:
    """For each chunk, the indices of the single-sentence chunks inside its span.

    A chunk that contains no smaller chunk of its document is its own member, and so
    is a composite chunk (which is never a member of another).
    """
    by_doc: dict[int, list[int]] = {}
    for j, c in enumerate(chunks):
        if not c.parts:
            by_doc.setdefault(c.doc_index, []).append(j)
    members: list[list[int]] = []
    for j, c in enumerate(chunks):
        if c.parts:
            members.append([j])
            continue
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
