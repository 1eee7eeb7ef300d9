"""A cheap first pass before an LLM judge.

The NLI scorer settles the claims it is confident about (``ClaimVerdict.settled``);
only the uncertain ones go to an LLM judge, whose verdicts are merged back.

* :class:`Cascade` — ``Cascade(scorer, judge=...)``: score, judge, merge in one call.
* :class:`OpenAIJudge` — a judge on any OpenAI-compatible chat-completions endpoint.
* :func:`items_from_result` / :class:`JudgeItem` — the escalation lines
  (``nli-faith score --escalate``); :func:`merge_scored` / :func:`apply_outcomes` —
  merging verdicts back (``nli-faith merge``).
"""

from nli_faith.judge.cascade import Cascade
from nli_faith.judge.client import FatalJudgeError, OpenAIJudge, RetryableJudgeError
from nli_faith.judge.items import JudgeItem, items_from_result
from nli_faith.judge.merge import (
    MergeError,
    Outcome,
    apply_outcomes,
    merge_scored,
    read_judged,
    result_from_dict,
)
from nli_faith.judge.prompt import VERDICTS, JudgeReply, build_messages, parse_reply
from nli_faith.judge.runner import JudgeSummary, ajudge_items, judge_items

__all__ = [
    "VERDICTS",
    "Cascade",
    "FatalJudgeError",
    "JudgeItem",
    "JudgeReply",
    "JudgeSummary",
    "MergeError",
    "OpenAIJudge",
    "Outcome",
    "RetryableJudgeError",
    "ajudge_items",
    "apply_outcomes",
    "build_messages",
    "items_from_result",
    "judge_items",
    "merge_scored",
    "parse_reply",
    "read_judged",
    "result_from_dict",
]
