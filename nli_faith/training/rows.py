"""The rows ``nli-faith train`` trains on: the training files less the development split,
the synthetic sets, multi-fact, structured and unlabelled pairs, and the teacher's
probabilities when distilling."""

from __future__ import annotations

import hashlib
import json
import logging
import random
from pathlib import Path

from nli_faith.errors import E_TEACHER_BOTH, OptionError

from .data import NLIExample, expand_paths, read_nli_jsonl, split_dev
from .options import TrainConfig

logger = logging.getLogger(__name__)


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def heldout_premises(
    rows: list[NLIExample], *, seed: int, n_held: int
) -> tuple[list[str], list[str]]:
    """The synthetic generator's premises split into (held out, rest), seeded: ``--synthetic``
    trains on the rest and evaluates on swaps made from the held-out ones."""
    premises = sorted({r.premise for r in rows if 3 <= len(r.premise.split()) <= 80})
    random.Random(seed).shuffle(premises)
    n = min(n_held, len(premises) // 20)
    return premises[:n], premises[n:]


def _synthetic_sets(cfg: TrainConfig, rows: list[NLIExample]) -> tuple[Path, Path, set[str]]:
    """Generate (or reuse) synthetic train and held-out files; return held-out premise keys."""
    from .synthetic import generate, write_jsonl

    out = Path(cfg.output_dir) / "synthetic"
    train_path, held_path, keys_path = (
        out / "synthetic_train.jsonl",
        out / "synthetic_heldout.jsonl",
        out / "heldout_premises.json",
    )
    if not (train_path.exists() and held_path.exists() and keys_path.exists()):
        held, rest = heldout_premises(
            rows, seed=cfg.synthetic_seed, n_held=cfg.synthetic_heldout_premises
        )
        logger.info("generating synthetic pairs from %d premises", len(held) + len(rest))
        write_jsonl(
            generate(held, seed=cfg.synthetic_seed + 1, spacy_model=cfg.spacy_model), held_path
        )
        write_jsonl(
            generate(rest, seed=cfg.synthetic_seed, spacy_model=cfg.spacy_model), train_path
        )
        keys_path.write_text(json.dumps(sorted(_key(p) for p in held)), encoding="utf-8")
    return train_path, held_path, set(json.loads(keys_path.read_text(encoding="utf-8")))


def load_training_rows(
    cfg: TrainConfig,
) -> tuple[list[NLIExample], dict[str, int], Path | None, list[NLIExample]]:
    """Training rows (files, dev split removed, synthetic sets added), counts, the held-out
    synthetic file and the development rows."""
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
    if cfg.synthetic:
        train_path, held_path, held_keys = _synthetic_sets(cfg, rows)
        before = len(rows)
        rows = [r for r in rows if _key(r.premise) not in held_keys]
        counts["removed (premise held out for the synthetic eval)"] = before - len(rows)
        synth = read_nli_jsonl(train_path)
        counts[str(train_path)] = len(synth)
        rows.extend(synth)
    if cfg.distractor_rate > 0:
        from .synthetic import with_distractors

        padded = with_distractors(rows, rate=cfg.distractor_rate, seed=cfg.synthetic_seed + 4)
        counts["premise padded with an unrelated sentence (copies)"] = len(padded)
        rows.extend(padded)
    originals = [r for r in rows if not r.source.startswith("synthetic")]
    if cfg.multi_fact > 0:
        from .multifact import conjunction_pairs, summary_pairs

        half = cfg.multi_fact // 2
        made = conjunction_pairs(originals, n=cfg.multi_fact - half, seed=cfg.synthetic_seed + 5)
        made += summary_pairs(originals, n=half, seed=cfg.synthetic_seed + 6)
        counts["synthetic multi-fact (conjunctions, summaries)"] = len(made)
        rows.extend(_as_examples(made))
    if cfg.structured > 0:
        from .structured import structured_pairs

        made = structured_pairs(n=cfg.structured, seed=cfg.synthetic_seed + 7)
        counts["synthetic structured (tables, JSON, key-value)"] = len(made)
        rows.extend(_as_examples(made))
    if cfg.unlabelled > 0:
        from .distill import unlabelled_pairs

        made = unlabelled_pairs(originals, n=cfg.unlabelled, seed=cfg.synthetic_seed + 8)
        counts["unlabelled pairs (teacher only)"] = len(made)
        rows.extend(made)
    return rows, counts, held_path, dev


def _as_examples(pairs) -> list[NLIExample]:
    from .data import LABEL_IDS

    return [
        NLIExample(p.premise, p.hypothesis, LABEL_IDS[p.label], f"synthetic_{p.kind}")
        for p in pairs
    ]


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
