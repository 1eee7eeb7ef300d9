"""Fast rule-based sentence segmentation for LLM answers and retrieved contexts.

The segmenter is spaCy's blank English tokenizer plus the ``sentencizer`` component
(no statistical model), followed by a few character-level rules that fix what the
sentencizer gets wrong on Markdown-heavy LLM output:

* line structure: blank lines, Markdown list items, headings, tables, block quotes and
  rules start a new segment; a hard-wrapped line that continues a sentence does not;
* fenced code blocks (```` ``` ````) are one segment and are never split inside;
  inline code spans (`` `like. this` ``) are never split inside;
* citation markers after the full stop (``"...two years.[1][2] Next"``) stay with the
  sentence they follow;
* a boundary after an abbreviation the tokenizer does not know ("No. 5", "approx. 20",
  "etc. are") or before a lowercase word is undone; a lone list number ("1.") is
  glued to its item; an opening bracket or quote moves to the sentence it opens;
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

if TYPE_CHECKING:  # pragma: no cover
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = [
    "ABBREVIATIONS",
    "CITATION_PATTERN",
    "CITATION_RE",
    "LIST_ITEM_PATTERN",
    "TITLE_ABBREVIATIONS",
    "WRAP_WIDTH",
    "Span",
    "line_kind",
    "sentence_spans",
    "sentence_spans_many",
]

Span = tuple[int, int]

# --------------------------------------------------------------------------- rule tables

#: One citation marker: ``[1]``, ``[1, 2]``, ``[1-3]``, ``[^1]``, ``[doc2]``, ``[Source 3]``
#: and the ``【4†source】`` markers some chat UIs emit.
CITATION_PATTERN = (
    r"(?:\[\^?(?:[A-Za-z]{1,10}[ _-]?)?\d{1,4}"
    r"(?:\s*[,;\u2013-]\s*\^?(?:[A-Za-z]{1,10}[ _-]?)?\d{1,4})*\]"
    r"|\u3010[^\u3011\n]{1,40}\u3011)"
)
CITATION_RE = re.compile(CITATION_PATTERN)

#: Abbreviations whose trailing period the tokenizer splits off (so the sentencizer
#: ends a sentence there) but which usually continue the sentence when the next word
#: starts with a digit or a lowercase letter: "No. 5", "Fig. 3", "approx. 20 units",
#: "apples, pears, etc. are fruit". Before a capitalised word they may end a sentence
#: ("..., pears, etc. The next ...") and are left alone. spaCy itself already keeps
#: "e.g.", "i.e.", "U.S.", "vs.", "Inc.", "Dr." etc. as single tokens.
ABBREVIATIONS = frozenset(
    (
        "No Nos Nr no nos Fig Figs fig figs Eq Eqs eq Ref Refs ref Vol vol Vols vols "
        "Ch ch Chap Sec sec Sect Art art Para para p pp P Pp approx Approx ca Ca cf Cf "
        "al etc incl Incl excl Excl est Est min max Tel tel Ex ex vs v op Op resp Resp "
        "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Jr Sr Inc Ltd Co Corp Bros "
        "ed eds Ed Eds rev Rev trans dept Dept Univ univ Assn Ave Blvd Rd hr hrs sq"
    ).split()
)

#: Titles: a boundary right after one is always undone, a name follows ("Prof. Smith").
TITLE_ABBREVIATIONS = frozenset(
    (
        "Mr Mrs Ms Mx Dr Prof St Mt Ft Gen Col Capt Cpt Lt Sgt Maj Adm Cmdr Sen Rep Gov "
        "Pres Hon Fr Messrs Mme Mlle Mssrs Sra Srta Atty Supt"
    ).split()
)

#: A line that wraps onto the next one without a sentence end is treated as a
#: hard-wrapped paragraph (joined) when it is at least this long; shorter
#: unpunctuated lines ("Key points") are labels and end their own segment.
WRAP_WIDTH = 60

_FENCE_RE = re.compile(r"[ \t]{0,3}(?:```|~~~)")
_HEADING_RE = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_BOLD_LINE_RE = re.compile(r"[ \t]*(?:\*\*[^*\n]+\*\*|__[^_\n]+__)[ \t]*:?[ \t]*$")
_RULE_RE = re.compile(r"[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$")
#: Markdown / plain-text list item markers: "- x", "* x", "+ x", "• x", "1. x", "1) x",
#: "(a) x", "a) x", "a. x" (lowercase letter only).
LIST_ITEM_PATTERN = (
    r"[ \t]*(?:[-*+\u2022\u25aa\u2023\u25e6\u2013]|\d{1,3}[.)]|\(?[A-Za-z0-9]{1,3}\)|[a-z]\.)"
    r"(?:[ \t]+|$)"
)
_LIST_ITEM_RE = re.compile(LIST_ITEM_PATTERN)
_TABLE_RE = re.compile(r"[ \t]*\|")
_QUOTE_RE = re.compile(r"[ \t]*>")
_INLINE_CODE_RE = re.compile(r"(`+)[^`\n]+?\1")

#: A line ends a sentence: terminal punctuation, then closing quotes/brackets,
#: emphasis markers and citation markers.
_ENDS_SENTENCE_RE = re.compile(
    r"[.!?\u2026\u3002\uff01\uff1f][\"'\u201d\u2019)\]*_]*(?:\s*" + CITATION_PATTERN + r")*\s*$"
)
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

_STRUCTURAL_KINDS = frozenset(("heading", "rule", "table", "fence"))


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


def line_kind(line: str) -> str:
    """Classify one line: ``"blank"``, ``"fence"``, ``"heading"``, ``"rule"``,
    ``"list"``, ``"table"``, ``"quote"`` or ``"text"``.

    Example:
        >>> [line_kind(x) for x in ("## Setup", "1. Open it", "**Notes**", "Plain.")]
        ['heading', 'list', 'heading', 'text']
    """
    if not line.strip():
        return "blank"
    if _FENCE_RE.match(line):
        return "fence"
    if _HEADING_RE.match(line) or _BOLD_LINE_RE.match(line):
        return "heading"
    if _RULE_RE.match(line):
        return "rule"
    if _LIST_ITEM_RE.match(line):
        return "list"
    if _TABLE_RE.match(line):
        return "table"
    if _QUOTE_RE.match(line):
        return "quote"
    return "text"


# --------------------------------------------------------------------------- internals


def _spans_from_doc(text: str, doc: Doc) -> list[Span]:
    """Combine the sentencizer's boundaries with the structural and fix-up rules."""
    forced, protected = _structure(text)
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


def _structure(text: str) -> tuple[list[int], list[Span]]:
    """Forced boundaries from the line structure, and ranges that must not be split."""
    protected: list[Span] = []
    if "`" in text:
        protected.extend(m.span() for m in _INLINE_CODE_RE.finditer(text))
    if "\n" not in text:
        return [], protected

    forced: list[int] = []
    prev_line: str | None = None
    prev_kind = ""
    blank_before = False
    fence_start: int | None = None
    pos = 0
    raw_lines = text.split("\n")
    wrapped = _wrapped_runs(raw_lines)
    itemised = _itemised_runs(raw_lines)
    for n, raw in enumerate(raw_lines):
        start, pos = pos, pos + len(raw) + 1
        line = raw.rstrip("\r")
        if fence_start is not None:
            if _FENCE_RE.match(line):  # closing fence
                protected.append((fence_start, start + len(line)))
                forced.append(min(pos, len(text)))
                fence_start, prev_line = None, None
            continue
        kind = line_kind(line)
        if kind == "blank":
            blank_before = True
            continue
        if kind == "fence":
            fence_start = start
            forced.append(start)
            prev_line, blank_before = None, False
            continue
        if prev_line is not None and (
            blank_before
            or itemised[n]
            or not _continues(prev_line, prev_kind, line, kind, wrapped[n])
        ):
            forced.append(start)
        prev_line, prev_kind, blank_before = line, kind, False
    if fence_start is not None:  # unterminated fence runs to the end
        protected.append((fence_start, len(text)))
    return forced, protected


def _continues(prev_line: str, prev_kind: str, line: str, kind: str, wrapped: bool) -> bool:
    """Does ``line`` continue the sentence of ``prev_line`` (no blank line between)?

    A line that starts lowercase, or follows a comma, an opening bracket or a word that
    cannot end a sentence ("the", "of", "and"), continues it. A capitalised line after a
    line without final punctuation starts a new item (menus, lists without markers,
    one-sentence-per-line web text) unless the paragraph is hard-wrapped: its lines are
    long (:data:`WRAP_WIDTH`) and somewhere in it a line break falls inside a sentence.
    """
    if kind != "text" or prev_kind in _STRUCTURAL_KINDS:
        return False
    prev = prev_line.rstrip()
    nxt = line.lstrip()
    if prev.endswith((":", ";")):
        return False
    if nxt[:1].islower():
        return True  # the sentencizer still splits if ``prev`` ends with a full stop
    if _ENDS_SENTENCE_RE.search(prev):
        return False
    if _open_ended(prev):
        return True
    return wrapped and len(prev.strip()) >= WRAP_WIDTH


#: Words a sentence does not end with: a line ending in one runs on into the next line.
_OPEN_WORDS = frozenset(
    "a an the of to and or but nor for with in on at by from into than that as is are was "
    "were be its their our your his her my this these those which who whose".split()
)
_LAST_WORD_RE = re.compile(r"([A-Za-z]+)$")


def _open_ended(prev: str) -> bool:
    if prev.endswith((",", "(", "/", "\u2013", "\u2014", "-", "&")):
        return True
    m = _LAST_WORD_RE.search(prev)
    return bool(m) and m.group(1).lower() in _OPEN_WORDS


def _wrapped_runs(lines: list[str]) -> list[bool]:
    """For each line: is the paragraph it belongs to hard-wrapped?

    A paragraph (lines between blank lines) is hard-wrapped when at least one of its line
    breaks falls inside a sentence: the next line starts lowercase, or the line ends open
    (a comma, "the", "and"...). One-item-per-line text has no such break.
    """
    out = [False] * len(lines)
    run: list[int] = []
    for n in range(len(lines) + 1):
        line = lines[n].strip() if n < len(lines) else ""
        if line and n < len(lines):
            run.append(n)
            continue
        evidence = any(
            lines[b].strip()[:1].islower() or _open_ended(lines[a].rstrip())
            for a, b in zip(run, run[1:])
        )
        for k in run:
            out[k] = evidence
        run = []
    return out


#: A sentence that ends inside a line ("...chest pain. She was given").
_MID_END_RE = re.compile(r"[.!?][\"')\]]*\s+[A-Z]")
#: A paragraph of at least this many short lines with no sentence end and no line
#: break inside a sentence is one item per line, whatever the case of its lines.
MIN_ITEM_LINES = 4


def _itemised_runs(lines: list[str]) -> list[bool]:
    """For each line: is its paragraph one item per line (a menu, a scraped list)?

    Such a paragraph has :data:`MIN_ITEM_LINES` or more lines, each shorter than
    :data:`WRAP_WIDTH`, none ending with a comma, fewer than one in eight ending with a
    word a sentence does not end with ("the", "and", "in": a menu's "log in"), and no
    sentence ending in it, at a line's end or inside a line (prose wrapped at a narrow
    width ends its paragraph with a full stop); its lines may start lowercase ("home",
    "products", "read how...").

    Example:
        >>> _itemised_runs(["home", "pricing", "read how teams save time", "about us"])
        [True, True, True, True]
        >>> _itemised_runs(["We met the", "team today", "and agreed", "on a plan."])
        [False, False, False, False]
    """
    out = [False] * len(lines)
    run: list[int] = []
    for n in range(len(lines) + 1):
        line = lines[n].strip() if n < len(lines) else ""
        if line and n < len(lines) and line_kind(line) == "text":
            run.append(n)
            continue
        texts = [lines[k].strip() for k in run]
        if (
            len(run) >= MIN_ITEM_LINES
            and all(len(t) < WRAP_WIDTH and not t.endswith(",") for t in texts)
            and 8 * sum(_open_ended(t) for t in texts) < len(texts)  # "log in" is an item
            and not any(_ENDS_SENTENCE_RE.search(t) or _MID_END_RE.search(t) for t in texts)
        ):
            for k in run:
                out[k] = True
        run = []
    return out


def _trimmed(text: str, bounds: list[int]) -> list[Span]:
    spans: list[Span] = []
    for s, e in zip(bounds, bounds[1:], strict=False):
        seg = text[s:e]
        left = len(seg) - len(seg.lstrip())
        right = len(seg.rstrip())
        if right > left:
            spans.append((s + left, s + right))
    return spans
