"""JSON objects and arrays in a text (parsed by :mod:`json`), read as records; what
:mod:`json` rejects is tried once more leniently (:mod:`.lenient`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

from nli_faith.text.structured.lenient import lenient_walk
from nli_faith.text.structured.records import (
    Statement,
    StructuredBlock,
    ValueFormat,
    humanise_key,
    is_period,
    join_parts,
    join_title,
    record_statements,
    sentence,
    split_title,
    title_before,
)

_DECODER = json.JSONDecoder()
_WS = " \t\r\n"


@dataclass
class _Node:
    value: object  # dict / list / scalar as parsed
    start: int
    end: int
    members: list[tuple[str, _Node, int]]  # (key, node, key start) for objects; ("", node) lists


def _walk(text: str, pos: int) -> _Node:
    """Spans of every member of the (valid) JSON value at ``pos``, using json's scanner."""
    ch = text[pos]
    if ch == "{":
        members: list[tuple[str, _Node, int]] = []
        i = _skip(text, pos + 1)
        if text[i] == "}":
            return _Node({}, pos, i + 1, [])
        while True:
            key_start = i
            key, i = json.decoder.scanstring(text, i + 1)
            i = _skip(text, _skip(text, i) + 1)  # past ':'
            node = _walk(text, i)
            members.append((key, node, key_start))
            i = _skip(text, node.end)
            if text[i] == "}":
                return _Node({k: n.value for k, n, _ in members}, pos, i + 1, members)
            i = _skip(text, i + 1)  # past ','
    if ch == "[":
        items: list[tuple[str, _Node, int]] = []
        i = _skip(text, pos + 1)
        if text[i] == "]":
            return _Node([], pos, i + 1, [])
        while True:
            node = _walk(text, i)
            items.append(("", node, node.start))
            i = _skip(text, node.end)
            if text[i] == "]":
                return _Node([n.value for _, n, _ in items], pos, i + 1, items)
            i = _skip(text, i + 1)
    value, end = _DECODER.raw_decode(text, pos)
    return _Node(value, pos, end, [])


def _skip(text: str, i: int) -> int:
    while text[i] in _WS:
        i += 1
    return i


def _scalar_text(text: str, node: _Node) -> str:
    v = node.value
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return ""
    if isinstance(v, (int, float)):
        return text[node.start : node.end]  # as written: "391.0", not 391.0's repr
    return str(v).strip()


def _is_scalar(node: _Node) -> bool:
    return not isinstance(node.value, (dict, list))


def _json_statements(
    text: str, node: _Node, title: str, start: int, unit: ValueFormat
) -> list[Statement]:
    if isinstance(node.value, dict):
        scalars = [(k, n, ks) for k, n, ks in node.members if _is_scalar(n)]
        out: list[Statement] = []
        label = _label_field(scalars, text)
        fields = [(k, _scalar_text(text, n), ks, n.end) for k, n, ks in scalars if k != label[0]]
        rec_title = join_parts(title, label[1])
        out.extend(
            record_statements(rec_title, fields, min(start, node.start), node.end, unit=unit)
        )
        for k, n, _ in node.members:
            if not _is_scalar(n):
                sub = join_parts(rec_title, humanise_key(k) if not is_period(k) else k)
                out.extend(_json_statements(text, n, sub, n.start, unit))
        return out
    if isinstance(node.value, list):
        if all(_is_scalar(n) for _, n, _ in node.members):
            values = [_scalar_text(text, n) for _, n, _ in node.members]
            values = [unit.apply(v) for v in values if v]
            if not values:
                return []
            listed = (
                values[0] if len(values) == 1 else ", ".join(values[:-1]) + " and " + values[-1]
            )
            return [
                Statement(sentence(join_title(title, listed)), min(start, node.start), node.end)
            ]
        out = []
        for _, n, _ in node.members:
            out.extend(_json_statements(text, n, title, n.start, unit))
        return out
    value = unit.apply(_scalar_text(text, node))
    return [Statement(sentence(join_title(title, value)), start, node.end)] if value else []


_NAME_KEYS = ("name", "title", "label", "id", "tier", "plan", "product", "item", "type")


def _label_field(scalars: list[tuple[str, _Node, int]], text: str) -> tuple[str, str]:
    """The field that names a record ("name": "Pro"), if any: ``(key, value)``."""
    for k, n, _ in scalars:
        if k.lower() in _NAME_KEYS and isinstance(n.value, str) and n.value.strip():
            return k, n.value.strip()
    return "", ""


def json_blocks(text: str) -> Iterator[StructuredBlock]:
    i = 0
    n = len(text)
    while i < n:
        i = _next_bracket(text, i)
        if i < 0:
            return
        try:
            value, end = _DECODER.raw_decode(text, i)
            node = None
        except json.JSONDecodeError as err:
            node = lenient_walk(text, i)  # values with units, Python reprs, bare keys
            if node is None or not _worth_reading(node.value):
                i = max(i + 1, err.pos)  # malformed: left as text, scanning goes on after it
                continue
            value, end = node.value, node.end
        except RecursionError:
            i += 1
            continue
        if not _worth_reading(value):
            i = end
            continue
        title, t_start = title_before(text, i)
        title, unit = split_title(title)
        node = _walk(text, i) if node is None else node
        yield StructuredBlock(
            "json", t_start, end, tuple(_json_statements(text, node, title, t_start, unit))
        )
        i = end


def _next_bracket(text: str, i: int) -> int:
    a, b = text.find("{", i), text.find("[", i)
    if a < 0:
        return b
    return a if b < 0 else min(a, b)


def _worth_reading(value: object) -> bool:
    """An object with members, or an array of objects or of at least two strings.

    ``[1]`` and ``[1, 2]`` are citation markers, not data.
    """
    if isinstance(value, dict):
        return bool(value)
    if isinstance(value, list):
        return (
            any(isinstance(v, dict) and v for v in value)
            or sum(isinstance(v, str) for v in value) >= 2
        )
    return False
