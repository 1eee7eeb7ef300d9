"""The rows ``nli-faith train`` trains on: the training files less the development split,
what an :data:`Augment` step adds (``python -m research.train`` passes one that makes synthetic
pairs), the unlabelled pairs and the teacher's probabilities when distilling."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from nli_faith.errors import E_TEACHER_BOTH, OptionError

from .data import NLIExample, expand_paths, read_nli_jsonl, split_dev
from .options import TrainConfig

logger = logging.getLogger(__name__)

#: A step that adds made rows to the training rows (after the development split is taken
#: out): ``augment(rows, counts) -> (rows, held-out file or None)``. It adds a line to
#: ``counts`` for what it adds or removes; the held-out file (NLI JSONL) is evaluated beside
#: the evaluation files when training ends.
Augment = Callable[[list[NLIExample], dict[str, int]], tuple[list[NLIExample], "Path | None"]]


def load_training_rows(
    cfg: TrainConfig, augment: Augment | None = None
) -> tuple[list[NLIExample], dict[str, int], Path | None, list[NLIExample]]:
    """Training rows (files, dev split removed, ``augment``'s rows added), counts, the
    held-out file ``augment`` returned and the development rows."""
    files = expand_paths(cfg.train_files)
    rows: list[NLIExample] = []
    counts: dict[str, int] = {}
    for path in files:
        part = read_nli_jsonl(path)
        counts[str(path)] = len(part)
        rows.extend(part)
    dev: list[NLIExample] = []
    if cfg.dev_fraction > 0:
        rows, dev = split_dev(rows, fraction=cfg.dev_fraction, seed=cfg.dev_seed)
        counts["held out as the development split (by premise)"] = len(dev)
    for path in expand_paths(cfg.dev_files):
        part = read_nli_jsonl(path)
        counts[f"development file {path}"] = len(part)
        dev.extend(part)
    held_path = None
    if augment is not None:
        rows, held_path = augment(rows, counts)
    if cfg.unlabelled > 0:
        from .distill import unlabelled_pairs

        originals = [r for r in rows if not r.source.startswith("synthetic")]
        made = unlabelled_pairs(originals, n=cfg.unlabelled, seed=cfg.unlabelled_seed)
        counts["unlabelled pairs (teacher only)"] = len(made)
        rows.extend(made)
    return rows, counts, held_path, dev


def teacher_table(cfg: TrainConfig, rows: list[NLIExample]):
    """Teacher probabilities for ``rows``: read from ``teacher_probs`` or computed (and saved
    to OUTPUT/teacher_probs.npz, reused on resume)."""
    from .distill import TeacherProbs, teacher_probs

    if cfg.teacher and cfg.teacher_probs:
        raise OptionError(E_TEACHER_BOTH)
    if cfg.teacher_probs:
        return TeacherProbs.load(cfg.teacher_probs)
    cached = Path(cfg.output_dir) / "teacher_probs.npz"
    if cached.is_file():
        return TeacherProbs.load(cached)
    pairs = sorted({(r.premise, r.hypothesis) for r in rows})
    logger.info("teacher %s: scoring %d pairs", cfg.teacher, len(pairs))
    table = teacher_probs(cfg.teacher, pairs, device=cfg.device, max_length=cfg.max_length)
    table.save(cached)
    return table
