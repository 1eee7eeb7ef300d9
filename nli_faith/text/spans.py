"""The words of a claim that its evidence does not back: the smallest spans to blame.

A claim that is not supported is highlighted whole today; usually one value in it is
wrong. For a claim and the evidence text it was compared with (the chunk that
contradicts it, or the closest one), this module finds the parts responsible:

1. **what the evidence states otherwise**: a quantity of the claim (number, amount,
   year) for which the evidence gives another value, by the number rules of
   :mod:`nli_faith.text.equivalence` ("thirty-six months" against "twenty-four months"),
   else a negation that the evidence's closest passage lacks, or the word a negation
   of that passage denies ("covers" against "does not cover"). Such a conflict
   explains the verdict; only it is marked (the claim's other words may be
   paraphrases of the evidence's).
2. otherwise, **what the evidence does not hold**: the claim's numbers, years and names
   it does not state, and a token-level comparison of the claim's key words (its
   content words outside quantities and the verbs that only relate a subject to a
   value, as the attribution rule defines them:
   :func:`nli_faith.text.attribution.key_words`) with the evidence's words, missing
   ones joined into runs ("Van Zyl", "wgc-hsbc champions").

A claim none of whose key words is in the evidence, or where none of these rules finds
anything (the wrong part is the relation itself: a swapped subject and object), keeps
its whole span. A span's kind is the claim's verdict: ``contradicted`` in a contradicted
claim, ``unsupported`` in a claim that is only not found, even where the evidence states
another value (the verdict's number rule also asks that the evidence be about the same
thing, and a span must not say more than the verdict does).

Example:
    >>> [(c, k) for c, k in find_spans(
    ...     "The warranty lasts thirty-six months.",
    ...     "The device is covered for twenty-four months.", verdict="no")]
    [((19, 36), 'contradicted')]
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

from nli_faith.text.attribution import key_words, segments
from nli_faith.text.equivalence import _differs, _supported
from nli_faith.text.lexical import _stop_words, content_words
from nli_faith.text.quantities import extract_quantities

__all__ = ["find_spans", "to_response"]

#: Words that negate what follows them.
NEGATIONS = frozenset(
    "not no never none nobody nothing neither nor without cannot n't nowhere".split()
)
#: Words, with the hyphen and apostrophe compounds they are part of ("wgc-hsbc", "don't").
_WORD_RE = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")
_PIECE_RE = re.compile(r"[^\W_]+")
_POSSESSIVE_RE = re.compile(r"['\u2019]s$", re.IGNORECASE)
#: Two flagged words are one run when only spaces, hyphens, apostrophes and at most this
#: many stop words stand between them ("age of 83", "held to a draw").
MAX_JOINED_STOP_WORDS = 3
#: A claim keeps its whole span when this share of its key words is missing from the
#: evidence (1.0: all of them, its whole content is absent).
WHOLE_CLAIM_SHARE = 1.0
_GAP_RE = re.compile(r"[\s'\u2019-]*")

Span = tuple[int, int]


def _stem(word: str) -> str:
    """The stem :func:`~nli_faith.text.lexical.content_words` gives a single word."""
    words = content_words(word)
    return next(iter(words)) if len(words) == 1 else word.lower()


def _same(a: str, b: str) -> bool:
    """Stems of one word: equal, or sharing all but a short inflection ("carded"/"carding")."""
    if a == b:
        return True
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n >= max(4, min(len(a), len(b)) - 2)


@lru_cache(maxsize=4096)
def _evidence_words(evidence: str) -> frozenset[str]:
    return content_words(evidence)


def _present(stem: str, have: frozenset[str]) -> bool:
    return stem in have or any(_same(stem, w) for w in have)


def _quantity_spans(claim: str, evidence: str) -> tuple[list[Span], list[Span], list[Span]]:
    """The claim's quantities the evidence states with another value, those it does not
    state at all, and every quantity's span."""
    have = extract_quantities(evidence)
    numbers = frozenset(q.number for q in have if q.number)
    differ, missing, every = [], [], []
    for q in extract_quantities(claim, include_one=False):
        every.append((q.start, q.end))
        if q.kind == "quantity" and q.dimension and _differs(q, have):
            differ.append((q.start, q.end))
        elif not _supported(q, have, numbers):  # a year where the evidence has another
            other_year = q.kind == "year" and any(c.kind == "year" for c in have)
            (differ if other_year else missing).append((q.start, q.end))
    return differ, missing, every


def _words(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group(0)) for m in _WORD_RE.finditer(text)]


def _closest_passage(claim: str, evidence: str) -> str:
    """The passage of the evidence (a sentence, a line) sharing most words with the claim."""
    words = content_words(claim)
    passages = [evidence[s:e] for s, e in segments(evidence)] or [evidence]
    return max(passages, key=lambda p: len(words & content_words(p)))


def _negation_spans(claim: str, evidence: str) -> list[Span]:
    """A negation of the claim the evidence's closest passage lacks, or the claim's word
    that a negation of that passage denies."""
    mine = [(s, e) for s, e, w in _words(claim) if _is_negation(w)]
    ev = _words(_closest_passage(claim, evidence))
    theirs = [k for k, (_, _, w) in enumerate(ev) if _is_negation(w)]
    if mine and not theirs:
        return mine
    if theirs and not mine:
        out = []
        claim_words = [(s, e, _stem(w)) for s, e, w in _words(claim)]
        for k in theirs:  # the first content word after the negation: what it denies
            for _, _, w in ev[k + 1 : k + 4]:
                stem = _stem(w)
                if stem not in content_words(w) or _is_negation(w):
                    continue
                out += [(s, e) for s, e, c in claim_words if _same(c, stem)]
                break
        return out
    return []


def _is_negation(word: str) -> bool:
    w = word.lower().replace("\u2019", "'")
    return w in NEGATIONS or w.endswith("n't")


def _word_spans(claim: str, evidence: str, skip: list[Span]) -> tuple[list[Span], int, int]:
    """Runs of key words missing from the evidence; also how many key words the claim
    has and how many are missing."""
    keys = key_words(claim)
    have = _evidence_words(evidence)
    flagged: list[Span] = []
    n_keys = n_missing = 0
    for s, e, word in _words(claim):
        if any(a < e and s < b for a, b in skip):
            continue
        pieces = [_stem(_POSSESSIVE_RE.sub("", p)) for p in _PIECE_RE.findall(word)]
        pieces = [p for p in pieces if p in keys]
        if not pieces:
            continue
        n_keys += 1
        if all(_present(p, have) for p in pieces):
            continue
        n_missing += 1
        flagged.append((s, e))
    return flagged, n_keys, n_missing


def _joined(text: str, spans: list[Span]) -> list[Span]:
    """Neighbouring spans merged when only a few stop words lie between them."""
    out: list[Span] = []
    for s, e in sorted(spans):
        if out and _gap_joins(text[out[-1][1] : s]):
            out[-1] = (out[-1][0], max(e, out[-1][1]))
        else:
            out.append((s, e))
    return out


def _gap_joins(gap: str) -> bool:
    words = _PIECE_RE.findall(gap)
    if len(words) > MAX_JOINED_STOP_WORDS or not _GAP_RE.fullmatch(_PIECE_RE.sub("", gap)):
        return False
    stop = _stop_words()
    return all(w.lower() in stop and not _is_negation(w) for w in words)


def find_spans(claim: str, evidence: str | None, *, verdict: str) -> list[tuple[Span, str]]:
    """The spans of ``claim`` (offsets into it) that ``evidence`` does not back, each with
    its kind (see the module doc). A ``yes`` claim has none; a claim with no evidence, or
    with nothing smaller to blame, is one span.

    Example:
        >>> claim = "Rory McIlroy won the Turkish Open in Antalya."
        >>> [claim[s:e] for (s, e), _ in find_spans(
        ...     claim, "McIlroy finished third at the Turkish Open.", verdict="idk")]
        ['Rory', 'won', 'Antalya']
    """
    if verdict == "yes":
        return []
    kind = "contradicted" if verdict == "no" else "unsupported"
    whole = _trimmed(claim)
    if not evidence or not evidence.strip():
        return [(whole, kind)]
    differ, missing, quantities = _quantity_spans(claim, evidence)
    negations = [] if differ else _negation_spans(claim, evidence)
    negations = [s for s in negations if not _inside(s, quantities)]
    if differ or negations:  # a value, else a negation, the evidence states otherwise
        return [(s, kind) for s in sorted(set(differ or negations))]
    words, n_keys, n_missing = _word_spans(claim, evidence, quantities)
    if n_keys and n_missing >= WHOLE_CLAIM_SHARE * n_keys and not missing:
        return [(whole, kind)]  # none of its content is in the evidence
    return [(s, kind) for s in _joined(claim, missing + words)] or [(whole, kind)]


def _inside(span: Span, spans: list[Span]) -> bool:
    return any(a <= span[0] and span[1] <= b for a, b in spans)


def _trimmed(text: str) -> Span:
    """The claim without its closing full stop and outer spaces."""
    end = len(text.rstrip().rstrip(".!;:").rstrip())
    start = len(text) - len(text.lstrip())
    return (start, max(end, start))


def to_response(text: str, raw: str, start: int, span: Span) -> Span:
    """A span of a claim's cleaned ``text`` as offsets into the response, where the claim
    sits as ``raw`` from ``start``: cleaning drops Markdown and citation markers and may
    change a letter's case, so the two are aligned (``difflib``) when they differ.

    Example:
        >>> to_response("The warranty lasts two years.", "**the** warranty lasts two years [1].",
        ...             10, (19, 28))
        (33, 42)
    """
    s, e = span
    if text == raw:
        return start + s, start + e
    blocks = SequenceMatcher(None, text.lower(), raw.lower(), autojunk=False)
    table = {}
    for a, b, n in blocks.get_matching_blocks():
        for k in range(n):
            table[a + k] = b + k
    first = next((table[k] for k in range(s, e) if k in table), None)
    last = next((table[k] for k in range(e - 1, s - 1, -1) if k in table), None)
    if first is None or last is None:
        return start, start + len(raw)
    return start + first, start + last + 1
