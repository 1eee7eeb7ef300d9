"""Distillation: a small student learns a larger teacher's probabilities.

The teacher (for example ``nli-faith-mpnet-base``, or several models whose
probabilities are averaged: an ensemble) scores every training pair once; the student
is then trained on

    loss = alpha * gold_loss + (1 - alpha) * KL(teacher || student)

where ``gold_loss`` is the usual 3-way / binary cross-entropy for rows with a
gold label, and the KL term covers every row the teacher scored, including
unlabelled pairs (:func:`unlabelled_pairs`) that have no gold label at all.

Teacher probabilities are stored as a compact ``.npz`` keyed by a hash of the
(premise, hypothesis) pair (:class:`TeacherProbs`), so a file computed on a GPU
box can be brought back and reused: it is float16, about 26 bytes a pair.

Example:
    >>> tp = TeacherProbs.from_pairs([("P.", "H.")], [[0.7, 0.2, 0.1]])
    >>> tp.lookup([("P.", "H."), ("P.", "other")]).astype(float).round(2).tolist()
    [[0.7, 0.2, 0.1], [nan, nan, nan]]
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nli_faith.training.data import NOT_ENTAILMENT_ID, NLIExample

#: Label of a row that has no gold label (an unlabelled pair: teacher only).
NO_LABEL = -1


def pair_key(premise: str, hypothesis: str) -> str:
    """A stable 16-hex-digit key of one (premise, hypothesis) pair."""
    return hashlib.sha1(f"{premise}\x1f{hypothesis}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class TeacherProbs:
    """Teacher probabilities ``(entailment, neutral, contradiction)`` per pair key."""

    keys: np.ndarray  # (n,) '<U16'
    probs: np.ndarray  # (n, 3) float16

    @classmethod
    def from_pairs(cls, pairs: Sequence[tuple[str, str]], probs) -> TeacherProbs:
        keys = np.array([pair_key(p, h) for p, h in pairs], dtype="<U16")
        return cls(keys, np.asarray(probs, dtype=np.float16).reshape(-1, 3))

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, keys=self.keys, probs=self.probs)
        return path if path.suffix == ".npz" else path.with_suffix(path.suffix + ".npz")

    @classmethod
    def load(cls, path: str | Path) -> TeacherProbs:
        with np.load(path) as data:
            return cls(data["keys"], data["probs"])

    def lookup(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """``(len(pairs), 3)`` float32; NaN rows for pairs the teacher did not score."""
        index = {k: i for i, k in enumerate(self.keys.tolist())}
        out = np.full((len(pairs), 3), np.nan, dtype=np.float32)
        for row, (p, h) in enumerate(pairs):
            i = index.get(pair_key(p, h))
            if i is not None:
                out[row] = self.probs[i]
        return out


def teacher_probs(
    teacher: str | Sequence[str],
    pairs: Sequence[tuple[str, str]],
    *,
    device: str | None = None,
    batch_size: int = 256,
    max_length: int | None = None,
    show_progress_bar: bool = True,
) -> TeacherProbs:
    """Score ``pairs`` with the ``teacher`` NLI model (registry name, path or hub id); with
    several teachers, their probabilities averaged (an ensemble, one model loaded at a time)."""
    from nli_faith.nli.model import NLIModel

    names = [teacher] if isinstance(teacher, str) else list(teacher)
    total = np.zeros((len(pairs), 3), dtype=np.float64)
    for name in names:
        nli = NLIModel(name, device=device, max_length=max_length, batch_size=batch_size)
        # Pairs longer than the teacher's window are truncated on the premise side, as in training.
        total += np.asarray(nli.predict(list(pairs), show_progress_bar=show_progress_bar))
        del nli
    return TeacherProbs.from_pairs(pairs, total / len(names))


_SENT_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_WORD_RE = re.compile(r"[A-Za-z]{5,}")


def unlabelled_pairs(
    rows: Sequence[NLIExample], *, n: int, seed: int = 41, max_premise_words: int = 80
) -> list[NLIExample]:
    """``n`` pairs with no gold label, made from the training premises, for the teacher to label.

    Half pair a premise with the hypothesis of another row that shares a rare-ish
    word with it (hard, mostly neutral or contradicting), half with a sentence of
    another premise of the same source that shares a word (topical, unlabelled).
    """
    rng = random.Random(seed)
    pool = [r for r in rows if 3 <= len(r.premise.split()) <= max_premise_words]
    if len(pool) < 2:
        return []
    by_word: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(pool):
        for w in set(_WORD_RE.findall(r.hypothesis.lower())):
            by_word[w].append(i)
    out: list[NLIExample] = []
    seen: set[tuple[str, str]] = {(r.premise, r.hypothesis) for r in pool}
    attempts = 0
    while len(out) < n and attempts < 20 * n:
        attempts += 1
        r = rng.choice(pool)
        words = sorted(set(_WORD_RE.findall(r.premise.lower())))
        if not words:
            continue
        cands = by_word.get(rng.choice(words), [])
        if not cands:
            continue
        other = pool[rng.choice(cands)]
        if other.premise == r.premise:
            continue
        if rng.random() < 0.5:
            hyp = other.hypothesis
        else:
            sents = [s for s in _SENT_RE.split(other.premise) if 4 <= len(s.split()) <= 30]
            if not sents:
                continue
            hyp = rng.choice(sents)
        if (r.premise, hyp) in seen:
            continue
        seen.add((r.premise, hyp))
        out.append(NLIExample(r.premise, hyp, NO_LABEL, f"{r.source}+unlabelled"))
    return out


def distill_loss(logits, labels, teacher, *, alpha: float):
    """Mixed gold / teacher loss of one batch (see the module docstring).

    ``labels``: 0-2 three-way, 3 binary not-entailed, -1 none. ``teacher``:
    ``(batch, 3)`` probabilities in (entailment, neutral, contradiction) order,
    NaN where the teacher did not score the row. Rows with neither are ignored.
    """
    import torch

    logp = torch.log_softmax(logits.float(), dim=-1)
    zero = logp.sum() * 0.0
    gold = labels >= 0
    gold_loss = zero
    if gold.any():
        lab = labels.clamp(min=0)
        three_way = -logp.gather(1, lab.clamp(max=2).unsqueeze(1)).squeeze(1)
        not_entail = -torch.logsumexp(logp[:, 1:], dim=-1)
        per_row = torch.where(lab == NOT_ENTAILMENT_ID, not_entail, three_way)
        gold_loss = per_row[gold].mean()
    teacher = teacher.float()
    has_t = ~torch.isnan(teacher[:, 0])
    kl = zero
    if has_t.any():
        t = teacher[has_t].clamp(min=1e-6)
        t = t / t.sum(dim=-1, keepdim=True)
        kl = (t * (t.log() - logp[has_t])).sum(dim=-1).mean()
    if not has_t.any():
        return gold_loss
    if not gold.any():
        return kl
    return alpha * gold_loss + (1.0 - alpha) * kl
