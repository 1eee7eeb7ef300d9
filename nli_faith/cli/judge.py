"""``nli-faith judge``: escalate the uncertain claims of a scored file, judge them, merge."""

from __future__ import annotations

import argparse
import os
import sys

from nli_faith.cli.options import add_gate_option, gate_from_args


def add_parser(sub: argparse._SubParsersAction) -> None:
    from nli_faith.judge.defaults import DEFAULT_CONCURRENCY, DEFAULT_MAX_ATTEMPTS

    p = sub.add_parser(
        "judge",
        help="send the uncertain claims of a scored file to an LLM judge and merge",
        description=(
            "Read `nli-faith score` output, send every claim the NLI bands left uncertain "
            "to an OpenAI-compatible chat-completions endpoint (hosted API, vLLM, llama.cpp "
            "server, Ollama), and write the scored lines with the judge's verdicts merged "
            "and the scores recomputed. A claim the judge fails on after the retries keeps "
            "its NLI verdict and gets 'judge_error' (exit code 1)."
        ),
    )
    p.add_argument("scored", help="output of `nli-faith score`")
    p.add_argument("--base-url", required=True, help="API root, e.g. http://localhost:8000/v1")
    p.add_argument("--model", required=True, help="model name the endpoint expects")
    p.add_argument(
        "--api-key-env",
        default=None,
        metavar="VAR",
        help="environment variable holding the API key (sent as a bearer token)",
    )
    p.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY)
    p.add_argument("--max-attempts", type=int, default=DEFAULT_MAX_ATTEMPTS)
    p.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        help="seconds for one request, from sending it to the reply's last byte",
    )
    p.add_argument(
        "--no-json-mode",
        action="store_true",
        help="do not send response_format=json_object (for servers that reject it)",
    )
    p.add_argument("-o", "--output", default="-", help="merged JSONL (default: stdout)")
    add_gate_option(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--quiet", action="store_true", help="no summary on stderr")


def run(args: argparse.Namespace) -> int:
    from nli_faith.errors import E_FAITHFUL_STALE, E_JUDGE_KEY_ENV, NliFaithError
    from nli_faith.io import json_line
    from nli_faith.judge.client import OpenAIJudge
    from nli_faith.judge.io import line_items
    from nli_faith.judge.merge import (
        JudgeOutcome,
        MergeError,
        apply_outcomes,
        decide_line,
        read_scored,
        result_from_dict,
        scored_line,
        stale_faithful,
    )
    from nli_faith.judge.runner import JudgeSummary, judge_items

    def fail(message: object) -> int:
        from nli_faith.cli.options import told

        text = told(message) if isinstance(message, BaseException) else str(message)
        text = text.replace("the judge's base URL", "--base-url").replace(
            "the judge's model", "--model"
        )
        print(f"nli-faith judge: error: {text}", file=sys.stderr)
        return 2

    key = None
    if args.api_key_env == "":
        return fail("--api-key-env needs the name of an environment variable, got ''.")
    if args.api_key_env:
        key = os.environ.get(args.api_key_env)
        if not key:
            return fail(E_JUDGE_KEY_ENV.format(var=args.api_key_env))
    try:
        from nli_faith.io import check_paths

        check_paths({"scored file": args.scored}, {"output": args.output})
        scored = read_scored(args.scored)
        decision = gate_from_args(args)
    except (OSError, MergeError, NliFaithError) as err:
        return fail(err)
    try:
        judge = OpenAIJudge(
            base_url=args.base_url,
            model=args.model,
            api_key=key,
            timeout=args.timeout,
            json_mode=not args.no_json_mode,
        )
    except ValueError as err:
        return fail(err)
    summary = JudgeSummary()
    results, items = [], []
    for line in scored:
        result = result_from_dict(line)
        results.append(result)
        if result.error is None:
            summary.claims += result.n_claims
            summary.settled += sum(c.settled for c in result.claims)
            items += [(len(results) - 1, item) for item in line_items(line, result)]
    try:
        outcomes = judge_items(
            [item for _, item in items],
            judge,
            concurrency=args.concurrency,
            max_attempts=args.max_attempts,
            show_progress_bar=not args.no_progress and sys.stderr.isatty(),
            summary=summary,
        )
    except ValueError as err:
        return fail(err)
    per: dict[int, dict[int, JudgeOutcome]] = {}
    for (k, item), out in zip(items, outcomes):
        per.setdefault(k, {})[item.claim_index] = out
    out_lines = [
        scored_line(line, apply_outcomes(result, per[k]), decision=decision)
        if k in per
        else (line if decision is None else decide_line(line, decision))
        for k, (line, result) in enumerate(zip(scored, results))
    ]
    dst = sys.stdout if args.output == "-" else open(args.output, "w", encoding="utf-8")
    try:
        for line in out_lines:
            dst.write(json_line(line))
    finally:
        if dst is not sys.stdout:
            dst.close()
    if not args.quiet:
        print(summary, file=sys.stderr)
    stale = stale_faithful(scored, out_lines)
    if stale:
        print(E_FAITHFUL_STALE.format(n=stale), file=sys.stderr)
    return 1 if summary.failed else 0
