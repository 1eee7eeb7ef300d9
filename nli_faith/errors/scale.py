"""Scoring at scale: planning workers, streamed files, Parquet, ``--resume``, Ray."""

from __future__ import annotations

from nli_faith.exceptions import Message

__all__ = [
    "E_BLOCK_SIZE",
    "E_INPUT_MISSING",
    "E_N_PROCESS",
    "E_PARQUET_STDIO",
    "E_RAY_ARGS",
    "E_RAY_MISSING",
    "E_RAY_ORDER",
    "E_RAY_RESUME",
    "E_RAY_STDIO",
    "E_RAY_URI_OUTPUT",
    "E_RESUME_NOT_OURS",
    "E_RESUME_PARQUET",
    "E_RESUME_STDOUT",
]

E_N_PROCESS = Message(
    "E086", "n_process must be a whole number of at least 1 or 'auto', got {n_process!r}."
)
E_BLOCK_SIZE = Message(
    "E087", "block_size must be a whole number of at least 1, got {block_size!r}."
)
E_RESUME_STDOUT = Message("E088", "resuming needs an output file to resume, not standard output.")
E_RESUME_PARQUET = Message(
    "E089",
    "cannot resume from {path}: it is not a readable Parquet file ({error}). Its rows are "
    "moved into place only when a run ends or is interrupted; after a hard kill, remove it "
    "or score again without resuming.",
)
E_RESUME_NOT_OURS = Message(
    "E090",
    "cannot resume from {path}: no complete line of it is an output object with a 'line' "
    "number. Is it the output of 'nli-faith score'?",
)
E_PARQUET_STDIO = Message("E091", "Parquet needs a file path, not standard input or output ('-').")
E_INPUT_MISSING = Message("E092", "input file {path} does not exist (or is not a file).")
E_RAY_MISSING = Message(
    "E093",
    "the Ray engine needs the optional package 'ray[data]', which cannot be imported "
    '({error}). Install it with: pip install "nli-faith[ray]"',
)
E_RAY_ARGS = Message(
    "E094",
    "score_dataset needs concurrency >= 1, batch_size >= 1 and num_gpus >= 0; got "
    "concurrency={concurrency!r}, batch_size={batch_size!r}, num_gpus={num_gpus!r}.",
)
E_RAY_STDIO = Message(
    "E095", "--engine ray reads and writes files, not standard input or output ('-')."
)
E_RAY_RESUME = Message(
    "E096",
    "--engine ray cannot resume an interrupted run; score again without --resume, or "
    "resume with the local engine.",
)
E_RAY_URI_OUTPUT = Message(
    "E097",
    "--engine ray writes {path} (a remote file system) as a directory of files and cannot "
    "add --report or --escalate to it; write to a local file for those.",
)
E_RAY_ORDER = Message(
    "E098",
    "Ray Data returned line {line} after line {previous}: the rows are out of order, so "
    "the report cannot be matched with its input records.",
)
