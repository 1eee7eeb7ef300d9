"""Read a short answer with its question: "3 years" to "How long should I keep tax
records?" is the claim "How long should I keep tax records: 3 years."

An NLI model cannot check "Delhi" or "3 years" alone: the claim is in the question. An
answer that is a phrase rather than a sentence (:func:`is_elliptical`: a few words, no
verb) is joined with its question into one declarative claim (:func:`claim_with_question`):

* a question whose last words are its wh-phrase ("... are located in which city?") reads
  with the answer in their place ("... are located in New York City.");
* a question that opens with its wh-phrase followed by a verb that is not ``do``
  ("Which magazine was started first?", "Who is the director of X?") reads with the
  answer as its subject ("Arthur's Magazine was started first.");
* any other question ("How long should I keep tax records?", "When did X die?") keeps its
  words, with the answer after a colon: "How long should I keep tax records: 3 years."

A full-sentence answer is left as it is. The scorer reports both texts: the claim as
written and as scored (``ClaimVerdict.scored_as``).

Example:
    >>> claim_with_question("How long should I keep tax records?", "3 years")
    'How long should I keep tax records: 3 years.'
    >>> claim_with_question("750 7th Avenue and 101 Park Avenue are located in which city?",
    ...                     "New York City")
    '750 7th Avenue and 101 Park Avenue are located in New York City.'
    >>> claim_with_question("Which magazine was started first?", "Arthur's Magazine")
    "Arthur's Magazine was started first."
    >>> claim_with_question("Who wrote it?", "It was written by Jane Austen.") is None
    True
"""

from __future__ import annotations

import re

__all__ = ["claim_with_question", "is_elliptical", "is_question"]

#: An answer with more words than this is read as a sentence, whatever its verbs.
MAX_ELLIPTICAL_WORDS = 8

_WORD_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_VERB_RE = re.compile(
    r"\b(?:is|are|was|were|be|been|being|am|has|have|had|do|does|did|will|would|can|could|"
    r"should|shall|may|might|must|isn't|aren't|wasn't|weren't|won't|can't|cannot)\b",
    re.IGNORECASE,
)
_PAST_RE = re.compile(r"\b[a-z]{2,}ed\b")  # "died", "founded": a lower-case past tense
#: A lower-case word right after a capitalised one ending like a verb ("Brabus specializes"),
#: or a common irregular past tense.
_AFTER_NAME_VERB_RE = re.compile(r"\b[A-Z][\w'-]*\s+[a-z]{3,}(?:s|ed)\b")
_IRREGULAR_RE = re.compile(
    r"\b(?:became|began|born|built|came|fought|found|gave|got|grew|held|knew|led|left|lost|"
    r"made|met|ran|said|sang|saw|sold|spent|stood|took|told|won|wore|wrote)\b"
)
_YES_NO_RE = re.compile(r"^\s*(?:yes|no)\b", re.IGNORECASE)
_WH = r"(?:what|which|whose|who|whom|where|when)"
#: A trailing wh-phrase: "in which city?", "what year?", "whom?".
_TRAILING_WH_RE = re.compile(
    rf"\b{_WH}(?:\s+[\w-]+){{0,3}}\s*\?\s*$|\bhow\s+(?:many|much)(?:\s+[\w-]+){{0,3}}\s*\?\s*$",
    re.IGNORECASE,
)
#: A leading wh-phrase followed by a verb that is not ``do``: the answer is its subject.
_LEADING_WH_RE = re.compile(
    rf"^\s*(?:{_WH}(?:\s+(?!is\b|was\b|are\b|were\b|has\b|had\b|have\b)[\w'-]+){{0,3}}?)\s+"
    r"(?=(?:is|was|are|were|has|had|have|will|would|can|could)\b)",
    re.IGNORECASE,
)
#: After the verb, a pronoun subject or a final preposition: the wh-phrase is an object.
_OBJECT_GAP_RE = re.compile(
    r"^\w+\s+(?:it|he|she|they|you|we|i|this|that|these|those)\b|\b(?:in|on|at|of|for|from|"
    r"with|by|to|about|called|named)$",
    re.IGNORECASE,
)
_DO_RE = re.compile(r"^\s*\w+(?:\s+[\w'-]+){0,3}?\s+(?:do|does|did)\b", re.IGNORECASE)


#: How a sentence opens (a determiner or a pronoun as its subject's first word): an answer
#: of three words or more that opens so is read as a sentence ("The warranty lasts 24
#: months."), even when no verb of the tables above shows.
_SENTENCE_START_RE = re.compile(
    r"^\s*(?:the|a|an|this|that|these|those|it|its|he|she|they|we|i|you|there|his|her|"
    r"their|our|my|your)\b",
    re.IGNORECASE,
)
#: A question: it ends with a question mark, or opens with a wh-word or an auxiliary verb.
_QUESTION_RE = re.compile(
    r"\?\s*$|^\s*(?:what|which|whose|who|whom|where|when|why|how|is|are|was|were|do|does|did|"
    r"has|have|had|can|could|will|would|should|shall|may|might|must)\b",
    re.IGNORECASE,
)


def is_elliptical(answer: str) -> bool:
    """Is ``answer`` a phrase rather than a sentence: a few words, no verb, and not opening
    as a sentence does (a determiner or pronoun, then two words or more)?

    Example:
        >>> is_elliptical("3 years"), is_elliptical("Roy Jenkins died in 2003.")
        (True, False)
        >>> is_elliptical("The warranty lasts 24 months."), is_elliptical("The Beatles")
        (False, True)
    """
    words = _WORD_RE.findall(answer)
    if not words or len(words) > MAX_ELLIPTICAL_WORDS or _YES_NO_RE.match(answer):
        return False
    if len(words) >= 3 and _SENTENCE_START_RE.match(answer):
        return False
    return not any(
        r.search(answer) for r in (_VERB_RE, _PAST_RE, _AFTER_NAME_VERB_RE, _IRREGULAR_RE)
    )


def is_question(text: str) -> bool:
    """Does ``text`` ask something (a question mark, or a wh-word or auxiliary first)? An
    instruction ("Tell me about the warranty.") gives a short answer no claim to complete.

    Example:
        >>> is_question("How long is the warranty?"), is_question("Tell me about it.")
        (True, False)
    """
    return _QUESTION_RE.search(text) is not None


def claim_with_question(question: str | None, answer: str) -> str | None:
    """The claim a short ``answer`` makes about ``question``, or None when the answer is a
    sentence of its own (or there is no question)."""
    if not question or not is_question(question) or not is_elliptical(answer):
        return None
    q = " ".join(question.split())
    a = " ".join(answer.split()).rstrip(" .!;")
    if not q.endswith("?"):
        q += "?"
    if (m := _TRAILING_WH_RE.search(q)) and m.start() > 0:
        return f"{q[: m.start()].rstrip(' ,')} {a}."
    if not _DO_RE.match(q) and (m := _LEADING_WH_RE.match(q)):
        rest = q[m.end() :].rstrip(" ?")
        if not _OBJECT_GAP_RE.search(rest):  # "Which city is it in?": the answer is no subject
            return f"{a} {rest}."
    return f"{q.rstrip(' ?')}: {a}."
