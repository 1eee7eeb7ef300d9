"""Fast rule-based sentence segmentation for LLM answers and retrieved contexts.

The segmenter is spaCy's blank English tokenizer plus the ``sentencizer`` component
(no statistical model), followed by a few character-level rules that fix what the
sentencizer gets wrong on Markdown-heavy LLM output:

* line structure (:mod:`nli_faith.text.line_structure`): blank lines, Markdown list
  items, headings, tables, block quotes and rules start a new segment; a hard-wrapped
  line that continues a sentence does not;
* fenced code blocks (```` ``` ````) are one segment and are never split inside;
  inline code spans (`` `like. this` ``) are never split inside;
* citation markers after the full stop (``"...two years.[1][2] Next"``) stay with the
  sentence they follow;
* a boundary after an abbreviation the tokenizer does not know ("No. 5", "approx. 20",
  "etc. are"; the tables are in :mod:`nli_faith.text.sentence_tables`) or before a
  lowercase word is undone; a lone list number ("1.") is glued to its item; an opening
  bracket or quote moves to the sentence it opens;
* CJK full stops split sentences even without a following space.

Decimals, currency and versions ("3.5%", "$1,200.50", "v2.0") and most common
abbreviations ("e.g.", "i.e.", "U.S.", "Dr.", "Mr.", "vs.", "Inc.") are already single
tokens for spaCy's English tokenizer, so the sentencizer never splits them.

Example:
    >>> text = "Prices rose 3.5% in the U.S. last year.[1] Dr. Smith disagrees."
    >>> [text[s:e] for s, e in sentence_spans(text)]
    ['Prices rose 3.5% in the U.S. last year.[1]', 'Dr. Smith disagrees.']
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

# The rule tables and the line rules have modules of their own; their names stay
# importable from here.
from nli_faith.text.line_structure import WRAP_WIDTH as WRAP_WIDTH
from nli_faith.text.line_structure import line_kind as line_kind
from nli_faith.text.line_structure import structure
from nli_faith.text.sentence_tables import ABBREVIATIONS, CITATION_PATTERN, TITLE_ABBREVIATIONS
from nli_faith.text.sentence_tables import CITATION_RE as CITATION_RE
from nli_faith.text.sentence_tables import LIST_ITEM_PATTERN as LIST_ITEM_PATTERN

if TYPE_CHECKING:  # pragma: no cover
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = ["Span", "sentence_spans", "sentence_spans_many"]

Span = tuple[int, int]

#: Citation markers right after a sentence end, not split off by the tokenizer
#: ("years.[1][2] It"); the boundary goes after the markers.
_CITE_AFTER_END_RE = re.compile(
    r"[.!?][\"'\u201d\u2019)*_]*(?:[ \t]?" + CITATION_PATTERN + r")+(?=\s|$)"
)
_LEADING_CITES_RE = re.compile(r"(?:[ \t]*" + CITATION_PATTERN + r")+")
#: CJK sentence ends, which need no following space.
_CJK_END_RE = re.compile(
    r"[\u3002\uff01\uff1f\uff0e]+[\u300d\u300f\u201d\u2019\uff09)\]\u3011]*"
    r"(?=[^\s\u300d\u300f\u201d\u2019\uff09)\]\u3011\u3002\uff01\uff1f\uff0e])"
)
_CJK_CHARS = ("\u3002", "\uff01", "\uff1f", "\uff0e")
#: An opening bracket/quote the sentencizer left at the end of the previous sentence.
_DANGLING_OPENER_RE = re.compile(
    r"[.!?\u2026][\"'\u201d\u2019)\]*_]*\s+([(\[{\u201c\u2018\"'\u00bf\u00a1*_`]+)\s*$"
)
_ABBR_END_RE = re.compile(r"(?<![\w.])([A-Za-z]{1,6})\.$")
_WINDOW = 64  # characters before a boundary that the fix-up rules look at
_INLINE_ITEM_RE = re.compile(r"[:;]\s+(\d{1,3}[.)])$")
_MARKER_ONLY_RE = re.compile(r"(?:\d{1,3}|[A-Za-z])[.)]|[-*+\u2022]")


# --------------------------------------------------------------------------- spaCy object


@lru_cache(maxsize=1)
def _nlp() -> Language:
    """The shared blank English pipeline with a sentencizer (built once, lazily)."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.max_length = 100_000_000  # tokenizer + sentencizer only: long texts are fine
    return nlp


# --------------------------------------------------------------------------- public API


def sentence_spans(text: str) -> list[Span]:
    """Character spans ``(start, end)`` of the sentences of ``text``.

    Spans are whitespace-trimmed, sorted and disjoint, and every non-whitespace
    character of ``text`` lies inside one of them.

    Example:
        >>> text = "- First item\\n- Second item costs $1,200.50. It ships e.g. today."
        >>> [text[s:e] for s, e in sentence_spans(text)]
        ['- First item', '- Second item costs $1,200.50.', 'It ships e.g. today.']
    """
    if not text or text.isspace():
        return []
    return _spans_from_doc(text, _nlp()(text))


def sentence_spans_many(
    texts: Iterable[str], *, batch_size: int = 256, n_process: int = 1
) -> list[list[Span]]:
    """:func:`sentence_spans` for many texts at once, through ``nlp.pipe``.

    Example:
        >>> sentence_spans_many(["One. Two.", "", "Three"])
        [[(0, 4), (5, 9)], [], [(0, 5)]]
    """
    texts = list(texts)
    out: list[list[Span]] = [[] for _ in texts]
    todo = [i for i, t in enumerate(texts) if t and not t.isspace()]
    if not todo:
        return out
    docs = _nlp().pipe((texts[i] for i in todo), batch_size=batch_size, n_process=n_process)
    for i, doc in zip(todo, docs, strict=True):
        out[i] = _spans_from_doc(texts[i], doc)
    return out


# --------------------------------------------------------------------------- internals


def _spans_from_doc(text: str, doc: Doc) -> list[Span]:
    """Combine the sentencizer's boundaries with the structural and fix-up rules."""
    forced, protected = structure(text)
    inside = _Ranges(protected)
    candidates = [sent.start_char for sent in doc.sents][1:]
    candidates.extend(_regex_boundaries(text))
    events = sorted([(b, True) for b in forced] + [(b, False) for b in candidates])

    bounds = [0]
    for b, is_forced in events:
        prev = bounds[-1]
        if not is_forced:
            if inside(b):
                continue
            b = _adjust(text, prev, b)
            if b is None or inside(b):
                continue
        if b > prev:
            bounds.append(b)
    bounds.append(len(text))
    return _trimmed(text, bounds)


class _Ranges:
    """Membership test "strictly inside one of these ranges", in O(log n)."""

    def __init__(self, ranges: list[Span]) -> None:
        merged: list[list[int]] = []
        for a, e in sorted(ranges):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([a, e])
        self._starts = [a for a, _ in merged]
        self._ends = [e for _, e in merged]

    def __call__(self, b: int) -> bool:
        i = bisect_left(self._starts, b) - 1
        return i >= 0 and b < self._ends[i]


def _regex_boundaries(text: str) -> list[int]:
    """Boundaries the tokenizer cannot see: after glued citations and CJK full stops."""
    found: list[int] = []
    if "[" in text or "\u3010" in text:
        found.extend(m.end() for m in _CITE_AFTER_END_RE.finditer(text))
    if any(c in text for c in _CJK_CHARS):
        found.extend(m.end() for m in _CJK_END_RE.finditer(text))
    return found


def _adjust(text: str, prev: int, b: int) -> int | None:
    """Move or veto a sentencizer boundary ``b``; ``prev`` is the last boundary kept.

    Only a short window before ``b`` is looked at, so long runs of vetoed boundaries
    stay linear.
    """
    opener = _DANGLING_OPENER_RE.search(text, max(prev, b - _WINDOW), b)
    if opener:  # "... left. (See above.)": the bracket opens the next sentence
        b = opener.start(1)
    cites = _LEADING_CITES_RE.match(text, b)
    if cites:  # "... free. [3] Next": the marker belongs to the sentence before
        b = cites.end()
    lo = max(prev, b - _WINDOW)
    tail = text[lo:b].rstrip()
    if not tail:
        return b
    if b - prev <= 12 and _MARKER_ONLY_RE.fullmatch(tail.lstrip()):  # "1." | "The item"
        return None
    inline_item = _INLINE_ITEM_RE.search(tail)
    if inline_item:  # "The steps are: 1." | "Open it." -> "The steps are:" | "1. Open it."
        return lo + inline_item.start(1)
    if tail.endswith(".") and _continues_after_period(tail, text[b : b + 8].lstrip()[:2]):
        return None
    return b


def _continues_after_period(tail: str, nxt: str) -> bool:
    """Does the segment ending in ``tail`` (ends with '.') go on into ``nxt``?"""
    if not nxt:
        return False
    m = _ABBR_END_RE.search(tail)
    if m:
        word = m.group(1)
        if word in TITLE_ABBREVIATIONS:
            return True
        if word in ABBREVIATIONS and (nxt[0].isdigit() or nxt[0].islower()):
            return True
    # a sentence does not start with a lowercase word ("iPhone" excepted)
    return nxt[0].islower() and not (len(nxt) > 1 and nxt[1].isupper())


def _trimmed(text: str, bounds: list[int]) -> list[Span]:
    spans: list[Span] = []
    for s, e in zip(bounds, bounds[1:], strict=False):
        seg = text[s:e]
        left = len(seg) - len(seg.lstrip())
        right = len(seg.rstrip())
        if right > left:
            spans.append((s + left, s + right))
    return spans
