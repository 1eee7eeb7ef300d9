"""Scorer options shared by the commands that score (``score``, ``serve``, ...)."""

from __future__ import annotations

import argparse
from typing import Any


def add_scorer_options(p: argparse.ArgumentParser) -> None:
    """Add the flags that configure a :class:`~nli_faith.scorer.FaithfulnessScorer`."""
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
    p.add_argument(
        "--band-high",
        type=float,
        default=None,
        help="confidence band: a claim is settled (not sent to a judge) when its best "
        "entailment or contradiction reaches this (default 0.99)",
    )
    p.add_argument(
        "--band-low",
        type=float,
        default=None,
        help="confidence band: an idk is settled as not found when no chunk's entailment or "
        "contradiction reaches this (default 0.3)",
    )
    p.add_argument(
        "--no-composite",
        action="store_true",
        help="do not score claims against composite premises (their best sentences from "
        "all documents joined); fewer pairs, but support spread over documents is missed",
    )
    add_limit_options(p)


#: Resource-limit flags: (flag, ``Limits`` field, what it bounds).
LIMIT_FLAGS = (
    ("--max-response-chars", "max_response_chars", "characters of a response"),
    ("--max-context-chars", "max_context_chars", "characters of a context, all documents together"),
    ("--max-documents", "max_documents", "documents in a context"),
    ("--max-claims", "max_claims", "claims in a response, after splitting"),
)


def _limit(value: str) -> int:
    n = int(value)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be 0 (no limit) or more, got {n}")
    return n


def add_limit_options(p: argparse.ArgumentParser) -> None:
    """Add the per-record resource limits (:class:`~nli_faith.records.Limits`); 0 = no limit."""
    from nli_faith.records import Limits

    defaults = Limits()
    group = p.add_argument_group(
        "limits", "a record past a limit gets an error naming it; the others are scored"
    )
    for flag, name, what in LIMIT_FLAGS:
        default = getattr(defaults, name)
        group.add_argument(
            flag,
            type=_limit,
            default=default,
            metavar="N",
            help=f"most {what} (default {default:,}; 0: no limit)",
        )


def limits_from_args(args: argparse.Namespace):
    """The :class:`~nli_faith.records.Limits` the flags describe (0: no limit)."""
    from nli_faith.records import Limits

    values = {name: getattr(args, name, getattr(Limits, name)) for _, name, _ in LIMIT_FLAGS}
    return Limits(**{k: (v or None) for k, v in values.items()})


def scorer_from_args(args: argparse.Namespace):
    """Build the scorer the flags describe (``--guardrail`` first, explicit flags over it).

    Raises ``ValueError`` or :class:`~nli_faith.errors.NliFaithError` for bad options.
    """
    from nli_faith.scorer import FaithfulnessScorer

    model, options = scorer_options_from_args(args)
    thresholds = getattr(args, "thresholds", None)
    if thresholds is not None:  # thresholds saved by `nli-faith calibrate`
        return FaithfulnessScorer.from_thresholds(thresholds, model, **options)
    return FaithfulnessScorer(model, **options)


def scorer_options_from_args(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The model and keyword options of the scorer the flags describe (for building it
    elsewhere, e.g. in Ray actors)."""
    from nli_faith.scorer import GUARDRAIL_OPTIONS

    options: dict[str, Any] = {}
    if args.entail_threshold is not None:
        options["entail_threshold"] = args.entail_threshold
    if args.contradict_threshold is not None:
        options["contradict_threshold"] = args.contradict_threshold
    for name in ("band_high", "band_low"):
        if getattr(args, name, None) is not None:
            options[name] = getattr(args, name)
    if getattr(args, "no_composite", False):
        options["composite"] = False
    explicit = {
        "backend": args.backend,
        "prefilter": args.prefilter,
        "prefilter_top_k": args.prefilter_top_k,
        "early_exit": args.early_exit or None,
    }
    setup: dict[str, Any] = {"backend": "torch"}
    if args.guardrail:
        setup.update(GUARDRAIL_OPTIONS)
    setup.update({k: v for k, v in explicit.items() if v is not None})
    return args.model, {
        "device": args.device,
        "onnx_quantize": not args.onnx_fp32,
        "batch_size": args.batch_size,
        "granularity": args.granularity,
        "limits": limits_from_args(args),
        **setup,
        **options,
    }


def add_thresholds_option(p: argparse.ArgumentParser) -> None:
    """``--thresholds FILE``: thresholds saved by ``nli-faith calibrate`` (same --model)."""
    p.add_argument(
        "--thresholds",
        default=None,
        metavar="FILE",
        help="thresholds saved by `nli-faith calibrate` (for the same --model): its "
        "entail/contradict thresholds, and a 'faithful' field per record from its gate; "
        "--entail-threshold / --contradict-threshold given explicitly still apply",
    )


def add_gate_option(p: argparse.ArgumentParser) -> None:
    """``--thresholds FILE`` for commands that change scores without a model (judge, merge)."""
    p.add_argument(
        "--thresholds",
        default=None,
        metavar="FILE",
        help="thresholds saved by `nli-faith calibrate`: decide each changed record's "
        "'faithful' again with its gate (without it, a 'faithful' the new verdicts may "
        "have made stale is dropped)",
    )


def gate_from_args(args: argparse.Namespace):
    """The record gate (:class:`~nli_faith.scoring.thresholds.Decision`) of ``--thresholds``,
    or ``None``; a bad file is a :class:`~nli_faith.errors.ThresholdsError`."""
    if getattr(args, "thresholds", None) is None:
        return None
    from nli_faith.scoring.thresholds import Thresholds

    return Thresholds.load(args.thresholds).decision
