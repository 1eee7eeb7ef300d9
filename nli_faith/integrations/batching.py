"""What both adapters share: one scorer per set of options, and a batcher with a cache.

Evaluation frameworks call a metric once per test case, often from many coroutines at
once. :class:`Batcher` turns those calls into few :meth:`FaithfulnessScorer.score_batch`
runs: :meth:`Batcher.score_many` scores a whole list in one run, and
:meth:`Batcher.ascore` collects the records of every coroutine waiting at the same
time and scores them in one run. Results are cached by record content, so a second
metric on the same scorer (strict, then lenient) costs nothing.
"""

from __future__ import annotations

import asyncio
import json
import threading
import weakref
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from nli_faith.errors import (
    E_EXTRA_MISSING,
    E_INTEGRATION_LLM_MODEL,
    E_SCORER_AND_OPTIONS,
    MissingDependencyError,
    OptionError,
)

if TYPE_CHECKING:  # pragma: no cover
    from nli_faith.config import ScorerConfig
    from nli_faith.results import FaithfulnessResult
    from nli_faith.scorer import FaithfulnessScorer

#: Results kept per scorer (least recently used go first).
CACHE_SIZE = 100_000
#: Event-loop turns without a new record before the waiting records are scored: enough
#: for the coroutines a finished batch releases (through semaphores) to queue theirs.
SETTLE_TURNS = 3

_scorers: dict[str, FaithfulnessScorer] = {}
_batchers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def import_optional(package: str, *, extra: str, what: str) -> Any:
    """Import an optional package, or raise a clear error naming the extra to install."""
    import importlib

    try:
        return importlib.import_module(package)
    except ImportError as err:
        raise MissingDependencyError(
            E_EXTRA_MISSING.format(what=what, package=package, extra=extra, error=err)
        ) from err


def refuse_llm_options(
    options: Mapping[str, Any], names: Sequence[str], *, metric: str, library: str
) -> None:
    """A ``TypeError`` naming the first of ``names`` (the framework's LLM judge keywords:
    ``model``, ``llm``...) given in ``options``: this metric uses no LLM.

    Example:
        >>> refuse_llm_options({"llm": "gpt-4o"}, ("model", "llm"), metric="M", library="L")
        Traceback (most recent call last):
        ...
        TypeError: M uses no LLM, so it takes no 'llm' (for the LLM judge of L). Pass \
nli_model= for the NLI model (a registry name, local path or hub id), or scorer= for a ready \
FaithfulnessScorer.
    """
    given = next((name for name in names if name in options), None)
    if given is not None:
        raise TypeError(E_INTEGRATION_LLM_MODEL.format(metric=metric, name=given, library=library))


def resolve_scorer(
    scorer: FaithfulnessScorer | None,
    nli_model: str,
    options: Mapping[str, Any],
    config: ScorerConfig | None = None,
) -> FaithfulnessScorer:
    """``scorer`` itself, or the process-wide scorer of ``config`` (a
    :class:`~nli_faith.config.ScorerConfig`) or of these options.

    Frameworks build a metric per test case (DeepEval copies metrics for each one), so
    the model is loaded once per distinct configuration, not once per metric.
    """
    given = sorted({*options, *(["nli_model"] if nli_model != "default" else [])})
    if scorer is not None or config is not None:
        extra = given + (["config"] if scorer is not None and config is not None else [])
        if extra:
            raise OptionError(E_SCORER_AND_OPTIONS.format(names=", ".join(extra)))
        if scorer is not None:
            return scorer
    from nli_faith.config import ScorerConfig
    from nli_faith.scorer import FaithfulnessScorer

    if config is None:  # an option that is no field: TypeError, as from the scorer itself
        config = ScorerConfig(nli_model, **options)
    key = json.dumps(config.to_dict(), sort_keys=True, default=repr)
    with _lock:
        if key not in _scorers:
            _scorers[key] = FaithfulnessScorer.from_config(config)
        return _scorers[key]


def batcher_for(scorer: FaithfulnessScorer) -> Batcher:
    """The one :class:`Batcher` of ``scorer`` (shared by every metric that uses it)."""
    with _lock:
        if scorer not in _batchers:
            _batchers[scorer] = Batcher(scorer)
        return _batchers[scorer]


def record_key(record: Mapping[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, default=repr)


class Batcher:
    """Scores records through one scorer, many per ``score_batch`` run, with a result cache.

    Example:
        >>> from nli_faith import FaithfulnessScorer
        >>> batcher = Batcher(FaithfulnessScorer(device="cpu"))
        >>> recs = [{"response": "Paris is in France.", "context": "Paris, France."}] * 2
        >>> [r.strict for r in batcher.score_many(recs)]  # one run, the duplicate once
        [1.0, 1.0]
    """

    def __init__(self, scorer: FaithfulnessScorer, *, cache_size: int = CACHE_SIZE) -> None:
        self.scorer = scorer
        self.cache_size = cache_size
        self._cache: OrderedDict[str, FaithfulnessResult] = OrderedDict()
        # One waiting list and one flusher per event loop: callers on several loops (threads
        # each running asyncio.run, as DeepEval and RAGAS can) never drop each other's records.
        self._pending: dict[asyncio.AbstractEventLoop, list] = {}
        self._flushers: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}
        self._score_lock = threading.Lock()  # one score_batch at a time (the tokenizer)

    def cached(self, record: Mapping[str, Any]) -> FaithfulnessResult | None:
        """The cached result of ``record``, if it was scored already."""
        key = record_key(record)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
        return hit

    def score_many(self, records: Sequence[Mapping[str, Any]]) -> list[FaithfulnessResult]:
        """Score the records not cached yet in one ``score_batch`` run; all results in order."""
        with self._score_lock:
            return self._score_many(records)

    def _score_many(self, records: Sequence[Mapping[str, Any]]) -> list[FaithfulnessResult]:
        keys = [record_key(r) for r in records]
        found: dict[str, FaithfulnessResult] = {}
        todo: dict[str, Mapping[str, Any]] = {}
        for key, rec in zip(keys, records):
            if key in found or key in todo:
                continue
            hit = self._cache.get(key)
            if hit is None:
                todo[key] = rec
            else:
                found[key] = hit
        if todo:
            for key, result in zip(todo, self.scorer.score_batch(list(todo.values()))):
                found[key] = result
                self._cache[key] = result
                self._cache.move_to_end(key)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return [found[key] for key in keys]

    async def ascore(self, record: Mapping[str, Any]) -> FaithfulnessResult:
        """Score one record together with every record other coroutines are waiting on."""
        hit = self.cached(record)
        if hit is not None:
            return hit
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._pending.setdefault(loop, []).append((record_key(record), record, future))
        flusher = self._flushers.get(loop)
        if flusher is None or flusher.done():
            self._flushers[loop] = loop.create_task(self._flush_when_settled(loop))
        return await future

    async def _flush_when_settled(self, loop: asyncio.AbstractEventLoop) -> None:
        pending = self._pending[loop]
        quiet, seen = 0, len(pending)
        while quiet < SETTLE_TURNS:
            await asyncio.sleep(0)
            quiet = quiet + 1 if len(pending) == seen else 0
            seen = len(pending)
        # no await between taking the batch and clearing: nothing is appended in between
        batch = [p for p in pending if not p[2].done()]
        self._pending.pop(loop, None)
        self._flushers.pop(loop, None)
        try:  # off the loop: other coroutines (an LLM metric, HTTP calls) keep running
            results = await asyncio.to_thread(self.score_many, [rec for _, rec, _ in batch])
        except Exception as err:  # hand the error to every waiting caller
            for _, _, future in batch:
                if not future.done():
                    future.set_exception(err)
            return
        for (_, _, future), result in zip(batch, results):
            if not future.done():
                future.set_result(result)
