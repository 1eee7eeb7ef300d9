"""The environment is read at the edge: no stage (nli, text, rules, scoring) and not the
engine reads a variable. ``ScorerConfig`` resolves ``OMP_NUM_THREADS`` and
``NLI_FAITH_CACHE`` and the engine passes the values down; a stage may still *set* one
(switching a library's telemetry or tokenizer threads off before it is imported)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "nli_faith"
STAGES = ("nli", "text", "rules", "scoring", "engine")


def environment_reads(source: str) -> list[tuple[int, str]]:
    """(line, code) of each read of the environment in ``source``: ``os.getenv``,
    ``os.environ`` read in any way (``.get``, ``[...]``, ``in``, passed on) or ``environ`` /
    ``getenv`` imported from ``os``. Writes are not reads: ``os.environ[k] = v``,
    ``os.environ.setdefault(k, v)``, ``del os.environ[k]``."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "os":
            if {a.name for a in node.names} & {"environ", "getenv", "environb", "getenvb"}:
                found.append((node.lineno, ast.unparse(node)))
            continue
        if not (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            continue
        if node.attr in ("getenv", "getenvb"):
            found.append((node.lineno, ast.unparse(parents.get(node, node))))
        elif node.attr in ("environ", "environb"):
            parent = parents.get(node)
            written = (
                isinstance(parent, ast.Subscript) and isinstance(parent.ctx, (ast.Store, ast.Del))
            ) or (isinstance(parent, ast.Attribute) and parent.attr == "setdefault")
            if not written:
                found.append((node.lineno, ast.unparse(parent or node)))
    return found


@pytest.mark.parametrize(
    ("source", "reads"),
    [
        ("import os\nn = os.environ.get('OMP_NUM_THREADS')", 1),
        ("import os\nif 'X' not in os.environ: pass", 1),
        ("import os\nx = os.environ['X']", 1),
        ("import os\nx = os.getenv('X')", 1),
        ("from os import environ", 1),
        ("import os\nenv = dict(os.environ)", 1),
        ("import os\nos.environ['X'] = '1'\nos.environ.setdefault('Y', '1')", 0),
        ("import os\ndel os.environ['X']", 0),
    ],
)
def test_the_scan_sees_reads_and_lets_writes_pass(source, reads):
    assert len(environment_reads(source)) == reads


def test_no_stage_and_not_the_engine_reads_the_environment():
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {code}"
        for stage in STAGES
        for path in sorted((PACKAGE / stage).rglob("*.py"))
        for line, code in environment_reads(path.read_text(encoding="utf-8"))
    ]
    assert sorted(p.name for p in PACKAGE.iterdir() if p.name in STAGES) == sorted(STAGES)
    assert not offenders, "read the environment in nli_faith/environment.py:\n" + "\n".join(
        offenders
    )
