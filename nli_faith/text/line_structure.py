"""Line structure of Markdown-heavy text: which lines start a new segment.

Blank lines, Markdown list items, headings, tables, block quotes and rules start a new
segment; a hard-wrapped line that continues a sentence does not, nor does a line that
starts lowercase or follows an open end ("the", "and", a comma); a paragraph of short
lines with no sentence end is one item per line (a menu, a scraped list). Fenced code
blocks and inline code spans are ranges that must not be split.
:mod:`nli_faith.text.sentences` combines these boundaries with the sentencizer's.

Example:
    >>> structure("Intro:\\n- one\\n- two")
    ([7, 13], [])
"""

from __future__ import annotations

import re

from nli_faith.text.sentence_tables import CITATION_PATTERN, LIST_ITEM_PATTERN

__all__ = ["MIN_ITEM_LINES", "WRAP_WIDTH", "line_kind", "structure"]

#: A line that wraps onto the next one without a sentence end is treated as a
#: hard-wrapped paragraph (joined) when it is at least this long; shorter
#: unpunctuated lines ("Key points") are labels and end their own segment.
WRAP_WIDTH = 60

_FENCE_RE = re.compile(r"[ \t]{0,3}(?:```|~~~)")
_HEADING_RE = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_BOLD_LINE_RE = re.compile(r"[ \t]*(?:\*\*[^*\n]+\*\*|__[^_\n]+__)[ \t]*:?[ \t]*$")
_RULE_RE = re.compile(r"[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_LIST_ITEM_RE = re.compile(LIST_ITEM_PATTERN)
_TABLE_RE = re.compile(r"[ \t]*\|")
_QUOTE_RE = re.compile(r"[ \t]*>")
_INLINE_CODE_RE = re.compile(r"(`+)[^`\n]+?\1")

#: A line ends a sentence: terminal punctuation, then closing quotes/brackets,
#: emphasis markers and citation markers.
_ENDS_SENTENCE_RE = re.compile(
    r"[.!?\u2026\u3002\uff01\uff1f][\"'\u201d\u2019)\]*_]*(?:\s*" + CITATION_PATTERN + r")*\s*$"
)

_STRUCTURAL_KINDS = frozenset(("heading", "rule", "table", "fence"))


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


def structure(text: str) -> tuple[list[int], list[tuple[int, int]]]:
    """Forced boundaries from the line structure, and ranges that must not be split."""
    protected: list[tuple[int, int]] = []
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
