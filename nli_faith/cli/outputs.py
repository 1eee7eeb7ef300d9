"""Where ``nli-faith score`` puts its scored rows, whichever engine scored them: the output
file, the summary table, ``--escalate`` lines and the ``--report`` page."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from nli_faith.cli.summary import RunningSummary
from nli_faith.errors import with_flag
from nli_faith.io import ResumePoint, open_writer
from nli_faith.results import FaithfulnessResult


class RunOutputs:
    """Rows in, record by record (:meth:`add`); written a block at a time (:meth:`flush`)."""

    def __init__(
        self,
        args: argparse.Namespace,
        *,
        resume: ResumePoint | None = None,
        say: Callable[..., Any] = print,
    ) -> None:
        self.args = args
        self.say = say  # how a failed record is told on stderr (a progress bar's write)
        self.summary = RunningSummary()
        self.writer = open_writer(args.output, resume=resume)
        self.rows: list[dict[str, Any]] = []
        self.report: list[tuple[Any, dict[str, Any]]] | None = [] if args.report else None
        self.escalate = None
        if args.escalate:
            append = resume is not None and resume.line > 0
            self.escalate = open(args.escalate, "a" if append else "w", encoding="utf-8")  # noqa: SIM115

    def add(self, raw: Any, row: dict[str, Any], result: FaithfulnessResult) -> None:
        """One record's output ``row`` (and its ``result``, read from ``raw``)."""
        if result.error is not None:
            self.say(f"line {row.get('line')}: {with_flag(result.error)}", file=sys.stderr)
        self.summary.add(result)
        if "faithful" in row:
            self.summary.add_gate(row["faithful"])
        if self.report is not None:  # the report holds every record
            self.report.append((raw, row))
        if self.escalate is not None:
            from nli_faith.judge.io import write_escalation

            write_escalation(self.escalate, row, result)
        self.rows.append(row)

    def flush(self) -> int:
        """Write the rows added since the last flush; how many."""
        n = len(self.rows)
        self.writer.write(self.rows)
        self.rows = []
        return n

    def close(self) -> None:
        self.flush()
        self.writer.close()
        if self.escalate is not None:
            self.escalate.close()

    def finish(self) -> int:
        """Summary and report, after :meth:`close`; the command's exit status."""
        if not self.args.quiet:
            print(self.summary.render(), file=sys.stderr)
        if self.report is not None:
            from nli_faith.report import ReportRecord, write_report

            write_report([ReportRecord.of(row, raw) for raw, row in self.report], self.args.report)
            print(f"report: {self.args.report}", file=sys.stderr)
        return 1 if self.summary.failed else 0
