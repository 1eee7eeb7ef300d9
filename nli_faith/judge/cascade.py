"""``Cascade``: the NLI scorer first, an LLM judge only for the claims it is unsure of."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from nli_faith.judge.items import JudgeItem, items_from_result
from nli_faith.judge.merge import JudgeOutcome, apply_outcomes
from nli_faith.judge.runner import (
    DEFAULT_BACKOFF,
    DEFAULT_CONCURRENCY,
    DEFAULT_MAX_ATTEMPTS,
    JudgeSummary,
    ajudge_items,
    check_options,
    judge_items,
)
from nli_faith.records import Record, parse_record, question_of
from nli_faith.results import FaithfulnessResult


class Cascade:
    """Score with a :class:`~nli_faith.scorer.FaithfulnessScorer`; send uncertain claims to a judge.

    Claims the NLI bands settle (``ClaimVerdict.settled``) keep their verdicts; every
    other claim goes to ``judge`` with its candidate chunks and the question, and its
    verdict is replaced by the judge's (``source="judge"``); lenient, strict and the
    reason are recomputed (``soft`` stays the NLI one). A claim the judge fails on
    keeps its NLI verdict and gets ``judge_error``. ``summary`` describes the last run.

    Args:
        scorer: the NLI scorer (its ``band_high`` / ``band_low`` decide what is sent).
        judge: an :class:`~nli_faith.judge.client.OpenAIJudge`, or a callable
            ``(claim, evidence_texts, question) -> "yes" | "no" | "idk"``, sync or async.
        concurrency: claims in flight at once.
        max_attempts: tries per claim before ``judge_error``.
        backoff: first back-off in seconds, doubled after each failed try.
        show_progress_bar: a progress bar over the judged claims.

    Example:
        >>> from nli_faith import FaithfulnessScorer
        >>> cascade = Cascade(FaithfulnessScorer(device="cpu"), judge=lambda c, ev, q: "no")
        >>> r = cascade.score(
        ...     "The warranty lasts two years. Our founder likes jazz. The office is in Europe.",
        ...     "The warranty lasts two years. Our office is in France.")
        >>> [(c.verdict, c.band, c.source) for c in r.claims]
        [('yes', 'supported', 'nli'), ('idk', 'not_found', 'nli'), ('no', 'uncertain', 'judge')]
        >>> cascade.summary.settled, cascade.summary.sent, r.strict, r.lenient
        (2, 1, 0.3333333333333333, 0.6666666666666666)
    """

    def __init__(
        self,
        scorer,
        judge: Any,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        backoff: float = DEFAULT_BACKOFF,
        show_progress_bar: bool = False,
    ) -> None:
        check_options(concurrency=concurrency, max_attempts=max_attempts)
        self.scorer = scorer
        self.judge = judge
        self.options = {
            "concurrency": concurrency,
            "max_attempts": max_attempts,
            "backoff": backoff,
            "show_progress_bar": show_progress_bar,
        }
        self.summary: JudgeSummary | None = None

    def _prepare(
        self, records: list[Mapping[str, Any] | Record], results: list[FaithfulnessResult]
    ) -> tuple[list[JudgeItem], JudgeSummary]:
        items: list[JudgeItem] = []
        summary = JudgeSummary()
        for k, (rec, res) in enumerate(zip(records, results)):
            if res.error is not None:
                continue
            summary.claims += res.n_claims
            summary.settled += sum(c.settled for c in res.claims)
            items += items_from_result(res, line=k, question=question_of(rec))
        return items, summary

    @staticmethod
    def _finish(
        results: list[FaithfulnessResult], items: Sequence[JudgeItem], outcomes: list[JudgeOutcome]
    ) -> list[FaithfulnessResult]:
        per: dict[int, dict[int, JudgeOutcome]] = {}
        for item, out in zip(items, outcomes):
            per.setdefault(item.line, {})[item.claim_index] = out
        return [apply_outcomes(r, per.get(k, {})) for k, r in enumerate(results)]

    def score_batch(
        self, records: Iterable[Mapping[str, Any] | Record], *, show_progress_bar: bool = False
    ) -> list[FaithfulnessResult]:
        """Like ``FaithfulnessScorer.score_batch``, with the uncertain claims judged."""
        records = list(records)
        results = self.scorer.score_batch(records, show_progress_bar=show_progress_bar)
        items, summary = self._prepare(records, results)
        outcomes = judge_items(items, self.judge, summary=summary, **self.options)
        self.summary = summary
        return self._finish(results, items, outcomes)

    async def ascore_batch(
        self, records: Iterable[Mapping[str, Any] | Record], *, show_progress_bar: bool = False
    ) -> list[FaithfulnessResult]:
        """:meth:`score_batch` for async code (the NLI pass itself runs in a worker thread)."""
        import asyncio

        records = list(records)
        results = await asyncio.to_thread(
            self.scorer.score_batch, records, show_progress_bar=show_progress_bar
        )
        items, summary = self._prepare(records, results)
        outcomes = await ajudge_items(items, self.judge, summary=summary, **self.options)
        self.summary = summary
        return self._finish(results, items, outcomes)

    def score(
        self, response: str, context: str | Sequence[str], question: str | None = None
    ) -> FaithfulnessResult:
        """Score one response; raises the scorer's error for a malformed one."""
        rec = parse_record({"response": response, "context": context, "question": question})
        return self.score_batch([rec])[0]
