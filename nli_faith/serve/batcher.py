"""Micro-batching across requests: one model thread, many waiting requests.

Requests put their records, each parsed once by the server (a
:class:`~nli_faith.records.Record`, or the :class:`~nli_faith.errors.RecordError` parsing it
raised), on a queue and await a future. One worker thread owns the scorer: it loads it,
runs a warm-up request, then loops: take the oldest request, plan its records (the engine's
runner: claims, chunks, pairs, the claim limit), keep taking requests for at most
``max_wait_ms`` or until ``max_batch_pairs`` pairs are planned, run all their records
through the runner as one block (one model pass, failure isolation, the reference pass:
what ``score_batch`` does) and hand each request the runner's
:class:`~nli_faith.engine.runner.Outcome` of each record. The event loop never runs the
model; the scorer is only ever touched by this one thread (its tokenizer caches are not
thread-safe).

Example:
    >>> import asyncio
    >>> from nli_faith import FaithfulnessScorer
    >>> from nli_faith.records import parse_record
    >>> b = MicroBatcher(FaithfulnessScorer.guardrail, max_wait_ms=2)
    >>> b.start(); b.wait_ready(timeout=120)
    True
    >>> rec = parse_record({"response": "It lasts 24 months.", "context": "It lasts 2 years."})
    >>> [s.result.n_claims for s in asyncio.run(b.score([rec], timeout=30))]
    [1]
    >>> b.close()
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nli_faith.engine import heap
from nli_faith.engine.failures import Failed
from nli_faith.engine.plan import Planned
from nli_faith.engine.runner import Outcome
from nli_faith.errors import RecordError, with_code
from nli_faith.records import Limits, Record, parse_record

logger = logging.getLogger(__name__)

#: The warm-up request run once after loading, before ``/readyz`` says ready.
WARMUP_RECORD = {
    "response": "The warranty lasts 24 months. Shipping is free over fifty dollars.",
    "context": [
        "The warranty lasts twenty-four months.",
        "We provide complimentary delivery on purchases over $50.",
    ],
}


class QueueFull(Exception):
    """More records are waiting than ``max_queue`` allows."""

    def __init__(self, queued: int) -> None:
        super().__init__(queued)
        self.queued = queued


class NotReady(Exception):
    """The model is not loaded yet (or failed to load)."""


class ShuttingDown(Exception):
    """The batcher no longer takes requests."""


@dataclass
class _Job:
    records: list[Record | RecordError]
    future: asyncio.Future
    loop: asyncio.AbstractEventLoop
    cancelled: bool = False
    planned: list[Planned | Failed] = field(default_factory=list)


@dataclass
class _Call:
    """A function to run on the model thread with the scorer (a streamed answer's step)."""

    fn: Callable[[Any], Any]
    future: asyncio.Future
    loop: asyncio.AbstractEventLoop
    cancelled: bool = False
    records: tuple = (None,)  # counts as one record waiting for the model


_STOP = object()


class MicroBatcher:
    """Batch concurrent requests' records into shared model passes (see the module doc).

    Args:
        scorer_factory: builds the scorer, in the worker thread.
        max_batch_pairs: stop collecting requests once this many pairs are planned.
        max_wait_ms: ... or once the first request of the batch has waited this long.
        max_queue: records allowed to wait; beyond it :meth:`score` raises :class:`QueueFull`.
        limits: the limits the records were parsed with; the engine holds each record's
            claims to their ``max_claims`` (default: the scorer's own limits).
        metrics: a :class:`~nli_faith.serve.metrics.Metrics` to update, or ``None``.
    """

    def __init__(
        self,
        scorer_factory: Callable[[], Any],
        *,
        max_batch_pairs: int = 256,
        max_wait_ms: float = 2.0,
        max_queue: int = 256,
        limits: Limits | None = None,
        metrics: Any = None,
    ) -> None:
        self._factory = scorer_factory
        self.max_batch_pairs = max_batch_pairs
        self.max_wait_s = max_wait_ms / 1000.0
        self.max_queue = max_queue
        self.limits = limits
        self.metrics = metrics
        self.scorer: Any = None
        self.load_error: str | None = None
        self._queue: queue.Queue = queue.Queue()
        self._queued = 0
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._done = threading.Event()  # loading finished, well or not
        self._accepting = True
        self.busy = False  # a model pass is running (requests taken, no more join it)
        self._thread = threading.Thread(target=self._main, name="nli-faith-model", daemon=True)

    # -- event-loop side ----------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    @property
    def queued(self) -> int:
        """Records waiting for the model."""
        return self._queued

    def start(self) -> None:
        self._thread.start()

    def wait_ready(self, timeout: float | None = None) -> bool:
        self._done.wait(timeout)
        return self.ready

    async def score(self, records: list[Record | RecordError], *, timeout: float) -> list[Outcome]:
        """The runner's outcome of each of ``records`` (parsed records, or the error that
        parsing one raised: its failure), in order. Raises :class:`NotReady`,
        :class:`ShuttingDown`, :class:`QueueFull` or :class:`TimeoutError` (after
        ``timeout`` seconds)."""
        self._admit(len(records))
        loop = asyncio.get_running_loop()
        job = _Job(records, loop.create_future(), loop)
        self._queue.put(job)
        try:
            return await asyncio.wait_for(asyncio.shield(job.future), timeout)
        except asyncio.TimeoutError:  # = TimeoutError from Python 3.11
            job.cancelled = True  # skipped if still queued; its result dropped otherwise
            raise

    async def call(self, fn: Callable[[Any], Any], *, timeout: float) -> Any:
        """``fn(scorer)`` run on the model thread, between model passes (the scorer is
        only ever touched there); what it returns, or raises. Raises as :meth:`score`."""
        self._admit(1)
        loop = asyncio.get_running_loop()
        job = _Call(fn, loop.create_future(), loop)
        self._queue.put(job)
        try:
            return await asyncio.wait_for(asyncio.shield(job.future), timeout)
        except asyncio.TimeoutError:
            job.cancelled = True
            raise

    def _admit(self, n: int) -> None:
        if not self._accepting:
            raise ShuttingDown()
        if not self.ready:
            raise NotReady()
        with self._lock:
            if self._queued and self._queued + n > self.max_queue:
                raise QueueFull(self._queued)
            self._queued += n
        self._gauge()

    def close(self, timeout: float | None = None) -> None:
        """Stop taking requests, finish those already queued, stop the thread."""
        self._accepting = False
        self._queue.put(_STOP)
        if self._thread.is_alive():
            self._thread.join(timeout)

    # -- model thread -------------------------------------------------------------------

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        if self.metrics is not None:
            self.metrics.model_busy.set(int(busy))

    def _gauge(self) -> None:
        if self.metrics is not None:
            self.metrics.queue_depth.set(self._queued)

    def _take(self, job: _Job) -> None:
        with self._lock:
            self._queued -= len(job.records)
        self._gauge()

    def _main(self) -> None:
        try:
            self.scorer = self._factory()
            warm = self._score_jobs([_Job([parse_record(WARMUP_RECORD)], None, None)])
            if warm[0][0].internal:
                raise RuntimeError(warm[0][0].result.error)
        except Exception as err:  # a model that cannot load: /readyz says why
            self.load_error = f"{type(err).__name__}: {with_code(err)}"
            logger.exception("could not load the scorer")
            self._done.set()
            return
        # The loaded scorer stays out of the collector's full passes while the server
        # runs: each would stall the requests in flight (:mod:`~nli_faith.engine.heap`).
        heap.freeze()
        try:
            self._serve()
        finally:
            heap.thaw()

    def _serve(self) -> None:
        """Take requests until ``close()``; then score what is still queued."""
        self._ready.set()
        self._done.set()
        if self.metrics is not None:
            self.metrics.ready.set(1)
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is _STOP:
                break
            batch, pairs = [], 0
            deadline = time.monotonic() + self.max_wait_s
            item: Any = first
            while True:
                if item is _STOP:
                    stopping = True  # score what was taken, then leave
                    break
                self._take(item)
                if isinstance(item, _Call):
                    self._run_call(item)
                elif not item.cancelled:
                    batch.append(item)
                    pairs += self._plan(item)
                if pairs >= self.max_batch_pairs:
                    break
                try:
                    item = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
            if batch:
                self._set_busy(True)
                try:
                    self._deliver(batch, self._score_jobs(batch, planned=True))
                finally:
                    self._set_busy(False)
        # drain whatever is still queued (close() after the last request was put)
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, _Call):
                self._take(item)
                self._run_call(item)
            elif item is not _STOP:
                self._take(item)
                if not item.cancelled:
                    self._plan(item)
                    self._deliver([item], self._score_jobs([item], planned=True))

    def _plan(self, job: _Job) -> int:
        """Plan each record of ``job`` through the runner (a failure is kept as its plan);
        returns the pairs planned."""
        runner = self.scorer.runner
        job.planned = [
            runner.plan_parsed((r, "the record"), limits=self.limits) for r in job.records
        ]
        for p in job.planned:
            if isinstance(p, Failed) and not p.input_error:
                logger.error("planning failed: %s", p.error)
        return sum(p.plan.n_pairs for p in job.planned if isinstance(p, Planned))

    def _score_jobs(self, jobs: list[_Job], *, planned: bool = False) -> list[list[Outcome]]:
        """Run the planned records of ``jobs`` through the runner as one block: one model
        pass, bisected if it fails so that only the records that fail get an error."""
        if not planned:
            for job in jobs:
                self._plan(job)
        flat = [p for job in jobs for p in job.planned]
        outcomes = self.scorer.runner.run(flat)
        for p, o in zip(flat, outcomes):
            if o.internal and isinstance(p, Planned):  # a scorer bug: this record only
                logger.error("scoring failed: %s", o.result.error)
        n_planned = sum(isinstance(p, Planned) for p in flat)
        if self.metrics is not None and n_planned:
            n_pairs = sum(o.pairs for o in outcomes)
            self.metrics.batch_records.observe(n_planned)
            self.metrics.batch_pairs.observe(n_pairs)
            self.metrics.pairs.inc(n_pairs)
        it = iter(outcomes)
        return [[next(it) for _ in job.planned] for job in jobs]

    def _run_call(self, call: _Call) -> None:
        if call.cancelled:
            return
        try:
            value, failed = call.fn(self.scorer), False
        except Exception as err:  # noqa: BLE001 - handed to the caller, who says what it was
            value, failed = err, True
        try:
            call.loop.call_soon_threadsafe(_settle, call.future, value, failed)
        except RuntimeError:  # the caller's event loop is gone
            pass

    def _deliver(self, jobs: list[_Job], results: list[list[Outcome]]) -> None:
        for job, scored in zip(jobs, results):
            try:
                job.loop.call_soon_threadsafe(_set_result, job.future, scored)
            except RuntimeError:  # the caller's event loop is gone
                pass


def _set_result(future: asyncio.Future, value: Any) -> None:
    if not future.done():
        future.set_result(value)


def _settle(future: asyncio.Future, value: Any, failed: bool) -> None:
    if future.done():
        return
    if failed:
        future.set_exception(value)
    else:
        future.set_result(value)
