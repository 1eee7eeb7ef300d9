"""Calibration on visible human labels: what ``nli-faith calibrate`` gains on held-out halves.

    python -m benchmarks run calibration [--sets begin_dev qags_cnndm:80]

Per labelled set: build each record's NLI matrix once (bundled model, CPU), then run
:func:`nli_faith.scoring.calibrate.calibrate` (exactly what the command runs) for the
strict gate by balanced accuracy, the soft gate, and the strict gate at a target
precision of 0.8. Each figure is on the seeded held-out half, beside the defaults
(``entail_threshold=0.5``, ``strict >= 0.5``), with a bootstrap 95% interval.
"""

from __future__ import annotations

import time
from pathlib import Path

from .harness import DEFAULT_DATA_DIR, Outcome
from .speed_common import faithfulness_path, read_jsonl

TITLE = "Calibration on visible human labels"
#: (label, calibrate() keyword arguments)
RUNS = [
    ("strict, balanced accuracy", {"score": "strict"}),
    ("soft, balanced accuracy", {"score": "soft"}),
    ("strict, precision >= 0.8", {"score": "strict", "target_precision": 0.8}),
]


def _fmt(f: dict | None) -> str:
    if not f or f["balanced_accuracy"] is None:
        return "–"
    lo, hi = f["ci95"]
    return f"{f['balanced_accuracy']:.3f} [{lo:.3f}, {hi:.3f}]"


def _pr(f: dict | None) -> str:
    if not f or f["precision"] is None:
        return "–"
    return f"{f['precision']:.2f} / {f['recall']:.2f}"


def render(results: dict) -> str:
    lines = [
        "Thresholds chosen on a seeded half of each set, figures on the other half: balanced "
        "accuracy [bootstrap 95% CI], precision / recall of the 'faithful' decision. "
        "Defaults: `entail_threshold=0.5`, faithful iff `strict >= 0.5`.",
        "",
        "| set | gate | chosen | held-out calibrated | held-out defaults | Δ [95% CI] "
        "| prec. / recall (cal.) | prec. / recall (def.) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, ds in results["sets"].items():
        for label, cal in ds["runs"].items():
            opts = cal["options"]
            d = cal["decision"]
            chosen = (
                f"entail {opts['entail_threshold']:g}, {d['score']} >= {d['min_score']:.3g}"
                if d["score"] == "strict"
                else f"{d['score']} >= {d['min_score']:.3g}"
            )
            lo, hi = cal["delta_ci95"] or (float("nan"), float("nan"))
            lines.append(
                f"| {name} (n={ds['n']}) | {label} | {chosen} | {_fmt(cal['held_out'])} | "
                f"{_fmt(cal['default_held_out'])} | {cal['delta']:+.3f} [{lo:+.3f}, {hi:+.3f}] | "
                f"{_pr(cal['held_out'])} | {_pr(cal['default_held_out'])} |"
            )
        claims = ds["runs"]["strict, balanced accuracy"]
        if claims.get("claims_held_out"):
            lines.append(
                f"| {name} claims | claim labels | entail "
                f"{claims['options']['entail_threshold']:g} | "
                f"{_fmt(claims['claims_held_out'])} | {_fmt(claims['claims_default_held_out'])} "
                "| | | |"
            )
    lines += ["", "Verdicts:", ""]
    for name, ds in results["sets"].items():
        for label, cal in ds["runs"].items():
            lines.append(f"* {name}, {label}: {cal['verdict']}")
    return "\n".join(lines) + "\n"


def add_arguments(p, name: str) -> None:
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument(
        "--sets",
        nargs="+",
        default=["begin_dev", "qags_cnndm:80"],
        help="labelled sets, NAME or NAME:N for its first N records",
    )


def run(args, bench) -> Outcome:
    import sys

    from nli_faith.scorer import FaithfulnessScorer
    from nli_faith.scoring.calibrate import calibrate, parse_labelled

    scorer = FaithfulnessScorer(device="cpu")
    out: dict = {"sets": {}}
    figures = {}
    for spec in args.sets:
        name, _, limit = spec.partition(":")
        rows = [
            parse_labelled(r, where=str(r.get("id")))
            for r in read_jsonl(faithfulness_path(args.data_dir, name), int(limit or 0) or None)
        ]
        name = spec
        t = time.perf_counter()
        matrices = scorer.stages.matrices_of([r.record for r in rows])
        scored_s = time.perf_counter() - t
        ok = [k for k, m in enumerate(matrices) if not isinstance(m, Exception)]
        runs = {}
        t = time.perf_counter()
        for label, kwargs in RUNS:
            cal = calibrate(
                [matrices[k] for k in ok],
                [rows[k].label for k in ok],
                aggregate=scorer.stages.aggregate,
                claim_labels=[rows[k].claims for k in ok],
                **kwargs,
            )
            runs[label] = cal.to_dict()
        out["sets"][name] = {
            "n": len(ok),
            "pairs": int(sum(matrices[k].mask.sum() for k in ok)),
            "scoring_s": round(scored_s, 1),
            "calibration_s": round(time.perf_counter() - t, 1),
            "runs": runs,
        }
        first = runs[RUNS[0][0]]
        for key, figure in (("calibrated", "held_out"), ("defaults", "default_held_out")):
            figures[f"{name} held-out bal. acc., {key}"] = first[figure]["balanced_accuracy"]
        print(f"{name}: {len(ok)} records, scored in {scored_s:.0f} s", file=sys.stderr)
    return Outcome(body=render(out), figures=figures, data=out)
