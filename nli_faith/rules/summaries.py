"""Summary claims: a sentence that sums up several statements of the context.

"The whole process involves close cooperation among several network elements, each
with its own role." or "The plan includes storage, support and early access." say
what several context statements say together; no one sentence entails them and a
small NLI model reads them as neutral against any premise. The composite premise
path finds the statements such a claim sums up
(:func:`nli_faith.scoring.summary_statements.summarised_statements`) and scores the claim
against them joined; when the model still finds no support, this rule judges the
summary against those statements:

* the claim is a summary (:func:`~nli_faith.scoring.summary_statements.is_summary`): a
  summarising phrase ("the whole", "overall", "several", "each with its own") or a
  list of three or more items;
* every *specific* word of the claim (its content words less the summary's frame:
  "process", "involves", "cooperation", "role"...) is in one of the statements, and
  there are at least two: a vague summary whose few words an unrelated context lacks
  finds no statement and is left to the model;
* it takes two statements or more, each holding some of the words, linked to one
  another by shared words (they speak of one thing);
* no statement names the claim's things with another modifier ("premium plan"
  against "basic plan"), negates or restricts what the claim does not, and the claim
  itself states no negation, restriction or contrast ("not", "only", "alone",
  "independently", "instead", "but"), nor a distributive quantifier ("both", "all",
  "every": "both offices have a gym and a canteen" is not what "the Oslo office has a
  gym" and "the Bergen office has a canteen" sum up to).

Then the claim is ``yes``, and the note says which statement holds which words.
The rule never overrides the model's ``yes`` or ``no``: a summary that a chunk
contradicts stays contradicted.

Example:
    >>> ctx = ["The premium plan includes unlimited cloud storage.",
    ...        "It also comes with 24/7 phone support.",
    ...        "Premium members get early access to new features."]
    >>> j = judge_summary("The premium plan includes storage, support and early access.", ctx)
    >>> j.verdict, j.statements
    ('yes', [0, 1, 2])
    >>> judge_summary("The premium plan includes storage, support and a free phone.", ctx) is None
    True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from nli_faith.scoring.prefilter import _names
from nli_faith.scoring.summary_statements import (
    is_summary,
    linked,
    negation_cues,
    sentence_words,
    specific_words,
    summarised_statements,
)

__all__ = ["SummaryJudgement", "judge_summary"]

#: A claim that restricts or contrasts is no plain summary: left to the model.
_RESTRICTS_RE = re.compile(
    r"\b(?:alone|single|solely|independently|separately|instead|but|however|although|"
    r"rather|whereas|while|than|unlike|both|all|every|each of|none)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SummaryJudgement:
    verdict: str  # "yes"
    statements: list[int]  # indices of the statements it sums up (into the sentences given)
    note: str


def judge_summary(claim: str, sentences: Sequence[str]) -> SummaryJudgement | None:
    """The verdict on a summary claim over ``sentences`` (the context's, in order), or
    None when the claim is no summary or the rule cannot tell (the model's verdict stands).
    """
    if not is_summary(claim) or negation_cues(claim) or _RESTRICTS_RE.search(claim):
        return None
    want = specific_words(claim)
    if len(want) < 2:
        return None
    picked = summarised_statements(claim, sentences)
    if len(picked) < 2:
        return None
    words = sentence_words(sentences, picked)
    if want - frozenset().union(*words):
        return None
    if sum(bool(want & w) for w in words) < 2 or not linked(words):
        return None
    own = [want & sentence_words(sentences, [k], carry=False)[0] for k in picked]
    joined = " ".join(sentences[k] for k in picked).lower()
    if any(name not in joined for name in _names(claim)):
        return None
    where = "; ".join(
        f"{', '.join(repr(w) for w in sorted(o))} in statement {n + 1}"
        if o
        else f"statement {n + 1} goes on from the one before"
        for n, o in enumerate(own)
    )
    note = (
        f"a summary of {len(picked)} statements of the context, each of its specific words "
        f"found in them ({where}), none negating or naming another thing"
    )
    return SummaryJudgement("yes", picked, note)
