"""Scoring with Ray Data, for inputs one machine cannot get through in time.

:func:`score_dataset` maps a Ray Data dataset of records through a pool of actors, each
holding one :class:`~nli_faith.scorer.FaithfulnessScorer` (the model is loaded once per
actor, on a GPU when ``num_gpus`` is set, else on CPUs). Its output rows are the rows
``nli-faith score`` writes, with the fixed Arrow schema of :func:`nli_faith.io.arrow_schema`:
``line``, ``id``, ``lenient``, ``strict``, ``soft``, ``n_claims``, ``n_yes``, ``n_no``,
``n_idk``, ``reason``, ``claims`` (a JSON string: the list the JSONL output holds) and
``error`` (``id`` and ``error`` are null where the JSONL object has no such key; a
non-string ``id`` is JSON-encoded). :func:`read_records` reads a JSONL or Parquet file as
such a dataset, keeping each record's line (or row) number; ``nli-faith score --engine ray``
(:mod:`nli_faith.cli.score_ray`) is the two together.

Needs ``pip install "nli-faith[ray]"``; Ray is imported only when used.

Example (on a cluster: ``ray.init(address="auto")``):
    >>> import ray
    >>> from nli_faith.distributed import read_records, score_dataset
    >>> _ = ray.init(num_cpus=2)  # doctest: +SKIP
    >>> ds = read_records("examples/answers.jsonl")  # doctest: +SKIP
    >>> rows = score_dataset(ds, concurrency=1).take_all()  # doctest: +SKIP
    >>> sorted(rows, key=lambda r: r["line"])[0]["n_claims"]  # doctest: +SKIP
    2
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from nli_faith.config import ScorerConfig, configure
from nli_faith.errors import (
    E_BAD_JSON,
    E_RAY_ARGS,
    E_RAY_MISSING,
    MissingDependencyError,
    OptionError,
    RecordError,
)
from nli_faith.io import (
    PARQUET_ROW_GROUP,
    byte_chunks,
    is_parquet,
    json_line,
    json_value,
    jsonl_lines,
)
from nli_faith.records import JSONInputError, load_json
from nli_faith.rows import arrow_row, arrow_schema, json_row, scored_row
from nli_faith.scoring.thresholds import Thresholds

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa
    import ray.data

#: Records per actor call (one ``score_batch``), as the CLI's blocks.
DEFAULT_BATCH_SIZE = 64
#: CPUs reserved by a reading or writing task: none, so that actors holding every core
#: (``concurrency`` = cores) cannot starve them; they only move bytes.
IO_TASK_CPUS = 0
#: Column of :func:`read_records` rows holding a JSONL line's text.
JSON_COLUMN = "json"


def _ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as err:
        raise MissingDependencyError(E_RAY_MISSING.format(error=err)) from err
    return ray


class _Scorer:
    """Ray Data UDF: one scorer per actor, one ``score_batch`` per batch of rows."""

    def __init__(
        self,
        config: ScorerConfig,
        json_column: str | None,
        thresholds: Thresholds | None = None,
        json_rows: bool = False,
    ) -> None:
        from nli_faith.engine import heap
        from nli_faith.scorer import FaithfulnessScorer

        if thresholds is not None:  # read by the driver: the file need not be on this node
            config = config.replace(thresholds=None)
            self.scorer = FaithfulnessScorer.from_thresholds(
                thresholds, config.model, config=config
            )
        else:
            self.scorer = FaithfulnessScorer.from_config(config)
        heap.freeze()  # the loaded scorer stays out of the collector's passes (engine.heap)
        self.json_column = json_column
        self.json_rows = json_rows
        self.schema = JSON_ROWS_SCHEMA() if json_rows else arrow_schema()

    def __call__(self, batch: pa.Table) -> pa.Table:
        import pyarrow as pa

        rows = batch.to_pylist()
        lines = [row.get("line") for row in rows]
        if self.json_column is not None:
            records = [_parse_json(row.get(self.json_column)) for row in rows]
        else:  # Parquet rows: dates, decimals and bytes as JSON values, as the local reader
            records = [json_value(row) for row in rows]
        results = self.scorer.score_batch(records, labels=[f"line {n}" for n in lines])
        out = [
            scored_row(self.scorer, line, rec, res)
            for line, rec, res in zip(lines, records, results)
        ]
        if self.json_rows:  # ASCII JSON: a lone surrogate is not valid UTF-8 for Arrow
            table = {"line": lines, JSON_COLUMN: [json.dumps(r) for r in out]}
            return pa.table(table, schema=self.schema)
        return pa.Table.from_pylist([arrow_row(r) for r in out], schema=self.schema)


def JSON_ROWS_SCHEMA() -> pa.Schema:  # noqa: N802 - a constant, built when pyarrow is there
    """Rows of ``score_dataset(..., json_rows=True)``: the line and the output object as JSON."""
    import pyarrow as pa

    return pa.schema([pa.field("line", pa.int64()), pa.field(JSON_COLUMN, pa.string())])


def _parse_json(text: Any) -> Any:
    if not isinstance(text, (str, bytes)):
        return RecordError(E_BAD_JSON.format(error=f"got {type(text).__name__}, not text"))
    try:
        return load_json(text)
    except JSONInputError as err:
        return RecordError(E_BAD_JSON.format(error=err))


def score_dataset(
    ds: ray.data.Dataset,
    config: ScorerConfig | None = None,
    *,
    num_gpus: float = 0,
    concurrency: int = 1,
    batch_size: int = DEFAULT_BATCH_SIZE,
    num_cpus: float | None = None,
    json_column: str | None = None,
    json_rows: bool = False,
    nli_batch_size: int | None = None,
    **overrides: Any,
) -> ray.data.Dataset:
    """Score every record of ``ds`` with ``concurrency`` actors; lazy, like any Ray Data op.

    Args:
        ds: rows that are records (DeepEval, RAGAS or plain field names, as
            ``ray.data.read_parquet`` or ``read_json`` give them), or, with ``json_column``,
            rows holding one JSON record as text (:func:`read_records` for JSONL). A
            ``line`` column, if any, is passed through as the output's ``line``.
        config: the scorer's :class:`~nli_faith.config.ScorerConfig` (what
            ``nli-faith score``'s flags describe); default ``ScorerConfig()``. Its
            ``thresholds`` file is read here, once, and each row gets its ``faithful``
            decision, as ``nli-faith score --thresholds`` gives.
        num_gpus: GPUs per actor (e.g. 1); 0 (default) gives CPU actors (with ``num_gpus``
            and no ``device``, the scorer's device is ``cuda``).
        concurrency: number of actors, each with its own copy of the model.
        batch_size: records per ``score_batch`` call in an actor (the scorer's own
            ``batch_size``, NLI pairs per forward pass, is the config's).
        num_cpus: CPUs reserved per actor; default 1. Ray sets the actor's
            ``OMP_NUM_THREADS`` to it, which the config's ``threads`` follows when ``None``
            (read where the actor loads its scorer), so the model computes with that many.
        json_column: column holding each record as JSON text; a value that is not valid
            JSON gets the CLI's ``error`` instead of failing the job.
        json_rows: output rows ``{"line": n, "json": text}``, ``text`` being exactly the
            JSON object ``nli-faith score`` writes (``id`` keeps its type), instead of the
            fixed Arrow schema.
        nli_batch_size: the config's ``batch_size`` (kept for callers of the old surface).
        overrides: fields of :class:`~nli_faith.config.ScorerConfig` over ``config``
            (``model=...``, ``backend="onnx"``, ``thresholds="thresholds.json"``...);
            ``thresholds`` may also be a loaded
            :class:`~nli_faith.scoring.thresholds.Thresholds`.

    Returns:
        A dataset of output rows (see the module docstring), one per input row. A record
        that cannot be scored gets its ``error``; the job goes on.
    """
    if concurrency < 1 or batch_size < 1 or not 0 <= num_gpus < math.inf:
        raise OptionError(
            E_RAY_ARGS.format(concurrency=concurrency, batch_size=batch_size, num_gpus=num_gpus)
        )
    thresholds = overrides.get("thresholds")
    if isinstance(thresholds, Thresholds):  # loaded already: not a field's value (a path)
        overrides = {**overrides, "thresholds": None}
    if nli_batch_size is not None:
        overrides = {**overrides, "batch_size": nli_batch_size}
    config = configure(config, overrides, where="score_dataset")
    if not isinstance(thresholds, Thresholds) and config.thresholds is not None:
        thresholds = Thresholds.load(config.thresholds)  # read once, here, not by every actor
    _ray()
    if num_gpus and config.device is None:
        config = config.replace(device="cuda")
    return ds.map_batches(
        _Scorer,
        fn_constructor_kwargs={
            "config": config,
            "json_column": json_column,
            "thresholds": thresholds,
            "json_rows": json_rows,
        },
        batch_size=batch_size,
        batch_format="pyarrow",
        compute=_actor_pool(concurrency),
        num_gpus=num_gpus or None,
        num_cpus=1 if num_cpus is None else num_cpus,
    )


def _actor_pool(size: int):
    from ray.data import ActorPoolStrategy

    return ActorPoolStrategy(size=size)


# -- files ------------------------------------------------------------------------------------


def read_records(path: str | list[str], **read_args: Any) -> ray.data.Dataset:
    """A JSONL or Parquet file (or several) as a dataset, each row with its ``line``.

    Ray Data's file datasource machinery, with a reader that numbers the records as
    ``nli-faith score`` does (``ray.data.read_json`` would fail the whole job on one
    malformed line, and neither it nor ``read_parquet`` numbers rows): JSONL rows are
    ``{"line": n, "json": text}`` (score them with ``json_column="json"``), Parquet rows
    are the file's columns plus ``line`` (the 1-based row number). Files are read whole
    by one task each, streaming, in blocks of :data:`~nli_faith.io.PARQUET_ROW_GROUP`.
    ``read_args`` go to ``ray.data.read_datasource`` (e.g. ``override_num_blocks``).
    """
    ray = _ray()
    paths = [path] if isinstance(path, str) else list(path)
    read_args.setdefault("num_cpus", IO_TASK_CPUS)
    return ray.data.read_datasource(_numbered_source(paths), **read_args)


def _numbered_source(paths: list[str]):
    from ray.data.datasource import FileBasedDatasource

    class NumberedRecords(FileBasedDatasource):
        """Records of JSONL or Parquet files, numbered from 1 within each file."""

        def _open_input_source(self, filesystem, path: str, **open_args):
            if is_parquet(path):  # Parquet needs random access
                return filesystem.open_input_file(path)
            return super()._open_input_source(filesystem, path, **open_args)

        def _read_stream(self, f, path: str) -> Iterator[pa.Table]:
            if is_parquet(path):
                yield from _parquet_blocks(f)
            else:
                yield from _jsonl_blocks(f)

    return NumberedRecords(paths)


def _jsonl_blocks(f, block: int = PARQUET_ROW_GROUP) -> Iterator[pa.Table]:
    import pyarrow as pa

    lines: list[int] = []
    texts: list[str] = []
    for lineno, text in jsonl_lines(byte_chunks(f)):  # numbered as the local engine does
        lines.append(lineno)
        texts.append(text)
        if len(lines) >= block:
            yield pa.table({"line": lines, JSON_COLUMN: texts})
            lines, texts = [], []
    if lines:
        yield pa.table({"line": lines, JSON_COLUMN: texts})


def _parquet_blocks(f) -> Iterator[pa.Table]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    start = 0
    for batch in pq.ParquetFile(f).iter_batches(batch_size=PARQUET_ROW_GROUP):
        table = pa.Table.from_batches([batch])
        table = table.append_column("line", pa.array(range(start + 1, start + 1 + len(table))))
        start += len(table)
        yield table


def _jsonl_sink(path: str):
    from ray.data.datasource import BlockBasedFileDatasink

    class JsonlSink(BlockBasedFileDatasink):
        """One JSONL file per block, each line exactly the CLI's JSON object."""

        def __init__(self, path: str) -> None:
            super().__init__(path, file_format="jsonl")

        def write_block_to_file(self, block, file) -> None:
            rows = block.to_arrow().to_pylist()
            text = "".join(json_line(json_row(r)) for r in rows)
            file.write(text.encode("utf-8"))

    return JsonlSink(path)


def write_output(ds: ray.data.Dataset, path: str) -> None:
    """Write output rows with Ray Data's file sinks; ``path`` becomes a directory.

    ``*.parquet``: ``Dataset.write_parquet``, the fixed Arrow schema. Otherwise JSONL
    files, each line the CLI's JSON object (``claims`` nested, no null ``id`` / ``error``
    keys, floats as Python writes them): through Ray Data's block file sink rather than
    ``write_json``, which goes through pandas (floats cut to 10 digits, null keys kept).
    """
    io = {"num_cpus": IO_TASK_CPUS}
    if is_parquet(path):
        ds.write_parquet(path, ray_remote_args=io)
    else:
        ds.write_datasink(_jsonl_sink(path), ray_remote_args=io)
