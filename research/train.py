"""``nli-faith train`` with made training data: ``python -m research.train [options]``.

Takes every option of ``nli-faith train`` and these, which add pairs made by the
generators of this package to the training rows (:class:`research.augment.Synthesis`):

* ``--synthetic``: number and entity swaps, negations and re-notated numbers of the
  training premises; a seeded share of premises is held out and its swaps evaluated
  (``OUTPUT/synthetic/synthetic_heldout.jsonl``);
* ``--distractor-rate R``: copies of a share R of the rows with an unrelated sentence
  added to the premise;
* ``--multi-fact N``: N conjunctions and summaries of several hypotheses;
* ``--structured N``: N table / JSON / key-value pairs, linearised as the scorer reads them.

``--synthetic-seed`` seeds them all (and the unlabelled pairs' draw, as ``seed + 8``).
"""

from __future__ import annotations

import argparse
import sys

from nli_faith.cli import train as train_cli
from research.augment import Synthesis

#: (flag, attribute, test, what it must be) of the synthesis options.
CHECKS = (
    ("--distractor-rate", "distractor_rate", lambda v: 0 <= v <= 1, "in [0, 1]"),
    ("--multi-fact", "multi_fact", lambda v: v >= 0, "0 or more"),
    ("--structured", "structured", lambda v: v >= 0, "0 or more"),
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m research.train", description=train_cli.DESCRIPTION)
    train_cli.add_arguments(p)
    g = p.add_argument_group("made training data (research.augment)")
    g.add_argument("--synthetic", action="store_true", help="add synthetic hard contradictions")
    g.add_argument("--synthetic-seed", type=int, default=13)
    g.add_argument(
        "--distractor-rate",
        type=float,
        default=0.0,
        help="share of rows that also get a copy whose premise has an unrelated sentence added",
    )
    g.add_argument(
        "--multi-fact",
        type=int,
        default=0,
        metavar="N",
        help="add N synthetic multi-fact pairs (conjunctions of 2-3 hypotheses, summaries)",
    )
    g.add_argument(
        "--structured",
        type=int,
        default=0,
        metavar="N",
        help="add N synthetic table / JSON / key-value pairs, linearised as the scorer reads them",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    prog = "python -m research.train"
    try:
        train_cli.check_options(args, CHECKS)
    except ValueError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    synthesis = Synthesis(
        output_dir=args.output_dir,
        synthetic=args.synthetic,
        seed=args.synthetic_seed,
        distractor_rate=args.distractor_rate,
        multi_fact=args.multi_fact,
        structured=args.structured,
    )
    return train_cli.run(
        args,
        augment=synthesis if synthesis.makes_any else None,
        prog=prog,
        unlabelled_seed=args.synthetic_seed + 8,
    )


if __name__ == "__main__":
    raise SystemExit(main())
