"""The runner: records through plan -> infer -> decide, in blocks, isolated from each other.

Every way in goes through :class:`Runner`: ``FaithfulnessScorer.score`` (one record),
``score_batch`` (one block), ``score_stream`` (blocks of ``block_size``, the next block
planned while this one is scored), the server's micro-batcher (records of many requests,
each parsed once by the server, planned one by one with :meth:`Runner.plan_parsed`, then
run as one block) and the shells built on those. So a record's result is the same through
each: the same limits, the same failure isolation (a record that cannot be parsed, planned
or scored gets an error :class:`Outcome` and the others are scored as they would be alone)
and the same reference pass (records with a reference answer get their unsupported claims
labelled, all of a block's in one model pass).

Planning can run in forked worker processes (``n_process``; :mod:`.parallel`).
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import count, islice
from typing import Any

from nli_faith.engine.decide import (
    aggregate,
    claims_of,
    unsupported_claims,
    with_reference,
)
from nli_faith.engine.failures import Failed, describe, error_result
from nli_faith.engine.infer import NLIMatrix, encode_plan, fill_isolated
from nli_faith.engine.parallel import PlanPool, fork_available
from nli_faith.engine.parts import Parts
from nli_faith.engine.plan import (
    Planned,
    plan_claims,
    plan_parsed,
    plan_record,
    plan_response,
)
from nli_faith.errors import E_BLOCK_SIZE, E_LABELS_LENGTH, E_N_PROCESS, OptionError, RecordError
from nli_faith.records import Limits, Record, is_whole
from nli_faith.results import FaithfulnessResult


@dataclass(frozen=True)
class Outcome:
    """One record's result, the (claim, chunk) pairs scored for it, and, if it failed, why
    (``failure``; ``exception``: the exception itself, when raised in this process)."""

    result: FaithfulnessResult
    pairs: int = 0
    failure: Failed | None = None
    exception: BaseException | None = None

    @property
    def internal(self) -> bool:
        """The scorer failed (a bug), not the input."""
        return self.failure is not None and not self.failure.input_error


def _settings(parts: Parts) -> tuple:
    """What the workers hold of ``parts``: the loaded objects (compared by identity), the
    values of the settings (they plan and decide with them) and the model's length."""
    fields = tuple(getattr(parts, f.name) for f in dataclasses.fields(parts))
    return (*fields, getattr(parts.nli, "max_length", None))


@dataclass(frozen=True)
class _Done:
    """A result already computed, with the ``get()`` of an asynchronous one."""

    value: Any

    def get(self) -> Any:
        return self.value


def _decide_all(parts: Parts, matrices: list[NLIMatrix]) -> list[Outcome]:
    return [decide_outcome(parts, m, keep_exception=True) for m in matrices]


@dataclass(frozen=True)
class _InPool:
    """Work under way in ``pool`` (a block's plans or decisions); if the pool is closed
    before it is done (``scorer.close()`` while a stream is open), this process does it
    (``here``)."""

    pool: PlanPool
    pending: Any
    here: Any

    def get(self) -> list[Any]:
        if self.pool.closed and not self.pending.ready():
            return self.here()
        return self.pending.get()


@dataclass(frozen=True)
class _Started:
    """A block scored by the model whose decisions may still be under way (``get()``)."""

    finish: Any
    decided: Any

    def get(self) -> list[Outcome]:
        return self.finish(self.decided.get())


class Runner:
    """Score records through the engine's stages (see the module doc)."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self._pools: dict[int, PlanPool] = {}
        self._forked_with: dict[int, tuple] = {}
        self._retired: list[PlanPool] = []

    # -- planning ---------------------------------------------------------------------

    def plan(self, item: tuple[Any, str]) -> Planned | Failed:
        """One ``(record, name)``'s plan, or why it cannot be scored."""
        return plan_record(self.parts, item)

    def plan_parsed(
        self, item: tuple[Record | RecordError, str], *, limits: Limits | None = None
    ) -> Planned | Failed:
        """One ``(record, name)`` that ``parse_record`` has already checked (or the
        ``RecordError`` it raised, which becomes the record's failure): its plan, or why it
        cannot be scored. The claims are held to ``limits`` (default: the scorer's); the
        server passes the limits it parsed the record with."""
        return plan_parsed(self.parts, item, limits=limits)

    def _pool(self, n_process: int) -> PlanPool | None:
        """The forked planning workers for ``n_process`` (kept), or None for in-process.

        Workers hold the parts and settings of the moment they were forked; when any of
        them has changed since (``scorer.chunk_tokens = 64``, a swapped model), the old
        workers are retired (they finish what a stream gave them, then exit) and new ones
        forked, so that they plan and decide as this process would.
        """
        n_process = check_n_process(n_process)
        if n_process == 1 or not fork_available():
            return None
        kept = self._pools.get(n_process)
        if kept is not None and kept.closed:  # closed from outside (PlanPool.close): fork anew
            kept = None
        elif kept is not None and self._forked_with[n_process] != _settings(self.parts):
            kept.retire()
            self._retired.append(kept)
            kept = None
        if kept is None:
            kept = self._pools[n_process] = PlanPool(
                partial(plan_for_workers, self.parts),
                n_process,
                decide=partial(decide_outcome, self.parts),
            )
            self._forked_with[n_process] = _settings(self.parts)  # what the workers hold
        return kept

    def close(self) -> None:
        """Stop the planning worker processes (if any were started)."""
        while self._pools:
            self._pools.popitem()[1].close()
        while self._retired:
            self._retired.pop().close()
        self._forked_with.clear()

    # -- scoring ------------------------------------------------------------------------

    def run(
        self,
        planned: Sequence[Planned | Failed],
        progress: bool = False,
        *,
        pool: PlanPool | None = None,
    ) -> list[Outcome]:
        """Outcomes of planned records, in one model pass; a failing pass is bisected so
        that only the records that fail get an error. With ``pool``, its workers make the
        decisions (the same as this process would). Records with a reference answer then
        get :meth:`check_reference`."""
        return self.start(planned, progress, pool=pool).get()

    def start(
        self,
        planned: Sequence[Planned | Failed],
        progress: bool = False,
        *,
        pool: PlanPool | None = None,
    ) -> _Started:
        """:meth:`run` in two steps: the model pass now; the decisions, with ``pool``, by
        its workers while this process goes on (the next block's model pass). The returned
        object's ``get()`` waits for them and gives :meth:`run`'s outcomes. The whole
        block is decided with the settings of this call (a setting changed meanwhile
        applies to later blocks), its reference pass too."""
        parts = dataclasses.replace(self.parts)  # the settings of the moment, not later ones
        out: dict[int, Outcome] = {
            k: Outcome(error_result(p.error), failure=p, exception=p.exception)
            for k, p in enumerate(planned)
            if isinstance(p, Failed)
        }
        keys = [k for k, p in enumerate(planned) if isinstance(p, Planned)]
        matrices = fill_isolated(parts, [planned[k].plan for k in keys], progress)
        scored = []
        for k, m in zip(keys, matrices):
            if isinstance(m, Exception):
                out[k] = failed_outcome(m)
            else:
                scored.append((k, m))
        matrices = [m for _, m in scored]
        if pool is not None and len(scored) > 1:
            decided = _InPool(
                pool, pool.decide_async(matrices), partial(_decide_all, parts, matrices)
            )
        else:
            decided = _Done(_decide_all(parts, matrices))
        finish = partial(self._finish, parts, planned, out, [k for k, _ in scored])
        return _Started(finish, decided)

    def _finish(
        self,
        parts: Parts,
        planned: Sequence[Planned | Failed],
        out: dict[int, Outcome],
        keys: list[int],
        decided: list[Outcome],
    ) -> list[Outcome]:
        """:meth:`start`'s outcomes once the decisions are made: the reference pass."""
        out.update(zip(keys, decided))
        outcomes = [out[k] for k in range(len(planned))]
        refs = [p.reference if isinstance(p, Planned) else None for p in planned]
        if all(r is None for r in refs):
            return outcomes
        checked = self.check_reference([o.result for o in outcomes], refs, parts=parts)
        for k, (o, r) in enumerate(zip(outcomes, checked)):
            if r is not o.result:  # the reference pass labelled it, or failed on it
                failure = o.failure if r.error is None else Failed(r.error, r.error, False)
                outcomes[k] = dataclasses.replace(o, result=r, failure=failure)
        return outcomes

    def score_record(self, rec: Record) -> FaithfulnessResult:
        """One parsed record's result; raises what planning or scoring it raises."""
        plan = plan_response(self.parts, rec.response, rec.context, question=rec.question)
        planned = Planned(plan, rec.reference)
        (outcome,) = self.run([planned])
        if outcome.exception is not None:
            raise outcome.exception
        return outcome.result

    def score(
        self,
        records: Sequence[Any],
        labels: Sequence[str],
        *,
        n_process: int | str = 1,
        progress: bool = False,
    ) -> list[FaithfulnessResult]:
        """Results of ``records`` (named by ``labels`` in warnings).

        In one process: planned, then scored as one block. With planning workers: in
        blocks of :func:`overlap_block` records, the workers planning up to
        :data:`PLAN_AHEAD` blocks ahead while this process scores (a bounded
        producer/consumer queue), so the model does not wait for the whole batch's
        planning; results are the same, as a pair's result does not depend on the pairs
        scored beside it (:mod:`nli_faith.nli.batching`)."""
        if len(labels) != len(records):
            raise OptionError(E_LABELS_LENGTH.format(n_labels=len(labels), n_records=len(records)))
        items = list(zip(records, labels))
        n_process = check_n_process(n_process)
        if len(items) < 2 * n_process or self._pool(n_process) is None:  # too few to share out
            return [o.result for o in self.run([self.plan(item) for item in items], progress)]
        blocks = self.planned_blocks(
            iter(items), overlap_block(len(items), n_process), n_process, ahead=PLAN_AHEAD
        )
        return [o.result for o in self._pipelined(blocks, n_process, progress)]

    def _pipelined(
        self, blocks: Iterator[list[Planned | Failed]], n_process: int, progress: bool = False
    ) -> Iterator[Outcome]:
        """Outcomes of ``blocks`` in order. With workers, each block's model pass runs
        while they decide the block before it (and plan the ones after it), so a block's
        outcomes come once the next block was scored; in one process, as soon as they are
        decided."""
        deciding: Any = None
        for block in blocks:
            pool = self._pool(n_process)
            started = self.start(block, progress, pool=pool)
            if deciding is not None:
                yield from deciding.get()
                deciding = None
            if pool is None:  # decided already: nothing to overlap it with
                yield from started.get()
            else:
                deciding = started
        if deciding is not None:
            yield from deciding.get()

    def planned_blocks(
        self, items: Iterator[tuple[Any, str]], block_size: int, n_process: int, *, ahead: int = 1
    ) -> Iterator[list[Planned | Failed]]:
        """The plans of ``items``, ``block_size`` at a time, in order. With workers, up to
        ``ahead`` blocks are being planned while the caller scores the block it was given
        (the queue between planning and the model is that long; in one process they are
        planned before the block is given). Each block is planned with the settings of the
        moment it is started (new workers if a planning setting changed)."""
        queued: deque[Any] = deque()

        def plan_here(block: list) -> list[Planned | Failed]:
            return [self.plan(item) for item in block]

        def start(block: list) -> Any:
            pool = self._pool(n_process)
            if pool is not None:
                return _InPool(pool, pool.plan_async(block), partial(plan_here, block))
            return _Done(plan_here(block))

        def refill() -> None:
            while len(queued) < ahead:
                block = list(islice(items, block_size))
                if not block:
                    return
                queued.append(start(block))

        refill()
        while queued:
            current = queued.popleft()
            refill()  # the next blocks are planned while this one is scored
            yield current.get()

    def stream(
        self,
        records: Iterable[Any],
        *,
        block_size: int = 64,
        n_process: int = 1,
        labels: Iterable[str] | None = None,
    ) -> Iterator[FaithfulnessResult]:
        """Results of ``records`` in order, ``block_size`` records per model pass. A
        block's results come once the next block was read from ``records`` (and planned);
        with workers, the next block is planned, and the one before decided, while this one
        is scored, so its results come once the next block was scored too. A setting
        changed while the stream runs applies from the next block started; the blocks
        already started keep the settings they started with (their reference pass too)."""
        if not is_whole(block_size):
            raise OptionError(E_BLOCK_SIZE.format(block_size=block_size))
        n_process = check_n_process(n_process)
        names = labels if labels is not None else (f"record {k}" for k in count())
        it = _paired(records, names)
        blocks = self.planned_blocks(it, block_size, n_process, ahead=1)
        yield from (o.result for o in self._pipelined(blocks, n_process))

    # -- the reference pass --------------------------------------------------------------

    def check_reference(
        self,
        results: Sequence[FaithfulnessResult],
        references: Sequence[str | None],
        *,
        parts: Parts | None = None,
    ) -> list[FaithfulnessResult]:
        """Label each claim of ``results[k]`` that the context does not support by
        ``references[k]``, one model pass for all (see
        :meth:`~nli_faith.engine.stages.Stages.check_reference`)."""
        parts = self.parts if parts is None else parts
        todo: list[tuple[int, list[int], int | Exception | None]] = []
        plans = []
        for k, (res, ref) in enumerate(zip(results, references, strict=True)):
            idx = None if ref is None else unsupported_claims(res)
            if idx is None:
                continue
            where: int | Exception | None = None
            if idx:
                try:
                    plans.append(plan_claims(parts, claims_of(res, idx), [ref]))
                    where = len(plans) - 1
                except Exception as err:  # noqa: BLE001 - the record's error, not the batch's
                    where = err
            todo.append((k, idx, where))
        checked = fill_isolated(parts, plans)
        out = list(results)
        for k, idx, where in todo:
            try:
                if isinstance(where, Exception):
                    raise where
                m = None if where is None else checked[where]
                if isinstance(m, Exception):
                    raise m
                against = None if m is None else aggregate(parts, m)
                out[k] = with_reference(out[k], idx, against)
            except Exception as err:  # noqa: BLE001 - the record's error, not the batch's
                out[k] = error_result(describe(err))
        return out


def plan_for_workers(parts: Parts, item: tuple[Any, str]) -> Planned | Failed:
    """What a planning worker does with an item: its plan (:func:`plan_record`), with
    its pairs' token ids where the model's process can take them (:func:`encode_plan`)."""
    planned = plan_record(parts, item)
    if isinstance(planned, Planned):
        try:
            planned = dataclasses.replace(planned, plan=encode_plan(parts, planned.plan))
        except Exception:  # noqa: BLE001 - the model's process encodes it, isolated
            pass
    return planned


def decide_outcome(parts: Parts, m: NLIMatrix, *, keep_exception: bool = False) -> Outcome:
    """A scored record's outcome: its result (:func:`aggregate`), or the error deciding
    it raised (``exception`` kept only where asked: a worker's may not pickle)."""
    try:
        return Outcome(aggregate(parts, m), pairs=int(m.mask.sum()))
    except Exception as err:  # noqa: BLE001 - the record's error, not the batch's
        return failed_outcome(err, keep_exception=keep_exception)


def failed_outcome(err: Exception, *, keep_exception: bool = True) -> Outcome:
    """The outcome of a record that scoring or deciding failed on (a bug, not the input)."""
    text = describe(err)
    exc = err if keep_exception else None
    return Outcome(error_result(text), failure=Failed(text, str(err), False, exc), exception=exc)


def _paired(records: Iterable[Any], labels: Iterable[str]) -> Iterator[tuple[Any, str]]:
    """``zip(records, labels)`` (each label asked for right after its record) that raises
    when the labels run out first; labels left over, as from an endless generator, are
    fine."""
    labels = iter(labels)
    for n, rec in enumerate(records):
        label = next(labels, None)
        if label is None:
            raise OptionError(E_LABELS_LENGTH.format(n_labels=n, n_records=f"more than {n}"))
        yield rec, label


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system tells it)."""
    import os

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_n_process(n_process: object) -> int:
    """``n_process`` if it is a whole number of at least 1, at most :func:`usable_cpus`
    (more planning workers than CPUs only add processes and memory); ``"auto"``: one
    worker per usable CPU but the one the model's process keeps; else ``OptionError``.

    Example:
        >>> check_n_process(1)
        1
        >>> check_n_process("auto") == max(1, usable_cpus() - 1)
        True
    """
    if n_process == "auto":
        return max(1, usable_cpus() - 1)
    if not is_whole(n_process):
        raise OptionError(E_N_PROCESS.format(n_process=n_process))
    return min(int(n_process), usable_cpus())


#: With planning workers, blocks ``score_batch`` plans ahead of the one being scored.
PLAN_AHEAD = 2


def overlap_block(n_records: int, n_process: int) -> int:
    """Records per block when ``score_batch`` overlaps planning and deciding with the
    model: about an eighth of the batch (the model waits only for the first block's
    planning), at least 16 per worker (so each worker has several records of a block, and
    each model pass packs many records' pairs into full batches), at most 2048 (so plans
    held ahead stay small).

    Example:
        >>> overlap_block(100, 2), overlap_block(600, 15), overlap_block(10**6, 15)
        (32, 240, 2048)
    """
    return max(16 * n_process, min(2048, -(-n_records // 8)))
