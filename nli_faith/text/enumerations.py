"""Counts that a claim proves itself: "three teams: design, engineering and QA".

A claim that announces a number of things and then lists exactly that many states the
count by listing them; the context need not say "three" for the claim to be supported,
only name each item (which the NLI model checks). The number check
(:func:`nli_faith.rules.numbers.number_support_mask`) should therefore not ask the
context for such a count: :func:`drop_self_counts` removes it from the text the check
reads. A count that does not match its list is left in place, and so still checked.
"""

from __future__ import annotations

import re

from nli_faith.text.numerals import NUMBER_WORD_RE, words_to_number

_COUNT = r"(?P<n>\d{1,2}|" + NUMBER_WORD_RE.pattern[2:-2] + r")"
#: "<count> <up to three words>: <item>, <item> and <item>" (or a dash, or "(...)").
SELF_COUNT_RE = re.compile(
    r"\b" + _COUNT + r"(?P<noun>(?:\s+[\w-]+){1,3})\s*(?::|\u2014|\u2013| - |\()\s*"
    r"(?P<items>[^.;:()]+)",
    re.IGNORECASE,
)
_ITEM_SPLIT_RE = re.compile(r"\s*(?:,\s*(?:and|or)\s+|,|\band\b|\bor\b|&)\s*", re.IGNORECASE)


def _value(token: str) -> int:
    return int(token) if token.isdigit() else words_to_number(token)


def drop_self_counts(text: str) -> str:
    """``text`` with each count that its own list proves taken out.

    Example:
        >>> drop_self_counts("It takes three teams: design, engineering and QA.")
        'It takes teams: design, engineering and QA.'
        >>> drop_self_counts("It takes four teams: design, engineering and QA.")
        'It takes four teams: design, engineering and QA.'
    """

    def fix(m: re.Match[str]) -> str:
        items = [x for x in _ITEM_SPLIT_RE.split(m.group("items").strip()) if x.strip()]
        if len(items) < 2 or len(items) != _value(m.group("n")):
            return m.group(0)
        return m.group(0)[len(m.group("n")) :].lstrip()

    return SELF_COUNT_RE.sub(fix, text)
