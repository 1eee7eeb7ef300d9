"""nli-faith: claim-level faithfulness scoring with a local NLI cross-encoder.

Example:
    >>> from nli_faith import FaithfulnessScorer
    >>> scorer = FaithfulnessScorer(device="cpu")
    >>> scorer.score("Paris is in France.", "Paris is the capital of France.").strict
    1.0

Every option is a field of :class:`ScorerConfig` (``from nli_faith import ScorerConfig``):
``FaithfulnessScorer(config=ScorerConfig(device="cpu"), entail_threshold=0.6)``.

The public names are imported lazily, so ``import nli_faith`` (and
``nli-faith --help``) does not load torch.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "FaithfulnessScorer": "nli_faith.scorer",
    "NLIMatrix": "nli_faith.scorer",
    "ScorerConfig": "nli_faith.config",
    "Limits": "nli_faith.records",
    "FaithfulnessResult": "nli_faith.results",
    "ClaimVerdict": "nli_faith.results",
    "Evidence": "nli_faith.results",
    "NLIModel": "nli_faith.nli.model",
    "ClaimSplitter": "nli_faith.text.claims",
    "Claim": "nli_faith.text.claims",
    "LabelMap": "nli_faith.nli.labels",
}
__all__ = [
    "Claim",
    "ClaimSplitter",
    "ClaimVerdict",
    "Evidence",
    "FaithfulnessResult",
    "FaithfulnessScorer",
    "LabelMap",
    "Limits",
    "NLIMatrix",
    "NLIModel",
    "ScorerConfig",
    "__version__",
]

if TYPE_CHECKING:  # pragma: no cover
    from nli_faith.config import ScorerConfig
    from nli_faith.nli.labels import LabelMap
    from nli_faith.nli.model import NLIModel
    from nli_faith.records import Limits
    from nli_faith.results import ClaimVerdict, Evidence, FaithfulnessResult
    from nli_faith.scorer import FaithfulnessScorer, NLIMatrix
    from nli_faith.text.claims import Claim, ClaimSplitter


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'nli_faith' has no attribute {name!r}")
