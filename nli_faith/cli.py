"""Command line: ``nli-faith score`` and ``nli-faith train``.

Heavy libraries (torch, transformers, spaCy) are imported only inside the
sub-command that needs them, so ``nli-faith --help`` is instant.
"""

from __future__ import annotations

import argparse
import logging
import sys

from . import __version__


def _add_score(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="score a JSONL file of RAG answers",
        description=(
            "Score each JSONL record: one output line per input line, with the lenient, "
            "strict and soft scores and a verdict and evidence for every claim. Accepts "
            "DeepEval fields (input, actual_output, retrieval_context) and RAGAS fields "
            "(question, response/answer, retrieved_contexts/contexts), or "
            "(question, response, context)."
        ),
    )
    p.add_argument("input", help="JSONL file, or - for standard input")
    p.add_argument("-o", "--output", default="-", help="output JSONL file (default: stdout)")
    p.add_argument("--model", default="default", help="registry name, local path or hub id")
    p.add_argument("--device", default=None, help="cpu, cuda, cuda:1 ... (default: auto)")
    p.add_argument(
        "--backend",
        default=None,
        choices=["torch", "onnx"],
        help="default torch (onnx with --guardrail)",
    )
    p.add_argument(
        "--onnx-fp32",
        action="store_true",
        help="with --backend onnx: the fp32 graph (same verdicts as torch fp32) instead of int8",
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help="NLI pairs per forward pass (default 32; 1 with the int8 ONNX graph)",
    )
    p.add_argument("--granularity", default="sentence", choices=["sentence", "clause"])
    p.add_argument("--entail-threshold", type=float, default=None)
    p.add_argument("--contradict-threshold", type=float, default=None)
    p.add_argument(
        "--prefilter",
        default=None,
        choices=["lexical", "embedding"],
        help="score each claim only against its likely chunks: 'lexical' (shared content "
        "words, no model; for CPU guardrails) or 'embedding' (bi-encoder); default: all chunks",
    )
    p.add_argument(
        "--prefilter-top-k",
        type=int,
        default=None,
        help="with --prefilter: sentences kept per claim, besides those sharing a number "
        "or a name with it (default 3; 2 with --guardrail)",
    )
    p.add_argument(
        "--guardrail",
        action="store_true",
        help="CPU latency set-up: --backend onnx --prefilter lexical --prefilter-top-k 2 "
        "--early-exit (options given explicitly still apply)",
    )
    p.add_argument(
        "--early-exit",
        action="store_true",
        help="stop scoring a claim once one chunk supports it (same verdicts, less work)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--quiet", action="store_true", help="no summary table on stderr")


def _add_train(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="fine-tune an NLI cross-encoder on {premise, hypothesis, label} JSONL",
        description=(
            "Fine-tune a 3-way NLI cross-encoder. Binary rows (entailment / not_entailment) "
            "train P(entailment) against P(neutral)+P(contradiction). Re-running the same "
            "command resumes from the last checkpoint in OUTPUT/checkpoints."
        ),
    )
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
    p.add_argument("--synthetic", action="store_true", help="add synthetic hard contradictions")
    p.add_argument("--synthetic-seed", type=int, default=13)
    p.add_argument(
        "--distractor-rate",
        type=float,
        default=0.0,
        help="share of rows that also get a copy whose premise has an unrelated sentence added",
    )
    p.add_argument("--save-steps", type=int, default=500)
    p.add_argument("--logging-steps", type=int, default=50)
    p.add_argument("--eval-limit", type=int, default=None, help="rows per eval file")
    p.add_argument("--save-fp16", action="store_true", help="store weights in float16")
    p.add_argument("--device", default=None, help="cpu or cuda (default: auto)")
    p.add_argument("--num-workers", type=int, default=0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nli-faith",
        description=(
            "Claim-level faithfulness scoring with a local NLI cross-encoder; no LLM calls."
        ),
    )
    parser.add_argument("--version", action="version", version=f"nli-faith {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_score(sub)
    _add_train(sub)
    return parser


def _run_train(args: argparse.Namespace) -> int:
    from .training.train import TrainConfig, train

    cfg = TrainConfig(
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
        synthetic=args.synthetic,
        synthetic_seed=args.synthetic_seed,
        distractor_rate=args.distractor_rate,
        save_steps=args.save_steps,
        logging_steps=args.logging_steps,
        eval_limit=args.eval_limit,
        save_fp16=args.save_fp16,
        device=args.device,
        num_workers=args.num_workers,
    )
    summary = train(cfg)
    print(
        f"trained {summary['global_steps']} steps on {summary['rows_total']:,} rows "
        f"in {summary['wall_seconds_this_run']:.0f} s; model in {args.output_dir}/model",
        file=sys.stderr,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if args.command == "train":
        return _run_train(args)
    from .cli_score import run_score

    return run_score(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
