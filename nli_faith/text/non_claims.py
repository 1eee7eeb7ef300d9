"""What is not a claim, and how a segment is cleaned for the NLI model.

The rule tables (greetings, meta sentences and prefixes, labels and headings) and the
cleaning of list bullets, headings, block quotes, citation markers and Markdown, each
keeping every character's position in the response.
"""

from __future__ import annotations

import re
from itertools import chain

from nli_faith.text.citations import strip_citations
from nli_faith.text.context_statements import classify, split_joined
from nli_faith.text.pieces import Piece
from nli_faith.text.sentence_tables import CITATION_PATTERN, LIST_ITEM_PATTERN

__all__ = [
    "LABEL_MAX_CHARS",
    "META_PREFIX_PATTERNS",
    "META_SENTENCE_PATTERNS",
    "PLEASANTRY_PATTERNS",
    "TITLE_MAX_WORDS",
    "clean",
    "is_title_line",
    "keep_claims",
]

# --------------------------------------------------------------------------- rule tables
# All patterns are matched case-insensitively against the *cleaned* segment text.

#: Greetings, acknowledgements and sign-offs. A segment that matches one of these in
#: full (trailing punctuation ignored) is not a claim.
PLEASANTRY_PATTERNS: tuple[str, ...] = (
    r"(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening|day))"
    r"(?: there| everyone| all| team| folks)?",
    r"dear [\w .'-]{1,40}",
    r"(?:sure|certainly|of course|absolutely|definitely|okay|ok|alright|all right|got it|"
    r"no problem|no worries|yes|no|indeed|right|great|perfect|understood|gladly)"
    r"(?: thing)?(?:[,!.]? ?(?:here (?:you go|it is)|happy to help))?",
    r"(?:that'?s an? |what an? |an? )?(?:great|good|excellent|interesting|fantastic|nice)"
    r" question",
    r"thanks?(?: you)?(?: so much| very much| a lot)?(?: for .*)?",
    r"(?:i )?hope (?:this|that|it|the above|my answer)\b.*",
    r"(?:please )?let me know\b.*",
    r"(?:please )?feel free to\b.*",
    r"(?:please )?(?:do not|don't) hesitate to\b.*",
    r"if you have any (?:other |more |further |additional )?questions\b.*",
    r"is there anything else\b.*",
    r"(?:i'?m |i am |i'?d be |i would be |we are |always )?(?:happy|glad) (?:to|i could) help\b.*",
    r"you'?re welcome\b.*|you are welcome\b.*",
    r"good luck\b.*|have a (?:great|nice|good) (?:day|one|week)\b.*|cheers",
    r"(?:best|kind|warm|warmest)(?: regards| wishes)\b.*|regards\b.*|sincerely\b.*|best",
)

#: Sentences about the answer or the context rather than about the world (AI
#: disclaimers, abstentions such as "The context does not mention X."). Dropped.
META_SENTENCE_PATTERNS: tuple[str, ...] = (
    r"as an ai\b.*",
    r"i (?:do not|don't|cannot|can't|am unable to|was unable to|could not|couldn't)"
    r" (?:find|have|see|access|provide|determine|answer|say|confirm|know)\b.*",
    r"(?:the|this|these) (?:provided |given |retrieved |available |above )?"
    r"(?:context|contexts|documents?|sources?|passages?|information|text|excerpts?)"
    r" (?:provided |given |above )?(?:does|do|did) not\b.*",
    r"there (?:is|are) no (?:information|mention|details?|data)\b.*",
    r"(?:let me|i will|i'?ll|allow me to) (?:explain|summari[sz]e|break|walk|outline|"
    r"clarify|elaborate|help)\b.*",
    r"here(?:'s|\u2019s| is| are) (?:what|the|a|an|some|my|how)\b.*",
)

_CONTEXT_NOUN = (
    r"(?:context|contexts|documents?|documentation|docs|sources?|information|info|"
    r"passages?|text|texts|excerpts?|materials?|data|search results|references?|"
    r"articles?|snippets?|knowledge base|records?)"
)
#: A passage's number after its noun: "Passage 2", "document [3]", "source #1".
_NUMBERED = r"(?: (?:\[?\d+\]?|#\d+|[ivx]{1,4}\b))?"
#: What an attribution frame says its source does: "states", "clarifies", "points out"...
_FRAME_VERB = (
    r"(?:states?|says?|mentions?|indicates?|shows?|notes?|explains?|suggests?|confirms?|"
    r"clarif(?:y|ies)|specif(?:y|ies)|reports?|describes?|highlights?|emphasi[sz]es?|adds?|"
    r"points? out|tells? us|reveals?|outlines?|details?|discusses?|claims?|argues?|writes?|"
    r"notes? down|provides? information|informs? us|stresses?|recommends?|advises?)"
)
#: Prefixes that frame a claim without adding content; they are stripped and the rest
#: (capitalised) is the claim: "Based on the provided context, the warranty lasts two
#: years." -> "The warranty lasts two years."
META_PREFIX_PATTERNS: tuple[str, ...] = (
    r"(?:based (?:on|upon)|according to|per|from|in light of|as (?:stated|mentioned|"
    r"described|noted|shown|indicated|outlined|specified) in) "
    r"(?:the |this |these |your |my )?(?:[a-z]+ ){0,2}?"
    + _CONTEXT_NOUN
    + _NUMBERED
    + r"(?: (?:in|from|of)"
    r" (?:the )?(?:[a-z]+ )?" + _CONTEXT_NOUN + r")?(?: (?:provided|given|above|supplied|"
    r"available|shared|retrieved|you (?:provided|shared|gave|sent)))?(?: to me)? ?, ?",
    r"(?:the|this|these) (?:provided |given |retrieved |above )?"
    + _CONTEXT_NOUN
    + r" (?:provided |given |above )?(?:clearly )?(?:states?|says?|mentions?|indicates?|"
    r"shows?|notes?|explains?|suggests?|confirms?|specif(?:y|ies)|reports?|describes?)"
    r" that ",
    # a numbered or ordinal passage as the subject: "Passage 2 clarifies that ..."
    r"(?:(?:the|this) )?(?:(?:first|second|third|fourth|fifth|last|other|same) )?"
    + _CONTEXT_NOUN
    + _NUMBERED
    + r" (?:also |further |clearly |explicitly |specifically )?"
    + _FRAME_VERB
    + r" that ",
    r"(?:it is|it's) (?:stated|mentioned|noted|specified|indicated|explained)"
    r"(?: in the (?:[a-z]+ )?" + _CONTEXT_NOUN + r")? that ",
    r"(?:to answer your question|in summary|in short|to summari[sz]e|to sum up|"
    r"in conclusion|overall|in brief|in a nutshell|short answer|long story short|"
    r"simply put|put simply|in other words) ?[,:] ?",
    r"(?:sure|certainly|of course|absolutely|yes|no|well|okay|ok|alright|indeed|"
    r"great question|good question|hi|hello|hey)(?: there)? ?[,:] ?",
    r"(?:i can confirm|i can tell you|i found) that ",
    r"here(?:'s|\u2019s| is| are) (?:what|the|a|an|some) [^:]{1,60}: ",
)

#: A segment of one word without sentence punctuation is a bare label ("Pros",
#: "1. Installation"); longer ones are kept (unspaced scripts can be long words).
LABEL_MAX_CHARS = 30
#: A whole line of at most this many words, every word longer than three letters
#: capitalised, without digits or sentence punctuation, is a plain-text heading
#: ("Warranty Details").
TITLE_MAX_WORDS = 6

_PLEASANTRY_RE = re.compile("|".join(f"(?:{p})" for p in PLEASANTRY_PATTERNS), re.I)
_META_SENTENCE_RE = re.compile("|".join(f"(?:{p})" for p in META_SENTENCE_PATTERNS), re.I)
_META_PREFIX_RE = re.compile("|".join(f"(?:{p})" for p in META_PREFIX_PATTERNS), re.I)

_BLOCK_PREFIX_RE = re.compile(
    r"[ \t]*(?:>[ \t]?)*(?:#{1,6}(?:[ \t]+|$)|"
    + LIST_ITEM_PATTERN
    + r")?(?:[ \t]*\[[ xX]\][ \t]+)?"
)
#: An enumeration number that starts a sentence inside a paragraph ("...: 1. Open it.").
_INLINE_NUMBER_RE = re.compile(r"\(?\d{1,3}[.)][ \t]+(?=\S)")
_HEADING_TAIL_RE = re.compile(r"[ \t]+#+[ \t]*$")
_INLINE_CUT_RES = (
    re.compile(r"\s*" + CITATION_PATTERN),  # citation markers, with the space before
    re.compile(r"(?P<o>\*\*|__)(?=\S)(?:.+?)(?<=\S)(?P<c>\1)"),  # **bold** / __bold__
    re.compile(r"\*\*"),  # stray bold markers ("**Note:** text" halves)
    re.compile(r"(?<![\w*])(?P<o>\*)(?=[^\s*])[^*\n]+?(?<=[^\s*])(?P<c>\*)(?![\w*])"),
    re.compile(r"(?<![\w_])(?P<o>_)(?=[^\s_])[^_\n]+?(?<=[^\s_])(?P<c>_)(?![\w_])"),
    re.compile(r"(?P<o>\[)[^\]\n]+(?P<c>\]\([^)\s]*\))"),  # [link text](url)
    re.compile(r"`+"),  # inline code ticks (the code stays)
)
_INLINE_TRIGGERS = frozenset("[*_`\u3010")
_WS_RUN_RE = re.compile(r"\s+")
_QUESTION_END_RE = re.compile(r"[?\uff1f\u061f][?!\uff1f\uff01\"'\u201d\u2019)\]]*$")
SENTENCE_END_RE = re.compile(r"[.!?\u2026\u3002\uff01\uff1f\u0964][\"'\u201d\u2019)\]]*$")
_WORD_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W_]+")


def _cut(text: str, offsets: list[int], cuts: list[tuple[int, int]]) -> tuple[str, list[int]]:
    """Remove the (possibly overlapping) ranges ``cuts`` from ``text`` and ``offsets``."""
    if not cuts:
        return text, offsets
    cuts.sort()
    parts: list[str] = []
    offs: list[list[int]] = []
    pos = 0
    for a, b in cuts:
        if a > pos:
            parts.append(text[pos:a])
            offs.append(offsets[pos:a])
        pos = max(pos, b)
    parts.append(text[pos:])
    offs.append(offsets[pos:])
    return "".join(parts), list(chain.from_iterable(offs))


def clean(text: str, s: int, e: int, *, block_prefix: bool) -> Piece | None:
    """Strip Markdown, citations and extra whitespace; ``None`` if nothing is left."""
    seg = text[s:e]
    offsets = list(range(s, e))
    cuts: list[tuple[int, int]] = []
    m = (_BLOCK_PREFIX_RE if block_prefix else _INLINE_NUMBER_RE).match(seg)
    if m and m.end():
        cuts.append((0, m.end()))
    if block_prefix:
        tail = _HEADING_TAIL_RE.search(seg)  # "## Title ##"
        if tail and seg.lstrip().startswith("#"):
            cuts.append(tail.span())
    if not _INLINE_TRIGGERS.isdisjoint(seg):
        for rx in _INLINE_CUT_RES:
            for m in rx.finditer(seg):
                if rx.groupindex:
                    cuts.append(m.span("o"))
                    cuts.append(m.span("c"))
                else:
                    cuts.append(m.span())
    seg, offsets = _cut(seg, offsets, cuts)
    seg, offsets = _squash_space(seg, offsets)
    if not seg or not any(ch.isalnum() for ch in seg):
        return None
    return Piece(seg, offsets)


def _squash_space(text: str, offsets: list[int]) -> tuple[str, list[int]]:
    """Trim, and collapse every whitespace run to one space (offsets follow)."""
    cuts = []
    for m in _WS_RUN_RE.finditer(text):
        a, b = m.span()
        if a == 0 or b == len(text):
            cuts.append((a, b))
        elif b - a > 1 or text[a] != " ":
            cuts.append((a + 1, b))
    if not cuts:
        return text, offsets
    text, offsets = _cut(text, offsets, cuts)
    return _WS_RUN_RE.sub(" ", text), offsets


def _strip_meta_prefix(piece: Piece) -> Piece:
    """Remove framing prefixes ("Based on the context, ...") and capitalise the rest."""
    text, offsets = piece.text, piece.offsets
    stripped = False
    for _ in range(3):  # "Sure, based on the documents, ..." has two
        m = _META_PREFIX_RE.match(text)
        if not m or m.end() >= len(text):
            break
        text, offsets = text[m.end() :], offsets[m.end() :]
        stripped = True
    if stripped and text[:1].islower():
        text = text[0].upper() + text[1:]
    return Piece(text, offsets) if stripped else piece


def is_title_line(text: str) -> bool:
    """A short Title Case line without sentence punctuation ("Warranty Details")."""
    if SENTENCE_END_RE.search(text) or any(ch.isdigit() for ch in text):
        return False
    words = text.split()
    if not 2 <= len(words) <= TITLE_MAX_WORDS:
        return False
    long_words = [w for w in words if len(w) > 3]
    return bool(long_words) and all(w[0].isupper() for w in long_words)


def keep_claims(piece: Piece, *, context_statements: bool) -> list[Piece]:
    """The claims of a cleaned segment: itself, nothing, or, for a context statement
    joined to a world claim, the world claim (and the statement, if kept)."""
    piece = _strip_meta_prefix(piece)
    joined = split_joined(piece.text)
    if joined is None:
        kept = _keep_claim(piece, context_statements=context_statements)
        return [] if kept is None else [kept]
    a, b, world = joined
    first = Piece(piece.text[:a], piece.offsets[:a])
    second = Piece(_capitalised(piece.text[b:]), piece.offsets[b:])
    out = []
    for part in (first, second):
        kept = _keep_claim(part, context_statements=context_statements)
        if kept is not None and (kept.kind is None or context_statements):
            out.append(kept)
    if not any(p.kind is None for p in out):  # the world claim is never lost
        out.append(second if world == "second" else first)
        out.sort(key=lambda p: p.offsets[0])
    return out


def _capitalised(text: str) -> str:
    return text[0].upper() + text[1:] if text[:1].islower() else text


def _keep_claim(piece: Piece, *, context_statements: bool = False) -> Piece | None:
    """Apply the non-claim rules to a cleaned segment; return the claim or ``None``."""
    piece = _strip_meta_prefix(piece)
    text = piece.text
    if _QUESTION_END_RE.search(text):
        return None
    if text.endswith(":"):  # a heading or a lead-in ("Here are the steps:")
        return None
    said = classify(text)
    if said is not None:  # a sentence about the context: judged by rule, or dropped
        if not context_statements:
            return None
        return Piece(text, piece.offsets, kind=said.kind, about=said.about)
    core = text.rstrip(" .!,;:\u2026")
    if _PLEASANTRY_RE.fullmatch(core) or _META_SENTENCE_RE.fullmatch(core):
        return None
    if not any(ch.isalnum() for ch in strip_citations(text)):
        return None  # no text but symbols or a source marker: "(Passage 1)"
    words = _WORD_RE.findall(text)
    if len(words) < 2 and len(text) <= LABEL_MAX_CHARS and not SENTENCE_END_RE.search(text):
        return None  # a bare label: "Pros", "1. Installation"
    return piece
