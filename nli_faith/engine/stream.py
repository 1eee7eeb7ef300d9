"""Checking an answer while it is streamed: each sentence as it completes.

:class:`StreamCheck` holds one stream's state. :meth:`~StreamCheck.feed` takes the next
piece of text (a token, a few words) and returns a :class:`~nli_faith.results.SentenceCheck`
for every sentence the piece completed; :meth:`~StreamCheck.finish` checks the last,
incomplete sentence and returns the :class:`~nli_faith.results.StreamResult`, whose
``result`` is the whole answer scored as ``FaithfulnessScorer.score`` scores it.

A sentence is complete once the next one has begun (text after its full stop), so the
sentence splitter that ``score()`` uses sees it whole; its boundaries are those of the
whole answer. Each completed sentence's claims are cut from the answer so far (the same
splitter), planned against the context and run through the runner like any record.
The pairs scored on the way are remembered for the stream, so the final, whole-answer
pass only plans: it scores nothing twice.

With a policy (:class:`~nli_faith.scoring.gate.Policy`: the one gate's rule, applied to
the answer so far after each sentence), a sentence that makes the answer
so far fail (a contradicted claim, or a strict score below the bar) ends the stream: it
is not released, and the result says which claim failed and why.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Sequence
from typing import Any

from nli_faith.engine.parts import Parts
from nli_faith.engine.plan import Plan, Planned, budget, chunk, plan_claims, split_claims
from nli_faith.engine.runner import Runner
from nli_faith.errors import E_STREAM_PIECE, E_STREAM_PIECES, OptionError
from nli_faith.nli.cache import CachedNLI
from nli_faith.records import Record, as_context, parse_record
from nli_faith.results import ClaimVerdict, FaithfulnessResult, SentenceCheck, StreamResult
from nli_faith.scoring.gate import Policy
from nli_faith.scoring.scores import compute_scores
from nli_faith.text.claims import Claim
from nli_faith.text.sentences import sentence_spans

#: Where a sentence may end and the next have begun: an end mark (or a line break), then
#: the rest of the mark's token, white space and a character of the next sentence; CJK
#: full stops need no space.
_MAYBE_BOUNDARY = re.compile(r"[.!?\u2026\n][^\s]*\s+\S|[\u3002\uff01\uff1f]\S")


#: The answer so far ends like a sentence: its pairs are worth scoring before the next
#: piece confirms the end (see :meth:`StreamCheck._score_ahead`).
_ENDS_SENTENCE = re.compile(r"\w[.!?\u2026\u3002\uff01\uff1f][\"'\u201d\u2019)\]*_]*(?:\[\d+\])*$")


def first_failure(
    policy: Policy, so_far: FaithfulnessResult, new: list[ClaimVerdict]
) -> tuple[ClaimVerdict | None, str | None]:
    """The claim of the ``new`` sentence that makes the answer so far fail ``policy``, and
    why; ``(None, None)`` when it passes."""
    ruling = policy.ruling(so_far)
    if ruling.passed is not False:
        return None, None
    wanted = ("no",) if ruling.why == "contradicted" else ("no", "idk")
    failed = next((c for c in new if c.verdict in wanted), None)
    said = f"the answer so far: {ruling.reason}"
    if failed is None:
        return None, said
    return failed, f'{said} "{failed.claim}" is {_said(failed).rstrip(".")}.'


def _said(claim: ClaimVerdict) -> str:
    if claim.verdict == "no":
        said = claim.evidence.text if claim.evidence is not None else "the context"
        return f"contradicted by: {said}"
    return "not found in the context"


class StreamCheck:
    """One streamed answer's check (see the module doc).

    Args:
        parts: the scorer's parts (read at the start: a later change is not seen).
        context: the retrieved context, a string or one string per document.
        question: the question: a short answer ("3 years") is read with it, as
            ``score()`` reads it (the last check, which sees the whole answer).
        policy: when to stop the stream; ``None``: never, every sentence is released.
    """

    def __init__(
        self,
        parts: Parts,
        context: str | Sequence[str],
        question: str | None = None,
        *,
        policy: Policy | None = None,
    ) -> None:
        self.record: Record = parse_record(
            {"response": "", "context": context, "question": question}, limits=parts.limits
        )
        self.context = as_context(self.record.context)
        self._empty = not any(d.strip() for d in self.context)  # no document holds text
        self._chunks: dict[int, list] = {}  # the context cut for a budget (chunk())
        self.parts = dataclasses.replace(parts, nli=CachedNLI(parts.nli))
        self.runner = Runner(self.parts)
        self.policy = policy or Policy()
        self.text = ""
        self.released = 0  # the answer up to here is checked and released
        self._scan = 0  # where to look for the next possible sentence end
        self._claims: list[ClaimVerdict] = []
        self.blocked: SentenceCheck | None = None
        self.finished: StreamResult | None = None

    @property
    def done(self) -> bool:
        """The stream was stopped by the policy, or finished."""
        return self.blocked is not None or self.finished is not None

    def feed(self, piece: str) -> list[SentenceCheck]:
        """Take the next piece of the answer; the checks of the sentences it completed.

        A stopped stream takes no more text (it returns nothing)."""
        return self.checks() if self.add(piece) else []

    def add(self, piece: str) -> bool:
        """Append ``piece`` (cheap); True if :meth:`checks` has work to do: a sentence
        may have been completed, or the text may end a sentence."""
        if not isinstance(piece, str):
            raise OptionError(E_STREAM_PIECE.format(type_name=type(piece).__name__))
        if self.done:
            return False
        self.text += piece
        # the record's own limit check (the context's were checked at the start)
        self.parts.limits.check(Record(self.text, self.record.context))
        return self._maybe_complete() is not None or self._ends_like_a_sentence()

    def checks(self) -> list[SentenceCheck]:
        """The checks of the sentences the text added so far completed (and, when it
        ends like a sentence, that sentence's pairs scored ahead)."""
        events: list[SentenceCheck] = []
        found = self._maybe_complete()
        if found is not None:
            self._scan = found.end() - 1
            spans = sentence_spans(self.text[self.released :])
            if len(spans) >= 2:  # all but the last sentence are complete; the last may grow
                events = self._check(self.released + spans[-1][0], final=False)
        if not self.done and self._ends_like_a_sentence():
            self._score_ahead()
        return events

    def _maybe_complete(self) -> re.Match | None:
        return _MAYBE_BOUNDARY.search(self.text, self._scan)

    def _ends_like_a_sentence(self) -> bool:
        tail = max(self.released, len(self.text) - 64)
        return _ENDS_SENTENCE.search(self.text, tail) is not None

    def finish(self) -> list[SentenceCheck]:
        """The stream has ended: check its last sentence (its checks are returned) and
        score the answer streamed, stopped at the failing sentence if the policy stopped
        it (:attr:`result`)."""
        if self.finished is not None:
            return []
        events = [] if self.blocked is not None else self._check(len(self.text), final=True)
        answer = self.text if self.blocked is None else self.text[: self.blocked.end]
        rec = dataclasses.replace(self.record, response=answer)
        result = self.runner.score_record(parse_record(rec, limits=self.parts.limits))
        b = self.blocked
        self.finished = StreamResult(
            released=self.text[: self.released],
            blocked=b is not None,
            reason=None if b is None else b.reason,
            failed_claim=None if b is None else b.failed_claim,
            result=result,
        )
        return events

    @property
    def result(self) -> StreamResult | None:
        """The end of the check, once :meth:`finish` ran (else None)."""
        return self.finished

    # -- internals ---------------------------------------------------------------------------

    def _score_ahead(self) -> None:
        """The answer so far ends like a sentence, but only the next piece can tell (it
        may be "$1." of "$1.5"): score the claims of that sentence now, while the next
        piece is on its way. The pairs are remembered, so when the end is confirmed the
        check only plans and reads them; if it was no end, nothing is released."""
        try:
            claims = self._claims_between(self.released, len(self.text))
            if claims:
                self.runner.run([Planned(self._plan(claims))])
        except Exception:  # noqa: BLE001 - a guess; the real check raises what is wrong
            return

    def _claims_between(self, start: int, end: int, question: str | None = None) -> list[Claim]:
        """The claims of the answer's text from ``start`` (a sentence boundary: all before
        it is released) to ``end``, with their spans in the whole answer; only the last
        check (the whole answer, ``start`` 0 or not) reads the question, as score() does."""
        if question is not None:  # the whole answer's claims, as score() cuts them
            said = split_claims(self.parts, self.text[:end], question=question)
            return [c for c in said if c.start >= start]
        said = split_claims(self.parts, self.text[start:end])
        return [dataclasses.replace(c, start=c.start + start, end=c.end + start) for c in said]

    def _plan(self, claims: list[Claim]) -> Plan:
        """The plan of ``claims``, the context cut once for each chunk budget."""
        b = budget(self.parts, claims)
        if b not in self._chunks:
            self._chunks[b] = chunk(self.parts, self.context, claims)
        return plan_claims(self.parts, claims, self.context, chunks=self._chunks[b])

    def _check(self, upto: int, *, final: bool) -> list[SentenceCheck]:
        """Check the sentences between ``self.released`` and ``upto`` (complete ones)."""
        start = self.released
        region = self.text[start:upto]
        if not region.strip():
            if final:
                self.released = upto
            return []
        # the whole answer (the last check) is read with its question, as score() reads it
        claims = self._claims_between(start, upto, self.record.question if final else None)
        verdicts: list[ClaimVerdict] = []
        if claims:
            (outcome,) = self.runner.run([Planned(self._plan(claims))])
            if outcome.exception is not None:
                raise outcome.exception
            verdicts = outcome.result.claims
        events = []
        spans = [(start + s, start + e) for s, e in sentence_spans(region)]
        for k, (s, e) in enumerate(spans):
            last = k == len(spans) - 1
            mine = [c for c in verdicts if s <= c.start < e or (last and c.start >= e)]
            self._claims.extend(mine)
            event = self._event(s, e if not last else max(e, upto if final else e), mine)
            events.append(event)
            if event.decision == "block":
                self.blocked = event
                break
            self.released = event.end
        if self.blocked is None:
            self.released = upto if final else self.released
        return events

    def _event(self, start: int, end: int, claims: list[ClaimVerdict]) -> SentenceCheck:
        so_far = _summary(self._claims, empty=self._empty)
        failed, why = first_failure(self.policy, so_far, claims)
        return SentenceCheck(
            text=self.text[self.released : end],
            start=start,
            end=end,
            claims=claims,
            decision="pass" if failed is None and why is None else "block",
            reason=why,
            failed_claim=failed,
            strict_so_far=so_far.strict,
        )


def _summary(claims: list[ClaimVerdict], *, empty: bool) -> FaithfulnessResult:
    """The scores of the claims checked so far (the gate reads them); ``empty``: the
    context holds no text."""
    s = compute_scores([c.verdict for c in claims], [c.p_entail for c in claims])
    return FaithfulnessResult(
        s.lenient,
        s.strict,
        s.soft,
        s.n_claims,
        s.n_yes,
        s.n_no,
        s.n_idk,
        "",
        claims=claims,
        context_empty=bool(claims) and empty,
    )


class CheckedStream:
    """The sentences of a streamed answer as they are checked: iterate it (``for`` over a
    stream of strings, ``async for`` over an async one) for each
    :class:`~nli_faith.results.SentenceCheck`; :attr:`result` is the
    :class:`~nli_faith.results.StreamResult` once the iteration ended. Iteration stops
    after a sentence the policy blocks: the rest of the stream is not read.
    """

    def __init__(self, check: StreamCheck, pieces: Any) -> None:
        self.check = check
        self._pieces = pieces

    @property
    def result(self) -> StreamResult | None:
        return self.check.result

    def __iter__(self) -> Iterator[SentenceCheck]:
        if not isinstance(self._pieces, Iterable) or isinstance(self._pieces, (str, bytes)):
            raise OptionError(E_STREAM_PIECES.format(type_name=type(self._pieces).__name__))
        for piece in self._pieces:
            yield from self.check.feed(piece)
            if self.check.done:
                break
        yield from self.check.finish()

    async def __aiter__(self) -> AsyncIterator[SentenceCheck]:
        """The async form: each step that may run the model runs in a worker thread, so
        the event loop is not held while a sentence is scored."""
        import asyncio

        if not isinstance(self._pieces, AsyncIterable):
            for event in self:  # a plain iterable: checked in order as well
                yield event
            return
        async for piece in self._pieces:
            if self.check.add(piece):  # model work: off the event loop
                for event in await asyncio.to_thread(self.check.checks):
                    yield event
            if self.check.done:
                break
        for event in await asyncio.to_thread(self.check.finish):
            yield event
