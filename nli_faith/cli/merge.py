"""``nli-faith merge``: put an LLM judge's verdicts back into a scored JSONL file."""

from __future__ import annotations

import argparse
import sys

from nli_faith.cli.options import add_gate_option, gate_from_args


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "merge",
        help="merge an LLM judge's verdicts into a scored JSONL file",
        description=(
            "Replace the verdicts of judged claims (lines of the --escalate file with a "
            "'verdict' of yes/no/idk and an optional 'reason') and recompute lenient, strict "
            "and the reason; soft stays the NLI one. A judged line naming an unknown claim, "
            "or with another verdict, is reported with its line number and not merged "
            "(exit code 1); it never counts as supported."
        ),
    )
    p.add_argument("scored", help="output of `nli-faith score`")
    p.add_argument("judged", help="the judge's verdicts: escalation lines plus 'verdict'")
    p.add_argument("-o", "--output", default="-", help="merged JSONL (default: stdout)")
    add_gate_option(p)
    p.add_argument("--quiet", action="store_true", help="no summary on stderr")


def run(args: argparse.Namespace) -> int:
    from nli_faith.errors import E_FAITHFUL_STALE, NliFaithError, with_code
    from nli_faith.io import json_line
    from nli_faith.judge.merge import (
        MergeError,
        merge_scored,
        read_judged_file,
        read_scored,
        stale_faithful,
    )

    try:
        from nli_faith.io import check_paths

        inputs = {"scored file": args.scored, "judged file": args.judged}
        check_paths(inputs, {"output": args.output})
        scored = read_scored(args.scored)
        judged, errors = read_judged_file(args.judged)
        decision = gate_from_args(args)
    except (OSError, MergeError, NliFaithError) as err:
        print(f"nli-faith merge: error: {with_code(err)}", file=sys.stderr)
        return 2
    merged, more = merge_scored(scored, judged, path=args.judged, decision=decision)
    errors += more
    out = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    try:
        for line in merged:
            out.write(json_line(line))
    finally:
        if out is not sys.stdout:
            out.close()
    for message in errors:
        print(with_code(message), file=sys.stderr)
    stale = stale_faithful(scored, merged)
    if stale:
        print(E_FAITHFUL_STALE.format(n=stale), file=sys.stderr)
    if not args.quiet:
        n = sum(c.get("source") == "judge" for r in merged for c in r.get("claims") or [])
        print(
            f"merged {n} judged claims into {len(merged)} records; {len(errors)} judged "
            "lines rejected",
            file=sys.stderr,
        )
    return 1 if errors else 0
