"""``nli-faith score``: records in, one scored row per record out, streamed.

JSONL or Parquet in and out (by extension, :mod:`nli_faith.io`); memory stays bounded
whatever the input length (the summary is kept as running totals); ``--resume`` goes on
after the last record an interrupted run wrote; ``--engine ray`` hands the file to
:mod:`nli_faith.distributed`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from nli_faith.cli.options import add_scorer_options, add_thresholds_option, scorer_from_args
from nli_faith.errors import E_INPUT_MISSING, E_N_PROCESS, NliFaithError
from nli_faith.results import FaithfulnessResult

#: Records scored per model pass; large enough to batch well, small enough to stream.
BLOCK = 64


def add_parser(sub: argparse._SubParsersAction) -> None:
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
    p.add_argument("input", help="JSONL or Parquet (.parquet) file, or - for JSONL on stdin")
    p.add_argument(
        "-o",
        "--output",
        default="-",
        help="output JSONL or Parquet (.parquet) file (default: JSONL on stdout)",
    )
    add_scorer_options(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--quiet", action="store_true", help="no summary table on stderr")
    add_thresholds_option(p)
    p.add_argument(
        "--report",
        default=None,
        metavar="HTML",
        help="also write a self-contained HTML report of the run (see `nli-faith report`)",
    )
    p.add_argument(
        "--escalate",
        metavar="FILE",
        default=None,
        help="also write one JSONL line per uncertain claim (claim, question, best evidence "
        "chunks) for an LLM judge; merge its verdicts back with `nli-faith merge`",
    )
    add_scale_options(p)


def add_scale_options(p: argparse.ArgumentParser) -> None:
    """Flags for large inputs: resume, worker processes, and the Ray engine."""
    g = p.add_argument_group("large inputs")
    g.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted run: keep OUTPUT's rows up to its last whole block "
        f"of {BLOCK} records and score the rest of INPUT (the same file)",
    )
    g.add_argument(
        "--n-process",
        type=int,
        default=1,
        metavar="N",
        help="split and chunk records in N worker processes, ahead of the model (default 1)",
    )
    g.add_argument(
        "--engine",
        default="local",
        choices=["local", "ray"],
        help="'ray': score with Ray Data (pip install \"nli-faith[ray]\"); OUTPUT is then a "
        "directory of JSONL or Parquet files",
    )
    g.add_argument(
        "--ray-address",
        default=None,
        help="with --engine ray: cluster to join, e.g. 'auto' (default: start a local one)",
    )
    g.add_argument(
        "--num-gpus",
        type=float,
        default=0,
        help="with --engine ray: GPUs per scoring actor (default 0: CPU actors)",
    )
    g.add_argument(
        "--concurrency",
        type=int,
        default=1,
        help="with --engine ray: scoring actors, each with its own model (default 1)",
    )
    g.add_argument(
        "--ray-batch-size",
        type=int,
        default=None,
        help="with --engine ray: records per actor call (default 64)",
    )


class RunningSummary:
    """The summary table's figures, accumulated record by record (memory does not grow)."""

    def __init__(self) -> None:
        self.records = self.scored = self.no_claims = self.failed = 0
        self.sums = {"strict": 0.0, "lenient": 0.0, "soft": 0.0}
        self.claims = {"yes": 0, "no": 0, "idk": 0}
        self.uncertain = 0
        self.with_ref = 0
        self.ref_sums = {"hallucination_rate": 0.0, "self_knowledge_rate": 0.0}
        self.ref_claims = {"hallucination": 0, "self_knowledge": 0}
        self.faithful: dict[bool, int] = {True: 0, False: 0}

    def add(self, r: FaithfulnessResult) -> None:
        self.records += 1
        if r.error is not None:
            self.failed += 1
        elif r.n_claims == 0:
            self.no_claims += 1
        else:
            self.scored += 1
            for name in self.sums:
                self.sums[name] += getattr(r, name)
        self.claims["yes"] += r.n_yes
        self.claims["no"] += r.n_no
        self.claims["idk"] += r.n_idk
        self.uncertain += r.n_uncertain
        if r.error is None and r.n_claims and r.hallucination_rate is not None:
            self.with_ref += 1
            for name in self.ref_sums:
                self.ref_sums[name] += getattr(r, name)
            for c in r.claims:
                if c.reference_label in self.ref_claims:
                    self.ref_claims[c.reference_label] += 1

    def add_gate(self, passed: bool | None) -> None:
        """One record's ``faithful`` decision from ``--thresholds`` (None: not decided)."""
        if passed is not None:
            self.faithful[passed] += 1

    def render(self) -> str:
        def mean(name: str) -> str:
            return f"{self.sums[name] / self.scored:.3f}" if self.scored else "–"

        rows = [
            ("records", str(self.records)),
            ("scored", str(self.scored)),
            ("no verifiable claims", str(self.no_claims)),
            ("failed", str(self.failed)),
            ("mean strict", mean("strict")),
            ("mean lenient", mean("lenient")),
            ("mean soft", mean("soft")),
            ("claims supported (yes)", str(self.claims["yes"])),
            ("claims contradicted (no)", str(self.claims["no"])),
            ("claims not found (idk)", str(self.claims["idk"])),
            ("claims uncertain (for a judge)", str(self.uncertain)),
        ]
        if self.with_ref:
            n = self.with_ref
            rows += [
                ("with a reference answer", str(n)),
                ("mean hallucination rate", f"{self.ref_sums['hallucination_rate'] / n:.3f}"),
                ("mean self-knowledge rate", f"{self.ref_sums['self_knowledge_rate'] / n:.3f}"),
                ("claims hallucinated", str(self.ref_claims["hallucination"])),
                ("claims self-knowledge", str(self.ref_claims["self_knowledge"])),
            ]
        if any(self.faithful.values()):
            decided = self.faithful[True] + self.faithful[False]
            rows.append(("faithful (--thresholds)", f"{self.faithful[True]} of {decided}"))
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{width}}  {v:>8}" for k, v in rows)


def run(args: argparse.Namespace) -> int:
    if args.engine == "ray":
        from nli_faith.distributed import run_cli

        return run_cli(args)
    from collections import deque

    from nli_faith.io import count_records, open_writer, output_row, read_records, resume_point

    try:
        if args.n_process < 1:
            raise ValueError(E_N_PROCESS.format(n_process=args.n_process))
        if args.input != "-" and not Path(args.input).is_file():
            raise ValueError(E_INPUT_MISSING.format(path=args.input))
        total = count_records(args.input) if args.input != "-" else None
        resume = resume_point(args.output, block=BLOCK) if args.resume else None
        scorer = scorer_from_args(args)
    except (ValueError, OSError, NliFaithError) as err:  # pyarrow's errors are ValueErrors
        print(f"nli-faith score: error: {err}", file=sys.stderr)
        return 2
    after = resume.line if resume is not None else 0
    if after:
        print(f"resuming after input line {after} ({resume.rows} rows kept)", file=sys.stderr)
    _exit_on_sigterm()
    summary = RunningSummary()
    bar = _progress_bar(args, total=None if total is None else total - min(after, total))
    pending: deque = deque()  # (line, raw) of records read but not yet written

    def feed():
        for item in read_records(args.input, after_line=after):
            pending.append(item)
            yield item.raw

    def labels():  # zip() asks for a label right after its record: the last one read
        while True:
            yield f"line {pending[-1].line}"

    writer = open_writer(args.output, resume=resume)
    pairs0, t0, rows = scorer.nli.pairs_predicted, time.perf_counter(), []
    written: list = []  # (input record, output row) for --report: the report holds them all
    escalate = None
    if args.escalate:
        from nli_faith.judge.io import write_escalation

        escalate = open(args.escalate, "a" if after else "w", encoding="utf-8")  # noqa: SIM115
    try:
        stream = scorer.score_stream(
            feed(), block_size=BLOCK, n_process=args.n_process, labels=labels()
        )
        for res in stream:
            item = pending.popleft()
            summary.add(res)
            if res.error is not None:
                bar.write(f"line {item.line}: {res.error}", file=sys.stderr)
            row = output_row(item.line, item.raw, res)
            if scorer.thresholds is not None:
                row["faithful"] = scorer.passes(res)
                summary.add_gate(row["faithful"])
            if args.report:
                written.append((item.raw, row))
            if escalate is not None:
                write_escalation(escalate, row, res)
            rows.append(row)
            if len(rows) >= BLOCK or not pending:
                writer.write(rows)
                pairs = scorer.nli.pairs_predicted - pairs0
                bar.set_postfix_str(f"{pairs / (time.perf_counter() - t0):,.0f} pairs/s")
                bar.update(len(rows))
                rows = []
    finally:
        writer.write(rows)
        writer.close()
        if escalate is not None:
            escalate.close()
        bar.close()
        scorer.close()
    if not args.quiet:
        print(summary.render(), file=sys.stderr)
    if args.report:
        from nli_faith.report import ReportRecord, write_report

        write_report([ReportRecord.of(row, raw) for raw, row in written], args.report)
        print(f"report: {args.report}", file=sys.stderr)
    return 1 if summary.failed else 0


def _progress_bar(args: argparse.Namespace, *, total: int | None):
    from tqdm.auto import tqdm

    return tqdm(
        desc="scoring",
        unit="rec",
        total=total,
        disable=args.no_progress or not sys.stderr.isatty(),
    )


def _exit_on_sigterm() -> None:
    """SIGTERM ends the run like Ctrl-C: what was scored is written and closed properly."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
