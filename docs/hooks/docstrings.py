"""Griffe extension for the API reference: the library's docstrings, read as Markdown.

The docstrings are written for ``help()`` and doctest: ``>>>`` sessions in free text and
Sphinx roles (``:class:`~nli_faith.results.Evidence```). Before mkdocstrings renders
them, each run of ``>>>`` lines (with its output) becomes a fenced ``pycon`` block, so
``[1, 2]`` in an output is not read as a Markdown link, and a role becomes inline code
(``~`` keeps the last name, as Sphinx shows it).
"""

from __future__ import annotations

import re

import griffe

_ROLE = re.compile(r":(?:class|func|meth|data|attr|mod|exc|obj):`(~?)([^`]+)`")


def _role(m: re.Match) -> str:
    target = m.group(2)
    return f"`{target.rsplit('.', 1)[-1] if m.group(1) else target}`"


def markdown(text: str) -> str:
    out: list[str] = []
    lines = text.split("\n")
    i, fence = 0, False
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip() and lines[i].startswith(indent):
                block.append(lines[i][len(indent) :])
                i += 1
            out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"]
            continue
        out.append(line if fence else _ROLE.sub(_role, line))
        i += 1
    return "\n".join(out)


class DoctestAsCode(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
