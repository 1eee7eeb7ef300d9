"""A cheap first pass before an LLM judge.

The NLI scorer settles the claims it is confident about (``ClaimVerdict.settled``);
only the uncertain ones go to an LLM judge, whose verdicts are merged back.

* :class:`Cascade` — ``Cascade(scorer, judge=...)``: score, judge, merge in one call.
* :class:`OpenAIJudge` — a judge on any OpenAI-compatible chat-completions endpoint.
* :func:`items_from_result` / :class:`JudgeItem` — the escalation lines
  (``nli-faith score --escalate``); :func:`merge_scored` / :func:`apply_outcomes` —
  merging verdicts back (``nli-faith merge``).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

#: Public name -> module; imported on first use, so that importing a small module of
#: this package (``nli_faith.judge.defaults`` for ``nli-faith --help``) stays cheap.
_EXPORTS = {
    "Cascade": "nli_faith.judge.cascade",
    "FatalJudgeError": "nli_faith.judge.client",
    "JudgeItem": "nli_faith.judge.items",
    "JudgeReply": "nli_faith.judge.prompt",
    "JudgeSummary": "nli_faith.judge.runner",
    "MergeError": "nli_faith.judge.merge",
    "OpenAIJudge": "nli_faith.judge.client",
    "JudgeOutcome": "nli_faith.judge.merge",
    "RetryableJudgeError": "nli_faith.judge.client",
    "VERDICTS": "nli_faith.judge.prompt",
    "ajudge_items": "nli_faith.judge.runner",
    "apply_outcomes": "nli_faith.judge.merge",
    "build_messages": "nli_faith.judge.prompt",
    "items_from_result": "nli_faith.judge.items",
    "judge_items": "nli_faith.judge.runner",
    "merge_scored": "nli_faith.judge.merge",
    "parse_reply": "nli_faith.judge.prompt",
    "read_judged": "nli_faith.judge.merge",
    "result_from_dict": "nli_faith.results",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'nli_faith.judge' has no attribute {name!r}")
