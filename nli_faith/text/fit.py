"""Claims that fit the model: a claim too long to sit beside a chunk is split, never cut.

An NLI pair is ``[CLS] chunk [SEP] claim [SEP]`` and must fit the model's window. The
scorer gives a claim at most half of it; a longer claim (an 800-word run-on sentence, a
pasted log line, a code block without full stops) is split here into pieces of at most
``max_tokens`` tokens, at the best boundary available near the limit: after a clause
mark (``. ; : ! ?`` or a dash), then after a comma, then between words, and only as a
last resort between two tokens of one word. Each piece is a :class:`Claim` of its own
whose span points into the response, so ``response[piece.start:piece.end]`` is where
that part of the claim sits.

Example:
    >>> from nli_faith.text.claims import Claim
    >>> words = lambda text: [(m.start(), m.end()) for m in re.finditer(r"\\S+", text)]
    >>> response = "Logs rotate daily, backups run at night; alerts go to the on-call team."
    >>> claim = Claim(response, 0, len(response))
    >>> fitted = fit_claims([claim], max_tokens=7, token_offsets=words,
    ...                     count_tokens=lambda ts: [len(words(t)) for t in ts])
    >>> [response[c.start : c.end] for c in fitted.claims]
    ['Logs rotate daily, backups run at night', 'alerts go to the on-call team.']
    >>> fitted.n_split
    1
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from nli_faith.text.claims import Claim

#: ``count(texts) -> token counts`` (no special tokens).
CountTokens = Callable[[list[str]], list[int]]
#: ``offsets(text) -> [(start, end), ...]`` character span of each token.
TokenOffsets = Callable[[str], list[tuple[int, int]]]

#: Characters after which a claim is best split (then a comma, then any space).
CLAUSE_MARKS = frozenset(".;:!?\u2013\u2014\u2026)")
_EDGE = " \t\n,;:\u2013\u2014-"
_SPACE_RE = re.compile(r"\s")
#: Tries at shrinking a piece whose own tokenization came out longer than its slice.
_MAX_RETRIES = 8


@dataclass(frozen=True)
class FittedClaims:
    """The claims after fitting: ``n_split`` long claims became ``n_pieces`` pieces."""

    claims: list[Claim]
    n_split: int = 0
    n_pieces: int = 0


def fit_claims(
    claims: Sequence[Claim],
    *,
    max_tokens: int,
    token_offsets: TokenOffsets,
    count_tokens: CountTokens,
    response: str | None = None,
) -> FittedClaims:
    """Split every claim longer than ``max_tokens`` tokens into pieces that fit.

    ``response`` (the text the claims were split from) lets each piece's span follow the
    claim's cleaning (removed Markdown, collapsed spaces); without it the claim text is
    taken to be ``response[start:end]`` itself. A claim scored as a rewrite of its words
    (:attr:`Claim.written`) is split as written.
    """
    claims = list(claims)
    if max_tokens < 1 or not claims:
        return FittedClaims(claims)
    counts = count_tokens([c.text for c in claims])
    if all(n <= max_tokens for n in counts):
        return FittedClaims(claims)
    out: list[Claim] = []
    n_split = n_pieces = 0
    for claim, n in zip(claims, counts):
        if n <= max_tokens:
            out.append(claim)
            continue
        if claim.written is not None:  # a rewrite (a restored subject): split as written
            claim = Claim(claim.written, claim.start, claim.end)
        ranges = _fit_range(claim.text, 0, len(claim.text), max_tokens, token_offsets, count_tokens)
        source = response[claim.start : claim.end] if response is not None else claim.text
        pos = _align(claim.text, source)
        pieces = [
            Claim(claim.text[a:b], claim.start + pos[a], claim.start + pos[b - 1] + 1)
            for a, b in ranges
        ]
        out.extend(pieces)
        n_split += 1
        n_pieces += len(pieces)
    return FittedClaims(out, n_split, n_pieces)


def _fit_range(
    text: str,
    start: int,
    end: int,
    max_tokens: int,
    token_offsets: TokenOffsets,
    count_tokens: CountTokens,
    depth: int = 0,
) -> list[tuple[int, int]]:
    """Character ranges of ``text[start:end]``, each at most ``max_tokens`` tokens."""
    ranges = [
        r for r in _split_range(text, start, end, max_tokens, token_offsets) if _trim(text, r)
    ]
    ranges = [_trim(text, r) for r in ranges]
    if depth >= _MAX_RETRIES:
        return ranges
    # A piece re-tokenized alone can come out longer than its slice of the claim's tokens
    # ("##ing" is one token, "ing" may be two): shrink those until they fit.
    sizes = count_tokens([text[a:b] for a, b in ranges])
    out: list[tuple[int, int]] = []
    for (a, b), n in zip(ranges, sizes):
        if n <= max_tokens:
            out.append((a, b))
        else:
            tighter = max(1, max_tokens - (n - max_tokens) - depth)
            out.extend(_fit_range(text, a, b, tighter, token_offsets, count_tokens, depth + 1))
    return out


def _split_range(
    text: str, start: int, end: int, max_tokens: int, token_offsets: TokenOffsets
) -> list[tuple[int, int]]:
    toks = [(start + s, start + e) for s, e in token_offsets(text[start:end]) if e > s]
    if len(toks) <= max_tokens:
        return [(start, end)]
    out = []
    i = 0
    while len(toks) - i > max_tokens:
        lo, hi = i + max(1, max_tokens // 2), i + max_tokens
        cut = min(
            range(lo, hi + 1),
            key=lambda t: (_boundary_rank(text, toks[t - 1][1], toks[t][0]), -t),
        )
        out.append((toks[i][0], toks[cut - 1][1]))
        i = cut
    out.append((toks[i][0], toks[-1][1]))
    return out


def _boundary_rank(text: str, prev_end: int, next_start: int) -> int:
    """0: after a clause mark, 1: after a comma, 2: between words, 3: inside a word."""
    gap = text[prev_end:next_start]
    if not gap or not _SPACE_RE.match(gap):
        return 3
    before = text[prev_end - 1] if prev_end > 0 else ""
    if before in CLAUSE_MARKS:
        return 0
    return 1 if before == "," else 2


def _trim(text: str, r: tuple[int, int]) -> tuple[int, int] | None:
    """Strip separators from the edges of a piece; ``None`` if no letter or digit is left."""
    a, b = r
    while a < b and text[a] in _EDGE:
        a += 1
    while b > a and text[b - 1] in _EDGE:
        b -= 1
    if not any(ch.isalnum() for ch in text[a:b]):
        return None
    return a, b


def _align(clean: str, source: str) -> list[int]:
    """For each character of ``clean``, its position in ``source``.

    ``clean`` is ``source`` with characters removed (Markdown, citations), whitespace runs
    collapsed to one space and maybe a capital letter or a full stop added: a greedy
    subsequence match, where a character that cannot be found keeps its predecessor's place.
    """
    pos: list[int] = []
    j, last = 0, 0
    n = len(source)
    for ch in clean:
        k = j
        if ch.isspace():
            while k < n and not source[k].isspace():
                k += 1
        else:
            low = ch.lower()
            while k < n and source[k] != ch and source[k].lower() != low:
                k += 1
        if k < n:
            last, j = k, k + 1
            if ch.isspace():
                while j < n and source[j].isspace():
                    j += 1
        pos.append(min(last, max(n - 1, 0)))
    return pos
