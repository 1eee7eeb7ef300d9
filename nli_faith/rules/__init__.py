"""Rules that decide claims the NLI model reads poorly, each decision explained.

The rules stage runs after the model's verdicts (:func:`apply_rules`) and may replace
a claim's verdict with one it can justify from the text alone; the claim's ``rule``
field then says which rule decided and why. The rules:

* **context statements** (:mod:`nli_faith.text.context_statements`): an abstention
  ("Unable to answer based on the given passages.") is no claim about the world: it is
  taken out of the claims and the scores, and counted in ``n_abstentions``; an
  absence claim ("X is not mentioned") is judged by :mod:`nli_faith.rules.absence`;
* **trends and comparisons** over a series of yearly values (rose / fell from ... to,
  by N points, doubled, higher than, the highest): :mod:`nli_faith.rules.trends`;
* **aggregates**: a count of what the context enumerates otherwise ("the three
  trials" against a first and a second trial) is ``no``: :mod:`nli_faith.rules.aggregates`;
* **exceptions**: a supported claim that a more specific statement about its subject
  contradicts (another bound, a negation) is ``no``: :mod:`nli_faith.rules.exceptions`;
* **conflicts**: a model contradiction shows its conflict: the number, date, name,
  negation or opposite word that differs from its evidence, or that none was found
  (``Ruled.set_aside``, shown as the claim's ``decision_note``; the verdict stays the
  model's): :mod:`nli_faith.rules.conflicts`;
* **summaries**: a claim that sums up several statements ("the whole process involves
  several network elements, each with its own role") that the model leaves ``idk`` is
  ``yes`` when the statements it sums up hold every specific word of it:
  :mod:`nli_faith.rules.summaries`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from nli_faith.rules.absence import judge_absence
from nli_faith.rules.aggregates import judge_count
from nli_faith.rules.conflicts import conflict_note
from nli_faith.rules.exceptions import differing_bound, judge_exception
from nli_faith.rules.summaries import judge_summary
from nli_faith.rules.trends import judge_trend
from nli_faith.scoring.composite import is_composite
from nli_faith.scoring.verdicts import ClaimDecisions
from nli_faith.text.chunking import Chunk, sentence_members
from nli_faith.text.claims import Claim

__all__ = ["Ruled", "apply_rules", "explain_abstentions", "rule_rows"]


@dataclass(frozen=True)
class Ruled:
    """The decisions after the rules, what each rule said, and the abstentions."""

    decisions: ClaimDecisions
    notes: list[str | None]  # per claim: the rule that decided it and why, else None
    abstentions: np.ndarray  # bool per claim: an abstention (left out of the scores)
    #: per claim: for a model contradiction, the conflict it shows (or that none shows)
    set_aside: list[str | None] = field(default_factory=list)

    @property
    def kept(self) -> list[int]:
        return [i for i, a in enumerate(self.abstentions) if not a]


def rule_rows(claims: Sequence[Claim]) -> np.ndarray:
    """Claims decided by rule alone (no model pair is worth scoring for them)."""
    return np.array([c.kind is not None for c in claims], dtype=bool)


def apply_rules(claims: Sequence[Claim], chunks: Sequence[Chunk], d: ClaimDecisions) -> Ruled:
    """``d`` with the verdicts the rules decide; the others are left as the model's."""
    n = len(claims)
    verdicts = np.array(d.verdicts, dtype=object)
    p_e, p_c = np.array(d.p_entail, dtype=np.float32), np.array(d.p_contradict, dtype=np.float32)
    e_chunk, c_chunk = np.array(d.best_entail_chunk), np.array(d.best_contradict_chunk)
    notes: list[str | None] = [None] * n
    set_aside: list[str | None] = [None] * n
    abstain = np.zeros(n, dtype=bool)
    plain = [k.text for k, comp in zip(chunks, is_composite(chunks)) if not comp]
    plain_idx = [j for j, comp in enumerate(is_composite(chunks)) if not comp]
    for i, claim in enumerate(claims):
        if claim.kind == "abstention":
            abstain[i] = True
            notes[i] = "abstention: the sentence declines to answer; it is not counted"
        elif claim.kind == "absence":
            j = judge_absence(claim.about, plain)
            chunk = plain_idx[j.chunk] if j.chunk >= 0 else -1
            verdicts[i] = j.verdict
            p_e[i] = 1.0 if j.verdict == "yes" else 0.0
            p_c[i] = 1.0 if j.verdict == "no" else 0.0
            e_chunk[i] = -1 if j.verdict == "no" else chunk
            c_chunk[i] = chunk if j.verdict == "no" else -1
            notes[i] = f"absence claim: {j.note}"
        elif (t := judge_trend(claim.text, plain)) is not None:
            chunk = plain_idx[t.chunk]
            verdicts[i] = t.verdict
            p_e[i] = 1.0 if t.verdict == "yes" else 0.0
            p_c[i] = 1.0 if t.verdict == "no" else 0.0
            e_chunk[i] = chunk if t.verdict == "yes" else -1
            c_chunk[i] = chunk if t.verdict == "no" else -1
            notes[i] = f"trend over a series: {t.note}"
        elif (g := judge_count(claim.text, plain)) is not None:
            chunk = plain_idx[g.chunk] if g.chunk >= 0 else -1
            verdicts[i] = g.verdict
            p_e[i], p_c[i] = (1.0, 0.0) if g.verdict == "yes" else (0.0, 1.0)
            e_chunk[i] = chunk if g.verdict == "yes" else -1
            c_chunk[i] = chunk if g.verdict == "no" else -1
            notes[i] = f"aggregate: {g.note}"
        elif verdicts[i] == "yes" and (x := _exception(claim.text, chunks, int(e_chunk[i]))):
            k, note = x
            verdicts[i], p_e[i], p_c[i] = "no", 0.0, 1.0
            c_chunk[i] = k
            notes[i] = f"exception: {note}"
        elif verdicts[i] == "idk" and (y := _summary(claim.text, chunks)) is not None:
            k, note = y
            verdicts[i], p_e[i], p_c[i] = "yes", 1.0, 0.0
            e_chunk[i], c_chunk[i] = k, -1
            notes[i] = f"summary: {note}"
        elif verdicts[i] == "no" and c_chunk[i] >= 0:  # the model's: show its conflict
            set_aside[i] = conflict_note(claim.text, chunks[int(c_chunk[i])].text)
    return Ruled(
        replace(
            d,
            verdicts=verdicts,
            p_entail=p_e,
            p_contradict=p_c,
            best_entail_chunk=e_chunk,
            best_contradict_chunk=c_chunk,
        ),
        notes,
        abstain,
        set_aside,
    )


def _exception(claim: str, chunks: Sequence[Chunk], j: int) -> tuple[int, str] | None:
    """A single-sentence chunk more specific than the sentences of the supporting chunk
    ``j`` that decides against the claim: ``(its index, why)``."""
    if j < 0:
        return None
    members = _members(tuple(chunks))
    singles = sorted((k for k, m in enumerate(members) if m == [k] and not chunks[k].parts),
                     key=lambda k: len(chunks[k].text))  # fmt: skip
    texts = [chunks[k].text for k in singles]
    general = [p.text for p in chunks[j].parts] or [chunks[m].text for m in members[j]]
    if len(general) == 1 and (why := differing_bound(claim, general[0])):
        return j, why
    for g in general:
        x = judge_exception(claim, texts, g)
        if x is not None:
            return singles[x.chunk], x.note
    return None


def _summary(claim: str, chunks: Sequence[Chunk]) -> tuple[int, str] | None:
    """A summary claim the context's sentences support: ``(evidence chunk, why)``; the
    evidence is the composite joining the statements when there is one."""
    members = _members(tuple(chunks))
    singles = sorted((k for k, m in enumerate(members) if m == [k] and not chunks[k].parts),
                     key=lambda k: (chunks[k].doc_index, chunks[k].start))  # fmt: skip
    j = judge_summary(claim, [chunks[k].text for k in singles])
    if j is None:
        return None
    parts = [chunks[singles[s]] for s in j.statements]
    spans = [(c.doc_index, c.start, c.end) for c in parts]
    for k, c in enumerate(chunks):
        if c.parts and [(p.doc_index, p.start, p.end) for p in c.parts] == spans:
            return k, j.note
    return singles[j.statements[0]], j.note


@lru_cache(maxsize=8)
def _members(chunks: tuple[Chunk, ...]) -> list[list[int]]:
    return sentence_members(chunks)  # the same for every claim of a response


def explain_abstentions(n: int) -> str:
    """The reason's sentence about abstentions ("" when there are none)."""
    if not n:
        return ""
    s = "sentence declines" if n == 1 else "sentences decline"
    return (
        f"{n} {s} to answer (an abstention, not a claim about the world): left out of the scores."
    )
