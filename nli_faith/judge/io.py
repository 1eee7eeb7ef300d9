"""JSONL plumbing shared by ``nli-faith score --escalate``, ``merge`` and ``judge``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO, Any

from nli_faith.judge.items import JudgeItem, items_from_result
from nli_faith.results import FaithfulnessResult


def line_items(line: Mapping[str, Any], result: FaithfulnessResult) -> list[JudgeItem]:
    """The judge items of one scored line (its ``line``, ``id`` and ``question`` keys)."""
    return items_from_result(
        result, line=line["line"], record_id=line.get("id"), question=line.get("question")
    )


def write_escalation(fh: IO[str], line: Mapping[str, Any], result: FaithfulnessResult) -> int:
    """Write the escalation lines of one scored line; returns how many."""
    items = line_items(line, result)
    for item in items:
        text = json.dumps(item.to_dict(), ensure_ascii=False)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate from an escape: keep it escaped
            text = json.dumps(item.to_dict())
        fh.write(text + "\n")
    return len(items)
