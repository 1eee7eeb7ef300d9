"""Stage 2, inference: the NLI matrix of many plans in one model pass.

``probs[claim, chunk] = (entail, neutral, contradict)`` for each pair a :class:`Plan`'s
mask selects; the pairs of all plans are scored together (the model sorts and batches
them). With early exit, each claim is first scored against its most promising sentence
and its other chunks only if that sentence does not support it: a claim is ``yes`` as soon
as *one* chunk entails it (and may support it), so the other pairs of a supported claim
cannot change its verdict; only its ``p_entail`` and evidence may come from a lesser chunk.

Failure isolation (:func:`run_isolated`): many records share the model's batches, so an
exception raised while scoring them does not say whose pairs caused it; the batch is
bisected until the failing records stand alone, and the others get their results
(computed exactly as in the full batch).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from nli_faith.engine.parts import Parts
from nli_faith.engine.plan import Plan, number_mask
from nli_faith.nli.labels import ENTAIL_IDX
from nli_faith.nli.model import Encoded, NLIModel
from nli_faith.scoring.citations import cited_chunks_mask
from nli_faith.scoring.composite import is_composite
from nli_faith.scoring.prefilter import coverage_similarity
from nli_faith.text.align import align_premise
from nli_faith.text.chunking import Chunk, sentence_members
from nli_faith.text.claims import Claim

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class NLIMatrix:
    """The NLI "image" of one response: ``probs[claim, chunk] = (entail, neutral, contradict)``."""

    claims: list[Claim]
    chunks: list[Chunk]
    probs: np.ndarray  # (claims, chunks, 3)
    mask: np.ndarray  # (claims, chunks) bool: pairs that were scored
    #: With early exit, the entailment threshold that settled claims: verdicts re-derived
    #: with a higher one would be wrong (the skipped pairs were never scored).
    settled_at: float | None = None
    #: The number check's mask (:func:`~nli_faith.engine.plan.number_mask`) when scoring
    #: already computed it (early exit), so that the decision does not compute it again.
    numbers: np.ndarray | None = None


def fill(parts: Parts, plans: Sequence[Plan], progress: bool = False) -> list[NLIMatrix]:
    """The NLI matrix of each plan, with the pairs of all of them in one model pass."""
    probs = [np.zeros((len(p.claims), len(p.chunks), 3), dtype=np.float32) for p in plans]
    if _encoded(parts, plans):
        # encoded by the planning workers: this process only runs the model
        encoded = Encoded.join([p.encoded for p in plans])
        _scatter(
            [p.mask for p in plans],
            probs,
            parts.nli.predict_encoded(encoded, show_progress_bar=progress),
        )
        return [NLIMatrix(p.claims, p.chunks, prob, p.mask) for p, prob in zip(plans, probs)]
    todo = [p.mask for p in plans]
    firsts = [np.zeros_like(mask) for mask in todo]
    numbers: list[np.ndarray | None] = [None] * len(plans)
    if parts.early_exit:
        firsts, todo, numbers = _first_round(parts, plans, probs, progress)
    _score_pairs(parts, plans, todo, probs, progress)
    settled_at = parts.entail_threshold if parts.early_exit else None
    return [
        NLIMatrix(p.claims, p.chunks, prob, first | rest, settled_at, number)
        for p, first, rest, prob, number in zip(plans, firsts, todo, probs, numbers)
    ]


def fill_isolated(
    parts: Parts, plans: Sequence[Plan], progress: bool = False
) -> list[NLIMatrix | Exception]:
    """:func:`fill`, with each plan whose pairs make the model pass fail given its exception."""
    return run_isolated(lambda ps: fill(parts, ps, progress), plans)


def _score_pairs(
    parts: Parts,
    plans: Sequence[Plan],
    masks: Sequence[np.ndarray],
    probs: list[np.ndarray],
    progress: bool,
) -> None:
    """Score the pairs in ``masks`` (one per plan) into ``probs``, in one model pass."""
    pairs = [pair for plan, mask in zip(plans, masks) for pair in plan_pairs(plan, mask)]
    if not pairs:
        return
    _scatter(masks, probs, parts.nli.predict(pairs, show_progress_bar=progress))


def _encoded(parts: Parts, plans: Sequence[Plan]) -> bool:
    """Were all of ``plans`` encoded (by planning workers) for this model, as one pass
    over all their pairs scores them?"""
    key = getattr(parts.nli, "encoding_key", None) if isinstance(parts.nli, NLIModel) else None
    return (
        key is not None
        and not parts.early_exit
        and bool(plans)
        and all(p.encoded is not None and p.encoded.key == key for p in plans)
    )


def _scatter(masks: Sequence[np.ndarray], probs: list[np.ndarray], flat: np.ndarray) -> None:
    """Put the rows of ``flat`` (the pairs of each mask in turn, row by row) in place."""
    pos = 0
    for mask, p in zip(masks, probs):
        n = int(mask.sum())
        p[mask] = flat[pos : pos + n]
        pos += n


def plan_pairs(plan: Plan, mask: np.ndarray) -> list[tuple[str, str]]:
    """The ``(premise, claim)`` texts of the pairs of ``mask``, row by row: each chunk
    aligned to its claim (:func:`~nli_faith.text.align.align_premise`)."""
    out = []
    for i, j in zip(*np.nonzero(mask)):
        claim = plan.claims[i].text
        out.append((align_premise(plan.chunks[j].text, claim), claim))
    return out


def encode_plan(parts: Parts, plan: Plan) -> Plan:
    """``plan`` with its pairs' token ids (:attr:`Plan.encoded`), when the model's process
    will score all of its pairs in one pass (no early exit) and can take ids; else
    ``plan``. Planning workers call it, so that the model's process only runs the model."""
    if parts.early_exit or not isinstance(parts.nli, NLIModel):
        return plan
    encoded = parts.nli.encode(plan_pairs(plan, plan.mask)).packed()
    return dataclasses.replace(plan, encoded=encoded)


def _first_round(
    parts: Parts, plans: Sequence[Plan], probs: list[np.ndarray], progress: bool
) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray | None]]:
    """Early exit: score each claim's most promising sentence.

    Returns the pairs scored, the pairs still to score (those of unsettled claims) and
    each plan's number mask where it was computed.
    """
    firsts = []
    for plan in plans:
        if not plan.claims or not plan.chunks:
            firsts.append(np.zeros_like(plan.mask))
            continue
        members = sentence_members(plan.chunks)
        sentences = np.array([m == [j] for j, m in enumerate(members)])
        sim = coverage_similarity([c.text for c in plan.claims], [c.text for c in plan.chunks])
        # composites are scored in the second round, only for claims still unsettled
        scored = plan.mask & ~is_composite(plan.chunks)[None, :]
        firsts.append(first_candidates(sim, scored, sentences))
    _score_pairs(parts, plans, firsts, probs, progress)
    todo = []
    numbers: list[np.ndarray | None] = []
    for plan, first, p in zip(plans, firsts, probs):
        rest = plan.mask & ~first
        number = None
        if first.any():
            if parts.number_check:
                number = number_mask(plan.claims, plan.chunks)
            support = number
            if any(c.cites is not None for c in plan.claims):  # only cited documents settle
                cited = cited_chunks_mask([c.cites for c in plan.claims], plan.chunks)
                support = cited if support is None else support & cited
            done = settled_claims(
                p, first, entail_threshold=parts.entail_threshold, support_mask=support
            )
            rest[done] = False
        todo.append(rest)
        numbers.append(number)
    return firsts, todo, numbers


def first_candidates(
    similarity: np.ndarray, mask: np.ndarray, preferred: np.ndarray | None = None
) -> np.ndarray:
    """For each claim, the one candidate to score first: ``(claims, chunks)`` bool.

    The most similar chunk among those in ``mask``, taken among the ``preferred`` chunks
    (e.g. single sentences: short, so cheap) when the claim has any.

    Example:
        >>> sim = np.array([[0.2, 0.9, 0.5], [0.1, 0.2, 0.3]])
        >>> mask = np.array([[True, False, True], [False, False, False]])
        >>> first_candidates(sim, mask).tolist()
        [[False, False, True], [False, False, False]]
    """
    sim = np.where(mask, similarity, -np.inf)
    if preferred is not None:
        pref = np.where(preferred[None, :], sim, -np.inf)
        has_pref = np.isfinite(pref).any(axis=1)
        sim = np.where(has_pref[:, None], pref, sim)
    first = np.zeros(mask.shape, dtype=bool)
    rows = np.flatnonzero(np.isfinite(sim).any(axis=1))
    first[rows, sim[rows].argmax(axis=1)] = True
    return first


def settled_claims(
    probs: np.ndarray,
    scored: np.ndarray,
    *,
    entail_threshold: float,
    support_mask: np.ndarray | None = None,
) -> np.ndarray:
    """Claims that a scored pair already supports: their verdict is ``yes`` whatever else.

    Example:
        >>> probs = np.array([[[0.9, 0.05, 0.05]], [[0.3, 0.6, 0.1]]])
        >>> settled_claims(probs, np.ones((2, 1), bool), entail_threshold=0.5).tolist()
        [True, False]
    """
    ok = scored if support_mask is None else scored & support_mask
    return (np.where(ok, probs[..., ENTAIL_IDX], -1.0) >= entail_threshold).any(axis=1)


def run_isolated(fn: Callable[[list[T]], Sequence[R]], items: Sequence[T]) -> list[R | Exception]:
    """``fn(items)``, or where it raises, each item's own result or exception.

    ``fn`` maps a list of items to one result per item. On an exception the list is
    split in halves and each half is run again, down to single items, so a batch with
    one bad record costs about two extra passes over the batch, not one pass per record.

    Example:
        >>> def invert(xs):
        ...     return [1 / x for x in xs]
        >>> [type(r).__name__ if isinstance(r, Exception) else r
        ...  for r in run_isolated(invert, [1, 0, 4])]
        [1.0, 'ZeroDivisionError', 0.25]
    """
    items = list(items)
    if not items:
        return []
    try:
        out = list(fn(items))
    except Exception as err:  # noqa: BLE001 - isolated: the failing items carry it
        if len(items) == 1:
            return [err]
        mid = len(items) // 2
        return run_isolated(fn, items[:mid]) + run_isolated(fn, items[mid:])
    if len(out) != len(items):
        raise RuntimeError(f"expected {len(items)} results, got {len(out)}")
    return out
