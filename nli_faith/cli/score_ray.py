"""``nli-faith score --engine ray``: records read and scored by Ray Data, rows written here.

Ray Data reads the input (numbered as the local engine numbers it) and scores it in its
actors (:func:`nli_faith.distributed.score_dataset`, with the same scorer options and
``--thresholds``); the rows come back in input order and go to the same
:class:`~nli_faith.cli.outputs.RunOutputs` as the local engine's, so ``-o``, the summary,
``--escalate`` and ``--report`` give the same files. ``--resume`` is refused.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
from collections.abc import Iterator
from typing import Any

from nli_faith.cli.options import config_from_args, told
from nli_faith.cli.outputs import RunOutputs
from nli_faith.config import ScorerConfig
from nli_faith.errors import (
    E_RAY_ORDER,
    E_RAY_RESUME,
    E_RAY_STDIO,
    E_RAY_URI_OUTPUT,
    MissingDependencyError,
    NliFaithError,
    OptionError,
)
from nli_faith.results import result_from_dict


def run_ray(args: argparse.Namespace) -> int:
    """Read, score and write with Ray Data; the exit status of ``nli-faith score``."""

    from nli_faith import distributed
    from nli_faith.io import check_input, check_paths, is_parquet
    from nli_faith.scoring.thresholds import Thresholds

    try:
        if args.input == "-" or args.output == "-":
            raise OptionError(E_RAY_STDIO)
        if args.resume:
            raise OptionError(E_RAY_RESUME)
        batch = args.ray_batch_size
        batch = distributed.DEFAULT_BATCH_SIZE if batch is None else batch
        if args.concurrency < 1 or batch < 1 or not 0 <= args.num_gpus < math.inf:
            raise OptionError(
                f"--concurrency and --ray-batch-size must be at least 1 and --num-gpus 0 or "
                f"more; got {args.concurrency}, {batch} and {args.num_gpus}."
            )
        if "://" not in args.input:
            check_input(args.input)
        check_paths(
            {"input": args.input, "--thresholds": args.thresholds},
            {"output": args.output, "--report": args.report, "--escalate": args.escalate},
        )
        if _is_uri(args.output) and (args.report or args.escalate):
            raise OptionError(E_RAY_URI_OUTPUT.format(path=args.output))
        ray = distributed._ray()
        config = config_from_args(args)
        if config.thresholds is not None:  # read once, here: a bad file is told at once
            Thresholds.load(config.thresholds)
    except (ValueError, MissingDependencyError, NliFaithError) as err:
        print(f"nli-faith score: error: {told(err)}", file=sys.stderr)
        return 2
    _quiet_ray(args)
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=args.ray_address, log_to_driver=False, logging_level=logging.WARNING)
    if _is_uri(args.output):
        try:
            return _to_directory(args, ray, config)
        finally:
            if started_here:
                ray.shutdown()
    outputs = RunOutputs(args)
    try:
        scored = distributed.score_dataset(
            distributed.read_records(args.input),
            config=config,
            num_gpus=args.num_gpus,
            concurrency=args.concurrency,
            batch_size=args.ray_batch_size or distributed.DEFAULT_BATCH_SIZE,
            json_column=None if is_parquet(args.input) else distributed.JSON_COLUMN,
            json_rows=True,
        )
        inputs = _Inputs(args.input) if args.report else None
        for row in _rows_in_order(scored):
            raw = inputs.get(row["line"]) if inputs is not None else None
            outputs.add(raw, row, result_from_dict(row))
            if len(outputs.rows) >= distributed.DEFAULT_BATCH_SIZE:
                outputs.flush()
    finally:
        outputs.close()
        if started_here:
            ray.shutdown()
    return outputs.finish()


def _is_uri(path: str) -> bool:
    return "://" in path


def _to_directory(args: argparse.Namespace, ray: Any, config: ScorerConfig) -> int:
    """OUTPUT on a remote file system (``s3://...``): a directory of files written by Ray
    Data's sinks (:func:`nli_faith.distributed.write_output`); the summary from its rows."""
    from nli_faith import distributed
    from nli_faith.cli.summary import RunningSummary
    from nli_faith.io import is_parquet
    from nli_faith.rows import json_row

    scored = distributed.score_dataset(
        distributed.read_records(args.input),
        config=config,
        num_gpus=args.num_gpus,
        concurrency=args.concurrency,
        batch_size=args.ray_batch_size or distributed.DEFAULT_BATCH_SIZE,
        json_column=None if is_parquet(args.input) else distributed.JSON_COLUMN,
    )
    distributed.write_output(scored, args.output)
    if is_parquet(args.output):
        written = (json_row(r) for r in ray.data.read_parquet(args.output).iter_rows())
    else:  # lines differ in their keys: parsed here, not by Ray Data
        written = (json.loads(r["text"]) for r in ray.data.read_text(args.output).iter_rows())
    summary = RunningSummary()
    for row in written:
        summary.add(result_from_dict(row))
        summary.add_gate(row.get("faithful"))
    if not args.quiet:
        print(summary.render(), file=sys.stderr)
        print(f"wrote a directory of files: {args.output}", file=sys.stderr)
    return 1 if summary.failed else 0


def _rows_in_order(scored: Any) -> Iterator[dict[str, Any]]:
    """The output objects, in input order (Ray Data keeps it: ``preserve_order``)."""
    from nli_faith.distributed import JSON_COLUMN

    previous = 0
    for batch in scored.iter_batches(batch_format="pyarrow"):
        for line, text in zip(
            batch.column("line").to_pylist(), batch.column(JSON_COLUMN).to_pylist()
        ):
            if line <= previous:
                raise RuntimeError(E_RAY_ORDER.format(line=line, previous=previous))
            previous = line
            yield json.loads(text)


class _Inputs:
    """The input records, looked up by ascending line number (for ``--report``)."""

    def __init__(self, path: str) -> None:
        from nli_faith.io import read_records

        self._records = read_records(path)
        self._next = next(self._records, None)

    def get(self, line: int) -> Any:
        while self._next is not None and self._next.line < line:
            self._next = next(self._records, None)
        return self._next.raw if self._next is not None and self._next.line == line else None


def _quiet_ray(args: argparse.Namespace) -> None:
    """Input order kept; Ray Data's progress bars only on a terminal, INFO logs only with -v."""
    from ray.data import DataContext

    ctx = DataContext.get_current()
    ctx.execution_options.preserve_order = True
    ctx.enable_progress_bars = not args.no_progress and sys.stderr.isatty()
    if not getattr(args, "verbose", False):
        logging.getLogger("ray").setLevel(logging.WARNING)
