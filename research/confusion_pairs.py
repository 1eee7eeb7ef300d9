"""In-document confusion pairs: an entity of the claim swapped for another of the same
document, and the subject of one sentence spliced onto the predicate of the next.

Made from ``rag-sources`` documents with a :class:`~research.ragpairs.RagPairMaker`
(its chunker and tagger). :mod:`research.confusions` builds a second-stage mix
from them; ``taskmix --confusions N`` mines them with the first.
"""

from __future__ import annotations

import random
from collections import defaultdict

from research.synthetic import SWAP_ENTS, SyntheticPair

_VERB_POS = frozenset({"VERB", "AUX"})
_FINITE = frozenset({"VBZ", "VBP", "VBD", "MD"})


def _subject_end(sent) -> int | None:
    """Index of the first verb of a tagged sentence, when it is finite and a subject of 1-8
    tokens that opens with no conjunction or quote precedes it."""
    if not len(sent) or sent[0].pos_ in {"SCONJ", "CCONJ", "PUNCT", "ADV"}:
        return None
    for i, tok in enumerate(sent):
        if tok.pos_ in _VERB_POS:
            return i if 1 <= i <= 8 and tok.tag_ in _FINITE else None
    return None


def _local_swap(sent, doc_ents: dict[str, list[str]], rng: random.Random) -> str | None:
    """The sentence with one entity replaced by another of its type from the same document."""
    text = sent.text
    ents = [e for e in sent.ents if e.label_ in SWAP_ENTS]
    rng.shuffle(ents)
    for ent in ents:
        own = ent.text.lower()
        others = [
            o
            for o in doc_ents.get(ent.label_, ())
            if o.lower() not in text.lower() and own not in o.lower() and o.lower() not in own
        ]
        if others:
            other = rng.choice(sorted(set(others)))
            i, j = ent.start_char - sent.start_char, ent.end_char - sent.start_char
            return text[:i] + other + text[j:]
    return None


def _splice(a, b) -> str | None:
    """Subject of ``a`` + predicate of ``b``, when both have a short subject and they differ."""
    ia, ib = _subject_end(a), _subject_end(b)
    if ia is None or ib is None:
        return None
    subj_a, subj_b = a[:ia].text.strip(), b[:ib].text.strip()
    if subj_a.lower() == subj_b.lower() or subj_a.lower() in {"it", "he", "she", "they"}:
        return None
    pred = b[ib:].text.strip()
    if len(pred.split()) < 4:
        return None
    return f"{subj_a} {pred}"


def _tagged_prose(maker, doc):
    """The document's chunks, its prose sentences that a window holds, and each one tagged."""
    from research.ragpairs import prose_claims, sentences, windows_of

    chunks = maker.chunks(doc)
    prose = [s for s in prose_claims(doc, sentences(chunks)) if windows_of(s, chunks)]
    tagged = dict(zip((s.text for s in prose), maker.nlp.pipe([s.text for s in prose])))
    return chunks, prose, tagged


def confusion_pairs(maker, docs, *, seed: int, per_doc: int = 2) -> list[SyntheticPair]:
    """Local entity swaps and spliced sentences for ``docs`` (``SourceDoc``), premise = window.

    ``maker`` is a :class:`~research.ragpairs.RagPairMaker` (its chunker and tagger).
    """
    from research.ragpairs import contains, windows_of

    rng = random.Random(seed)
    out: list[SyntheticPair] = []
    for doc in docs:
        src = f"rag_{doc.task_type.lower()}"
        chunks, prose, tagged = _tagged_prose(maker, doc)
        if not prose:
            continue
        doc_ents: dict[str, list[str]] = defaultdict(list)
        for d in tagged.values():
            for e in d.ents:
                doc_ents[e.label_].append(e.text)
        picks = rng.sample(prose, min(per_doc, len(prose)))
        for s in picks:
            span = next(iter(tagged[s.text].sents), None)
            wrong = _local_swap(span, doc_ents, rng) if span is not None else None
            if wrong and wrong != s.text:
                window = rng.choice(windows_of(s, chunks))
                out.append(
                    SyntheticPair(window.text, wrong, "contradiction", "rag_entity_local", src)
                )
        windows = [c for c in chunks if sum(contains(c, s) for s in prose) >= 2]
        for w in rng.sample(windows, min(per_doc, len(windows))):
            inside = [s for s in prose if contains(w, s)]
            a, b = rng.sample(inside, 2)
            sa = next(iter(tagged[a.text].sents), None)
            sb = next(iter(tagged[b.text].sents), None)
            spliced = _splice(sa, sb) if sa is not None and sb is not None else None
            if spliced and spliced not in w.text:
                out.append(SyntheticPair(w.text, spliced, "neutral", "rag_spliced", src))
    return out


def _content(tokens) -> bool:
    return any(t.pos_ in {"NOUN", "PROPN", "NUM", "VERB"} for t in tokens)


def _noun_phrases(sent) -> list[str]:
    """Noun phrases found by tags alone: optional determiner, adjectives, then nouns."""
    out, i = [], 0
    while i < len(sent):
        j = i + (sent[i].pos_ == "DET")
        while j < len(sent) and sent[j].pos_ == "ADJ":
            j += 1
        k = j
        while k < len(sent) and sent[k].pos_ in {"NOUN", "PROPN"}:
            k += 1
        if k > j and k - i >= 2:
            out.append(sent[i:k].text)
        i = max(k, i + 1)
    return out


def _garble(kind: str, sent, other, rng: random.Random) -> str | None:
    """One garbled restatement of ``sent`` that reuses the document's words but says
    something the document does not: the kind of sentence an abstractive summariser writes
    when it loses track (and that word overlap rates as supported).

    * ``rag_copula``: the subject of ``sent`` "is" a noun phrase of ``other``;
    * ``rag_cut``: the first part of ``sent`` run on into the last part of ``other``, cut
      mid-phrase;
    * ``rag_gapped``: ``sent`` with its main verb and the words after it cut out.
    """
    if kind == "rag_copula":
        end = _subject_end(sent)
        phrases = [p for p in _noun_phrases(other) if p.lower() not in sent.text.lower()]
        if end is None or not phrases:
            return None
        verb = "was" if sent[end].tag_ == "VBD" else "is"
        return f"{sent[:end].text.strip()} {verb} {rng.choice(phrases)}."
    if kind == "rag_cut":
        if len(sent) < 8 or len(other) < 8:
            return None
        a = rng.randint(int(0.35 * len(sent)), int(0.6 * len(sent)))
        b = rng.randint(int(0.4 * len(other)), int(0.65 * len(other)))
        if not (_content(sent[:a]) and _content(other[b:])):
            return None
        return f"{sent[:a].text.strip()} {other[b:].text.strip()}"
    end = _subject_end(sent)
    if end is None:
        return None
    k = end + rng.randint(2, 4)
    if len(sent) - k < 3 or not _content(sent[end:k]):
        return None
    return f"{sent[:end].text.strip()} {sent[k:].text.strip()}"


GARBLED_KINDS = ("rag_copula", "rag_cut", "rag_gapped")


def garbled_pairs(maker, docs, *, seed: int, per_doc: int = 2) -> list[SyntheticPair]:
    """Garbled restatements (see :func:`_garble`) against the window that holds the sentence
    → neutral (not supported), ``per_doc`` per document, the kinds in turn."""
    from research.ragpairs import flat, windows_of

    rng = random.Random(seed)
    out: list[SyntheticPair] = []
    turn = 0
    for doc in docs:
        src = f"rag_{doc.task_type.lower()}"
        chunks, prose, tagged = _tagged_prose(maker, doc)
        if len(prose) < 2:
            continue
        whole = flat(" ".join(doc.context)).lower()
        for s in rng.sample(prose, min(per_doc, len(prose))):
            o = rng.choice([p for p in prose if p is not s])
            sent = next(iter(tagged[s.text].sents), None)
            other = next(iter(tagged[o.text].sents), None)
            kind = GARBLED_KINDS[turn % len(GARBLED_KINDS)]
            turn += 1
            wrong = _garble(kind, sent, other, rng) if sent and other else None
            if wrong and len(wrong.split()) >= 5 and flat(wrong).lower() not in whole:
                window = rng.choice(windows_of(s, chunks))
                out.append(SyntheticPair(window.text, wrong, "neutral", kind, src))
    return out
