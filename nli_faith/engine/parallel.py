"""Splitting and chunking of many records on several cores (``score_batch(n_process=N)``).

The rule-based splitter, the chunker and the lexical pre-filter are pure Python, so one
process plans ~100-200 records/s; with ``n_process`` worker processes plan the records
of a batch (and tokenize their pairs) while the parent keeps the model, and they turn the
NLI matrices the parent scored into results (the decision), so that the parent does little
but run the model. The workers are forked from the parent, so
they share its planning function and the loaded parts it holds (tokenizer, splitter,
pre-filter) without pickling them; the plans they return are plain dataclasses and arrays.
A pool plans with the parts and settings of the moment it was forked: when they have
changed since, the runner retires it (its workers finish the work they hold, then exit)
and forks a new one (``Runner._pool``).
Where ``fork`` is not available the planning stays in the calling process.
"""

from __future__ import annotations

import atexit
import logging
import multiprocessing as mp
import multiprocessing.pool
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from nli_faith.engine import heap

logger = logging.getLogger(__name__)

#: In a worker: the planning and the deciding functions of the pool that forked it.
_PLAN: Any = None
_DECIDE: Any = None
#: Every open pool, held here so that none is terminated by the garbage collector, which
#: may run in one of the pool's own threads and deadlock it; they close explicitly
#: (:meth:`PlanPool.close`, ``FaithfulnessScorer.close``) or at interpreter exit.
_OPEN: set[PlanPool] = set()


@atexit.register
def _close_open_pools() -> None:
    """At interpreter exit, before modules are torn down: close the pools left open, which
    would otherwise be dropped half-dismantled ("Exception ignored in: Pool.__del__")."""
    for pool in list(_OPEN):
        pool.close()


def fork_available() -> bool:
    return "fork" in mp.get_all_start_methods()


_WORKER_SIGNALS = {signal.SIGTERM, signal.SIGINT}


def _init_worker(plan: Callable[[Any], Any], decide: Callable[[Any], Any] | None) -> None:
    global _PLAN, _DECIDE
    _PLAN, _DECIDE = plan, decide  # forked: the parent's objects themselves, not copies
    # A fork inherits the parent's Python signal handlers: one for SIGTERM (a server's
    # graceful shutdown, Ray, a test harness) would swallow the SIGTERM that
    # ``Pool.terminate`` sends, and ``close()`` would wait for the worker forever. The
    # worker was forked with both signals blocked (PlanPool), so one sent before this
    # point waits, and meets the default action once they are unblocked.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _WORKER_SIGNALS)
    # The parent's tokenizer may have used its Rust thread pool: after a fork the library
    # turns it off for this process anyway; saying so in advance silences its warning.
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    if "torch" in sys.modules:  # e.g. the embedding pre-filter: one thread per worker
        sys.modules["torch"].set_num_threads(1)


def _plan_one(item: Any) -> Any:
    """One item's plan (``(record, name)``: its plan, or why it cannot be scored)."""
    return _PLAN(item)


def _decide_one(item: Any) -> Any:
    """One scored item's decision (an NLI matrix: its outcome)."""
    return _DECIDE(item)


class _Pool(multiprocessing.pool.Pool):
    """multiprocessing's ``Pool`` whose worker-handling thread wakes when a worker exits or
    the pool's state changes (as ``ThreadPool``'s does), not whenever a result waits on
    the results pipe: it woke for those too and, until the result thread had read them,
    went round again and again (thousands of turns per ``score_batch``, about a third of
    the model process's CPU time per pair, and the GIL the model's loop needs;
    ``benchmarks/model_feed.py``). The pool still
    learns of an emptied task cache (a closed pool's exit) and of ``terminate()`` through
    its change notifier."""

    def _get_sentinels(self) -> list:
        return [self._change_notifier._reader]


class PlanPool:
    """Worker processes forked from the parent that run ``plan`` on items, and ``decide``
    on what the parent scored.

    Example:
        >>> from functools import partial
        >>> from nli_faith import FaithfulnessScorer
        >>> from nli_faith.engine.plan import plan_record
        >>> scorer = FaithfulnessScorer(device="cpu")
        >>> pool = PlanPool(partial(plan_record, scorer.parts), 2)
        >>> rec = {"response": "It is blue.", "context": "The sky is blue."}
        >>> planned = pool.plan([(rec, f"record {k}") for k in range(4)])
        >>> [len(p.plan.claims) for p in planned]  # claims of each record
        [1, 1, 1, 1]
        >>> pool.close()
    """

    def __init__(
        self,
        plan: Callable[[Any], Any],
        n_process: int,
        *,
        decide: Callable[[Any], Any] | None = None,
    ) -> None:
        self.n_process = n_process
        # What is alive now (the model above all) stays out of the collector's full
        # passes while the workers are open (:mod:`~nli_faith.engine.heap` says why).
        heap.freeze()
        # Fork the workers with SIGTERM / SIGINT blocked (this thread's mask only; the
        # parent's other threads still take them): until ``_init_worker`` resets the
        # handlers, a worker would run the parent's handlers on them.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, _WORKER_SIGNALS)
        try:
            self._pool = _Pool(
                n_process,
                initializer=_init_worker,
                initargs=(plan, decide),
                context=mp.get_context("fork"),
            )
        except BaseException:
            heap.thaw()
            raise
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        self.closed = False
        _OPEN.add(self)

    def _chunksize(self, n: int) -> int:
        return max(1, min(64, n // (4 * self.n_process)))

    def plan(self, records: list) -> list:
        """``plan`` of each item, in order, by the workers."""
        return self._pool.map(_plan_one, records, chunksize=self._chunksize(len(records)))

    def plan_async(self, records: list):
        """Start planning ``records``; the returned object's ``get()`` waits for the plans."""
        return self._pool.map_async(_plan_one, records, chunksize=self._chunksize(len(records)))

    def decide(self, items: list) -> list:
        """``decide`` of each item, in order, by the workers (after the planning they were
        given before)."""
        return self._pool.map(_decide_one, items, chunksize=self._chunksize(len(items)))

    def decide_async(self, items: list):
        """Start deciding ``items``; the returned object's ``get()`` waits for them."""
        return self._pool.map_async(_decide_one, items, chunksize=self._chunksize(len(items)))

    def retire(self) -> None:
        """Take no more work: the workers finish what they were given (a stream's block
        planned ahead) and exit. :meth:`close` still stops and joins them."""
        self._pool.close()

    def close(self) -> None:
        """Stop the workers (call it from the thread that uses the pool)."""
        self.closed = True
        if self in _OPEN:
            _OPEN.discard(self)
            self._pool.terminate()
            self._pool.join()
            heap.thaw()
