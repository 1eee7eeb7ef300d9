"""Numbers in text, in digits or in words, normalised so that "$50" and "fifty" match.

Used by the number check (a claim whose number is absent from a chunk is not
supported by that chunk), by the pre-filter's keep-list and by the synthetic
training data.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

UNITS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
WORD_VALUE: dict[str, int] = {w: i for i, w in enumerate(UNITS)} | {
    w: i * 10 for i, w in enumerate(TENS) if w != "_"
}
WORD_VALUE["dozen"] = 12

#: Spelled-out numbers 0-99: "seven", "thirty", "thirty-six", "thirty six", "dozen".
NUMBER_WORD_RE = re.compile(
    r"\b(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
    r"(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
    r"|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|dozen)\b",
    re.IGNORECASE,
)
#: Numbers in digits, with thousands separators and decimals: 24, 1,200, 3.5.
DIGITS_RE = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.,])\d+(?:\.\d+)?")


#: The words a spelled-out number of :data:`NUMBER_WORD_RE` starts with.
NUMBER_WORDS = frozenset(WORD_VALUE)
_DIGIT_RE = re.compile(r"\d")
_DIGIT_RUN_RE = re.compile(r"\d+")
_LETTER_RUN_RE = re.compile(r"[a-z]+")


def may_hold_number(text: str, words: frozenset[str] = NUMBER_WORDS) -> bool:
    """False only when ``text`` surely holds no number: no digit and, in ASCII text, none
    of ``words`` as a whole word, in any case (a cheap screen before the number patterns,
    which run only where it says True; every pattern it guards needs a digit or one of
    ``words`` between word boundaries).

    Example:
        >>> may_hold_number("Someone often wrote."), may_hold_number("One of them.")
        (False, True)
    """
    if _DIGIT_RE.search(text) is not None or not text.isascii():
        return True
    return not words.isdisjoint(_LETTER_RUN_RE.findall(text.lower()))


def pattern_matches(
    pattern: re.Pattern[str], text: str, words: frozenset[str]
) -> Iterator[re.Match]:
    """``pattern.finditer(text)``, tried only where a match can start, for a pattern whose
    every match starts at a digit that begins a run of digits or at a run of letters that
    is one of ``words`` in any case.

    In ASCII text (where the patterns' case folding is ``lower()``'s) the pattern is tried
    at those positions alone, in order, each from where the last match ended, which finds
    what scanning every position finds; other text is scanned.

    Example:
        >>> [m.group(0) for m in pattern_matches(NUMBER_WORD_RE, "Someone saw ONE of 2.",
        ...                                      NUMBER_WORDS)]
        ['ONE']
    """
    if not text.isascii():
        yield from pattern.finditer(text)
        return
    starts = [m.start() for m in _DIGIT_RUN_RE.finditer(text)]
    if words:
        low = text.lower()
        starts += [m.start() for m in _LETTER_RUN_RE.finditer(low) if m.group(0) in words]
        starts.sort()
    pos = 0
    for start in starts:
        if start < pos:
            continue
        m = pattern.match(text, start)
        if m is not None:
            yield m
            pos = m.end()


def words_to_number(text: str) -> int:
    """ "thirty-six" -> 36."""
    return sum(WORD_VALUE[p] for p in re.split(r"[- ]", text.lower()) if p)


def number_to_words(n: int) -> str | None:
    """36 -> "thirty-six"; None outside 0..99."""
    if 0 <= n < 20:
        return UNITS[n]
    if 20 <= n < 100:
        tens, unit = divmod(n, 10)
        return TENS[tens] + (f"-{UNITS[unit]}" if unit else "")
    return None


#: List and section markers at the start of a line ("1. ", "5.6 ", "3) "): not quantities.
_MARKER_RE = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?\(?(?:\d+[.)](?=[ \t])|\d+(?:\.\d+)+(?=[ \t]+[A-Z]))",
    re.MULTILINE,
)


def _norm_digits(text: str) -> str:
    text = text.replace(",", "")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.lstrip("0") or "0"


@lru_cache(maxsize=16384)
def extract_numbers(text: str, *, include_one: bool = True) -> frozenset[str]:
    """Normalised numbers in ``text``: ``{"1200", "3.5", "36"}``.

    Cached: the pre-filter's anchors and the number check read the same chunks.

    "one" is as often a pronoun as a number; ``include_one=False`` skips the
    word (the digit 1 is always kept). List and section numbers at the start of
    a line ("5.6 Session Management") are markers, not quantities, and are skipped.

    Example:
        >>> sorted(extract_numbers("Thirty-six months, $1,200.50 and 3.50%"))
        ['1200.5', '3.5', '36']
    """
    if not may_hold_number(text):
        return frozenset()
    text = _MARKER_RE.sub(" ", text)
    found = {_norm_digits(m.group(0)) for m in pattern_matches(DIGITS_RE, text, frozenset())}
    for m in pattern_matches(NUMBER_WORD_RE, text, NUMBER_WORDS):
        word = m.group(0).lower()
        if word == "one" and not include_one:
            continue
        found.add(str(words_to_number(word)))
    return frozenset(found)
