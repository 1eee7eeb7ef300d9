"""The engine's stages one at a time, for callers that batch or re-aggregate themselves.

``FaithfulnessScorer.score`` runs plan -> infer -> decide in one call. :class:`Stages`
(``scorer.stages``) gives the steps apart, SummaC-style: the NLI matrix (the "image" of a
response against its context) is the expensive part and is built once; verdicts and scores
are cheap reductions over it, so thresholds can be tried without running the model again
(calibration does). ``plan`` -> ``matrices`` -> ``aggregate`` is exactly what ``score_batch``
does, without its failure isolation; ``matrices_of`` has it.

Example:
    >>> from nli_faith import FaithfulnessScorer
    >>> stages = FaithfulnessScorer.guardrail().stages
    >>> plans = [stages.plan("It is 24 months.", "The warranty lasts 24 months."),
    ...          stages.plan("Delivery is free.", "Shipping costs nothing.")]
    >>> [p.n_pairs for p in plans]
    [1, 1]
    >>> [stages.aggregate(m).n_claims for m in stages.matrices(plans)]
    [1, 1]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nli_faith.engine import decide, infer, plan
from nli_faith.engine.failures import Failed
from nli_faith.engine.infer import NLIMatrix
from nli_faith.engine.parts import Parts
from nli_faith.engine.plan import Plan, Planned
from nli_faith.engine.runner import Runner
from nli_faith.records import Record
from nli_faith.results import FaithfulnessResult
from nli_faith.text.chunking import Chunk
from nli_faith.text.claims import Claim


class Stages:
    """Plan, infer and decide one step at a time (see the module doc), over the parts and
    settings of the scorer they come from."""

    def __init__(self, parts: Parts, runner: Runner) -> None:
        self.parts = parts
        self._runner = runner

    def claims(
        self, response: str, *, record: str = "the record", question: str | None = None
    ) -> list[Claim]:
        """The response's claims, each short enough to sit beside a chunk in the model.

        A longer claim is split at clause, comma or word boundaries (one warning naming
        ``record``); more claims than ``limits.max_claims`` is a
        :class:`~nli_faith.errors.RecordError`. With a ``question``, a short answer ("3
        years") is one claim read with it, as ``score()`` reads it.
        """
        return plan.split_claims(self.parts, response, record=record, question=question)

    def chunks(self, context: str | Sequence[str], claims: Sequence[Claim]) -> list[Chunk]:
        """The context's chunks, each fitting in the model beside the longest of ``claims``."""
        return plan.chunk(self.parts, context, claims)

    def plan(
        self, response: str, context: str | Sequence[str], *, question: str | None = None
    ) -> Plan:
        """Split ``response`` into claims (read with ``question``, as :meth:`claims` says)
        and ``context`` into chunks, and pick the pairs to score; no model call."""
        return plan.plan_response(self.parts, response, context, question=question)

    def matrices(self, plans: Sequence[Plan], *, progress: bool = False) -> list[NLIMatrix]:
        """The NLI matrix of each plan, the pairs of all of them in one model pass (as
        ``score_batch`` does); raises what the model pass raises.

        One response's matrix: ``stages.matrices([stages.plan(response, context)])[0]``.
        """
        return infer.fill(self.parts, plans, progress)

    def matrices_of(
        self, records: Sequence[Mapping[str, Any] | Record], *, progress: bool = False
    ) -> list[NLIMatrix | Exception]:
        """The NLI matrices of many records in one model pass (what ``score_batch``
        aggregates); a record that cannot be parsed, planned or scored gets its exception
        in its place, and the others are scored as they would be alone."""
        planned = [
            plan.plan_record(self.parts, (rec, f"record {k}")) for k, rec in enumerate(records)
        ]
        out: dict[int, NLIMatrix | Exception] = {
            k: p.exception or RuntimeError(p.error)  # planned here: the exception is kept
            for k, p in enumerate(planned)
            if isinstance(p, Failed)
        }
        keys = [k for k, p in enumerate(planned) if isinstance(p, Planned)]
        plans = [planned[k].plan for k in keys]
        out.update(zip(keys, infer.fill_isolated(self.parts, plans, progress)))
        return [out[k] for k in range(len(records))]

    def aggregate(
        self,
        m: NLIMatrix,
        *,
        entail_threshold: float | None = None,
        contradict_threshold: float | None = None,
        band_high: float | None = None,
        band_low: float | None = None,
    ) -> FaithfulnessResult:
        """Verdicts, bands, scores and reason from a matrix; each threshold defaults to the
        scorer's. With early exit, a matrix cannot be re-aggregated with a higher
        ``entail_threshold`` (the pairs it skipped were never scored): ``ValueError``."""
        return decide.aggregate(
            self.parts,
            m,
            entail_threshold=entail_threshold,
            contradict_threshold=contradict_threshold,
            band_high=band_high,
            band_low=band_low,
        )

    def check_reference(
        self, results: Sequence[FaithfulnessResult], references: Sequence[str | None]
    ) -> list[FaithfulnessResult]:
        """Label each claim the context does not support by a reference answer (RAGChecker).

        ``score`` and ``score_batch`` do this for records with a reference answer; this is
        for results you already have. Every claim of ``results[k]`` whose verdict is not
        ``yes`` is scored against ``references[k]`` exactly as against a context (the
        reference is one more premise set, chunked the same way; one model pass for all
        results): a claim the reference supports is ``self_knowledge``, any other is
        ``hallucination``. The result gains ``hallucination_rate`` and
        ``self_knowledge_rate`` (shares of all its claims) and a sentence in its reason. A
        ``None`` reference, an error result or one with no claims is returned unchanged; a
        record whose reference cannot be scored gets an error result, as in
        ``score_batch``.

        Example:
            >>> from nli_faith import FaithfulnessScorer
            >>> scorer = FaithfulnessScorer(device="cpu")
            >>> r = scorer.score("The Eiffel Tower is in Paris. It was finished in 1889.",
            ...                  "The Eiffel Tower is a landmark in Paris.")
            >>> r = scorer.stages.check_reference([r], ["The tower was completed in 1889."])[0]
            >>> [c.reference_label for c in r.claims], r.self_knowledge_rate
            ([None, 'self_knowledge'], 0.5)
        """
        return self._runner.check_reference(results, references)
