"""``nli-faith report``: scored JSONL in, one self-contained HTML page out."""

from __future__ import annotations

import argparse
import sys

from nli_faith.errors import NliFaithError


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="write an HTML report of a scored JSONL file",
        description=(
            "Render `nli-faith score` output as one static HTML file (styles and script "
            "inline, nothing fetched): a summary, then one card per record, worst first, "
            "with its claims highlighted by verdict; clicking a claim shows its evidence "
            "inside its context document. The scored lines do not hold the responses and "
            "documents: pass the scored input with --input (joined by line number), or use "
            "`nli-faith score --report`. A scored line it cannot read is told on stderr and "
            "left out (exit status 1); the other lines are reported."
        ),
    )
    p.add_argument("scored", help="JSONL written by `nli-faith score`")
    p.add_argument("-o", "--output", required=True, help="HTML file to write")
    p.add_argument(
        "--input",
        default=None,
        metavar="JSONL",
        help="the file that was scored, for the responses and context documents",
    )
    p.add_argument("--title", default="nli-faith report", help="page title")


def run(args: argparse.Namespace) -> int:
    from nli_faith.errors import with_code
    from nli_faith.report import read_scored, write_report

    skipped = []

    def skip(err: NliFaithError) -> None:  # one bad line is told and passed over
        skipped.append(err)
        print(f"nli-faith report: skipped {with_code(err)}", file=sys.stderr)

    try:
        from nli_faith.io import check_input, check_paths

        check_paths({"input": args.scored, "--input": args.input}, {"output": args.output})
        check_input(args.scored)
        if args.input is not None:
            check_input(args.input)
        records = read_scored(args.scored, inputs=args.input, on_error=skip)
        write_report(records, args.output, title=args.title)
    except (OSError, ValueError, NliFaithError) as err:  # pyarrow's errors are ValueErrors
        print(f"nli-faith report: error: {with_code(err)}", file=sys.stderr)
        return 2
    told = f", {len(skipped)} lines skipped" if skipped else ""
    print(f"report: {args.output} ({len(records)} records{told})", file=sys.stderr)
    return 1 if skipped else 0
