"""Send judge items to a judge: bounded concurrency, bounded retries, a summary.

The judge is an :class:`~nli_faith.judge.client.OpenAIJudge` or a callable
``(claim, evidence_texts, question) -> "yes" | "no" | "idk"`` (sync or async; it may
also return a :class:`~nli_faith.judge.prompt.JudgeReply` or a dict with ``verdict``
and ``reason``). An attempt that raises, times out or answers outside the vocabulary
is retried after an exponential back-off (``backoff * 2**attempt``, capped, or the
server's ``Retry-After``), at most ``max_attempts`` times in all; then the claim's
outcome is an error. A :class:`~nli_faith.judge.client.FatalJudgeError` is not retried.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nli_faith.errors import (
    E_CONCURRENCY,
    E_JUDGE_GAVE_UP,
    E_JUDGE_TYPE,
    E_MAX_ATTEMPTS,
    OptionError,
    OptionTypeError,
)
from nli_faith.judge.client import FatalJudgeError, OpenAIJudge, RetryableJudgeError
from nli_faith.judge.defaults import DEFAULT_CONCURRENCY, DEFAULT_MAX_ATTEMPTS
from nli_faith.judge.items import JudgeItem
from nli_faith.judge.merge import JudgeOutcome
from nli_faith.judge.prompt import JudgeReply, normalize_verdict
from nli_faith.records import is_whole

logger = logging.getLogger(__name__)

#: First back-off, in seconds; doubled after each failed try.
DEFAULT_BACKOFF = 1.0
#: Longest single back-off, in seconds (also caps a server's ``Retry-After``).
MAX_BACKOFF = 30.0


@dataclass
class JudgeSummary:
    """How a judged run went; ``str()`` is the table the CLI prints."""

    claims: int = 0  # all claims of the scored records
    settled: int = 0  # settled locally by the NLI bands
    sent: int = 0  # uncertain claims sent to the judge
    answered: int = 0  # with a verdict from the judge
    failed: int = 0  # judge_error after the retries (they keep the NLI verdict)
    retries: int = 0  # tries beyond the first
    verdicts: dict[str, int] = field(default_factory=lambda: {"yes": 0, "no": 0, "idk": 0})
    latencies: list[float] = field(default_factory=list, repr=False)  # seconds per request
    wall_s: float = 0.0

    def latency(self, q: float) -> float | None:
        return float(np.percentile(self.latencies, q)) if self.latencies else None

    def rows(self) -> list[tuple[str, str]]:
        def ms(q: float) -> str:
            v = self.latency(q)
            return "–" if v is None else f"{1000 * v:.0f} ms"

        share = f" ({100 * self.settled / self.claims:.0f}%)" if self.claims else ""
        return [
            ("claims", str(self.claims)),
            ("settled locally", f"{self.settled}{share}"),
            ("sent to the judge", str(self.sent)),
            ("answered", str(self.answered)),
            ("  yes / no / idk", " / ".join(str(self.verdicts[v]) for v in ("yes", "no", "idk"))),
            ("failed (judge_error)", str(self.failed)),
            ("retries", str(self.retries)),
            ("judge latency p50", ms(50)),
            ("judge latency p95", ms(95)),
            ("judge wall time", f"{self.wall_s:.1f} s"),
        ]

    def __str__(self) -> str:
        rows = self.rows()
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{width}}  {v:>12}" for k, v in rows)


def _as_reply(value: Any) -> JudgeReply:
    if isinstance(value, JudgeReply):
        return JudgeReply(normalize_verdict(value.verdict), value.reason)
    if isinstance(value, dict):
        reason = value.get("reason")
        return JudgeReply(normalize_verdict(value.get("verdict")), reason or None)
    return JudgeReply(normalize_verdict(value))


@contextlib.asynccontextmanager
async def _bind(judge: Any, concurrency: int):
    """An async ``call(item) -> JudgeReply`` for ``judge``, for ``concurrency`` calls at
    once: an :class:`OpenAIJudge` gets an HTTP client with that many connections, a plain
    function that many threads of its own."""
    if isinstance(judge, OpenAIJudge):
        async with judge.client(concurrency=concurrency) as client:

            async def call(item: JudgeItem) -> JudgeReply:
                return await judge.ajudge(client, item.claim, item.evidence_texts, item.question)

            yield call
        return
    if not callable(judge):
        raise OptionTypeError(E_JUDGE_TYPE.format(type_name=type(judge).__name__))
    is_async = inspect.iscoroutinefunction(judge) or inspect.iscoroutinefunction(
        type(judge).__call__
    )

    pool = None if is_async else ThreadPoolExecutor(max_workers=concurrency)

    async def call(item: JudgeItem) -> JudgeReply:
        args = (item.claim, item.evidence_texts, item.question)
        if pool is None:
            value = await judge(*args)
        else:
            value = await asyncio.get_running_loop().run_in_executor(pool, judge, *args)
        if inspect.isawaitable(value):
            value = await value
        return _as_reply(value)

    try:
        yield call
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


#: Upper bounds of the cascade's options: more claims in flight than this is a typo, and
#: more tries than this, with the back-off doubling, waits for hours on a dead endpoint.
MAX_CONCURRENCY, MAX_ATTEMPTS = 1000, 20


def check_options(*, concurrency: Any, max_attempts: Any) -> None:
    """Raise ``OptionError`` unless both are whole numbers from 1 to their bound."""
    if not (is_whole(concurrency) and concurrency <= MAX_CONCURRENCY):
        raise OptionError(E_CONCURRENCY.format(value=concurrency))
    if not (is_whole(max_attempts) and max_attempts <= MAX_ATTEMPTS):
        raise OptionError(E_MAX_ATTEMPTS.format(value=max_attempts))


async def ajudge_items(
    items: Sequence[JudgeItem],
    judge: Any,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    backoff: float = DEFAULT_BACKOFF,
    show_progress_bar: bool = False,
    summary: JudgeSummary | None = None,
) -> list[JudgeOutcome]:
    """One :class:`JudgeOutcome` per item, in order; counts go into ``summary``."""
    from tqdm.auto import tqdm

    check_options(concurrency=concurrency, max_attempts=max_attempts)
    summary = summary if summary is not None else JudgeSummary()
    summary.sent += len(items)
    if not items:
        return []
    gate = asyncio.Semaphore(concurrency)
    bar = tqdm(total=len(items), desc="judge", unit="claim", disable=not show_progress_bar)
    t_start = time.perf_counter()

    async def one(
        call: Callable[[JudgeItem], Awaitable[JudgeReply]], item: JudgeItem
    ) -> JudgeOutcome:
        error = "no attempt made"
        for attempt in range(1, max_attempts + 1):
            wait = None
            async with gate:
                t0 = time.perf_counter()
                try:
                    reply = await call(item)
                except FatalJudgeError as err:
                    summary.latencies.append(time.perf_counter() - t0)
                    return JudgeOutcome(error=str(err))
                except Exception as err:  # noqa: BLE001 - a judge failure, never a verdict
                    summary.latencies.append(time.perf_counter() - t0)
                    error = str(err) or type(err).__name__
                    wait = err.retry_after if isinstance(err, RetryableJudgeError) else None
                else:
                    summary.latencies.append(time.perf_counter() - t0)
                    return JudgeOutcome(verdict=reply.verdict, reason=reply.reason)
            if attempt < max_attempts:
                summary.retries += 1
                delay = backoff * 2 ** (attempt - 1) * (0.5 + random.random() / 2)
                delay = min(MAX_BACKOFF, wait if wait is not None else delay)
                logger.info(
                    "judge: line %s claim %s, try %d failed (%s); retrying in %.2f s",
                    item.line,
                    item.claim_index,
                    attempt,
                    error,
                    delay,
                )
                await asyncio.sleep(delay)
        return JudgeOutcome(error=E_JUDGE_GAVE_UP.format(attempts=max_attempts, error=error))

    async with _bind(judge, concurrency) as call:

        async def tracked(item: JudgeItem) -> JudgeOutcome:
            out = await one(call, item)
            if out.verdict is not None:
                summary.answered += 1
                summary.verdicts[out.verdict] += 1
            else:
                summary.failed += 1
                logger.warning(
                    "judge: line %s claim %s kept its NLI verdict: %s",
                    item.line,
                    item.claim_index,
                    out.error,
                )
            bar.update(1)
            return out

        try:
            outcomes = await asyncio.gather(*(tracked(i) for i in items))
        finally:
            bar.close()
            summary.wall_s += time.perf_counter() - t_start
    return list(outcomes)


def judge_items(items: Sequence[JudgeItem], judge: Any, **options: Any) -> list[JudgeOutcome]:
    """Synchronous :func:`ajudge_items` (works inside a running event loop too, e.g. Jupyter)."""
    coro = ajudge_items(items, judge, **options)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
