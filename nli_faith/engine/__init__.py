"""The scoring engine, in stages: plan -> infer -> decide, driven by one runner.

* :mod:`.plan`: claims, chunks and the (claim, chunk) pairs to score (:class:`Plan`); no model.
* :mod:`.infer`: the NLI matrix of many plans in one model pass (:class:`NLIMatrix`), early
  exit, and failure isolation (a failing batch is bisected down to its bad records).
* :mod:`.decide`: verdicts, scores, bands, citations and reference labels from a matrix.
* :mod:`.runner`: streams records through the three stages in blocks (workers optional);
  ``FaithfulnessScorer.score`` / ``score_batch`` / ``score_stream``, the server's micro-batcher
  and the other shells all go through it.
* :mod:`.stages`: plan, infer and decide one step at a time (``scorer.stages``), for callers
  that batch or re-aggregate themselves (calibration).

:class:`Parts` holds what the stages share: the loaded parts (claim splitter, NLI model,
pre-filter) and the settings. The stages use the verdict rules, scores and masks of
:mod:`nli_faith.scoring`, :mod:`nli_faith.rules` and :mod:`nli_faith.text`.
"""

from nli_faith.engine.decide import aggregate
from nli_faith.engine.failures import Failed, error_result
from nli_faith.engine.infer import NLIMatrix
from nli_faith.engine.parts import Parts
from nli_faith.engine.plan import Plan, Planned
from nli_faith.engine.runner import Runner
from nli_faith.engine.stages import Stages

__all__ = [
    "Failed",
    "NLIMatrix",
    "Parts",
    "Plan",
    "Planned",
    "Runner",
    "Stages",
    "aggregate",
    "error_result",
]
