"""``nli-faith calibrate``: choose thresholds on labelled records, save them as JSON."""

from __future__ import annotations

import argparse
import json
import sys

from nli_faith.cli.options import (
    add_scorer_options,
    config_from_args,
    limits_from_args,
    told,
)
from nli_faith.errors import E_TARGET_AGREEMENT, E_TARGET_PRECISION, NliFaithError


def _share(message: str):
    def parse(value: str) -> float:
        try:
            p = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, got {value!r}") from None
        if not 0 < p <= 1:
            raise argparse.ArgumentTypeError(message.format(value=p))
        return p

    return parse


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calibrate",
        help="choose thresholds on your own labelled records",
        description=(
            "Score labelled JSONL records once (any accepted field names, plus 'label': 1 "
            "faithful / 0 not, and optionally 'claims': [{'text', 'label'}]), choose the "
            "claim threshold, the record gate (faithful = strict >= min_score) and the LLM "
            "judge's confidence bands on a seeded half, report them on the other half beside "
            "the defaults, and save them for `nli-faith score --thresholds`, `nli-faith "
            "judge --thresholds` and FaithfulnessScorer.from_thresholds."
        ),
    )
    p.add_argument("input", help="labelled JSONL file, or - for standard input")
    p.add_argument("-o", "--output", required=True, help="thresholds JSON file to write")
    p.add_argument(
        "--score",
        default="strict",
        choices=["strict", "lenient", "soft"],
        help="the record score the gate applies to (default strict: share of supported claims)",
    )
    p.add_argument(
        "--target-precision",
        type=_share(E_TARGET_PRECISION),
        default=None,
        metavar="P",
        help="instead of balanced accuracy: the most recall among gates whose precision "
        "(share of passed records that are faithful) reaches P on the calibration half",
    )
    p.add_argument(
        "--target-agreement",
        type=_share(E_TARGET_AGREEMENT),
        default=None,
        metavar="A",
        help="judge bands: settle the most claims locally while the settled ones agree with "
        "the labels at least this often on the calibration half (default 0.9)",
    )
    p.add_argument(
        "--no-bands",
        action="store_true",
        help="keep the default judge bands (--band-high / --band-low) instead of choosing them",
    )
    p.add_argument(
        "--fit-decision",
        action="store_true",
        help="also fit an answer decision learned from the labels (a small logistic model over "
        "the claims' verdicts, scores and coverage) "
        "on the same half, report it on the other beside 'every claim yes', and save it in "
        "the thresholds file, where it decides 'faithful' instead of the gate",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the half split (default 0)")
    add_scorer_options(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def _row(name: str, f) -> str:
    """One line of the figures table (empty without figures)."""
    if f is None:
        return ""
    ci = f"[{f.ci95[0]:.3f}, {f.ci95[1]:.3f}]" if f.ci95 else "–"
    fmt = lambda v: "–" if v is None else f"{v:.3f}"  # noqa: E731
    return (
        f"{name:<34}{f.n:>6}{fmt(f.balanced_accuracy):>8}  {ci:<16}"
        f"{fmt(f.precision):>8}{fmt(f.recall):>8}\n"
    )


def _table(cal) -> str:
    row = _row
    opts = ", ".join(f"{k}={v:g}" for k, v in cal.options.items())
    return (
        f"chosen ({cal.objective}): {opts}; faithful iff "
        f"{cal.decision.score} >= {cal.decision.min_score:g}\n"
        + ("" if cal.target_met else "warning: no gate reached the target precision\n")
        + f"{'':<34}{'n':>6}{'bal.acc':>8}  {'95% CI':<16}{'prec.':>8}{'recall':>8}\n"
        + row("calibration half, calibrated", cal.calibration)
        + row("calibration half, defaults", cal.default_calibration)
        + row("held-out half, calibrated", cal.held_out)
        + row("held-out half, defaults", cal.default_held_out)
        + row("held-out claims, calibrated", cal.claims_held_out)
        + row("held-out claims, defaults", cal.claims_default_held_out)
        + (f"records without a score (left out): {cal.n_unscored}\n" if cal.n_unscored else "")
        + cal.verdict()
        + (f"\n{cal.bands.verdict()}" if cal.bands is not None else "")
        + (f"\nnote: {_flagged(cal.band_note)}" if cal.band_note else "")
        + "".join(f"\nnote: {note}" for note in cal.notes)
    )


def run(args: argparse.Namespace) -> int:
    from nli_faith.errors import E_CLAIM_LABEL_UNMATCHED, with_code
    from nli_faith.io import check_input, check_paths, read_records
    from nli_faith.scoring.bands import TARGET_AGREEMENT
    from nli_faith.scoring.calibrate import calibrate, parse_labelled
    from nli_faith.scoring.thresholds import ModelId, Thresholds

    def fail(err: BaseException) -> int:
        print(f"nli-faith calibrate: error: {told(err)}", file=sys.stderr)
        return 2

    try:  # everything that can be told before the records are scored
        if args.seed < 0:
            raise ValueError(f"--seed must be 0 or more, got {args.seed}.")
        for flag in ("entail_threshold", "contradict_threshold"):
            if getattr(args, flag, None) is not None:
                name = "--" + flag.replace("_", "-")
                raise ValueError(
                    f"{name} is what calibrate chooses (over 0.05 ... 0.95); leave it out."
                )
        if getattr(args, "answer_decision", None) is not None:
            raise ValueError(
                "--answer-decision is what `calibrate --fit-decision` fits; leave it out."
            )
        check_input(args.input)
        check_paths({"input": args.input}, {"output": args.output})
        from nli_faith.scorer import FaithfulnessScorer

        config = config_from_args(args)
        scorer = FaithfulnessScorer.from_config(config)
    except (ValueError, OSError, NliFaithError) as err:
        return fail(err)
    scorer.early_exit = False  # calibration needs every pair to try every threshold
    limits = limits_from_args(args)
    rows, lines, skipped = [], [], []
    for item in read_records(args.input):  # JSONL or Parquet, as for `score`
        try:
            if isinstance(item.raw, Exception):
                raise item.raw
            row = parse_labelled(item.raw, where=f"line {item.line}", limits=limits)
            if row.unmatched:
                indices = ", ".join(f"claims[{i}]" for i in row.unmatched)
                print(
                    with_code(
                        E_CLAIM_LABEL_UNMATCHED.format(where=f"line {item.line}", indices=indices)
                    ),
                    file=sys.stderr,
                )
            rows.append(row)
            lines.append(item.line)
        except (ValueError, NliFaithError, AttributeError) as err:
            skipped.append((item.line, with_code(err)))
    matrices = scorer.stages.matrices_of(
        [r.record for r in rows], progress=not args.no_progress and sys.stderr.isatty()
    )
    good = [k for k, m in enumerate(matrices) if not isinstance(m, Exception)]
    skipped += [
        (lines[k], with_code(m)) for k, m in enumerate(matrices) if isinstance(m, Exception)
    ]
    for lineno, message in sorted(skipped):
        where = message if f"line {lineno}:" in message else f"line {lineno}: {message}"
        print(f"{where} (left out)", file=sys.stderr)
    try:
        cal = calibrate(
            [matrices[k] for k in good],
            [rows[k].label for k in good],
            aggregate=scorer.stages.aggregate,
            claim_labels=[rows[k].claims for k in good],
            score=args.score,
            target_precision=args.target_precision,
            seed=args.seed,
            calibrate_judge_bands=not args.no_bands,
            target_agreement=args.target_agreement or TARGET_AGREEMENT,
        )
    except NliFaithError as err:
        return fail(err)
    decision = cal.decision
    fitted = None
    if args.fit_decision:
        import dataclasses

        from nli_faith.scoring.decision_calibration import calibrate_answer_decision

        try:
            fitted = calibrate_answer_decision(
                [scorer.stages.aggregate(matrices[k], **cal.options) for k in good],
                [rows[k].label for k in good],
                seed=args.seed,
                fitted_on=f"`nli-faith calibrate --fit-decision` on half of {args.input}",
            )
        except NliFaithError as err:
            return fail(err)
        decision = dataclasses.replace(cal.decision, learned=fitted.decision)
    report = cal.to_dict()
    if fitted is not None:
        report["answer_decision"] = fitted.to_dict()
    report["input"] = args.input
    report["n_records"] = len(good)
    report["n_left_out"] = len(skipped)
    report["scorer"] = {
        "backend": scorer.nli.backend,
        "granularity": args.granularity,
        "prefilter": args.prefilter,
    }
    Thresholds(
        model=ModelId.of(config.model, scorer.nli),
        options=cal.options,
        decision=decision,
        report=report,
    ).save(args.output)
    print(_table(cal), file=sys.stderr)
    if fitted is not None:
        print(_decision_table(fitted), file=sys.stderr)
    summary = {"output": args.output, "improved": cal.improved}
    if fitted is not None:
        summary["decision_improved"] = fitted.improved
    print(json.dumps(summary))
    return 0


def _decision_table(fitted) -> str:
    row = _row
    return (
        "answer decision learned from the labels (saved: it decides 'faithful')\n"
        + row("held-out half, learned decision", fitted.held_out)
        + row("held-out half, every claim yes", fitted.default_held_out)
        + fitted.verdict()
    )


def _flagged(note: str) -> str:
    """A library note with this command's flag for the option it names."""
    return note.replace("(calibrate_judge_bands=False)", "(--no-bands)")
