"""The ONNX runtime: the (int8) graph of a checkpoint on ONNX Runtime, on the CPU.

``OnnxSession(model_dir)`` uses, in this order:

1. a shipped file ``<model_dir>/onnx/model_int8.onnx`` (``model.onnx`` when
   ``quantize=False``), as written by ``python -m nli_faith.nli.onnx MODEL_DIR``;
2. a cached export under ``cache_dir`` (default ``~/.cache/nli-faith/onnx``; the scorer
   passes ``ScorerConfig.onnx_cache_dir``, which follows ``NLI_FAITH_CACHE``), keyed by a
   hash of the model's weights, so a changed model is exported again;
3. otherwise it exports into that cache (:mod:`nli_faith.nli.export`, a few seconds).

This stays hand-written where sentence-transformers' ``CrossEncoder(backend="onnx")``
would serve: that backend needs Optimum, whose releases pin transformers below 5. What it
buys on the guardrail path (one pair per run, runs side by side on single-threaded
workers) is measured in ``docs/performance.md``. ONNX Runtime telemetry is switched off.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from nli_faith.environment import usable_cores
from nli_faith.nli.batching import batch_plan, pad_batch
from nli_faith.nli.export import (
    META_SUFFIX,
    SHIPPED_DIR,
    default_cache_dir,
    export_onnx,
    file_name,
    import_ort,
    local_model_dir,
    main,
    weight_files,
    weights_digest,
)

if TYPE_CHECKING:  # pragma: no cover
    import onnxruntime

__all__ = ["OnnxRuntime", "OnnxSession", "export_onnx", "main", "run_pool", "weights_digest"]

logger = logging.getLogger(__name__)


class OnnxSession:
    """An ONNX Runtime CPU session over a sequence-classification checkpoint.

    Args:
        model_dir: the checkpoint folder (or hub id) that ``NLIModel`` loads.
        quantize: use the int8 model (default) rather than fp32.
        cache_dir: where exports are cached; default ``~/.cache/nli-faith/onnx``
            (:func:`~nli_faith.nli.export.default_cache_dir`).
        num_threads: intra-op threads; default: the cores this process may use.

    Attributes:
        path: the ``.onnx`` file in use.
        source: ``"shipped"``, ``"cache"`` or ``"exported"``.
        input_names: the inputs the graph declares.
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str],
        *,
        quantize: bool = True,
        cache_dir: str | os.PathLike[str] | None = None,
        num_threads: int | None = None,
    ) -> None:
        ort = import_ort()
        self.quantize = quantize
        self.path, self.source = self._locate(model_dir, quantize, cache_dir)
        options = ort.SessionOptions()
        options.intra_op_num_threads = int(num_threads) if num_threads else usable_cores()
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        self._session: onnxruntime.InferenceSession = ort.InferenceSession(
            str(self.path), options, providers=["CPUExecutionProvider"]
        )
        self.input_names = [i.name for i in self._session.get_inputs()]
        self._output = self._session.get_outputs()[0].name

    @staticmethod
    def _locate(
        model_dir: str | os.PathLike[str], quantize: bool, cache_dir: str | os.PathLike[str] | None
    ) -> tuple[Path, str]:
        name = file_name(quantize)
        local = Path(model_dir).expanduser()
        shipped = local / SHIPPED_DIR / name
        digest: str | None = None
        if shipped.is_file():
            recorded = _recorded_digest(shipped.with_name(shipped.name + META_SUFFIX))
            if recorded is None or not weight_files(local, missing_ok=True):
                logger.info("Using the shipped ONNX model %s.", shipped)
                return shipped, "shipped"
            digest = weights_digest(local)
            if recorded == digest:
                logger.info("Using the shipped ONNX model %s (weights hash matches).", shipped)
                return shipped, "shipped"
            logger.warning(
                "The shipped ONNX model %s was exported from other weights than those in %s; "
                "ignoring it (rebuild it with `python -m nli_faith.nli.onnx %s`).",
                shipped,
                local,
                local,
            )
        local = local_model_dir(model_dir)
        digest = digest or weights_digest(local)
        cache = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
        target = cache / f"{digest[:24]}-{name}"  # content-addressed: same weights, same file
        if target.is_file():
            logger.info("Using the cached ONNX export %s.", target)
            return target, "cache"
        logger.info(
            "No ONNX model shipped in %s; exporting it once to %s (cached for later runs).",
            model_dir,
            target,
        )
        export_onnx(local, target, quantize=quantize)
        return target, "exported"

    def run(self, inputs: Mapping[str, np.ndarray]) -> np.ndarray:
        """Logits, float32 ``(batch, num_labels)``, for tokenizer arrays (extra keys ignored)."""
        feed: dict[str, np.ndarray] = {}
        for key in self.input_names:
            value = inputs.get(key)
            if value is None:
                if key != "token_type_ids" or "input_ids" not in inputs:
                    raise KeyError(f"the ONNX model needs input {key!r}; got {sorted(inputs)}")
                value = np.zeros_like(np.asarray(inputs["input_ids"]), dtype=np.int64)
            feed[key] = np.asarray(value, dtype=np.int64)
        logits = self._session.run([self._output], feed)[0]
        return np.asarray(logits, dtype=np.float32)


def _recorded_digest(meta_path: Path) -> str | None:
    """The weights hash a shipped file's ``.json`` record names, if readable."""
    if not meta_path.is_file():
        return None
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        logger.warning("Unreadable %s; trusting the ONNX model beside it as it is.", meta_path)
        return None
    return meta.get("weights_sha256") if isinstance(meta, dict) else None


class OnnxRuntime:
    """Probabilities from an :class:`OnnxSession`, over pre-tokenized pairs.

    With one pair per run (``batch_size`` 1, the int8 default), the runs go to one
    single-threaded worker per core (:func:`run_pool`): ONNX Runtime's intra-op threads
    share little work on one short sequence. Same probabilities, bit for bit.

    Args:
        path: the checkpoint folder or hub id.
        quantize: the int8 graph rather than fp32.
        batch_size: pairs per run.
        pad_id: the tokenizer's padding id.
        threads: CPU threads: the workers with one pair per run, else ONNX Runtime's
            intra-op threads; default: the cores this process may use.
        cache_dir: where exports are cached (see :class:`OnnxSession`).
    """

    #: where the runs compute
    device = "cpu"

    def __init__(
        self,
        path: str,
        *,
        quantize: bool,
        batch_size: int,
        pad_id: int,
        threads: int | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        threads = usable_cores() if threads is None else int(threads)
        self.run_threads = threads if batch_size == 1 else 1
        self.session = OnnxSession(
            path,
            quantize=quantize,
            cache_dir=cache_dir,
            num_threads=1 if self.run_threads > 1 else threads,
        )
        self.pad_id = pad_id

    def predict(
        self,
        ids: list[list[int]],
        types: list[list[int]] | None,
        lengths: np.ndarray,
        *,
        batch_size: int,
        max_length: int,
    ) -> np.ndarray:
        """Probabilities in the model's label order, one row per pair of ``ids``."""
        plan = batch_plan(lengths, batch_size=batch_size, max_length=max_length)

        def run(step: tuple[np.ndarray, int]) -> np.ndarray:
            rows, width = step
            logits = self.session.run(
                pad_batch(ids, types, rows, max_length, self.pad_id, width=width)
            )
            e = np.exp(logits - logits.max(axis=-1, keepdims=True))
            return e / e.sum(axis=-1, keepdims=True)

        pool = run_pool(self.run_threads) if len(plan) > 1 else None
        results = None
        if pool is not None:
            # RuntimeError: "cannot schedule new futures after interpreter shutdown"
            with contextlib.suppress(RuntimeError):
                results = pool.map(run, plan)  # submits every run now
        results = list(map(run, plan) if results is None else results)
        out = np.empty((len(ids), results[0].shape[1]), dtype=np.float32)
        out[np.concatenate([rows for rows, _ in plan])] = np.concatenate(results)
        return out


_RUN_POOLS: dict[tuple[int, int], ThreadPoolExecutor] = {}
_RUN_POOLS_LOCK = threading.Lock()


def run_pool(workers: int) -> ThreadPoolExecutor | None:
    """The process-wide threads that run one-pair ONNX calls side by side, shared by every
    model that asks for as many workers; ``None`` for a single worker, or once the
    interpreter is shutting down (run the calls in the caller's thread then).

    A forked child gets pools of its own: it inherits the parent's, but not their threads.
    """
    if workers < 2 or sys.is_finalizing():
        return None
    key = (os.getpid(), workers)
    with _RUN_POOLS_LOCK:
        pool = _RUN_POOLS.get(key)
        if pool is None:
            pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nli-run")
            _RUN_POOLS[key] = pool
    return pool


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
