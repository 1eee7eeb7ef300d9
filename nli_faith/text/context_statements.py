"""Sentences about the context itself rather than about the world.

RAG answers often say something about what the retrieved passages hold. Two kinds are
told apart (patterns matched case-insensitively against the whole cleaned sentence,
its final punctuation ignored):

* an **abstention** declines to answer: "Unable to answer based on the given
  passages.", "I don't know.", "The passages do not provide further explanation."
  (what is missing is nothing in particular). It asserts nothing about the world;
* an **absence claim** says that one named thing is not in the context: "Watching
  stories is not mentioned as a factor.", "The context does not list prices.",
  "There is no information about refunds in the documents." It can be checked: it
  holds when no part of the context is about that thing (``about``).

A connective or a note label before the statement is read past ("However, none of the
passages mention X.", "Note: Unable to answer ..."), so is a condition before an
abstention ("If none of these methods work, unable to answer ..."), and an absence
claim followed by the abstention it leads to (", therefore we are unable to answer")
is that absence claim. A numbered or ordinal passage is a context too ("Passage 2 does
not provide any information about X", "The second passage does not mention X").

A sentence joining a statement about the context to a claim about the world ("The
context does not list prices, but a ticket costs $15.") is two statements:
:func:`split_joined` finds where the world claim starts, so it is still checked.

Example:
    >>> classify("Watching stories is not mentioned as a factor.")
    ContextStatement(kind='absence', about='Watching stories')
    >>> classify("Unable to answer based on the given passages.").kind
    'abstention'
    >>> classify("The passages do not provide further explanation.").kind
    'abstention'
    >>> classify("The warranty lasts two years.") is None
    True
    >>> text = "The context does not list prices, but a ticket costs $15."
    >>> text[split_joined(text)[1]:]
    'a ticket costs $15.'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "ABSENCE_PATTERNS",
    "ABSTENTION_PATTERNS",
    "GENERIC_WORDS",
    "ContextStatement",
    "classify",
    "split_joined",
]

_CTX = (
    r"(?:context|contexts|documents?|documentation|docs|sources?|passages?|texts?|"
    r"excerpts?|materials?|search results|references?|articles?|snippets?|knowledge base|"
    r"records?|provided information|given information|information provided|retrieved "
    r"information|information given|information)"
)
#: A numbered or ordinal passage: "Passage 2", "passages 1 and 3", "the third document".
_NUMBERED_CTX = (
    r"(?:(?:the\s+)?(?:first|second|third|fourth|fifth|last)\s+"
    r"(?:passage|document|source|article|excerpt|snippet|text)"
    r"|(?:passages?|documents?|sources?|articles?|excerpts?|snippets?)\s+#?\d{1,3}"
    r"(?:\s*(?:,|and|&)\s*\d{1,3})*)"
)
_THE_CTX = (
    r"(?:(?:the|this|these|any of the|none of the|the above)\s+(?:provided\s+|given\s+|"
    r"retrieved\s+|available\s+|above\s+|supplied\s+|relevant\s+)?"
    + _CTX
    + r"(?:\s+(?:provided|given|above))?|"
    + _NUMBERED_CTX
    + r")"
)
_IN_CTX = r"(?:\s+(?:in|by|within|from)\s+" + _THE_CTX + r")?"
#: Verbs that, negated, speak of a text even without naming it ("X is not mentioned").
_MENTIONED = (
    r"(?:mentioned|discussed|stated|specified|described|addressed|referenced|explained|"
    r"detailed|touched (?:on|upon))"
)
#: Verbs that do so only beside a context noun: "Meals are not included." is about the
#: world, "Meals are not included in the documents." about the documents.
_MENTIONED_IN = (
    r"(?:listed|covered|included|named|given|provided|identified|reported|indicated|shown|"
    r"found|present|available)"
)
_MENTION = (
    r"(?:mention|discuss|list|specify|state|describe|cover|include|address|provide|give|"
    r"contain|name|identify|explain|detail|offer|say anything about|talk about|refer to|"
    r"indicate|report|tell us|show|say|tell|clarify|state whether|specify whether)"
)
_ABOUT = r"(?:about|on|of|regarding|concerning|related to|as to|for)"

#: Sentences that decline to answer. The subject is the answerer or the question.
ABSTENTION_PATTERNS: tuple[str, ...] = (
    r"(?:i am |i'm |we are |we're )?(?:unable|not able) to (?:answer|determine|find|say|tell|"
    r"confirm|provide|verify|give|identify)\b.*",
    r"(?:i|we) (?:do not|don't|cannot|can't|could not|couldn't|can not|am unable to) "
    r"(?:answer|determine|find|say|tell|know|confirm|provide|see|access|have|verify|give|"
    r"identify)\b.*",
    r"(?:the |this |your )?(?:question|query) (?:cannot|can't|can not|could not) be "
    r"(?:answered|determined|resolved)\b.*",
    r"(?:it |this |that |the answer )?(?:cannot|can't|can not|could not) be (?:answered|"
    r"determined|confirmed|found|inferred|verified)\b.*",
    r"(?:there is |there's )?(?:not enough|insufficient|no sufficient) (?:information|context|"
    r"data|details|evidence)\b.*",
    r"(?:the answer|this|that|it) (?:is|was) not " + _MENTIONED + r"\b.*",
    r"no (?:answer|relevant information) (?:is|was|can be) (?:found|given|provided)\b.*",
    r"as an ai\b.*",
    r"(?:i|we) (?:do not|don't) know\b.*",
    r"unknown|not (?:stated|specified|mentioned|available|provided)",
)

#: Sentences saying that one thing (group ``x``) is not in the context.
ABSENCE_PATTERNS: tuple[str, ...] = (
    r"(?P<x>.+?) (?:is|are|was|were) not (?:explicitly |specifically |directly |clearly )?"
    + _MENTIONED
    + _IN_CTX
    + r"(?:,? (?:as|among) (?P<role>.+?))?(?:"
    + _IN_CTX
    + r")?",
    r"(?P<x>.+?) (?:is|are|was|were) not (?:explicitly |specifically |directly |clearly )?"
    + _MENTIONED_IN
    + r"\s+(?:in|by|within|from)\s+"
    + _THE_CTX,
    r"(?P<x>.+?) (?:has not been|have not been|isn't|aren't|wasn't|weren't) (?:explicitly )?"
    + _MENTIONED
    + _IN_CTX,
    _THE_CTX
    + r" (?:do|does|did) not (?:explicitly |specifically |directly |clearly )?"
    + _MENTION
    + r"(?: (?:any|specific|explicit))?(?: (?:information|details?|data|mention)\s+"
    + _ABOUT
    + r")? (?P<x>.+)",
    r"(?:none of (?:the |these )?(?:provided |given |retrieved |available )?"
    + _CTX
    + r"|no (?:passage|document|source|context|article|excerpt))"
    + r" (?:"
    + _MENTION
    + r")(?:e?s)?(?: (?:any|specific|explicit))?"
    + r"(?: (?:information|details?|data|mention)\s+"
    + _ABOUT
    + r")? (?P<x>.+)",
    _THE_CTX + r" (?:makes?|made) no (?:mention|reference) (?:of|to) (?P<x>.+)",
    _THE_CTX + r" (?:is|are) silent (?:on|about) (?P<x>.+)",
    r"there (?:is|are|was|were) no (?:specific |explicit |further |additional |direct )?"
    r"(?:mention|information|details?|data|reference|discussion)s? "
    + _ABOUT
    + r" (?P<x>.+?)"
    + _IN_CTX,
    r"no (?:specific |explicit |further |additional )?(?:information|details?|data|mention)"
    r" (?:is|are|was|were) (?:given|provided|available|made|included) "
    + _ABOUT
    + r" (?P<x>.+?)"
    + _IN_CTX,
    r"nothing (?:is said|is mentioned|in "
    + _THE_CTX
    + r" (?:says|mentions)) "
    + _ABOUT
    + r" (?P<x>.+?)"
    + _IN_CTX,
)

#: Words that name no particular thing: an absence claim about only these is an
#: abstention ("The passages do not provide further explanation.").
GENERIC_WORDS = frozenset(
    "information info details detail explanation explanations further more additional specific "
    "specifics answer answers question questions this that it these those topic anything any "
    "other such exact precise relevant context data reason reasons clear direct explicit "
    "something everything matter subject thing things point points aspect aspects here there "
    "additional much many the a an of about on regarding in for to and or enough sufficient "
    "way how what why when where who which whether".split()
)

#: Words that lead a sentence without changing what it says about the context: a
#: connective or a note label ("However, none of the passages ...", "Note: Unable to
#: answer ..."). Taken off before the patterns are matched.
_LEAD_RE = re.compile(
    r"(?:(?:please note|note|nb|disclaimer|however|therefore|thus|hence|so|unfortunately|"
    r"additionally|also|moreover|furthermore|in addition|on the other hand|that said|but|"
    r"finally|lastly|again|as a result|consequently|overall)\s*[,:]?\s+)+",
    re.I,
)
#: A condition before an abstention: "If none of these methods work, unable to answer ...".
_CONDITION_RE = re.compile(r"if [^,]{1,80},\s+", re.I)
#: Where a context statement is followed by the abstention it leads to: "X is not
#: mentioned in the passages, therefore we are unable to answer the question."
_THEREFORE_RE = re.compile(
    r",?\s+(?:and )?(?:so|therefore|thus|hence|which means(?: that)?|meaning(?: that)?)\s+", re.I
)
_ABSTENTION_RE = re.compile("|".join(f"(?:{p})" for p in ABSTENTION_PATTERNS), re.I)
_ABSENCE_RES = tuple(re.compile(p, re.I) for p in ABSENCE_PATTERNS)
_WORD_RE = re.compile(r"[^\W_]+")
_TRIM = " .!,;:\u2026"
#: Where a context statement and a world claim meet in one sentence.
_JOINER_RE = re.compile(
    r"(?:\s*[,;]\s*|\s+)(?:but|however|although|though|yet|while|whereas|nevertheless)\b,?\s+"
    r"|\s*;\s+|\s*\u2014\s*|\s+-\s+",
    re.I,
)
_ABOUT_TRIM_RE = re.compile(r"^(?:any|the|a|an|specific|explicit)\s+|\s+(?:at all|either)$", re.I)


@dataclass(frozen=True)
class ContextStatement:
    """What a sentence about the context says: ``kind`` is ``"abstention"`` or
    ``"absence"``; for an absence claim, ``about`` is the thing said to be missing."""

    kind: str
    about: str = ""


@lru_cache(maxsize=4096)
def classify(text: str) -> ContextStatement | None:
    """The context statement ``text`` is as a whole, or None for any other sentence."""
    core = text.strip().rstrip(_TRIM)
    lead = _LEAD_RE.match(core)
    if lead and lead.end() < len(core):
        core = core[lead.end() :]
    if not core:
        return None
    said = _classify_core(core)
    if said is not None:
        return said
    cond = _CONDITION_RE.match(core)
    if cond and _is_abstention(core[cond.end() :]):
        return ContextStatement("abstention")
    for m in _THEREFORE_RE.finditer(core):
        if _is_abstention(core[m.end() :]):
            return _classify_core(core[: m.start()])
    return None


def _is_abstention(core: str) -> bool:
    said = _classify_core(core)
    return said is not None and said.kind == "abstention"


def _classify_core(core: str) -> ContextStatement | None:
    for rx in _ABSENCE_RES:
        m = rx.fullmatch(core)
        if m:
            about = _ABOUT_TRIM_RE.sub("", m.group("x").strip(" ,"))
            if _names_something(about) and not _is_context_noun(about):
                return ContextStatement("absence", about)
            return ContextStatement("abstention")
    if _ABSTENTION_RE.fullmatch(core):
        return ContextStatement("abstention")
    return None


def split_joined(text: str) -> tuple[int, int, str] | None:
    """Where a context statement and a world claim joined in one sentence meet.

    Returns ``(end of the first part, start of the second, which part is the world
    claim: "first" or "second")``, or None when ``text`` is not such a sentence.
    """
    for m in _JOINER_RE.finditer(text):
        first, second = text[: m.start()], text[m.end() :]
        if len(_WORD_RE.findall(first)) < 2 or len(_WORD_RE.findall(second)) < 2:
            continue
        a, b = classify(first), classify(second)
        if a is not None and b is None:
            return m.start(), m.end(), "second"
        if b is not None and a is None:
            return m.start(), m.end(), "first"
    return None


def _names_something(about: str) -> bool:
    words = [w.lower() for w in _WORD_RE.findall(about)]
    return any(w not in GENERIC_WORDS for w in words)


def _is_context_noun(about: str) -> bool:
    return re.fullmatch(_THE_CTX + r"|" + _CTX, about.strip(), re.I) is not None
