"""The rule tables of sentence segmentation: citation markers, abbreviations, titles
and list-item markers (:mod:`nli_faith.text.sentences` and
:mod:`nli_faith.text.line_structure` read them).

Example:
    >>> bool(CITATION_RE.fullmatch("[Source 3]")), "approx" in ABBREVIATIONS
    (True, True)
"""

from __future__ import annotations

import re

__all__ = [
    "ABBREVIATIONS",
    "CITATION_PATTERN",
    "CITATION_RE",
    "LIST_ITEM_PATTERN",
    "TITLE_ABBREVIATIONS",
]

#: One citation marker: ``[1]``, ``[1, 2]``, ``[1-3]``, ``[^1]``, ``[doc2]``, ``[Source 3]``
#: and the ``【4†source】`` markers some chat UIs emit.
CITATION_PATTERN = (
    r"(?:\[\^?(?:[A-Za-z]{1,10}[ _-]?)?\d{1,4}"
    r"(?:\s*[,;\u2013-]\s*\^?(?:[A-Za-z]{1,10}[ _-]?)?\d{1,4})*\]"
    r"|\u3010[^\u3011\n]{1,40}\u3011)"
)
CITATION_RE = re.compile(CITATION_PATTERN)

#: Abbreviations whose trailing period the tokenizer splits off (so the sentencizer
#: ends a sentence there) but which usually continue the sentence when the next word
#: starts with a digit or a lowercase letter: "No. 5", "Fig. 3", "approx. 20 units",
#: "apples, pears, etc. are fruit". Before a capitalised word they may end a sentence
#: ("..., pears, etc. The next ...") and are left alone. spaCy itself already keeps
#: "e.g.", "i.e.", "U.S.", "vs.", "Inc.", "Dr." etc. as single tokens.
ABBREVIATIONS = frozenset(
    (
        "No Nos Nr no nos Fig Figs fig figs Eq Eqs eq Ref Refs ref Vol vol Vols vols "
        "Ch ch Chap Sec sec Sect Art art Para para p pp P Pp approx Approx ca Ca cf Cf "
        "al etc incl Incl excl Excl est Est min max Tel tel Ex ex vs v op Op resp Resp "
        "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Jr Sr Inc Ltd Co Corp Bros "
        "ed eds Ed Eds rev Rev trans dept Dept Univ univ Assn Ave Blvd Rd hr hrs sq"
    ).split()
)

#: Titles: a boundary right after one is always undone, a name follows ("Prof. Smith").
TITLE_ABBREVIATIONS = frozenset(
    (
        "Mr Mrs Ms Mx Dr Prof St Mt Ft Gen Col Capt Cpt Lt Sgt Maj Adm Cmdr Sen Rep Gov "
        "Pres Hon Fr Messrs Mme Mlle Mssrs Sra Srta Atty Supt"
    ).split()
)

#: Markdown / plain-text list item markers: "- x", "* x", "+ x", "• x", "1. x", "1) x",
#: "(a) x", "a) x", "a. x" (lowercase letter only).
LIST_ITEM_PATTERN = (
    r"[ \t]*(?:[-*+\u2022\u25aa\u2023\u25e6\u2013]|\d{1,3}[.)]|\(?[A-Za-z0-9]{1,3}\)|[a-z]\.)"
    r"(?:[ \t]+|$)"
)
