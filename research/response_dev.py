"""A response-level development set: whole multi-claim answers made from held-out documents.

The pair-level selection split (``taskmix``'s ``dev_select``) asks "is this one claim
supported by this one window?". A faithfulness score is read at another level: a
response of several claims, each checked against every chunk of the whole context, and
the soft score is the mean of each claim's best entailment. A model can gain on every
kind of pair and still rank whole answers worse (it lifts the entailment of near-copies
with one wrong detail as much as that of true claims). This split asks that question
without any evaluation file:

* documents: the ``rag-sources`` documents a ``taskmix`` mix did **not** train on (those
  outside its seeded sample, and its development documents), read from its manifest;
* a **faithful** response: two or three supported claims of one document (a sentence,
  its main clause, a trimmed sentence, two sentences fused), made by the same generators
  as the training pairs;
* an **unfaithful** response: the same response with one claim replaced by a wrong
  version of it (an entity swapped within the document or from another, a number, date or
  negation changed, the subject of one sentence spliced onto the predicate of the next, a
  detail grafted on), so the two differ in that one error only;
* the context is the whole document, as the scorer gets it.

Records are written in the faithfulness-set format, one file per task type, under
``OUT/faithfulness/response_dev_<task>.jsonl``, so ``python -m research.studies run model_ab
--data-dir OUT --datasets response_dev_summary,...`` scores two models on them.

``python -m research.response_dev --mix MIX -o OUT``
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, fields
from pathlib import Path

logger = logging.getLogger(__name__)

#: Claims true of the document, by generator kind.
SUPPORTED = frozenset({"rag_support", "rag_trimmed", "rag_fused"})
#: Claims with one thing wrong. Neutral kinds whose claim is still said elsewhere in the
#: document (``rag_removed``, ``rag_nearest``, ``*_half``) are not wrong at this level.
WRONG_NEUTRAL = frozenset({"rag_spliced", "rag_added", "rag_copula", "rag_cut", "rag_gapped"})


def _flat(text: str) -> str:
    """Whitespace runs as one space (``ragpairs._flat`` also drops case and punctuation)."""
    return " ".join(text.split())


def held_out_documents(data: Path, manifest: dict) -> list:
    """``rag-sources`` documents outside the mix's training documents, in file order."""
    from research.ragpairs import read_sources
    from research.taskmix import pick_documents

    opts = manifest["options"]
    train, _ = pick_documents(
        data, n=opts["docs"], seed=opts["seed"], dev_fraction=opts["dev_fraction"]
    )
    trained = {d.source_id for d in train}
    docs = read_sources(data / "rag-sources" / "ragtruth_train_sources.jsonl")
    return [d for d in docs if d.source_id not in trained]


def claims_by_document(maker, docs, *, seed: int) -> list[dict[str, list[str]]]:
    """For each document: its supported claims and its wrong ones, by generator kind."""
    from research.confusion_pairs import confusion_pairs, garbled_pairs
    from research.extrinsic import extrinsic_pairs

    owner = {}
    for i, doc in enumerate(docs):
        for c in maker.chunks(doc):
            owner.setdefault(_flat(c.text), i)
    pairs = [
        *maker.make(docs, seed=seed, per_doc=4),
        *confusion_pairs(maker, docs, seed=seed + 1, per_doc=2),
        *extrinsic_pairs(maker, docs, seed=seed + 2, per_doc=2),
        *garbled_pairs(maker, docs, seed=seed + 3, per_doc=2),
    ]
    out: list[dict[str, list[str]]] = [defaultdict(list) for _ in docs]
    for p in pairs:
        i = owner.get(_flat(p.premise))
        if i is None:
            continue
        if p.kind in SUPPORTED:
            out[i]["supported"].append(p.hypothesis)
        elif p.label == "contradiction" or p.kind in WRONG_NEUTRAL:
            out[i][p.kind].append(p.hypothesis)
    return out


def _jaccard(a: str, b: str) -> float:
    from research.ragpairs import words

    wa, wb = words(a), words(b)
    return len(wa & wb) / max(1, len(wa | wb))


def responses(doc, claims: dict[str, list[str]], rng: random.Random, *, max_claims: int = 3):
    """A faithful response of one document and the same response with one claim made wrong.

    The kind of error is drawn evenly among those the document has. When the wrong claim
    is a changed version of one of the true claims (a swapped entity, a changed number), it
    takes that claim's place; otherwise (a garbled or spliced sentence made from a sentence
    the true claims do not hold) it takes the place of one of them."""
    good = sorted(set(claims.get("supported", ())))
    if len(good) < 2:
        return []
    wrong = {k: sorted(set(ts)) for k, ts in claims.items() if k != "supported" and ts}
    k = min(max_claims, len(good)) if rng.random() < 0.7 else 2
    kind = rng.choice(sorted(wrong)) if wrong else None
    bad = rng.choice(wrong[kind]) if kind else None
    orig = max(good, key=lambda g: _jaccard(g, bad)) if bad else None
    if bad and _jaccard(orig, bad) >= 0.4:
        others = [g for g in good if g != orig and _jaccard(g, bad) < 0.4]
        picked = [orig, *rng.sample(others, min(k - 1, len(others)))]
    else:
        others = [g for g in good if not bad or _jaccard(g, bad) < 0.4]
        picked = rng.sample(others, min(k, len(others)))
        orig = rng.choice(picked) if bad and picked else None
    if len(picked) < 2:
        return []
    rng.shuffle(picked)
    out = [
        {
            "id": f"{doc.source_id}-faithful",
            "context": list(doc.context),
            "response": " ".join(picked),
            "label": 1,
            "claims": [{"text": t, "label": 1} for t in picked],
            "meta": {"task_type": doc.task_type, "wrong_kind": None},
        }
    ]
    if bad is not None:
        parts = [{"text": bad if t == orig else t, "label": int(t != orig)} for t in picked]
        out.append(
            {
                "id": f"{doc.source_id}-unfaithful",
                "context": list(doc.context),
                "response": " ".join(p["text"] for p in parts),
                "label": 0,
                "claims": parts,
                "meta": {"task_type": doc.task_type, "wrong_kind": kind},
            }
        )
    return out


@dataclass(frozen=True)
class DevSetOptions:
    """What :func:`build` makes; the command line's flags have the same names."""

    mix: str  # a taskmix output folder (its manifest.json)
    output: str  # folder to write faithfulness/ into
    data: str = "../shared/data"
    docs_per_task: int = 150  # documents per task type
    tasks: str = "summary,qa,data2txt"  # task types to make sets of (comma list)
    chunker: str = "default"  # model whose scorer chunks documents
    seed: int = 31


def build(args: DevSetOptions, *, command: str = "") -> dict:
    """Write the sets into ``args.output``/faithfulness; ``command`` goes in the summary."""
    from nli_faith import FaithfulnessScorer
    from research.ragpairs import RagPairMaker

    t0 = time.time()
    data, out = Path(args.data), Path(args.output)
    manifest = json.loads((Path(args.mix) / "manifest.json").read_text(encoding="utf-8"))
    docs = held_out_documents(data, manifest)
    rng = random.Random(args.seed)
    by_task: dict[str, list] = defaultdict(list)
    tasks = {t.lower() for t in args.tasks.split(",")}
    for d in docs:
        if d.task_type.lower() in tasks:
            by_task[d.task_type].append(d)
    for task in by_task:
        rng.shuffle(by_task[task])
        by_task[task] = by_task[task][: args.docs_per_task]
    maker = RagPairMaker(FaithfulnessScorer(args.chunker))
    (out / "faithfulness").mkdir(parents=True, exist_ok=True)
    counts = {}
    for task, tdocs in sorted(by_task.items()):
        made = claims_by_document(maker, tdocs, seed=args.seed)
        recs = [r for d, c in zip(tdocs, made) for r in responses(d, c, rng)]
        name = f"response_dev_{task.lower()}"
        with (out / "faithfulness" / f"{name}.jsonl").open("w", encoding="utf-8") as f:
            for r in recs:
                f.write(json.dumps({**r, "dataset": name}, ensure_ascii=False) + "\n")
        counts[name] = {
            "documents": len(tdocs),
            "records": len(recs),
            "faithful": sum(r["label"] for r in recs),
            "wrong_kinds": dict(Counter(r["meta"]["wrong_kind"] for r in recs if not r["label"])),
        }
        logger.info("%s: %s", name, counts[name])
    summary = {
        "command": command,
        "mix": str(args.mix),
        "held_out_documents": len(docs),
        "sets": counts,
        "seconds": round(time.time() - t0, 1),
    }
    (out / "response_dev.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary


def main(argv: list[str] | None = None) -> None:
    import sys

    ap = argparse.ArgumentParser(
        prog="python -m research.response_dev", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--data", default="../shared/data", help="the shared data folder")
    ap.add_argument("--mix", required=True, help="a taskmix output folder (its manifest.json)")
    ap.add_argument("-o", "--output", required=True, help="folder to write faithfulness/ into")
    ap.add_argument("--docs-per-task", type=int, default=150, help="documents per task type")
    ap.add_argument(
        "--tasks", default="summary,qa,data2txt", help="task types to make sets of (comma list)"
    )
    ap.add_argument("--chunker", default="default", help="model whose scorer chunks documents")
    ap.add_argument("--seed", type=int, default=31)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    from research.taskmix import command_line

    opts = DevSetOptions(**{f.name: getattr(args, f.name) for f in fields(DevSetOptions)})
    cmd = command_line("response_dev", sys.argv[1:] if argv is None else argv)
    print(json.dumps(build(opts, command=cmd), indent=2))


if __name__ == "__main__":
    main()
