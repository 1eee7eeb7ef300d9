"""``nli-faith score``: JSONL in, one scored JSONL line per input line out."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from typing import IO, Any

from nli_faith.cli.options import add_scorer_options, add_thresholds_option, scorer_from_args
from nli_faith.errors import E_BAD_JSON, NliFaithError, RecordError
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
    p.add_argument("input", help="JSONL file, or - for standard input")
    p.add_argument("-o", "--output", default="-", help="output JSONL file (default: stdout)")
    add_scorer_options(p)
    add_thresholds_option(p)
    p.add_argument(
        "--report",
        default=None,
        metavar="HTML",
        help="also write a self-contained HTML report of the run (see `nli-faith report`)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--quiet", action="store_true", help="no summary table on stderr")
    p.add_argument(
        "--escalate",
        metavar="FILE",
        default=None,
        help="also write one JSONL line per uncertain claim (claim, question, best evidence "
        "chunks) for an LLM judge; merge its verdicts back with `nli-faith merge`",
    )


def _read_lines(fh: IO[str]) -> Iterator[tuple[int, Any | RecordError]]:
    """(line number, parsed JSON or the error) for each non-blank line."""
    for lineno, line in enumerate(fh, start=1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as err:
            yield lineno, RecordError(E_BAD_JSON.format(error=err.msg))


def _output(lineno: int, raw: Any, result: FaithfulnessResult) -> dict[str, Any]:
    out: dict[str, Any] = {"line": lineno}
    if isinstance(raw, dict) and "id" in raw:
        out["id"] = raw["id"]
    question = _question(raw)
    if question is not None:
        out["question"] = question
    out |= result.to_dict()
    if result.error is None:
        out.pop("error")
    if result.hallucination_rate is None:  # no reference answer: the output is as before
        out.pop("hallucination_rate")
        out.pop("self_knowledge_rate")
        for claim in out["claims"]:
            claim.pop("reference_label")
    return out


def _question(raw: Any) -> str | None:
    from nli_faith.judge.cascade import _question as question

    return question(raw) if isinstance(raw, dict) else None


def _json_line(out: dict[str, Any]) -> str:
    """One JSON line; a lone surrogate (from a ``\\ud83d`` escape) is kept as an escape."""
    line = json.dumps(out, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(out)  # ASCII-only: every character escaped, nothing lost
    return line + "\n"


def _score_block(scorer, raws: list[Any], labels: list[str]) -> list[FaithfulnessResult]:
    """``scorer.score_batch`` (which isolates failing records); should it raise anyway,
    the block is bisected so that only the records that fail get an error."""
    from nli_faith.scorer import error_result
    from nli_faith.scoring.isolate import describe, run_isolated

    def score(items: list[tuple[Any, str]]) -> list[FaithfulnessResult]:
        return scorer.score_batch([r for r, _ in items], labels=[n for _, n in items])

    return [
        error_result(describe(r)) if isinstance(r, Exception) else r
        for r in run_isolated(score, list(zip(raws, labels)))
    ]


def _summary(results: list[FaithfulnessResult], n_failed: int) -> str:
    scored = [r for r in results if r.error is None and r.n_claims > 0]

    def mean_of(values: Iterable[float]) -> str:
        vals = list(values)
        return f"{sum(vals) / len(vals):.3f}" if vals else "–"

    def mean(name: str) -> str:
        return mean_of(getattr(r, name) for r in scored)

    rows = [
        ("records", str(len(results))),
        ("scored", str(len(scored))),
        ("no verifiable claims", str(sum(r.error is None and r.n_claims == 0 for r in results))),
        ("failed", str(n_failed)),
        ("mean strict", mean("strict")),
        ("mean lenient", mean("lenient")),
        ("mean soft", mean("soft")),
        ("claims supported (yes)", str(sum(r.n_yes for r in results))),
        ("claims contradicted (no)", str(sum(r.n_no for r in results))),
        ("claims not found (idk)", str(sum(r.n_idk for r in results))),
        ("claims uncertain (for a judge)", str(sum(r.n_uncertain for r in results))),
    ]
    with_ref = [r for r in scored if r.hallucination_rate is not None]
    if with_ref:
        labels = [c.reference_label for r in with_ref for c in r.claims]
        rows += [
            ("with a reference answer", str(len(with_ref))),
            ("mean hallucination rate", mean_of(r.hallucination_rate for r in with_ref)),
            ("mean self-knowledge rate", mean_of(r.self_knowledge_rate for r in with_ref)),
            ("claims hallucinated", str(labels.count("hallucination"))),
            ("claims self-knowledge", str(labels.count("self_knowledge"))),
        ]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v:>8}" for k, v in rows)


def run(args: argparse.Namespace) -> int:
    from tqdm.auto import tqdm

    from nli_faith.judge.io import write_escalation
    from nli_faith.scorer import error_result
    from nli_faith.scoring.isolate import describe

    try:
        scorer = scorer_from_args(args)
    except (ValueError, NliFaithError) as err:
        print(f"nli-faith score: error: {err}", file=sys.stderr)
        return 2
    results: list[FaithfulnessResult] = []
    failed: list[tuple[int, str]] = []
    written: list[tuple[Any, dict[str, Any]]] = []  # (input record, output line) for --report
    with ExitStack() as stack:
        src = (
            sys.stdin
            if args.input == "-"
            else stack.enter_context(open(args.input, encoding="utf-8"))
        )
        dst = (
            sys.stdout
            if args.output == "-"
            else stack.enter_context(open(args.output, "w", encoding="utf-8"))
        )
        bar = tqdm(
            desc="scoring",
            unit="rec",
            disable=args.no_progress or not sys.stderr.isatty(),
        )
        block: list[tuple[int, Any]] = []
        escalate = (
            stack.enter_context(open(args.escalate, "w", encoding="utf-8"))
            if args.escalate
            else None
        )

        def flush() -> None:
            ok = [(n, raw) for n, raw in block if not isinstance(raw, RecordError)]
            scored = iter(_score_block(scorer, [r for _, r in ok], [f"line {n}" for n, _ in ok]))
            for lineno, raw in block:
                res = error_result(describe(raw)) if isinstance(raw, RecordError) else next(scored)
                if res.error is not None:
                    failed.append((lineno, res.error))
                results.append(res)
                line = _output(lineno, raw, res)
                if scorer.thresholds is not None:
                    line["faithful"] = scorer.passes(res)
                if args.report:
                    written.append((raw, line))
                dst.write(_json_line(line))
                if escalate is not None:
                    write_escalation(escalate, line, res)
            dst.flush()
            bar.update(len(block))
            block.clear()

        for item in _read_lines(src):
            block.append(item)
            if len(block) >= BLOCK:
                flush()
        if block:
            flush()
        bar.close()
    for lineno, message in failed:
        print(f"line {lineno}: {message}", file=sys.stderr)
    if not args.quiet:
        print(_summary(results, len(failed)), file=sys.stderr)
        if scorer.thresholds is not None:
            d, verdicts = scorer.thresholds.decision, [scorer.passes(r) for r in results]
            print(
                f"faithful ({d.score} >= {d.min_score:g}: {args.thresholds})"
                f"  {sum(v is True for v in verdicts)} of {sum(v is not None for v in verdicts)}",
                file=sys.stderr,
            )
    if args.report:
        from nli_faith.report import ReportRecord, write_report

        write_report([ReportRecord.of(line, raw) for raw, line in written], args.report)
        print(f"report: {args.report}", file=sys.stderr)
    return 1 if failed else 0
