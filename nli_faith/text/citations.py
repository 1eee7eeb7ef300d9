"""Citation markers in a response: ``[1]``, ``[1, 3]``, ``[2-4]``, ``[Source 2]``, ``(Source 2)``.

:func:`find_citations` finds the markers and the documents they name;
:func:`strip_citations` removes them from a claim's text (the NLI model should not read
"(Source 2)" as part of the claim, nor the number check take "2" for a quantity);
:func:`assign_citations` gives each claim the documents its markers name. Markers
count documents from 1 (``[1]`` is the first retrieved document), unless some marker
says ``[0]``, in which case they count from 0.

Example:
    >>> text = "Plans renew yearly [1]. Refunds take 5 days (Source 2)."
    >>> [(c.start, c.end, c.numbers) for c in find_citations(text)]
    [(19, 22, (1,)), (44, 54, (2,))]
    >>> strip_citations("Refunds take 5 days (Source 2).")
    'Refunds take 5 days.'
    >>> assign_citations(find_citations(text), [(0, 23), (24, 55)])
    [frozenset({0}), frozenset({1})]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_NAME = r"(?:sources?|docs?|documents?|refs?|references?|passages?|contexts?|citations?)"
_NUMS = r"\d{1,4}(?:\s*(?:,|;|&|and|\u2013|-)\s*\d{1,4})*"
#: A citation marker: bracketed numbers (optionally named), or a named parenthesised one.
CITATION_MARKER_RE = re.compile(
    r"\[\^?(?:" + _NAME + r"\.?[ _:-]?\s*)?(?P<b>" + _NUMS + r")\]"
    r"|\((?:" + _NAME + r"\.?[ _:-]?\s*)(?P<p>" + _NUMS + r")\)",
    re.IGNORECASE,
)
_RANGE_RE = re.compile(r"(\d+)\s*(?:\u2013|-)\s*(\d+)")
#: The longest range ``[a-b]`` expanded; longer ones keep their two ends only.
_MAX_RANGE = 50


@dataclass(frozen=True)
class Citation:
    """One marker: its character span in the response and the numbers it names."""

    start: int
    end: int
    numbers: tuple[int, ...]


def _numbers(group: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in re.split(r"\s*(?:,|;|&|\band\b)\s*", group):
        m = _RANGE_RE.fullmatch(part.strip())
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            out.extend(range(a, b + 1) if 0 <= b - a <= _MAX_RANGE else (a, b))
        elif part.strip().isdigit():
            out.append(int(part))
    return tuple(dict.fromkeys(out))


def find_citations(text: str) -> list[Citation]:
    """Every citation marker of ``text``, in order.

    Example:
        >>> [c.numbers for c in find_citations("A [1][3]. B [2-4]. C (Sources 1 and 2).")]
        [(1,), (3,), (2, 3, 4), (1, 2)]
    """
    out = []
    for m in CITATION_MARKER_RE.finditer(text):
        nums = _numbers(m.group("b") or m.group("p"))
        if nums:
            out.append(Citation(m.start(), m.end(), nums))
    return out


def strip_citations(text: str) -> str:
    """``text`` without its citation markers (and the space before each).

    Example:
        >>> strip_citations("Tea is cheap [1, 2] and hot (Doc 3).")
        'Tea is cheap and hot.'
    """
    return re.sub(r"[ \t]*(?:" + CITATION_MARKER_RE.pattern + r")", "", text, flags=re.I)


def assign_citations(
    citations: Sequence[Citation], claim_spans: Sequence[tuple[int, int]]
) -> list[frozenset[int] | None]:
    """For each claim (``(start, end)`` in the response), the 0-based documents it cites.

    A marker belongs to the claim it sits in, else to the last claim before it (markers
    usually follow the sentence they source), else to the first claim. A claim with
    no marker gets None.
    """
    cited: list[set[int] | None] = [None] * len(claim_spans)
    if not citations or not claim_spans:
        return list(cited)
    base = 0 if any(0 in c.numbers for c in citations) else 1
    starts = [s for s, _ in claim_spans]
    for c in citations:
        owner = 0
        for i, s in enumerate(starts):
            if s <= c.start:
                owner = i
        docs = cited[owner] if cited[owner] is not None else set()
        docs.update(n - base for n in c.numbers)
        cited[owner] = docs
    return [None if d is None else frozenset(d) for d in cited]


#: An attribution frame naming a numbered passage at the start of a claim as written:
#: "Passage 2 states that ...", "According to document 3, ...", "In source 1, ...".
_NAMED_PASSAGE_RE = re.compile(
    r"^\W*(?:according to |as (?:stated|mentioned|noted|described) in |in |per )?(?:the )?"
    r"(?:passage|document|doc|source|context|article|excerpt|snippet|reference)\s*#?"
    r"(?P<n>\d{1,3})\b",
    re.IGNORECASE,
)


def named_passage(raw: str) -> int | None:
    """The 0-based document a claim's attribution frame names ("Passage 2 clarifies
    that ..." names document 1), else None.

    Example:
        >>> named_passage("Passage 2 clarifies that it applies to the total.")
        1
        >>> named_passage("It applies to the total.") is None
        True
    """
    m = _NAMED_PASSAGE_RE.match(raw)
    return None if m is None or int(m.group("n")) < 1 else int(m.group("n")) - 1
