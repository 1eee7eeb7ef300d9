"""Composite premises: a claim's best sentences from every document, read as one premise.

Support for a claim is often spread over sentences that no chunk holds together: the
cancellation rule in one retrieved document, the refund rule in another. For each claim,
:func:`plan_composites` joins sentences from all documents into one premise (a
*composite*), ranked as the lexical pre-filter ranks them
(:func:`~nli_faith.scoring.prefilter.coverage_similarity`) and joined in document order,
in one of two ways (``premise``, the scorer's ``composite_premise``):

* ``ranked`` (the default; MiniCheck's premise, :func:`ranked_sentences`): every
  sentence that shares a word with the claim, best first, as many as fit the chunk
  token budget (at most :data:`DEFAULT_RANKED_SENTENCES`). On rag-dev it lifted
  RAGTruth F1 from 59.4 to 60.4 (QA 64.6 to 67.5, summaries 50.0 to 47.3) and cut the
  ``no`` in faithful answers from 104 to 83, the faithfulness sets' soft AUC within one
  standard error of the covering premise's.
* ``covering``: its best few sentences (:func:`pick_sentences`), each kept only if it
  adds claim words the better-ranked ones lack, at most ``max_sentences``, within the
  budget, under the guards below.

A composite is an extra chunk of the NLI matrix, scored only against its own claim (its
column of the mask is True for that claim alone); its
:attr:`~nli_faith.text.chunking.Chunk.parts` are the sentences it joins.

A *summary claim* ("The whole process involves several network elements, each with its
own role.", "The plan includes storage, support and early access.") sums up several
statements that no one sentence holds. For it,
:func:`~nli_faith.scoring.summary_statements.summarised_statements` finds the statements
it sums up (those sharing one of its specific words, a sentence that opens with a
pronoun read with the one before it) and the composite joins them all, up to
``SUMMARY_SENTENCES``, even when a window already holds them: it is the premise the
model reads and the evidence the rules stage (:mod:`nli_faith.rules.summaries`) cites.

Guards, so that a composite never joins things that do not belong together (a ranked
premise keeps only the name guard, the summary claim's modifier guard and the
aggregation guards: it is the text that best matches the claim, read whole, as a chunk
is):

* at planning: no composite when one sentence already covers the claim, when the
  sentences share no content word with each other (they speak of different things),
  when a name the claim states (a capitalised word inside it) is in none of them,
  or when one of them negates or makes an exception ("not", "except", "unless"...)
  that the claim does not (a general rule and its exception must not add up to the
  rule applied to the excepted case), or, for a summary claim, names one of the claim's
  things with another modifier ("the family plan" for a claim about "the basic plan",
  :func:`~nli_faith.scoring.summary_statements.modifier_conflict`; on news summaries
  the guard cost more supported claims than it saved, so other claims keep the
  composite);
* at aggregation (:func:`composite_masks`, pure over the matrix): a composite may
  support its claim but never contradict it (two unrelated sentences read as one
  premise look contradictory to an NLI model), and it cannot support a claim that a
  chunk elsewhere in the context contradicts.

Example:
    >>> from nli_faith.text.chunking import Chunk
    >>> docs = ["Annual plans may be cancelled within 14 days.",
    ...         "Cancelled plans receive a full refund."]
    >>> chunks = [Chunk(d, k, 0, len(d)) for k, d in enumerate(docs)]
    >>> comps, mask = plan_composites(
    ...     ["Annual plans can be cancelled within 14 days for a full refund."], chunks,
    ...     count_tokens=lambda ts: [len(t.split()) for t in ts], budget=64)
    >>> comps[0].text
    'Annual plans may be cancelled within 14 days. Cancelled plans receive a full refund.'
    >>> [(p.doc_index, p.start, p.end) for p in comps[0].parts]
    [(0, 0, 45), (1, 0, 38)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from nli_faith.nli.labels import CONTRADICT_IDX
from nli_faith.scoring.prefilter import _names, coverage_similarity
from nli_faith.scoring.summary_statements import (
    coherent,
    is_summary,
    linked,
    modifier_conflict,
    negation_cues,
    sentence_words,
    summarised_statements,
)
from nli_faith.text.chunking import Chunk, sentence_members
from nli_faith.text.lexical import content_words

#: Sentences joined into one composite premise, at most.
DEFAULT_COMPOSITE_SENTENCES = 3
#: Sentences joined into one ranked premise, at most (``premise="ranked"``).
DEFAULT_RANKED_SENTENCES = 8


def pick_sentences(
    similarity: np.ndarray,
    claim_words: frozenset[str],
    sentence_words: Sequence[frozenset[str]],
    sizes: Sequence[int],
    *,
    budget: int,
    max_sentences: int = DEFAULT_COMPOSITE_SENTENCES,
) -> list[int]:
    """Indices of a claim's composite sentences, best first.

    Sentences are walked in ``similarity`` order (best first); one is taken when it
    shares a content word with the claim, adds a claim word the taken ones lack (a word,
    not only a number: "20" in "20 seats" says nothing of a "$20" price), and fits the
    token ``budget`` beside them.

    Example:
        >>> words = [frozenset({"plan", "cancel"}), frozenset({"plan"}), frozenset({"refund"})]
        >>> pick_sentences(np.array([0.6, 0.3, 0.4]), frozenset({"plan", "cancel", "refund"}),
        ...                words, [5, 5, 5], budget=20)
        [0, 2]
    """
    picked: list[int] = []
    covered: set[str] = set()
    used = 0
    for j in np.argsort(-similarity, kind="stable"):
        if len(picked) >= max_sentences or covered >= claim_words:
            break
        new = (claim_words & sentence_words[j]) - covered
        if similarity[j] <= 0 or all(w.isdigit() for w in new) or used + sizes[j] > budget:
            continue
        picked.append(int(j))
        covered |= new
        used += sizes[j]
    return picked


def ranked_sentences(
    similarity: np.ndarray,
    sizes: Sequence[int],
    *,
    budget: int,
    max_sentences: int | None = DEFAULT_RANKED_SENTENCES,
) -> list[int]:
    """Indices of a claim's ranked-premise sentences, best first (MiniCheck's premise).

    Sentences from every document are walked in ``similarity`` order (best first); each
    that shares a word with the claim (positive similarity) is taken while it fits the
    token ``budget`` beside those taken, at most ``max_sentences`` (None: only the budget
    limits them). No sentence is refused for adding no new claim word: the premise is
    the claim's best-matching text, as much of it as the model reads at once.

    Example:
        >>> ranked_sentences(np.array([0.6, 0.0, 0.4, 0.5]), [5, 5, 9, 5], budget=12)
        [0, 3]
        >>> ranked_sentences(np.array([0.6, 0.0, 0.4, 0.5]), [5, 5, 9, 5], budget=20)
        [0, 3, 2]
    """
    picked: list[int] = []
    used = 0
    for j in np.argsort(-similarity, kind="stable"):
        if max_sentences is not None and len(picked) >= max_sentences:
            break
        if similarity[j] <= 0:
            break
        if used + sizes[j] <= budget:
            picked.append(int(j))
            used += sizes[j]
    return picked


def _joined_by_a_chunk(parts: Sequence[Chunk], chunks: Sequence[Chunk]) -> bool:
    """True when one existing chunk already holds every part (a window of one document)."""
    docs = {p.doc_index for p in parts}
    if len(docs) > 1:
        return False
    start, end = min(p.start for p in parts), max(p.end for p in parts)
    return any(c.doc_index in docs and c.start <= start and end <= c.end for c in chunks)


def plan_composites(
    claims: Sequence[str],
    chunks: Sequence[Chunk],
    *,
    count_tokens: Callable[[list[str]], list[int]],
    budget: int,
    max_sentences: int | None = None,
    premise: str = "covering",
) -> tuple[list[Chunk], np.ndarray]:
    """The composite chunks of a request and their ``(claims, composites)`` mask.

    ``chunks`` are the request's ordinary chunks (sentences and windows, see
    :mod:`nli_faith.text.chunking`); composites are built from its sentences. Claims
    with the same sentences share one composite. A composite's ``text`` is its
    sentences joined by a space, in document order; its ``doc_index``, ``start`` and
    ``end`` are those of its best-ranked sentence, and ``parts`` lists every sentence.
    ``premise`` is ``"covering"`` or ``"ranked"`` (see the module); ``max_sentences``
    defaults to :data:`DEFAULT_COMPOSITE_SENTENCES` or :data:`DEFAULT_RANKED_SENTENCES`.
    A summary claim's composite is the statements it sums up, whichever the premise.
    """
    members = sentence_members(chunks)
    atoms = sorted({a for m in members for a in m})
    empty = np.zeros((len(claims), 0), dtype=bool)
    if len(atoms) < 2 or not claims:
        return [], empty
    texts = [chunks[a].text for a in atoms]
    sim = coverage_similarity(claims, texts)
    words = [content_words(t) for t in texts]
    sizes = count_tokens(texts)
    cues = [negation_cues(t) for t in texts]
    found: dict[tuple[int, ...], int] = {}
    composites: list[Chunk] = []
    owners: list[list[int]] = []
    order = sorted(
        range(len(atoms)), key=lambda p: (chunks[atoms[p]].doc_index, chunks[atoms[p]].start)
    )
    for i, claim in enumerate(claims):
        picked = _summary_pick(claim, [texts[p] for p in order], [sizes[p] for p in order], budget)
        summary = len(picked) >= 2
        ranked = premise == "ranked" and not summary
        if summary:
            picked = [order[p] for p in picked]
        elif ranked:
            picked = ranked_sentences(
                sim[i],
                sizes,
                budget=budget,
                max_sentences=DEFAULT_RANKED_SENTENCES if max_sentences is None else max_sentences,
            )
        else:
            picked = pick_sentences(
                sim[i],
                content_words(claim),
                words,
                sizes,
                budget=budget,
                max_sentences=DEFAULT_COMPOSITE_SENTENCES
                if max_sentences is None
                else max_sentences,
            )
        if len(picked) < 2:
            continue
        claim_cues = negation_cues(claim)
        if not ranked and any(cues[p] - claim_cues for p in picked):
            continue
        if is_summary(claim) and any(modifier_conflict(claim, texts[p]) for p in picked):
            continue  # "the family plan adds support" says nothing of the basic plan
        joined = " ".join(texts[p] for p in picked).lower()
        if any(name not in joined for name in _names(claim)):
            continue  # a name the sentences never mention: they cannot support the claim
        if summary:  # a pronoun-led statement is read with the one before it
            if not linked(
                sentence_words([texts[p] for p in order], [order.index(p) for p in picked])
            ):
                continue
        elif not ranked and not coherent([texts[p] for p in picked]):
            continue
        parts = sorted((chunks[atoms[p]] for p in picked), key=lambda c: (c.doc_index, c.start))
        if not summary and _joined_by_a_chunk(parts, chunks):
            continue
        key = tuple(atoms[p] for p in sorted(picked))
        if key not in found:
            main = chunks[atoms[picked[0]]]
            found[key] = len(composites)
            composites.append(
                Chunk(
                    " ".join(p.text for p in parts),
                    main.doc_index,
                    main.start,
                    main.end,
                    parts=tuple(parts),
                )
            )
            owners.append([])
        owners[found[key]].append(i)
    mask = np.zeros((len(claims), len(composites)), dtype=bool)
    for k, claim_ids in enumerate(owners):
        mask[claim_ids, k] = True
    return composites, mask


def _summary_pick(claim: str, sentences: list[str], sizes: list[int], budget: int) -> list[int]:
    """A summary claim's statements (indices into ``sentences``) that fit ``budget``."""
    if not is_summary(claim):
        return []
    picked, used = [], 0
    for k in summarised_statements(claim, sentences):
        if used + sizes[k] <= budget:
            picked.append(k)
            used += sizes[k]
    return picked


def is_composite(chunks: Sequence[Chunk]) -> np.ndarray:
    """``(chunks,)`` bool: which chunks are composites."""
    return np.array([bool(c.parts) for c in chunks], dtype=bool)


def _overlaps(a: Chunk, b: Chunk) -> bool:
    return a.doc_index == b.doc_index and a.start < b.end and b.start < a.end


def composite_masks(
    probs: np.ndarray,
    mask: np.ndarray,
    chunks: Sequence[Chunk],
    *,
    contradict_mask: np.ndarray | None,
    contradict_threshold: float,
    rule_conflict: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Support and contradiction masks ``(claims, chunks)`` that apply the composite guards.

    A composite column never contradicts. It may support its claim unless a scored
    chunk outside it (sharing no text with its sentences, and allowed to contradict the
    claim by ``contradict_mask``) contradicts the claim with at least
    ``contradict_threshold``: a conflict elsewhere in the context outweighs a premise
    assembled from pieces. (One of its own sentences read alone against the whole claim
    often looks contradictory to a small model, for lack of the other pieces; that is
    no veto.) ``rule_conflict`` marks chunks that contradict a claim by rule (e.g. they
    state one of its quantities with another value,
    :func:`nli_faith.rules.numbers.quantity_mismatch`): any of them, its own sentences
    included, vetoes the composite.

    Example:
        >>> ch = [Chunk("Paris is in France.", 0, 0, 19), Chunk("Lyon is big.", 1, 0, 12)]
        >>> comp = Chunk("Paris is in France. Lyon is big.", 0, 0, 19, parts=tuple(ch))
        >>> other = Chunk("Paris is in Spain.", 2, 0, 18)
        >>> probs = np.array([[[0.1, 0.1, 0.8], [0.1, 0.8, 0.1], [0.9, 0.05, 0.05],
        ...                    [0.1, 0.8, 0.1]]])
        >>> support, contra = composite_masks(probs, np.ones((1, 4), bool),
        ...     ch + [comp, other], contradict_mask=None, contradict_threshold=0.5)
        >>> support.tolist(), contra.tolist()  # its own sentence's contradiction is no veto
        ([[True, True, True, True]], [[True, True, False, True]])
        >>> probs[0, 3] = [0.1, 0.1, 0.8]  # a contradiction elsewhere is one
        >>> composite_masks(probs, np.ones((1, 4), bool), ch + [comp, other],
        ...     contradict_mask=None, contradict_threshold=0.5)[0].tolist()
        [[True, True, False, True]]
    """
    composite = is_composite(chunks)
    n_claims, n_chunks = mask.shape
    contra = np.broadcast_to(~composite[None, :], (n_claims, n_chunks)).copy()
    if contradict_mask is not None:
        contra &= contradict_mask
    p_c = np.where(mask & contra, probs[..., CONTRADICT_IDX], -1.0)
    conflict = p_c >= contradict_threshold  # (claims, chunks)
    by_rule = np.zeros(n_claims, dtype=bool)
    if rule_conflict is not None:
        by_rule = (np.asarray(rule_conflict, dtype=bool) & mask & ~composite[None, :]).any(axis=1)
    support = np.ones((n_claims, n_chunks), dtype=bool)
    for k in np.flatnonzero(composite):
        outside = np.array(
            [not any(_overlaps(c, p) for p in chunks[k].parts) for c in chunks], dtype=bool
        )
        support[:, k] = ~((conflict & outside[None, :]).any(axis=1) | by_rule)
    return support, contra
