"""``nli-faith train``: fine-tune an NLI cross-encoder."""

from __future__ import annotations

import argparse
import sys

from nli_faith.cli.options import told
from nli_faith.errors import E_TRAIN_FLAG_MOVED, E_TRAIN_OPTION, OptionError

DESCRIPTION = (
    "Fine-tune a 3-way NLI cross-encoder. Binary rows (entailment / not_entailment) "
    "train P(entailment) against P(neutral)+P(contradiction). Re-running the same "
    "command resumes from the last checkpoint in OUTPUT/checkpoints."
)
#: Flags that made training data; the synthesis moved to ``python -m research.train``.
MOVED_FLAGS = (
    "--synthetic",
    "--synthetic-seed",
    "--distractor-rate",
    "--multi-fact",
    "--structured",
)


class _Moved(argparse.Action):
    """A flag that moved out of ``nli-faith train``: :func:`run` refuses it, saying where."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.moved_flag = option_string


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="fine-tune an NLI cross-encoder on {premise, hypothesis, label} JSONL",
        description=DESCRIPTION,
    )
    add_arguments(p)
    for flag in MOVED_FLAGS:
        p.add_argument(flag, nargs="?", action=_Moved, help=argparse.SUPPRESS)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``nli-faith train`` (``python -m research.train`` adds its own)."""
    p.add_argument("--base-model", required=True, help="local path or hub id of the encoder")
    p.add_argument("--train", nargs="+", required=True, help="JSONL files or folders of them")
    p.add_argument("--eval", nargs="*", default=[], help="eval JSONL files or folders")
    p.add_argument("-o", "--output-dir", required=True)
    p.add_argument("--epochs", type=float, default=3.0)
    p.add_argument("--max-steps", type=int, default=-1)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--learning-rate", type=float, default=5e-5)
    p.add_argument("--warmup-ratio", type=float, default=0.1)
    p.add_argument("--max-length", type=int, default=320)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument(
        "--dev-fraction",
        type=float,
        default=0.0,
        help="share of training premises held out for model selection (best dev accuracy "
        "checkpoint is kept); eval files are never used for selection",
    )
    p.add_argument("--dev-seed", type=int, default=7)
    p.add_argument(
        "--early-stopping-patience",
        type=int,
        default=0,
        help="with --dev-fraction: stop after this many evaluations without improvement",
    )
    p.add_argument(
        "--teacher",
        nargs="+",
        default=None,
        help="distil from this NLI model (path or hub id); several: from their averaged "
        "probabilities (an ensemble)",
    )
    p.add_argument(
        "--teacher-probs", default=None, help="distil from saved teacher probabilities (.npz)"
    )
    p.add_argument(
        "--distill-alpha",
        type=float,
        default=0.5,
        help="weight of the gold-label loss; 1 - alpha goes to KL(teacher || student)",
    )
    p.add_argument(
        "--unlabelled",
        type=int,
        default=0,
        metavar="N",
        help="with a teacher: add N unlabelled pairs made from the training premises",
    )
    p.add_argument(
        "--time-budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop after this much training, with a checkpoint; the same command resumes",
    )
    p.add_argument("--dev", nargs="*", default=[], help="development JSONL files (model selection)")
    p.add_argument(
        "--bf16", action="store_true", help="bf16 autocast on a CPU that has it (fp32 weights)"
    )
    p.add_argument("--freeze-embeddings", action="store_true", help="do not train the embeddings")
    p.add_argument(
        "--freeze-layers",
        type=int,
        default=0,
        metavar="N",
        help="also freeze the N lowest encoder layers (implies --freeze-embeddings)",
    )
    p.add_argument("--save-steps", type=int, default=500)
    p.add_argument("--logging-steps", type=int, default=50)
    p.add_argument("--eval-limit", type=int, default=None, help="rows per eval file")
    p.add_argument("--save-fp16", action="store_true", help="store weights in float16")
    p.add_argument("--device", default=None, help="cpu or cuda (default: auto)")
    p.add_argument("--num-workers", type=int, default=0)


#: (flag, attribute, test, what it must be) of the options checked before training starts.
_CHECKS = (
    ("--epochs", "epochs", lambda v: 0 < v < 1e6, "above 0 and finite"),
    ("--max-steps", "max_steps", lambda v: v == -1 or v >= 1, "at least 1 (or -1: --epochs)"),
    ("--batch-size", "batch_size", lambda v: v >= 1, "at least 1"),
    ("--learning-rate", "learning_rate", lambda v: 0 < v < 1, "above 0 and below 1"),
    ("--seed", "seed", lambda v: 0 <= v < 2**32, "in [0, 2**32)"),
    ("--eval-limit", "eval_limit", lambda v: v >= 1, "at least 1"),
    ("--warmup-ratio", "warmup_ratio", lambda v: 0 <= v <= 1, "in [0, 1]"),
    ("--max-length", "max_length", lambda v: v >= 32, "at least 32"),
    ("--logging-steps", "logging_steps", lambda v: v >= 1, "at least 1"),
    ("--save-steps", "save_steps", lambda v: v >= 1, "at least 1"),
    ("--num-workers", "num_workers", lambda v: v >= 0, "0 or more"),
    ("--dev-fraction", "dev_fraction", lambda v: 0 <= v < 1, "in [0, 1)"),
    ("--distill-alpha", "distill_alpha", lambda v: 0 <= v <= 1, "in [0, 1]"),
    ("--time-budget", "time_budget", lambda v: 0 < v < 1e9, "above 0 and finite"),
    ("--freeze-layers", "freeze_layers", lambda v: v >= 0, "0 or more"),
    ("--unlabelled", "unlabelled", lambda v: v >= 0, "0 or more"),
    ("--early-stopping-patience", "early_stopping_patience", lambda v: v >= 0, "0 or more"),
)


def check_options(args: argparse.Namespace, checks=_CHECKS) -> None:
    """Raise ``ValueError`` naming the first option out of its range (before any work)."""
    if getattr(args, "moved_flag", None):
        raise OptionError(E_TRAIN_FLAG_MOVED.format(flag=args.moved_flag))
    for flag, name, ok, expected in checks:
        value = getattr(args, name, None)
        if value is not None and not ok(value):
            raise OptionError(E_TRAIN_OPTION.format(flag=flag, expected=expected, value=value))
    if args.early_stopping_patience and not (args.dev or args.dev_fraction):
        raise OptionError(
            E_TRAIN_OPTION.format(
                flag="--early-stopping-patience",
                expected="used with development data (--dev or --dev-fraction)",
                value=args.early_stopping_patience,
            )
        )
    if args.unlabelled and not (args.teacher or args.teacher_probs):
        raise ValueError(
            E_TRAIN_OPTION.format(
                flag="--unlabelled", expected="used with a teacher", value=args.unlabelled
            )
        )
    if args.device is not None:
        from nli_faith.nli.cross_encoder import check_device

        check_device(args.device)


def run(args: argparse.Namespace, *, augment=None, prog: str = "nli-faith train", **cfg) -> int:
    """Check the options, train (with ``augment``, see :func:`nli_faith.training.train.train`)
    and print what was done; ``cfg`` overrides fields of the :class:`TrainConfig`."""
    from nli_faith.errors import NliFaithError
    from nli_faith.training.train import train

    try:
        check_options(args)
        summary = train(config_of(args, **cfg), augment)
    except (ValueError, OSError, NliFaithError) as err:
        print(f"{prog}: error: {told(err)}", file=sys.stderr)
        return 2
    if summary.get("stopped_by_time_budget"):
        print(
            f"stopped by --time-budget at step {summary['global_steps']}; "
            "run the same command again to resume",
            file=sys.stderr,
        )
        return 0
    print(
        f"trained {summary['global_steps']} steps on {summary['rows_total']:,} rows "
        f"in {summary['wall_seconds_this_run']:.0f} s; model in {args.output_dir}/model",
        file=sys.stderr,
    )
    return 0


def config_of(args: argparse.Namespace, **overrides):
    """The :class:`~nli_faith.training.options.TrainConfig` the parsed options give."""
    from nli_faith.training.options import TrainConfig

    return TrainConfig(
        base_model=args.base_model,
        train_files=args.train,
        eval_files=args.eval,
        output_dir=args.output_dir,
        epochs=args.epochs,
        max_steps=args.max_steps,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        warmup_ratio=args.warmup_ratio,
        max_length=args.max_length,
        seed=args.seed,
        save_steps=args.save_steps,
        logging_steps=args.logging_steps,
        eval_limit=args.eval_limit,
        save_fp16=args.save_fp16,
        device=args.device,
        num_workers=args.num_workers,
        dev_fraction=args.dev_fraction,
        dev_seed=args.dev_seed,
        early_stopping_patience=args.early_stopping_patience,
        teacher=tuple(args.teacher) if args.teacher else None,
        teacher_probs=args.teacher_probs,
        distill_alpha=args.distill_alpha,
        unlabelled=args.unlabelled,
        time_budget_s=args.time_budget,
        dev_files=args.dev,
        bf16=args.bf16,
        freeze_embeddings=args.freeze_embeddings,
        freeze_layers=args.freeze_layers,
        **overrides,
    )
