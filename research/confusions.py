"""In-document confusions: the errors summarisers make with words the source itself holds.

A model tuned on sentence-level swaps learns "an entity the window never names is wrong";
a summariser's real errors reuse the source's own words: it gives one person's act to
another person *of the same article*, or joins the subject of one sentence to the predicate
of the next. Pairs of both kinds, against the window that holds the original sentences:

- ``rag_entity_local``: an entity of the claim replaced by another entity of the same type
  found in the same document → contradiction;
- ``rag_spliced``: the words before the first verb of one sentence joined to the words from the
  first verb of a neighbouring sentence, when both subjects differ → neutral (not supported).

``python -m research.confusions -o OUT --mix MIX --base MODEL`` writes a second-stage
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
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from research.confusion_pairs import confusion_pairs, garbled_pairs

#: The pair makers ``--pairs`` chooses from.
MAKERS = {"confusions": confusion_pairs, "garbled": garbled_pairs}

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ConfusionOptions:
    """What :func:`build` makes; the command line's flags have the same names."""

    mix: str  # the stage-one taskmix folder
    base: str  # the stage-one model (miner and start point)
    output: str
    data: str = "../shared/data"
    docs: int = 1600  # as taskmix --docs
    mix_seed: int = 21  # as taskmix --seed
    dev_fraction: float = 0.1  # as taskmix --dev-fraction
    pairs: str = "confusions"  # a key of MAKERS
    per_doc: int = 2  # pairs of each kind per document
    stage_one: int = 4000  # stage-one training rows kept
    replay: int = 5000  # sentence-level NLI rows
    hard_below: float = 0.75
    easy_rate: float = 0.35
    max_length: int = 256
    miner_backend: str = "torch"
    seed: int = 31


def build(args: ConfusionOptions, *, command: str = "") -> dict:
    """Build the second-stage mix into ``args.output``; ``command`` goes in its manifest."""
    from nli_faith import FaithfulnessScorer
    from nli_faith.nli.model import NLIModel
    from research.ragpairs import RagPairMaker
    from research.taskmix import (
        as_row,
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
    make = MAKERS[args.pairs]
    new = [as_row(p) for p in make(maker, train_docs, seed=args.seed, per_doc=args.per_doc)]
    dev_new = [as_row(p) for p in make(maker, dev_docs, seed=args.seed + 1, per_doc=args.per_doc)]
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
        "options": asdict(args),
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
    return write_mix(out, parts, manifest, command=command)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m research.confusions", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--data", default="../shared/data", help="the shared data folder")
    ap.add_argument("--mix", required=True, help="the stage-one taskmix folder")
    ap.add_argument("--base", required=True, help="the stage-one model (miner and start point)")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--docs", type=int, default=1600, help="as taskmix --docs")
    ap.add_argument("--mix-seed", type=int, default=21, help="as taskmix --seed")
    ap.add_argument("--dev-fraction", type=float, default=0.1, help="as taskmix --dev-fraction")
    ap.add_argument(
        "--pairs",
        default="confusions",
        choices=sorted(MAKERS),
        help="confusions: in-document entity swaps and spliced sentences; garbled: a "
        "sentence's subject given another's noun phrase, two sentences run together mid-"
        "phrase, a sentence with its verb cut out",
    )
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
    from research.taskmix import command_line

    opts = ConfusionOptions(**{f.name: getattr(args, f.name) for f in fields(ConfusionOptions)})
    cmd = command_line("confusions", sys.argv[1:] if argv is None else argv)
    print(json.dumps(build(opts, command=cmd), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
