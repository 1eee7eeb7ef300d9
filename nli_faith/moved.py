"""The scorer's old spellings, kept for one release.

The stage-by-stage methods of ``FaithfulnessScorer`` moved to ``scorer.stages``
(:class:`~nli_faith.engine.stages.Stages`), and ``passes(result)`` is the calibrated
thresholds' own gate, ``scorer.thresholds.decision.passes(result)``. The scorer's
``__getattr__`` answers the old names from :data:`MOVED` with a ``DeprecationWarning``
naming the new spelling; they are not methods of the class.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _passes(scorer: Any) -> Callable[[Any], bool | None]:
    th = scorer.thresholds
    return lambda result: None if th is None else th.decision.passes(result)


def _matrix(scorer: Any) -> Callable[..., Any]:
    stages = scorer.stages
    return lambda response, context: stages.matrices([stages.plan(response, context)])[0]


def _matrix_batch(scorer: Any) -> Callable[..., Any]:
    def matrix_batch(records: Any, *, show_progress_bar: bool = False) -> list[Any]:
        return scorer.stages.matrices_of(records, progress=show_progress_bar)

    return matrix_batch


#: Old name -> (new spelling, after ``scorer.``; the callable it gives for a scorer).
MOVED: dict[str, tuple[str, Callable[[Any], Callable[..., Any]]]] = {
    "claims": ("stages.claims", lambda sc: sc.stages.claims),
    "chunk": ("stages.chunks", lambda sc: sc.stages.chunks),
    "plan": ("stages.plan", lambda sc: sc.stages.plan),
    "matrices": ("stages.matrices", lambda sc: sc.stages.matrices),
    "matrix": ("stages.matrices([scorer.stages.plan(response, context)])[0]", _matrix),
    "matrix_batch": ("stages.matrices_of(records, progress=...)", _matrix_batch),
    "aggregate": ("stages.aggregate", lambda sc: sc.stages.aggregate),
    "check_reference": ("stages.check_reference", lambda sc: sc.stages.check_reference),
    "passes": ("thresholds.decision.passes(result) (None without thresholds)", _passes),
}
