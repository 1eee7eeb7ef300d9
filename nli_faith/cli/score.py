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

from nli_faith.cli.options import (
    add_scorer_options,
    add_thresholds_option,
    scorer_from_args,
    told,
)
from nli_faith.cli.outputs import RunOutputs
from nli_faith.cli.summary import RunningSummary  # noqa: F401 - re-exported
from nli_faith.errors import NliFaithError, with_code

#: Records scored per model pass; large enough to batch well, small enough to stream.
BLOCK = 64


def _n_process(value: str) -> int | str:
    """``--n-process``: a number, or ``auto`` (checked with the library's other options)."""
    if value == "auto":
        return value
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a whole number or 'auto', got {value!r}"
        ) from None


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
        type=_n_process,
        default=None,
        metavar="N",
        help="split and chunk records in N worker processes, ahead of the model; 'auto': "
        "one per CPU but the model's (default: 'auto' when the model runs on a GPU, else 1)",
    )
    g.add_argument(
        "--engine",
        default="local",
        choices=["local", "ray"],
        help="'ray': score with Ray Data (pip install \"nli-faith[ray]\"); OUTPUT is the file "
        "the local engine writes (not --resume)",
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


def run(args: argparse.Namespace) -> int:
    if args.engine == "ray":
        from nli_faith.cli.score_ray import run_ray

        return run_ray(args)
    ray_only = [
        flag
        for flag, given in (
            ("--ray-address", args.ray_address is not None),
            ("--num-gpus", args.num_gpus != 0),
            ("--concurrency", args.concurrency != 1),
            ("--ray-batch-size", args.ray_batch_size is not None),
        )
        if given
    ]
    if ray_only:
        verb = "applies" if len(ray_only) == 1 else "apply"
        message = f"{', '.join(ray_only)} {verb} only with --engine ray; add it or leave it out."
        print(f"nli-faith score: error: {message}", file=sys.stderr)
        return 2
    from collections import deque

    from nli_faith.engine import heap
    from nli_faith.engine.runner import check_n_process
    from nli_faith.io import (
        check_input,
        check_paths,
        count_records,
        read_records,
        resume_point,
    )
    from nli_faith.rows import scored_row

    try:
        if args.n_process is not None:
            check_n_process(args.n_process)
        check_input(args.input)
        check_paths(
            {"input": args.input, "--thresholds": args.thresholds},
            {"output": args.output, "--report": args.report, "--escalate": args.escalate},
        )
        total = count_records(args.input) if args.input != "-" else None
        try:
            resume = resume_point(args.output, block=BLOCK) if args.resume else None
        except ValueError as err:  # the library's message; the flag is the CLI's to name
            raise ValueError(f"--resume: {with_code(err)}") from err
        scorer = scorer_from_args(args)
        if args.n_process is None:  # the cores are the GPU's feed; on a CPU, the model's
            args.n_process = default_n_process(scorer.nli.device)
    except (ValueError, OSError, NliFaithError) as err:  # pyarrow's errors are ValueErrors
        print(f"nli-faith score: error: {told(err)}", file=sys.stderr)
        return 2
    after = resume.line if resume is not None else 0
    if after:
        print(f"resuming after input line {after} ({resume.rows} rows kept)", file=sys.stderr)
    _exit_on_sigterm()
    bar = _progress_bar(args, total=None if total is None else total - min(after, total))
    pending: deque = deque()  # (line, raw) of records read but not yet written

    def feed():
        for item in read_records(args.input, after_line=after):
            pending.append(item)
            yield item.raw

    def labels():  # zip() asks for a label right after its record: the last one read
        while True:
            yield f"line {pending[-1].line}"

    outputs = RunOutputs(args, resume=resume, say=bar.write)
    pairs0, t0 = scorer.nli.pairs_predicted, time.perf_counter()
    # The loaded scorer stays out of the collector's full passes while the run lasts:
    # walking it took about a ninth of the host's time per pair in one process
    # (nli_faith.engine.heap; benchmarks: model_feed).
    heap.freeze()
    try:
        stream = scorer.score_stream(
            feed(), block_size=BLOCK, n_process=args.n_process, labels=labels()
        )
        for res in stream:
            item = pending.popleft()
            outputs.add(item.raw, scored_row(scorer, item.line, item.raw, res), res)
            if len(outputs.rows) >= BLOCK or not pending:
                n = outputs.flush()
                pairs = scorer.nli.pairs_predicted - pairs0
                bar.set_postfix_str(f"{pairs / (time.perf_counter() - t0):,.0f} pairs/s")
                bar.update(n)
    finally:
        outputs.close()
        bar.close()
        scorer.close()
        heap.thaw()
    return outputs.finish()


def default_n_process(device: str) -> int | str:
    """``--n-process`` when it is not given: on a GPU the model waits for the host, so every
    CPU but the model's plans (``auto``); on the CPU the model needs the cores itself.

    Example:
        >>> default_n_process("cuda:0"), default_n_process("cpu")
        ('auto', 1)
    """
    return "auto" if str(device).startswith("cuda") else 1


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
