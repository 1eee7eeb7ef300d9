"""In-document confusions: the errors summarisers make with words the source itself holds.

A model tuned on sentence-level swaps learns "an entity the window never names is wrong";
a summariser's real errors reuse the source's own words: it gives one person's act to
another person *of the same article*, or joins the subject of one sentence to the predicate
of the next. Pairs of both kinds, against the window that holds the original sentences:

- ``rag_entity_local``: an entity of the claim replaced by another entity of the same type
  found in the same document → contradiction;
- ``rag_spliced``: the words before the first verb of one sentence joined to the words from the
  first verb of a neighbouring sentence, when both subjects differ → neutral (not supported).

``python -m nli_faith.training.confusions -o OUT --mix MIX --base MODEL`` writes a second-stage
mix: these pairs for the training documents of ``taskmix`` (the same seeded document split),
mined with the stage-one model; a sample of the stage-one training rows; and replayed
sentence-level NLI rows, SNLI first. The development rows of the new kinds are written apart and
with the stage-one selection split, for model selection only. No evaluation file is read.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import time
from collections import Counter, defaultdict
from pathlib import Path

from nli_faith.training.synthetic import _SWAP_ENTS, SyntheticPair

logger = logging.getLogger(__name__)

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
    ents = [e for e in sent.ents if e.label_ in _SWAP_ENTS]
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


def confusion_pairs(maker, docs, *, seed: int, per_doc: int = 2) -> list[SyntheticPair]:
    """Local entity swaps and spliced sentences for ``docs`` (``SourceDoc``), premise = window.

    ``maker`` is a :class:`~nli_faith.training.ragpairs.RagPairMaker` (its chunker and tagger).
    """
    from nli_faith.training.ragpairs import _as_claim, _contains, _is_prose, _windows_of

    rng = random.Random(seed)
    out: list[SyntheticPair] = []
    for doc in docs:
        src = f"rag_{doc.task_type.lower()}"
        chunks = maker.chunks(doc)
        sents = [c for c in chunks if not any(_contains(c, o) for o in chunks)]
        prose = [
            s
            for s in sents
            if _as_claim(s) and _is_prose(s, doc.context[s.doc_index]) and _windows_of(s, chunks)
        ]
        if not prose:
            continue
        tagged = dict(zip((s.text for s in prose), maker.nlp.pipe([s.text for s in prose])))
        doc_ents: dict[str, list[str]] = defaultdict(list)
        for d in tagged.values():
            for e in d.ents:
                doc_ents[e.label_].append(e.text)
        picks = rng.sample(prose, min(per_doc, len(prose)))
        for s in picks:
            span = next(iter(tagged[s.text].sents), None)
            wrong = _local_swap(span, doc_ents, rng) if span is not None else None
            if wrong and wrong != s.text:
                window = rng.choice(_windows_of(s, chunks))
                out.append(
                    SyntheticPair(window.text, wrong, "contradiction", "rag_entity_local", src)
                )
        windows = [c for c in chunks if sum(_contains(c, s) for s in prose) >= 2]
        for w in rng.sample(windows, min(per_doc, len(windows))):
            inside = [s for s in prose if _contains(w, s)]
            a, b = rng.sample(inside, 2)
            sa = next(iter(tagged[a.text].sents), None)
            sb = next(iter(tagged[b.text].sents), None)
            spliced = _splice(sa, sb) if sa is not None and sb is not None else None
            if spliced and spliced not in w.text:
                out.append(SyntheticPair(w.text, spliced, "neutral", "rag_spliced", src))
    return out


def build(args: argparse.Namespace) -> dict:
    from nli_faith import FaithfulnessScorer
    from nli_faith.nli.model import NLIModel
    from nli_faith.training.ragpairs import RagPairMaker
    from nli_faith.training.taskmix import (
        _row,
        p_gold,
        pick_documents,
        read_rows,
        replay_rows,
        write_mix,
    )

    data, mix, out = Path(args.data), Path(args.mix), Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    t0 = time.time()
    train_docs, dev_docs = pick_documents(
        data, n=args.docs, seed=args.mix_seed, dev_fraction=args.dev_fraction
    )
    maker = RagPairMaker(FaithfulnessScorer(args.base))
    new = [
        _row(p) for p in confusion_pairs(maker, train_docs, seed=args.seed, per_doc=args.per_doc)
    ]
    dev_new = [
        _row(p) for p in confusion_pairs(maker, dev_docs, seed=args.seed + 1, per_doc=args.per_doc)
    ]
    logger.info(
        "confusion pairs: %d train, %d dev (%.0f s)", len(new), len(dev_new), time.time() - t0
    )
    miner = NLIModel(args.base, max_length=args.max_length, backend=args.miner_backend)
    pg = p_gold(
        miner.predict([(r["premise"], r["hypothesis"]) for r in new]), [r["label"] for r in new]
    )
    kept = [
        r | {"p_gold_before": round(float(p), 4)}
        for r, p in zip(new, pg)
        if p < args.hard_below or rng.random() < args.easy_rate
    ]
    stage_one = read_rows(mix / "train.jsonl")
    rng.shuffle(stage_one)
    stage_one = stage_one[: args.stage_one]
    old_replay = read_rows(mix / "replay.jsonl")
    seen = old_replay + stage_one + kept
    dev_rows = read_rows(mix / "dev.jsonl")
    snli = ("snli_dev", "cad_snli_train_dev")
    replay = replay_rows(data, seen, dev_rows, n=args.replay // 2, seed=args.seed, files=snli)
    replay += replay_rows(
        data, seen + replay, dev_rows, n=args.replay - len(replay), seed=args.seed
    )
    train = kept + stage_one
    rng.shuffle(train)
    selection = read_rows(mix / "dev_select.jsonl") + dev_new
    parts = {"train": train, "replay": replay, "dev_confusions": dev_new, "dev_select": selection}
    manifest = {
        "options": vars(args),
        "confusion_candidates": dict(Counter(r["kind"] for r in new)),
        "confusion_hard": int((pg < args.hard_below).sum()),
        "confusion_kept": dict(Counter(r["kind"] for r in kept)),
        "stage_one_rows": len(stage_one),
        "train": len(train),
        "replay": len(replay),
        "replay_by_source": dict(Counter(r["source"] for r in replay).most_common()),
        "dev_confusions": dict(Counter(r["kind"] for r in dev_new)),
        "dev_select": len(selection),
        "wall_seconds": round(time.time() - t0, 1),
    }
    return write_mix(out, parts, manifest, tool="confusions")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m nli_faith.training.confusions", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--data", default="../shared/data", help="the shared data folder")
    ap.add_argument("--mix", required=True, help="the stage-one taskmix folder")
    ap.add_argument("--base", required=True, help="the stage-one model (miner and start point)")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--docs", type=int, default=1600, help="as taskmix --docs")
    ap.add_argument("--mix-seed", type=int, default=21, help="as taskmix --seed")
    ap.add_argument("--dev-fraction", type=float, default=0.1, help="as taskmix --dev-fraction")
    ap.add_argument("--per-doc", type=int, default=2, help="pairs of each kind per document")
    ap.add_argument("--stage-one", type=int, default=4000, help="stage-one training rows kept")
    ap.add_argument("--replay", type=int, default=5000, help="sentence-level NLI rows")
    ap.add_argument("--hard-below", type=float, default=0.75)
    ap.add_argument("--easy-rate", type=float, default=0.35)
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument("--miner-backend", default="torch", choices=("torch", "onnx"))
    ap.add_argument("--seed", type=int, default=31)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    print(json.dumps(build(args), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
