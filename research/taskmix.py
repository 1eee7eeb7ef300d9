"""Build the task-shaped fine-tuning mix: RAG-shaped pairs, FactCG/FOLIO, an NLI slice.

``python -m research.taskmix --data ../shared/data -o OUT`` (or :func:`build` with a
:class:`MixOptions`) writes
``OUT/train.jsonl`` (mined), ``OUT/replay.jsonl`` (unmined NLI rows), ``OUT/dev.jsonl``,
``OUT/dev_select.jsonl`` (the model-selection split) and ``OUT/manifest.json`` (counts by origin and
label, the command, the seed). Steps:

1. RAG-shaped pairs (:mod:`research.ragpairs`) from ``rag-sources``; the
   development split is carved **by document** (seeded hash of ``source_id``), so no
   claim of a development document is trained on.
2. ``faith-train`` (FactCG CG2C-Doc, CG2C-MuSiQue negatives, FOLIO), split by premise.
3. A seeded slice of ``nli/train`` + ``nli/train-extra`` so that sentence-level NLI is
   not forgotten, plus the structured-record and multi-fact generators; split by premise.
4. **Hard examples first**: every training candidate is scored with the current model
   (``--miner``); rows it gets wrong or is unsure of (P(gold) < ``--hard-below``) are all
   kept, the confident ones only at ``--easy-rate``. Development rows are not mined: they
   keep the task's own distribution for model selection and for choosing thresholds.

No file of ``nli/eval`` or ``faithfulness/`` is read.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import shlex
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from nli_faith.training.data import NOT_ENTAILMENT_ID, NLIExample, in_dev, read_nli_jsonl
from research.synthetic import SyntheticPair

logger = logging.getLogger(__name__)

_NAMES = {0: "entailment", 1: "neutral", 2: "contradiction", NOT_ENTAILMENT_ID: "not_entailment"}
_IDS = {v: k for k, v in _NAMES.items()}
#: Neutral pairs made by cutting the support out of a document: when the current model is
#: sure the rest still entails the claim, the document most likely says it twice.
_CUT_KINDS = frozenset({"rag_removed", "rag_nearest", "rag_fused_half", "rag_fused_across_half"})


def as_row(p: SyntheticPair | NLIExample) -> dict:
    """A made pair or an NLI row as a mix row (premise, hypothesis, label name, source, kind)."""
    if isinstance(p, SyntheticPair):
        return {
            "premise": p.premise,
            "hypothesis": p.hypothesis,
            "label": p.label,
            "source": p.source,
            "kind": p.kind,
        }
    return {
        "premise": p.premise,
        "hypothesis": p.hypothesis,
        "label": _NAMES[p.label],
        "source": p.source,
        "kind": p.source,
    }


def p_gold(probs: np.ndarray, labels: list[str]) -> np.ndarray:
    """The model's probability of each row's gold label (binary: P(entail) or 1 - it).

    >>> p_gold(np.array([[0.7, 0.2, 0.1], [0.7, 0.2, 0.1]]), ["entailment", "not_entailment"])
    array([0.7, 0.3])
    """
    out = np.empty(len(labels))
    for i, lab in enumerate(labels):
        out[i] = 1.0 - probs[i, 0] if lab == "not_entailment" else probs[i, _IDS[lab]]
    return out


def _nli_slice(data: Path, n: int, rng: random.Random, max_words: int) -> list[NLIExample]:
    rows: list[NLIExample] = []
    for folder in ("nli/train", "nli/train-extra"):
        for path in sorted((data / folder).glob("*.jsonl")):
            rows.extend(r for r in read_nli_jsonl(path) if len(r.premise.split()) <= max_words)
    rng.shuffle(rows)
    return rows[:n]


#: Sentence-level NLI files replayed unmined, so that the fine-tuned model keeps what it knew.
REPLAY_FILES = (
    "snli_dev",
    "cad_snli_train_dev",
    "lingnli_train",
    "sick",
    "mnli_binary_test",
    "fever_nli_binary_test",
    "conjnli_adversarial_train",
)


def replay_rows(
    data: Path,
    train: list[dict],
    dev: list[dict],
    *,
    n: int,
    seed: int = 8,
    files: tuple[str, ...] = REPLAY_FILES,
) -> list[dict]:
    """``n`` seeded rows of ``nli/train`` ``files`` in neither split (premises <= 120 words)."""
    seen = {(r["premise"], r["hypothesis"]) for r in train}
    dev_premises = {r["premise"] for r in dev}
    rows = []
    for name in files:
        with (data / "nli" / "train" / f"{name}.jsonl").open(encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                if (
                    (r["premise"], r["hypothesis"]) not in seen
                    and r["premise"] not in dev_premises
                    and len(r["premise"].split()) <= 120
                ):
                    rows.append(r | {"kind": "replay_" + r["source"]})
    random.Random(seed).shuffle(rows)
    return rows[:n]


def select_dev(dev: list[dict], *, n_other: int, seed: int = 5) -> list[dict]:
    """The model-selection split: every RAG-shaped development row, ``n_other`` of the rest."""
    rag = [r for r in dev if r["kind"].startswith("rag_")]
    other = [r for r in dev if not r["kind"].startswith("rag_")]
    random.Random(seed).shuffle(other)
    return rag + other[:n_other]


def as_records(rows: list[dict]) -> list[dict]:
    """Pairs as faithfulness records (context, response, label) for ``nli-faith calibrate``.

    The premise is the context and the claim the response; label 1 = entailed. The
    decision defaults of a trained model are chosen on these, never on evaluation sets.
    """
    return [
        {
            "id": f"dev-{i}",
            "context": [r["premise"]],
            "response": r["hypothesis"],
            "label": int(r["label"] == "entailment"),
            "claims": [{"text": r["hypothesis"], "label": int(r["label"] == "entailment")}],
            "meta": {"kind": r["kind"], "nli_label": r["label"]},
        }
        for i, r in enumerate(rows)
    ]


def read_rows(path: Path) -> list[dict]:
    """The rows of a JSON Lines file a mix wrote."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def command_line(tool: str, argv: list[str] | tuple[str, ...]) -> str:
    """The command that runs ``research.TOOL`` with ``argv``, as a manifest records it.

    >>> command_line("taskmix", ["-o", "my mix"])
    "python -m research.taskmix -o 'my mix'"
    """
    return f"python -m research.{tool} " + shlex.join(argv)


def write_mix(out: Path, parts: dict[str, list[dict]], manifest: dict, *, command: str) -> dict:
    """Write each part as ``OUT/NAME.jsonl``, ``dev_records.jsonl`` (the ``dev_select``
    part as records for ``nli-faith calibrate``) and ``manifest.json``, which records the
    ``command`` that built the mix (:func:`command_line`); return the manifest."""
    parts = parts | {"dev_records": as_records(parts["dev_select"])}
    for name, rows in parts.items():
        with (out / f"{name}.jsonl").open("w", encoding="utf-8") as fh:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    manifest = {"command": command, **manifest}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    return manifest


def pick_documents(
    data: Path, *, n: int, seed: int, dev_fraction: float, rng: random.Random | None = None
) -> tuple[list, list]:
    """The seeded sample of ``rag-sources`` documents, split by document into (train, dev)."""
    from research.ragpairs import read_sources

    docs = read_sources(data / "rag-sources" / "ragtruth_train_sources.jsonl")
    (rng or random.Random(seed)).shuffle(docs)
    docs = docs[:n]
    dev = [d for d in docs if in_dev(d.source_id, fraction=dev_fraction, seed=seed)]
    train = [d for d in docs if not in_dev(d.source_id, fraction=dev_fraction, seed=seed)]
    return train, dev


@dataclass(frozen=True)
class MixOptions:
    """What :func:`build` makes; the command line's flags have the same names."""

    output: str
    data: str = "../shared/data"
    miner: str = "default"  # model that scores candidates (hard examples)
    miner_backend: str = "onnx"
    redundant_above: float = 0.9  # drop a cut-support neutral pair above this P(entail)
    docs: int = 2510  # RAG documents to use
    per_doc: int = 3  # sentence claims per document
    extrinsic: int = 0  # claims per document grown by a detail / cut shorter
    confusions: int = 0  # in-document swaps and spliced sentences per document
    nli: int = 9000  # rows of nli/train + train-extra
    musique: int = 400  # CG2C-MuSiQue negatives
    multi_fact: int = 1500
    structured: int = 1500
    max_premise_words: int = 160
    max_length: int = 256
    hard_below: float = 0.75  # P(gold) under which a row is hard
    easy_rate: float = 0.25  # share of the easy rows kept
    replay: int = 3000  # unmined nli/train rows
    dev_other: int = 350  # non-RAG rows in the selection split
    dev_fraction: float = 0.1
    seed: int = 21


def build(args: MixOptions, *, command: str = "") -> dict:
    """Build the mix into ``args.output``; ``command`` is recorded in its manifest."""
    from nli_faith import FaithfulnessScorer
    from nli_faith.nli.model import NLIModel
    from research.confusion_pairs import confusion_pairs
    from research.extrinsic import extrinsic_pairs
    from research.multifact import conjunction_pairs, summary_pairs
    from research.ragpairs import RagPairMaker
    from research.structured import structured_pairs

    data, out = Path(args.data), Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    t0 = time.time()

    split = {"fraction": args.dev_fraction, "seed": args.seed}
    train_docs, dev_docs = pick_documents(
        data, n=args.docs, seed=args.seed, dev_fraction=args.dev_fraction, rng=rng
    )
    maker = RagPairMaker(FaithfulnessScorer(args.miner))
    train_rows = [as_row(p) for p in maker.make(train_docs, seed=args.seed, per_doc=args.per_doc)]
    dev_rows = [as_row(p) for p in maker.make(dev_docs, seed=args.seed + 1, per_doc=args.per_doc)]
    for per_doc, make, offset in (
        (args.extrinsic, extrinsic_pairs, 41),
        (args.confusions, confusion_pairs, 51),
    ):
        if not per_doc:
            continue
        for docs, rows, k in ((train_docs, train_rows, 0), (dev_docs, dev_rows, 1)):
            made = make(maker, docs, seed=args.seed + offset + k, per_doc=per_doc)
            rows.extend(as_row(p) for p in made)
    logger.info(
        "rag pairs: %d train, %d dev (%.0f s)", len(train_rows), len(dev_rows), time.time() - t0
    )

    other: list[dict] = []
    for name in ("factcg_cg2c_doc", "folio"):
        other.extend(as_row(r) for r in read_nli_jsonl(data / "faith-train" / f"{name}.jsonl"))
    musique = read_nli_jsonl(data / "faith-train" / "factcg_cg2c_musique.jsonl")
    rng.shuffle(musique)  # negatives only: a small share, so as not to skew the labels
    other.extend(as_row(r) for r in musique[: args.musique])
    nli = _nli_slice(data, args.nli, rng, args.max_premise_words)
    other.extend(as_row(r) for r in nli)
    originals = [r for r in nli if r.label in (0, 1, 2)]
    made = conjunction_pairs(originals, n=args.multi_fact // 2, seed=args.seed + 5)
    made += summary_pairs(originals, n=args.multi_fact - args.multi_fact // 2, seed=args.seed + 6)
    made += structured_pairs(n=args.structured, seed=args.seed + 7)
    other.extend(as_row(p) for p in made)
    for r in other:
        (dev_rows if in_dev(r["premise"], **split) else train_rows).append(r)

    logger.info("scoring %d training candidates with %s", len(train_rows), args.miner)
    miner = NLIModel(args.miner, max_length=args.max_length, backend=args.miner_backend)
    t1 = time.time()
    probs = miner.predict([(r["premise"], r["hypothesis"]) for r in train_rows])
    mine_s = time.time() - t1
    pg = p_gold(probs, [r["label"] for r in train_rows])
    kept, dropped = [], Counter()
    for r, p, pr in zip(train_rows, pg, probs):
        if r["kind"] in _CUT_KINDS and pr[0] > args.redundant_above:
            dropped[r["kind"]] += 1  # the cut sentence is most likely said again elsewhere
            continue
        if p < args.hard_below or rng.random() < args.easy_rate:
            kept.append(r | {"p_gold_before": round(float(p), 4)})
    rng.shuffle(kept)
    replay = replay_rows(data, kept, dev_rows, n=args.replay)
    selection = select_dev(dev_rows, n_other=args.dev_other)
    parts = {"train": kept, "dev": dev_rows, "replay": replay, "dev_select": selection}
    manifest = {
        "options": asdict(args),
        "rag_documents": {"train": len(train_docs), "dev": len(dev_docs)},
        "candidates": len(train_rows),
        "candidates_by_kind": dict(Counter(r["kind"] for r in train_rows).most_common()),
        "hard_candidates": int((pg < args.hard_below).sum()),
        "hard_by_kind": dict(
            Counter(r["kind"] for r, p in zip(train_rows, pg) if p < args.hard_below).most_common()
        ),
        "dropped_as_redundant": dict(dropped),
        "train": len(kept),
        "train_by_kind": dict(Counter(r["kind"] for r in kept).most_common()),
        "train_by_label": dict(Counter(r["label"] for r in kept).most_common()),
        "replay": len(replay),
        "replay_by_source": dict(Counter(r["source"] for r in replay).most_common()),
        "dev_select": len(selection),
        "dev": len(dev_rows),
        "dev_by_kind": dict(Counter(r["kind"] for r in dev_rows).most_common()),
        "dev_by_label": dict(Counter(r["label"] for r in dev_rows).most_common()),
        "mining_seconds": round(mine_s, 1),
        "wall_seconds": round(time.time() - t0, 1),
    }
    return write_mix(out, parts, manifest, command=command)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m research.taskmix", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--data", default="../shared/data", help="the shared data folder")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument(
        "--miner", default="default", help="model that scores candidates (hard examples)"
    )
    ap.add_argument("--miner-backend", default="onnx", choices=("torch", "onnx"))
    ap.add_argument(
        "--redundant-above",
        type=float,
        default=0.9,
        help="drop a cut-support neutral pair when the miner's P(entail) is above this",
    )
    ap.add_argument("--docs", type=int, default=2510, help="RAG documents to use")
    ap.add_argument("--per-doc", type=int, default=3, help="sentence claims per document")
    ap.add_argument(
        "--extrinsic",
        type=int,
        default=0,
        help="claims per document grown by a detail from elsewhere (neutral) and cut "
        "shorter (entailment); see research.extrinsic",
    )
    ap.add_argument(
        "--confusions",
        type=int,
        default=0,
        help="in-document entity swaps and spliced sentences per document (research."
        "confusion_pairs), mined with the others",
    )
    ap.add_argument("--nli", type=int, default=9000, help="rows of nli/train + train-extra")
    ap.add_argument("--musique", type=int, default=400, help="CG2C-MuSiQue negatives")
    ap.add_argument("--multi-fact", type=int, default=1500)
    ap.add_argument("--structured", type=int, default=1500)
    ap.add_argument("--max-premise-words", type=int, default=160)
    ap.add_argument("--max-length", type=int, default=256)
    ap.add_argument(
        "--hard-below", type=float, default=0.75, help="P(gold) under which a row is hard"
    )
    ap.add_argument("--easy-rate", type=float, default=0.25, help="share of the easy rows kept")
    ap.add_argument("--replay", type=int, default=3000, help="unmined nli/train rows")
    ap.add_argument(
        "--dev-other", type=int, default=350, help="non-RAG rows in the selection split"
    )
    ap.add_argument("--dev-fraction", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=21)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    opts = MixOptions(**{f.name: getattr(args, f.name) for f in fields(MixOptions)})
    cmd = command_line("taskmix", sys.argv[1:] if argv is None else argv)
    print(json.dumps(build(opts, command=cmd), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
