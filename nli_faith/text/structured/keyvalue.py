"""Runs of short ``key: value`` lines, read as one record."""

from __future__ import annotations

import re
from collections.abc import Iterator

from nli_faith.text.structured.records import (
    StructuredBlock,
    record_statements,
    split_title,
    title_before,
)
from nli_faith.text.structured.tables import line_spans

#: ``key: value`` lines: longest key (words) and value (characters).
_KV_MAX_KEY_WORDS = 5
_KV_MAX_VALUE_CHARS = 80
_KV_MAX_VALUE_WORDS = 8


_KV_RE = re.compile(
    r"[ \t]*(?:[-*+\u2022][ \t]+)?(?:\*\*|__)?"
    r"(?P<key>[A-Za-z][^:\n*_]{0,60}?|(?:FY ?|Q[1-4] )?(?:19|20)\d\d)(?:\*\*|__)?[ \t]*"
    r"(?:\*\*|__)?:(?:\*\*|__)?[ \t]+(?P<value>[^\n]+?)[ \t]*\r?$"
)


def _kv_line(text: str, start: int, end: int) -> tuple[str, str, int, int] | None:
    m = _KV_RE.fullmatch(text, start, end)
    if not m:
        return None
    key, value = m.group("key").strip(), m.group("value").strip()
    if len(key.split()) > _KV_MAX_KEY_WORDS or len(value) > _KV_MAX_VALUE_CHARS:
        return None
    if len(value.split()) > _KV_MAX_VALUE_WORDS or value.endswith(("?", "!")):
        return None  # a line of dialogue or an FAQ, not a field
    if re.search(r"[.!?]\s+\S", value) or value.startswith(("{", "[")):
        return None  # a sentence (or JSON) after the colon, not a value
    if re.match(r"https?$", key, re.I):
        return None
    v_start = m.start("value")
    return key, value.rstrip("."), v_start, v_start + len(value.rstrip("."))


_LABEL_LINE_RE = re.compile(r"(?P<indent>[ \t]*)(?P<label>[^\s:][^:\n]{0,60}):[ \t]*\r?$")


def _nested_title(text: str, start: int, title: str, t_start: int) -> tuple[str, int]:
    """For an indented run under YAML-style ``label:`` lines ("MSFT:" / "  ROE:"), the
    labels of every level joined ("MSFT ROE"), outermost first."""
    line_end = text.find("\n", start)
    first = text[start : line_end if line_end >= 0 else None]
    indent = len(first) - len(first.lstrip(" \t"))
    if not indent or not title:
        return title, t_start
    labels: list[tuple[str, int]] = []
    pos = start
    while indent and pos > 0:
        prev_start = text.rfind("\n", 0, pos - 1) + 1
        m = _LABEL_LINE_RE.fullmatch(text, prev_start, pos - 1)
        if not m:
            break
        depth = len(m.group("indent").expandtabs(2))
        if depth < indent:
            labels.append((m.group("label").strip(), prev_start + len(m.group("indent"))))
            indent = depth
        pos = prev_start
    if len(labels) < 2:
        return title, t_start
    return " ".join(lab for lab, _ in reversed(labels)), labels[-1][1]


def kv_blocks(text: str) -> Iterator[StructuredBlock]:
    if ":" not in text or "\n" not in text:
        return
    lines = list(line_spans(text))
    i = 0
    while i < len(lines):
        first = _kv_line(text, *lines[i])
        if first is None:
            i += 1
            continue
        fields = [(first, lines[i])]
        j = i + 1
        while j < len(lines) and (kv := _kv_line(text, *lines[j])) is not None:
            fields.append((kv, lines[j]))
            j += 1
        sentences = sum(text[slice(*span)].rstrip().endswith(".") for _, span in fields)
        if len(fields) >= 2 and 2 * sentences <= len(fields):  # not a transcript of sentences
            title, t_start = title_before(text, lines[i][0])
            title, t_start = _nested_title(text, lines[i][0], title, t_start)
            title, unit = split_title(title)
            start = lines[i][0] + len(text[slice(*lines[i])]) - len(text[slice(*lines[i])].lstrip())
            recs = [
                (k, v, ls + (len(text[ls:le]) - len(text[ls:le].lstrip())), le)
                for (k, v, _, _), (ls, le) in fields
            ]
            stmts = record_statements(title, recs, min(t_start, start), lines[j - 1][1], unit=unit)
            yield StructuredBlock("keyvalue", min(t_start, start), lines[j - 1][1], tuple(stmts))
        i = j
