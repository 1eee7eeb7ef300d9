"""Scorer options shared by the commands that score (``score``, ``serve``, ...)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from nli_faith.errors import E_ONNX_FP32_TORCH, OptionError

if TYPE_CHECKING:  # pragma: no cover
    from nli_faith.config import ScorerConfig


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
        dest="onnx_quantize",
        action="store_false",
        help="with --backend onnx: the fp32 graph (same verdicts as torch fp32) instead of int8",
    )
    p.add_argument(
        "--batch-size",
        type=int,
        default=None,
        help="NLI pairs per forward pass (default 32; 1 with the int8 ONNX graph)",
    )
    p.add_argument(
        "--label-map",
        type=_label_map,
        default=None,
        metavar="NAME=INDEX,...",
        help="which model output is which label, e.g. entailment=0,neutral=1,contradiction=2 "
        "(or the same as a JSON object); default: the model's config",
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
        default=None,
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
        dest="composite",
        action="store_false",
        help="do not score claims against composite premises (their best sentences from "
        "all documents joined); fewer pairs, but support spread over documents is missed",
    )
    add_limit_options(p)


def _label_map(value: str) -> dict[str, int]:
    """``entailment=0,contradiction=2`` or ``{"entailment": 0, ...}`` as a dict.

    Example:
        >>> _label_map("entailment=0, contradiction=2")
        {'entailment': 0, 'contradiction': 2}
    """
    import json

    text = value.strip()
    try:
        if text.startswith("{"):  # JSON, or the Python form the library's messages show
            try:
                mapping = json.loads(text)
            except ValueError:
                import ast

                try:
                    mapping = ast.literal_eval(text)
                except (SyntaxError, ValueError):
                    raise ValueError from None
        else:
            mapping = {}
            for part in filter(None, (p.strip() for p in text.split(","))):
                name, _, index = part.partition("=")
                mapping[name.strip()] = int(index)
        if not mapping or not isinstance(mapping, dict):
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected NAME=INDEX pairs such as entailment=0,contradiction=2, got {value!r}"
        ) from None
    return mapping


#: Resource-limit flags: (flag, ``Limits`` field, what it bounds).
LIMIT_FLAGS = (
    ("--max-response-chars", "max_response_chars", "characters of a response"),
    ("--max-context-chars", "max_context_chars", "characters of a context, all documents together"),
    ("--max-documents", "max_documents", "documents in a context"),
    ("--max-claims", "max_claims", "claims in a response, after splitting"),
)


def _limit(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {value!r}") from None
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


#: Scorer options whose flag is the option's name with dashes (``batch_size``: ``--batch-size``).
_FLAGGED = ("entail_threshold", "contradict_threshold", "batch_size", "label_map",
            "prefilter_top_k", "band_high", "band_low", "n_process", "max_length",
            "max_attempts", "concurrency")  # fmt: skip


def flagged(message: str) -> str:
    """A library option message, told on the command line: the option names it starts its
    sentences with become flags (a name inside quotes, a path or a key is left alone).

    Example:
        >>> flagged("[E015] batch_size must be a whole number of at least 1, got 0.")
        '[E015] --batch-size must be a whole number of at least 1, got 0.'
        >>> flagged("Pass device='cpu', or no device to take CUDA where there is one.")
        'Pass --device cpu, or no --device to take CUDA where there is one.'
        >>> flagged("runs/batch_size/in.jsonl: 'batch_size' is a key")
        "runs/batch_size/in.jsonl: 'batch_size' is a key"
    """
    import re

    message = message.replace("device='cpu', or no device", "--device cpu, or no --device")
    names = "|".join(_FLAGGED)
    flag = lambda m: "--" + m.group(1).replace("_", "-")  # noqa: E731
    return re.sub(rf"(?<![-\w/.'\"])({names})(?=[ =])", flag, message)


def told(err: BaseException) -> str:
    """An error as a command tells it: with its code, and for a bad option (not, say, a
    bad key inside a thresholds file) with the flag instead of the keyword."""
    from nli_faith.errors import LabelMapError, OptionError, with_code

    text = with_code(err)
    if isinstance(err, (OptionError, LabelMapError)) or getattr(err, "code", None) == "E104":
        text = flagged(text)
    return text


def config_from_args(args: argparse.Namespace) -> ScorerConfig:
    """The :class:`~nli_faith.config.ScorerConfig` the flags describe: ``--guardrail``'s
    preset first, then every flag given (the flags' ``dest`` are the config's fields)."""
    from nli_faith.config import FIELDS, ScorerConfig

    given = {k: getattr(args, k) for k in FIELDS if getattr(args, k, None) is not None}
    given["limits"] = limits_from_args(args)
    if getattr(args, "guardrail", False):
        config = ScorerConfig.guardrail(**given)
    else:
        config = ScorerConfig(**given)
    if getattr(args, "onnx_quantize", True) is False and config.backend != "onnx":
        raise OptionError(E_ONNX_FP32_TORCH.format(backend=config.backend))
    return config


def scorer_from_args(args: argparse.Namespace):
    """Build the scorer the flags describe (``--guardrail`` first, explicit flags over it).

    Raises ``ValueError`` or :class:`~nli_faith.errors.NliFaithError` for bad options.
    """
    from nli_faith.scorer import FaithfulnessScorer

    return FaithfulnessScorer.from_config(config_from_args(args))


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
