"""An older checkout of the library beside this one, for before / after comparisons.

:func:`import_before` copies the older ``nli_faith`` under the name ``nli_faith_before``
(its imports rewritten) so that both versions load in one process; the verdict-agreement
benchmark and the before / after studies (``research/studies/``) use it.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BUNDLED = REPO / "models" / "nli-faith-minilm-l6"


def bundled_scorer(cls, options: dict | None):
    """A scorer of the class ``cls`` (this version's or an older checkout's) over the
    bundled model, with keyword ``options``; ``None``: that version's own
    ``guardrail()`` preset."""
    return cls.guardrail(str(BUNDLED)) if options is None else cls(str(BUNDLED), **options)


def pairs_scored(scorer, response: str, context) -> int:
    """The (claim, chunk) pairs the model scores for one request: through this library's
    stages, or the ``matrix`` method of an older checkout's scorer."""
    if hasattr(scorer, "stages"):
        m = scorer.stages.matrices([scorer.stages.plan(response, context)])[0]
    else:
        m = scorer.matrix(response, context)
    return int(m.mask.sum())


def import_before(src: Path):
    """The older library's ``FaithfulnessScorer``, imported as ``nli_faith_before``."""
    tmp = Path(tempfile.mkdtemp(prefix="nli_faith_before_"))
    dst = tmp / "nli_faith_before"
    shutil.copytree(src / "nli_faith", dst)
    for py in dst.rglob("*.py"):
        text = py.read_text(encoding="utf-8")
        py.write_text(re.sub(r"\bnli_faith\b", "nli_faith_before", text), encoding="utf-8")
    (tmp / "models").symlink_to(src / "models")  # where its registry looks for models
    sys.path.insert(0, str(tmp))
    from nli_faith_before.scorer import FaithfulnessScorer as Before  # noqa: PLC0415

    return Before
