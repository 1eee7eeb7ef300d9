"""The judge prompt and the parsing of its reply.

The verdict rules are those of DeepEval's faithfulness template: ``yes`` when the
context supports the claim, ``no`` only when the context *directly contradicts* it,
``idk`` when the context does not say (not backed up, or wrong but not contradicted);
no prior knowledge; hedged language is no contradiction. The prompt holds only the
claim, its evidence chunks and the question, and asks for one JSON object.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from nli_faith.errors import E_JUDGE_REPLY, E_JUDGE_VERDICT

#: The verdict vocabulary (DeepEval's): supported, contradicted, not found.
VERDICTS = ("yes", "no", "idk")
#: Accepted in a reply and read as ``idk``: newer DeepEval templates say ``borderline``.
_ALIASES = {"borderline": "idk"}

SYSTEM = (
    "You check whether a claim is faithful to retrieved context. Judge only from the "
    "context given; never use prior knowledge. Answer with a single JSON object."
)

_RULES = """Decide whether the CLAIM agrees with the CONTEXT.
- "yes": the context supports the claim.
- "no": the context DIRECTLY CONTRADICTS the claim. Use it only for a direct contradiction.
- "idk": the context does not back the claim up, or the claim may be wrong but nothing
  in the context contradicts it.
Vague or speculative wording in the claim (e.g. "may have", "possibly") is not a contradiction.
Do not use prior knowledge.

Return only JSON, in this format:
{"verdict": "yes" | "no" | "idk", "reason": "<one sentence; for 'no', the correction>"}"""


class JudgeReplyError(ValueError):
    """The judge's answer is not the JSON verdict asked for (worth retrying)."""


@dataclass(frozen=True)
class JudgeReply:
    """One verdict of a judge."""

    verdict: str  # "yes" / "no" / "idk"
    reason: str | None = None


def build_messages(
    claim: str, evidence: Sequence[str], question: str | None = None
) -> list[dict[str, str]]:
    """Chat messages (OpenAI format) asking for the verdict of one claim.

    Example:
        >>> msgs = build_messages("Shipping is free.", ["Delivery costs nothing."], "Is it free?")
        >>> [m["role"] for m in msgs]
        ['system', 'user']
        >>> "Delivery costs nothing." in msgs[1]["content"]
        True
    """
    parts = [_RULES, ""]
    if question:
        parts += ["QUESTION (what the answer was responding to):", question.strip(), ""]
    parts.append("CONTEXT:")
    if evidence:
        parts += [f"[{k}] {text.strip()}" for k, text in enumerate(evidence, start=1)]
    else:
        parts.append("(no context)")
    parts += ["", "CLAIM:", claim.strip(), "", "JSON:"]
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(parts)}]


_FENCE_RE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)
#: Longest reply read for a verdict, in characters; a longer one is not a verdict.
MAX_REPLY_CHARS = 100_000


#: Where a JSON object may start: a brace, then a key or its closing brace.
_OBJECT_START_RE = re.compile(r'\{\s*["}]')
#: Object starts tried in one reply, at most (a verdict reply has one or two).
MAX_OBJECT_TRIES = 32


def _objects(text: str):
    """The JSON objects found in ``text``, first to last: prose with stray braces around
    the verdict is fine, and a reply made of braces costs a few tries, not one a brace."""
    decoder = json.JSONDecoder()
    pos, tries = 0, 0
    while tries < MAX_OBJECT_TRIES and (m := _OBJECT_START_RE.search(text, pos)):
        tries += 1
        try:
            obj, end = decoder.raw_decode(text, m.start())
        except (ValueError, RecursionError):
            pos = m.start() + 1
            continue
        if isinstance(obj, dict):
            yield obj
        pos = end


def normalize_verdict(value: object) -> str:
    """``yes`` / ``no`` / ``idk`` from a judge's verdict, or ``JudgeReplyError``.

    Example:
        >>> normalize_verdict(" Yes "), normalize_verdict("borderline")
        ('yes', 'idk')
    """
    v = str(value).strip().lower() if isinstance(value, str) else None
    v = _ALIASES.get(v, v) if v is not None else None
    if v not in VERDICTS:
        raise JudgeReplyError(E_JUDGE_VERDICT.format(verdict=value))
    return v


def parse_reply(text: str) -> JudgeReply:
    """Read ``{"verdict": ..., "reason": ...}`` from a reply (code fences, prose around it).

    Example:
        >>> parse_reply('```json\\n{"verdict": "no", "reason": "It says 24 months."}\\n```')
        JudgeReply(verdict='no', reason='It says 24 months.')
    """
    if not isinstance(text, str) or not text.strip():
        raise JudgeReplyError(E_JUDGE_REPLY.format(detail="empty reply"))
    if len(text) > MAX_REPLY_CHARS:
        detail = f"{len(text):,} characters, more than the {MAX_REPLY_CHARS:,} read for a verdict"
        raise JudgeReplyError(E_JUDGE_REPLY.format(detail=detail))
    body = _FENCE_RE.sub("", text.strip())
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        data = next((o for o in _objects(body) if "verdict" in o or "verdicts" in o), None)
    if isinstance(data, dict) and isinstance(data.get("verdicts"), list) and data["verdicts"]:
        data = data["verdicts"][0]  # DeepEval's list shape, one claim
    if not isinstance(data, dict) or "verdict" not in data:
        raise JudgeReplyError(E_JUDGE_REPLY.format(detail=repr(text[:120])))
    reason = data.get("reason")
    return JudgeReply(
        verdict=normalize_verdict(data["verdict"]),
        reason=reason.strip() if isinstance(reason, str) and reason.strip() else None,
    )
