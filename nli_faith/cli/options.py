"""Scorer options shared by the commands that score (``score``, ``serve``, ...)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from nli_faith.errors import E_ONNX_FP32_TORCH, OptionError
from nli_faith.presets import GUARDRAIL

if TYPE_CHECKING:  # pragma: no cover
    from nli_faith.config import ScorerConfig


#: Fields whose flags are made elsewhere: ``limits`` has one flag per limit
#: (:func:`add_limit_options`), ``thresholds`` its own (:func:`add_thresholds_option`).
_OWN_FLAGS = ("limits", "thresholds")


def add_scorer_options(p: argparse.ArgumentParser, *, limits=None) -> None:
    """Add the flags that configure a :class:`~nli_faith.scorer.FaithfulnessScorer`: one per
    field of :class:`~nli_faith.config.ScorerConfig` (``--batch-size`` for ``batch_size``,
    ``--composite/--no-composite`` for a flag), its help and default from the field, plus
    ``--guardrail`` and the record limits (``limits``: their defaults, else ``Limits()``).

    Every flag's default is ``None`` (not given), so that ``--guardrail``'s preset and then
    the flags given make the configuration (:func:`config_from_args`).
    """
    import dataclasses

    from nli_faith.config import ScorerConfig

    g = p.add_argument_group("scorer", "the options of ScorerConfig, one flag each")
    for f in dataclasses.fields(ScorerConfig):
        if f.name not in _OWN_FLAGS:
            _add_field_flag(g, f)
    g.add_argument(
        "--guardrail",
        action="store_true",
        help="CPU latency set-up: "
        + " ".join(_as_flags(GUARDRAIL))
        + " (options given explicitly still apply)",
    )
    add_limit_options(p, limits)


def _as_flags(options) -> list[str]:
    """``{"backend": "onnx", "early_exit": True}`` as ``["--backend onnx", "--early-exit"]``."""
    flags = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        flags.append(flag if value is True else f"{flag} {value}")
    return flags


def _help(f, default: object) -> str:
    """A field's documentation as flag help (no reST markup), with its default."""
    text = f.metadata["doc"].replace("``", "").replace("%", "%%").rstrip(".")
    if default is not None and "default" not in text:
        shown = (
            {True: "on", False: "off"}.get(default, default)
            if isinstance(default, bool)
            else default
        )
        text += f" (default: {shown})"
    return text + "."


def _add_field_flag(g, f) -> None:
    """The flag of one configuration field (its type read from the field's annotation)."""
    flag = "--" + f.name.replace("_", "-")
    kinds = str(f.type)
    default = f.default
    common = {"dest": f.name, "default": None, "help": _help(f, default)}
    if kinds == "bool":
        g.add_argument(flag, action=argparse.BooleanOptionalAction, **common)
        for alias in f.metadata.get("flags", ()):  # --onnx-fp32: --no-onnx-quantize
            g.add_argument(
                alias,
                dest=f.name,
                action="store_const",
                const=not default,
                default=None,
                help=f"the same as {'--no-' if default else '--'}{flag[2:]}",
            )
        return
    if f.name == "label_map":
        kind = _label_map
    elif kinds.startswith("int"):
        kind = _optional_int if default is not None else int
    elif kinds.startswith("float"):
        kind = float
    else:
        kind = str
    if "choices" in f.metadata:
        common["choices"] = list(f.metadata["choices"])
    else:
        common["metavar"] = f.metadata.get("metavar")
    g.add_argument(flag, type=kind, **common)


#: ``--chunk-tokens none``: the value of an option whose default is a number but may be None.
NONE = "none"


def _optional_int(value: str) -> int | str:
    """A whole number, or ``none`` (kept as :data:`NONE`, read as ``None``)."""
    if value.strip().lower() == NONE:
        return NONE
    return int(value)


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


def add_limit_options(p: argparse.ArgumentParser, limits=None) -> None:
    """Add the per-record resource limits (:class:`~nli_faith.records.Limits`); 0 = no limit.
    ``limits``: their defaults (``Limits()``, the library's, unless given)."""
    from nli_faith.records import Limits

    defaults = Limits() if limits is None else limits
    group = p.add_argument_group(
        "limits", "a record past a limit gets an error naming it; the others are scored"
    )
    for flag, name, what in LIMIT_FLAGS:
        default = getattr(defaults, name)
        shown = "no limit" if default is None else f"{default:,}"
        group.add_argument(
            flag,
            type=_limit,
            default=0 if default is None else default,
            metavar="N",
            help=f"most {what} (default {shown}; 0: no limit)",
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
    given = {k: None if v == NONE else v for k, v in given.items()}
    given["limits"] = limits_from_args(args)
    base = GUARDRAIL if getattr(args, "guardrail", False) else {}
    backend = given.get("backend", base.get("backend", "torch"))
    if given.get("onnx_quantize") is False and backend != "onnx":  # told as a flag
        raise OptionError(E_ONNX_FP32_TORCH.format(backend=backend))
    return ScorerConfig(**{**base, **given})


def scorer_from_args(args: argparse.Namespace):
    """Build the scorer the flags describe (``--guardrail`` first, explicit flags over it).

    Raises ``ValueError`` or :class:`~nli_faith.errors.NliFaithError` for bad options.
    """
    from nli_faith.scorer import FaithfulnessScorer

    return FaithfulnessScorer.from_config(config_from_args(args))


def add_thresholds_option(p: argparse.ArgumentParser) -> None:
    """``--thresholds FILE``: the configuration's ``thresholds`` (same --model)."""
    import dataclasses

    from nli_faith.config import ScorerConfig

    (f,) = [f for f in dataclasses.fields(ScorerConfig) if f.name == "thresholds"]
    p.add_argument(
        "--thresholds",
        default=None,
        metavar="FILE",
        help=_help(f, None)[:-1] + "; --entail-threshold / --contradict-threshold given "
        "explicitly still apply.",
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
