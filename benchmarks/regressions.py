"""The regression suites of ``tests/suites/``, run in full through the harness.

The tests run each suite on a small sample (the slow ones marked ``slow``); these runs use
the full inputs and write the result pages: ``evidence_cases`` (every case with the
bundled model), ``fuzz`` (1,000 generated records) and ``batch_invariance`` (real records
of the visible faithfulness sets, on every backend set-up).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from benchmarks.harness import DEFAULT_DATA_DIR, Outcome

TITLE = "Regression suites with expected answers"
TITLES = {
    "evidence_cases": "Evidence edge cases",
    "fuzz": "Fuzz: generated records through score() and score_batch()",
    "batch_invariance": "Batch invariance: a record's verdicts alone and among other records",
}


def add_arguments(p, name: str) -> None:
    if name == "evidence_cases":
        p.add_argument("--backend", choices=("torch", "onnx-fp32", "onnx"), default="onnx-fp32")
        p.add_argument("--only", default="", help="comma-separated mechanisms (default: all)")
        p.add_argument("--model", default="default", help="registry name, folder or hub id")
    elif name == "fuzz":
        p.add_argument("--n", type=int, default=1000, help="records to generate")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--batch", type=int, default=8, help="records per score_batch() call")
        p.add_argument("--model", default="tiny", help="'tiny', 'default' or a path")
        p.add_argument("--only", type=int, default=None, help="replay one record and raise")
    else:
        from tests.suites.batch_invariance import SETUPS

        p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
        p.add_argument("--per-set", type=int, default=2, help="records from each set")
        p.add_argument("--group", type=int, default=8, help="records per score_batch call")
        p.add_argument("--shuffles", type=int, default=2)
        p.add_argument("--setups", nargs="*", default=list(SETUPS), choices=list(SETUPS))
        p.add_argument("--threads", default=None, help="torch threads (default: all allowed)")


def run(args, bench) -> Outcome:
    return {"evidence_cases": _evidence, "fuzz": _fuzz, "batch_invariance": _invariance}[
        args.benchmark
    ](args, bench)


def _evidence(args, bench) -> Outcome:
    import transformers

    from nli_faith.scorer import FaithfulnessScorer
    from tests.suites.edge_cases import run_edge_cases
    from tests.suites.evidence_cases import CASES, render_markdown, run_evidence_cases, summarize

    transformers.logging.set_verbosity_warning()
    scorer = FaithfulnessScorer(
        args.model,
        device="cpu",
        backend="torch" if args.backend == "torch" else "onnx",
        onnx_quantize=args.backend != "onnx-fp32",  # int8 for "onnx"; unused with torch
    )
    only = {m.strip() for m in args.only.split(",") if m.strip()}
    cases = [c for c in CASES if not only or c.mechanism in only]
    rows = bench.timed("all cases", lambda: run_evidence_cases(scorer, cases))
    s = summarize(rows)
    mission = run_edge_cases(scorer)
    passed = sum(m["passed"] for m in mission)
    body = render_markdown(rows).split("\n", 2)[2]  # its own heading is the page's
    failed = ", ".join(m["case"] for m in mission if not m["passed"]) or "none"
    return Outcome(
        body=f"Model `{args.model}`, backend {args.backend}.\n\n{body}\n"
        f"Mission edge cases (`tests/suites/edge_cases.py`): **{passed} / {len(mission)} "
        f"passed** (failed: {failed}).\n",
        figures={
            "cases passed": f"{s['passed']} / {s['n']}",
            "mission cases passed": f"{passed} / {len(mission)}",
        },
        data={
            "backend": args.backend,
            "model": args.model,
            "summary": s,
            "cases": rows,
            "mission": mission,
        },
    )


def _fuzz(args, bench) -> Outcome:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from tests.helpers.tiny_model import write_tiny_nli
    from tests.suites.fuzz import render
    from tests.suites.fuzz import run as fuzz

    with tempfile.TemporaryDirectory() as tmp:
        model = str(write_tiny_nli(Path(tmp))) if args.model == "tiny" else args.model
        result = bench.timed(
            "score() and score_batch() over all records",
            lambda: fuzz(args.n, args.seed, args.batch, model=model, only=args.only),
        )
    if args.only is not None:
        raise SystemExit(0)
    result["model"] = args.model
    s, b = result["score"], result["score_batch"]
    return Outcome(
        body=render({"run": result}),
        figures={
            "score() crashes": s["crashes"],
            "records lost with their batch": b["records lost with them"],
            "records with an internal error": b["records with an internal error"],
            "broken properties": result["n broken properties"],
        },
        data=result,
    )


def _invariance(args, bench) -> Outcome:
    if args.threads:
        os.environ["OMP_NUM_THREADS"] = args.threads
    from benchmarks.speed_inputs import spaced_sample
    from tests.suites.batch_invariance import SETUPS, measure, render

    sample = spaced_sample(args.data_dir, 2 * args.per_set)
    records, fillers = sample[0::2], sample[1::2]
    result = {
        "per_set": args.per_set,
        "records": len(records),
        "fillers": len(fillers),
        "group": args.group,
        "shuffles": args.shuffles,
        "threads": args.threads or "all",
        "setups": [
            bench.timed(
                name,
                lambda name=name: measure(
                    name, SETUPS[name], records, fillers, group=args.group, shuffles=args.shuffles
                ),
                repeats=1,
            )
            for name in args.setups
        ],
    }
    flips = sum(r["verdict flips"] for r in result["setups"])
    diff = max(r["max probability difference"] for r in result["setups"])
    return Outcome(
        body=render(result),
        figures={"verdict flips": flips, "max probability difference": diff},
        data=result,
    )
