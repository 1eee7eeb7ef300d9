"""Split an LLM answer into the atomic claims the NLI model checks.

Two granularities:

* ``"sentence"`` (default): one claim per sentence, from the rule-based segmenter in
  :mod:`nli_faith.text.sentences`; no statistical model, fast.
* ``"clause"``: each sentence is further split into coordinated clauses that have their
  own subject and predicate ("The warranty lasts two years and it covers water damage."
  -> "The warranty lasts two years." + "It covers water damage.") and into verb phrases
  that share one ("Wayne sold his share and left the company." -> "Wayne sold his
  share." + "Wayne left the company."), using an installed spaCy pipeline with a
  dependency parser.

Every claim is cleaned for the NLI model (list bullets and numbers, heading ``#``,
block-quote ``>``, citation markers, Markdown emphasis, link syntax and backticks
removed; whitespace collapsed) but keeps the character span of its text in the
original response. Tables, JSON and ``key: value`` blocks in a response are read as in a
context (:mod:`nli_faith.text.structured`): each table row or JSON record is one claim
("Plan Pro: price $20; seats 5."), spanning its row; header and separator rows are never
claims. With ``drop_non_claims=True`` (default), segments that assert
nothing checkable are dropped and not counted: questions, greetings and sign-offs,
meta sentences, headings and labels, code blocks (the rule tables of
:mod:`nli_faith.text.non_claims`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from nli_faith.checks import GRANULARITIES as GRANULARITIES
from nli_faith.errors import E_GRANULARITY, E_OPTION_TYPE, OptionError
from nli_faith.text.clauses import (
    CLAUSE_CONNECTORS,
    DEFAULT_SPACY_MODELS,
    load_parser,
    split_clauses,
)
from nli_faith.text.line_structure import line_kind
from nli_faith.text.non_claims import (
    LABEL_MAX_CHARS,
    META_PREFIX_PATTERNS,
    META_SENTENCE_PATTERNS,
    PLEASANTRY_PATTERNS,
    TITLE_MAX_WORDS,
    clean,
    is_title_line,
    keep_claims,
)
from nli_faith.text.pieces import Claim, Piece
from nli_faith.text.sentences import sentence_spans, sentence_spans_many
from nli_faith.text.structured import StructuredBlock, structured_blocks

if TYPE_CHECKING:  # pragma: no cover
    from spacy.language import Language

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

    In clause mode a coordinated clause with its own subject is split off as it is
    written; a verb phrase that shares the subject of the first ("The company was
    founded in 1998 and employs 500 people.") is split off with the subject restored
    ("The company employs 500 people."), its words as written kept in
    :attr:`Claim.written` (:mod:`nli_faith.text.clauses`).

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
            raise OptionError(
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
        _check_text(text, "text")
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
        if isinstance(texts, str):
            raise OptionError(
                E_OPTION_TYPE.format(name="texts", expected="a list of strings", value=texts)
            )
        texts = list(texts)
        for k, text in enumerate(texts):
            _check_text(text, f"texts[{k}]")
        seg_processes = 1 if self._parser is not None else n_process
        spans = sentence_spans_many(texts, batch_size=batch_size, n_process=seg_processes)
        pieces = [self._pieces(t, s) for t, s in zip(texts, spans, strict=True)]
        return self._finish(pieces, n_process=n_process, batch_size=batch_size)

    # ------------------------------------------------------------------ internals

    def _pieces(self, text: str, spans: Iterable[tuple[int, int]]) -> list[Piece]:
        blocks = structured_blocks(text)
        if blocks:
            spans = _outside_blocks(text, spans, blocks)
        out = []
        for s, e in spans:
            out.extend(self._segment_piece(text, s, e))
        if blocks:  # each table row / JSON record is a claim; headers and separators are not
            out.extend(
                Piece(st.text, [st.start] * (len(st.text) - 1) + [st.end - 1])
                for block in blocks
                for st in block.statements
                if not st.part
            )
            out.sort(key=lambda p: p.offsets[0])
        return out

    def _segment_piece(self, text: str, s: int, e: int) -> list[Piece]:
        """Clean one sentence span and decide whether it is a claim (or two)."""
        line_start = text.rfind("\n", 0, s) + 1
        at_line_start = not text[line_start:s].strip()
        kind = line_kind(text[line_start:e].split("\n", 1)[0]) if at_line_start else "text"
        if self.drop_non_claims and kind in ("heading", "fence", "rule"):
            return []
        piece = clean(text, s, e, block_prefix=at_line_start and kind != "fence")
        if piece is None or not self.drop_non_claims:
            return [] if piece is None else [piece]
        line_end = text.find("\n", e)
        whole_line = at_line_start and not text[e : line_end if line_end >= 0 else None].strip()
        if whole_line and kind == "text" and is_title_line(piece.text):
            return []  # a plain-text heading: "Warranty Details"
        return keep_claims(piece, context_statements=self.context_statements)

    def _finish(
        self, pieces: list[list[Piece]], *, n_process: int = 1, batch_size: int = 256
    ) -> list[list[Claim]]:
        if self._parser is None:
            return [[p.claim() for p in ps] for ps in pieces]
        flat = [p for ps in pieces for p in ps]
        docs = self._parser.pipe((p.text for p in flat), n_process=n_process, batch_size=batch_size)
        split = iter([split_clauses(p, doc) for p, doc in zip(flat, docs, strict=True)])
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


def _check_text(text: object, name: str) -> None:
    if not isinstance(text, str):
        raise OptionError(E_OPTION_TYPE.format(name=name, expected="a string", value=text))
