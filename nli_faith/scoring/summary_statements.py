"""Summary claims and the statements they sum up; the word tests composites share.

A *summary claim* ("The whole process involves several network elements, each with its
own role.", "The plan includes storage, support and early access.") sums up several
statements that no one sentence holds (:func:`is_summary`). :func:`summarised_statements`
finds the statements it sums up: those sharing one of its specific words
(:func:`specific_words`), a sentence that opens with a pronoun read with the one before
it, none naming the claim's thing with another modifier (:func:`modifier_conflict`) or
negating what the claim does not (:func:`negation_cues`). The composite premise
(:mod:`nli_faith.scoring.composite`) joins them into the premise the model reads, and the
rules stage (:mod:`nli_faith.rules.summaries`) cites them as evidence.

The word tests here are pure text functions, shared by the composite planner and the
summary rule: negation and exception cues, and whether sentences are linked by shared
content words (:func:`coherent`, :func:`linked`).

Example:
    >>> summarised_statements("The plan includes storage, support and fast access.",
    ...     ["The plan includes storage.", "It also has support.", "Lunch is at noon."])
    [0, 1]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nli_faith.text.lexical import content_words

#: Words that negate or restrict a statement: a sentence holding one the claim lacks
#: may be the exception to the claim's rule, so it is never joined into a composite.
NEGATION_RE = re.compile(
    r"\b(?:not|no|never|none|neither|nor|cannot|without|except|excepting|excluding|"
    r"excluded|exclude|excludes|unless|exception|exceptions|exempt|ineligible|only)\b|n't\b",
    re.IGNORECASE,
)


#: Sentences a summary composite joins, at most.
SUMMARY_SENTENCES = 6
#: Phrases that make a claim a summary of several statements.
SUMMARY_RE = re.compile(
    r"\b(?:whole|entire|overall|in (?:summary|short|sum)|altogether|taken together|"
    r"together|each with (?:its|their) own|(?:a|the) (?:range|variety|series) of|"
    r"various|several|multiple|a combination of)\b",
    re.IGNORECASE,
)
#: "A, B and C": three or more coordinated items (a comma, an item of at most three
#: words, then "and" / "or").
ENUMERATION_RE = re.compile(r",(?:\s*[\w'-]+){1,3},?\s+(?:and|or)\s", re.IGNORECASE)
#: Words a summary uses to sum up (its frame), not facts to find in the statements.
SUMMARY_WORDS = frozenset(
    """whole entire overall summary short sum altogether together various several multiple
    range variety number series set combination different distinct many each own role part
    process procedure system close closely cooperation cooperate collaboration collaborate
    coordination coordinate interplay work working involve involves include includes consist
    comprise comprises feature features offer offers provide provides cover covers come
    comes play plays contribute contributes responsible responsibility task key main
    important essential""".split()
)
#: Sentence openings that continue the sentence before (read with it).
_CONTINUES_RE = re.compile(r"^\s*(?:it|its|they|their|these|this|he|she|his|her)\b", re.I)


def is_summary(claim: str) -> bool:
    """True when ``claim`` sums up several statements: a summarising phrase, or a list of
    short items; never a claim with a number (on news summaries a wide premise made
    contradicted claims with dates and ages look supported).

    Example:
        >>> is_summary("The whole process involves several network elements.")
        True
        >>> is_summary("The plan includes storage, support and early access.")
        True
        >>> is_summary("The plan includes storage.")
        False
    """
    if any(ch.isdigit() for ch in claim):
        return False  # a claim with numbers states facts: the number check and the model's
    return bool(SUMMARY_RE.search(claim) or ENUMERATION_RE.search(claim))


def specific_words(claim: str) -> frozenset[str]:
    """The claim's content words that a summary's statements must hold: all but its frame.

    Example:
        >>> sorted(specific_words("The whole process involves several network elements."))
        ['element', 'network']
    """
    return frozenset(_root(w) for w in content_words(claim) if w not in SUMMARY_WORDS)


def _root(word: str) -> str:
    """A crude verb root, so that "booking" finds "book" and "printed" finds "print"."""
    for end in ("ing", "ed"):
        if len(word) > len(end) + 3 and word.endswith(end):
            return word[: -len(end)]
    return word


def _roots(words: frozenset[str]) -> frozenset[str]:
    return frozenset(_root(w) for w in words)


def _pairs(text: str) -> set[tuple[str, str]]:
    """Adjacent content-word pairs of ``text`` ("premium plan"), stemmed, lower-cased."""
    words = _words_with_gaps(text)
    return {(a, b) for a, b in zip(words, words[1:]) if a and b}


def _words_with_gaps(text: str) -> list[str]:
    """Content words of ``text`` in order, "" where punctuation or a stop word breaks a run."""
    out: list[str] = []
    for token in re.findall(r"[^\W_]+|[^\w\s]", text.lower()):
        w = next(iter(content_words(token)), "") if token[0].isalnum() else ""
        out.append(w if len(w) > 2 else "")  # the "s" of "Clarke's" is no modifier
    return out


def modifier_conflict(claim: str, sentence: str) -> str | None:
    """A thing the sentence names with another modifier than the claim ("basic plan"
    against "premium plan"), when the sentence never uses the claim's modifier and
    the claim never uses the sentence's: the sentence is about something else.
    Returns the sentence's pair, else None.

    Example:
        >>> modifier_conflict("The basic plan includes support.", "The premium plan adds support.")
        'premium plan'
        >>> modifier_conflict("The premium plan includes storage.", "It has cloud storage.") is None
        True
    """
    have = content_words(sentence)
    claim_pairs = [
        (a, b)
        for a, b in _pairs(claim)
        if a not in SUMMARY_WORDS and b not in SUMMARY_WORDS and not a.isdigit()
    ]
    mine = content_words(claim)
    theirs = _pairs(sentence)
    for a, b in claim_pairs:
        if a in have:
            continue
        for x, y in theirs:
            if y == b and x not in mine and x not in SUMMARY_WORDS and not x.isdigit():
                return f"{x} {y}"
    return None


def summarised_statements(claim: str, sentences: Sequence[str]) -> list[int]:
    """Indices of the sentences a summary claim sums up, in the order given.

    ``sentences`` are the context's sentences in document order. A sentence counts when
    it holds one of the claim's :func:`specific_words` (a sentence that opens with a
    pronoun is read with the one before it), names nothing the claim names otherwise
    (:func:`modifier_conflict`) and negates or restricts nothing the claim does not
    (:func:`negation_cues`). At most ``SUMMARY_SENTENCES``, those holding the most
    specific words first.

    Example:
        >>> summarised_statements("The plan includes storage, support and fast access.",
        ...     ["The plan includes storage.", "It also has support.", "Lunch is at noon.",
        ...      "Plan members get fast access."])
        [0, 1, 3]
    """
    want = specific_words(claim)
    if not want:
        return []
    claim_cues = negation_cues(claim)
    hits: list[tuple[int, int]] = []
    prev: frozenset[str] = frozenset()
    for k, text in enumerate(sentences):
        words = _roots(content_words(text))
        read = words | prev if _CONTINUES_RE.match(text) else words
        prev = read
        n = len(want & read)
        if n and not (negation_cues(text) - claim_cues) and modifier_conflict(claim, text) is None:
            hits.append((n, k))
    best = sorted(hits, key=lambda h: (-h[0], h[1]))[:SUMMARY_SENTENCES]
    return sorted(k for _, k in best)


def sentence_words(
    sentences: Sequence[str], picked: Sequence[int], *, carry: bool = True
) -> list[frozenset[str]]:
    """The content words (verb roots) of each picked sentence; with ``carry``, one that
    opens with a pronoun is read with the one before."""
    out = []
    for k in picked:
        words = _roots(content_words(sentences[k]))
        j = k
        while carry and j > 0 and _CONTINUES_RE.match(sentences[j]):
            j -= 1
            words |= _roots(content_words(sentences[j]))
        out.append(words)
    return out


def negation_cues(text: str) -> frozenset[str]:
    """The negation and exception words of ``text``, lower-cased.

    Example:
        >>> sorted(negation_cues("Discounted plans are not refundable, except in the EU."))
        ['except', 'not']
    """
    return frozenset(m.group(0).lower().replace("n't", "not") for m in NEGATION_RE.finditer(text))


def coherent(texts: Sequence[str]) -> bool:
    """True when the sentences are linked by shared content words (one connected group).

    Example:
        >>> coherent(["The design team drafts each release.", "QA tests each release."])
        True
        >>> coherent(["Alice joined in 2019.", "Bob leads the data team."])
        False
    """
    return linked([content_words(t) for t in texts])


def linked(words: Sequence[frozenset[str]]) -> bool:
    """True when the word sets form one group, each sharing a word with another."""
    if not words:
        return True
    linked, todo = {0}, [0]
    while todo:
        a = todo.pop()
        for b in range(len(words)):
            if b not in linked and words[a] & words[b]:
                linked.add(b)
                todo.append(b)
    return len(linked) == len(words)
