"""Composite premises: a claim's best sentences from every document, read as one premise.

Support for a claim is often spread over sentences that no chunk holds together: the
cancellation rule in one retrieved document, the refund rule in another. For each claim,
:func:`plan_composites` joins its best few sentences from all documents into one premise
(a *composite*): sentences ranked as the lexical pre-filter ranks them
(:func:`~nli_faith.scoring.prefilter.coverage_similarity`), each kept only if it adds
claim words the better-ranked ones lack, at most ``max_sentences``, within the model's
token budget, and joined in document order. A composite is an extra chunk of the NLI
matrix, scored only against its own claim (its column of the mask is True for that
claim alone); its :attr:`~nli_faith.text.chunking.Chunk.parts` are the sentences it joins.

A *summary claim* ("The whole process involves several network elements, each with its
own role.", "The plan includes storage, support and early access.") sums up several
statements that no one sentence holds. For it, :func:`summarised_statements` finds the
statements it sums up (those sharing one of its specific words, a sentence that opens
with a pronoun read with the one before it) and the composite joins them all, up to
``SUMMARY_SENTENCES``, even when a window already holds them: it is the premise the
model reads and the evidence the rules stage (:mod:`nli_faith.rules.summaries`) cites.

Guards, so that a composite never joins things that do not belong together:

* at planning: no composite when one sentence already covers the claim, when the
  sentences share no content word with each other (they speak of different things),
  when a name the claim states (a capitalised word inside it) is in none of them,
  or when one of them negates or makes an exception ("not", "except", "unless"...)
  that the claim does not (a general rule and its exception must not add up to the
  rule applied to the excepted case), or, for a summary claim, names one of the claim's
  things with another modifier ("the family plan" for a claim about "the basic plan",
  :func:`modifier_conflict`; on news summaries the guard cost more supported claims
  than it saved, so other claims keep the composite);
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

import re
from collections.abc import Callable, Sequence

import numpy as np

from nli_faith.nli.labels import CONTRADICT_IDX
from nli_faith.scoring.prefilter import _names, coverage_similarity
from nli_faith.text.chunking import Chunk, sentence_members
from nli_faith.text.lexical import content_words

#: Sentences joined into one composite premise, at most.
DEFAULT_COMPOSITE_SENTENCES = 3
#: Words that negate or restrict a statement: a sentence holding one the claim lacks
#: may be the exception to the claim's rule, so it is never joined into a composite.
NEGATION_RE = re.compile(
    r"\b(?:not|no|never|none|neither|nor|cannot|without|except|excepting|excluding|"
    r"excluded|exclude|excludes|unless|exception|exceptions|exempt|ineligible|only)\b|n't\b",
    re.IGNORECASE,
)


#: Sentences a summary composite joins, at most.
SUMMARY_SENTENCES = 6
#: Phrases that make a claim a summary of several statements.
SUMMARY_RE = re.compile(
    r"\b(?:whole|entire|overall|in (?:summary|short|sum)|altogether|taken together|"
    r"together|each with (?:its|their) own|(?:a|the) (?:range|variety|series) of|"
    r"various|several|multiple|a combination of)\b",
    re.IGNORECASE,
)
#: "A, B and C": three or more coordinated items (a comma, an item of at most three
#: words, then "and" / "or").
ENUMERATION_RE = re.compile(r",(?:\s*[\w'-]+){1,3},?\s+(?:and|or)\s", re.IGNORECASE)
#: Words a summary uses to sum up (its frame), not facts to find in the statements.
SUMMARY_WORDS = frozenset(
    """whole entire overall summary short sum altogether together various several multiple
    range variety number series set combination different distinct many each own role part
    process procedure system close closely cooperation cooperate collaboration collaborate
    coordination coordinate interplay work working involve involves include includes consist
    comprise comprises feature features offer offers provide provides cover covers come
    comes play plays contribute contributes responsible responsibility task key main
    important essential""".split()
)
#: Sentence openings that continue the sentence before (read with it).
_CONTINUES_RE = re.compile(r"^\s*(?:it|its|they|their|these|this|he|she|his|her)\b", re.I)
_PAIR_RE = re.compile(r"([^\W_]+) ([^\W_]+)")


def is_summary(claim: str) -> bool:
    """True when ``claim`` sums up several statements: a summarising phrase, or a list of
    short items; never a claim with a number (on news summaries a wide premise made
    contradicted claims with dates and ages look supported).

    Example:
        >>> is_summary("The whole process involves several network elements.")
        True
        >>> is_summary("The plan includes storage, support and early access.")
        True
        >>> is_summary("The plan includes storage.")
        False
    """
    if any(ch.isdigit() for ch in claim):
        return False  # a claim with numbers states facts: the number check and the model's
    return bool(SUMMARY_RE.search(claim) or ENUMERATION_RE.search(claim))


def specific_words(claim: str) -> frozenset[str]:
    """The claim's content words that a summary's statements must hold: all but its frame.

    Example:
        >>> sorted(specific_words("The whole process involves several network elements."))
        ['element', 'network']
    """
    return frozenset(_root(w) for w in content_words(claim) if w not in SUMMARY_WORDS)


def _root(word: str) -> str:
    """A crude verb root, so that "booking" finds "book" and "printed" finds "print"."""
    for end in ("ing", "ed"):
        if len(word) > len(end) + 3 and word.endswith(end):
            return word[: -len(end)]
    return word


def _roots(words: frozenset[str]) -> frozenset[str]:
    return frozenset(_root(w) for w in words)


def _pairs(text: str) -> set[tuple[str, str]]:
    """Adjacent content-word pairs of ``text`` ("premium plan"), stemmed, lower-cased."""
    words = _words_with_gaps(text)
    return {(a, b) for a, b in zip(words, words[1:]) if a and b}


def _words_with_gaps(text: str) -> list[str]:
    """Content words of ``text`` in order, "" where punctuation or a stop word breaks a run."""
    out: list[str] = []
    for token in re.findall(r"[^\W_]+|[^\w\s]", text.lower()):
        w = next(iter(content_words(token)), "") if token[0].isalnum() else ""
        out.append(w if len(w) > 2 else "")  # the "s" of "Clarke's" is no modifier
    return out


def modifier_conflict(claim: str, sentence: str) -> str | None:
    """A thing the sentence names with another modifier than the claim ("basic plan"
    against "premium plan"), when the sentence never uses the claim's modifier and
    the claim never uses the sentence's: the sentence is about something else.
    Returns the sentence's pair, else None.

    Example:
        >>> modifier_conflict("The basic plan includes support.", "The premium plan adds support.")
        'premium plan'
        >>> modifier_conflict("The premium plan includes storage.", "It has cloud storage.") is None
        True
    """
    have = content_words(sentence)
    claim_pairs = [
        (a, b)
        for a, b in _pairs(claim)
        if a not in SUMMARY_WORDS and b not in SUMMARY_WORDS and not a.isdigit()
    ]
    mine = content_words(claim)
    theirs = _pairs(sentence)
    for a, b in claim_pairs:
        if a in have:
            continue
        for x, y in theirs:
            if y == b and x not in mine and x not in SUMMARY_WORDS and not x.isdigit():
                return f"{x} {y}"
    return None


def summarised_statements(claim: str, sentences: Sequence[str]) -> list[int]:
    """Indices of the sentences a summary claim sums up, in the order given.

    ``sentences`` are the context's sentences in document order. A sentence counts when
    it holds one of the claim's :func:`specific_words` (a sentence that opens with a
    pronoun is read with the one before it), names nothing the claim names otherwise
    (:func:`modifier_conflict`) and negates or restricts nothing the claim does not
    (:func:`negation_cues`). At most ``SUMMARY_SENTENCES``, those holding the most
    specific words first.

    Example:
        >>> summarised_statements("The plan includes storage, support and fast access.",
        ...     ["The plan includes storage.", "It also has support.", "Lunch is at noon.",
        ...      "Plan members get fast access."])
        [0, 1, 3]
    """
    want = specific_words(claim)
    if not want:
        return []
    claim_cues = negation_cues(claim)
    hits: list[tuple[int, int]] = []
    prev: frozenset[str] = frozenset()
    for k, text in enumerate(sentences):
        words = _roots(content_words(text))
        read = words | prev if _CONTINUES_RE.match(text) else words
        prev = read
        n = len(want & read)
        if n and not (negation_cues(text) - claim_cues) and modifier_conflict(claim, text) is None:
            hits.append((n, k))
    best = sorted(hits, key=lambda h: (-h[0], h[1]))[:SUMMARY_SENTENCES]
    return sorted(k for _, k in best)


def sentence_words(
    sentences: Sequence[str], picked: Sequence[int], *, carry: bool = True
) -> list[frozenset[str]]:
    """The content words (verb roots) of each picked sentence; with ``carry``, one that
    opens with a pronoun is read with the one before."""
    out = []
    for k in picked:
        words = _roots(content_words(sentences[k]))
        j = k
        while carry and j > 0 and _CONTINUES_RE.match(sentences[j]):
            j -= 1
            words |= _roots(content_words(sentences[j]))
        out.append(words)
    return out


def negation_cues(text: str) -> frozenset[str]:
    """The negation and exception words of ``text``, lower-cased.

    Example:
        >>> sorted(negation_cues("Discounted plans are not refundable, except in the EU."))
        ['except', 'not']
    """
    return frozenset(m.group(0).lower().replace("n't", "not") for m in NEGATION_RE.finditer(text))


def coherent(texts: Sequence[str]) -> bool:
    """True when the sentences are linked by shared content words (one connected group).

    Example:
        >>> coherent(["The design team drafts each release.", "QA tests each release."])
        True
        >>> coherent(["Alice joined in 2019.", "Bob leads the data team."])
        False
    """
    return linked([content_words(t) for t in texts])


def linked(words: Sequence[frozenset[str]]) -> bool:
    """True when the word sets form one group, each sharing a word with another."""
    if not words:
        return True
    linked, todo = {0}, [0]
    while todo:
        a = todo.pop()
        for b in range(len(words)):
            if b not in linked and words[a] & words[b]:
                linked.add(b)
                todo.append(b)
    return len(linked) == len(words)


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
    max_sentences: int = DEFAULT_COMPOSITE_SENTENCES,
) -> tuple[list[Chunk], np.ndarray]:
    """The composite chunks of a request and their ``(claims, composites)`` mask.

    ``chunks`` are the request's ordinary chunks (sentences and windows, see
    :mod:`nli_faith.text.chunking`); composites are built from its sentences. Claims
    with the same sentences share one composite. A composite's ``text`` is its
    sentences joined by a space, in document order; its ``doc_index``, ``start`` and
    ``end`` are those of its best-ranked sentence, and ``parts`` lists every sentence.
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
        if summary:
            picked = [order[p] for p in picked]
        else:
            picked = pick_sentences(
                sim[i],
                content_words(claim),
                words,
                sizes,
                budget=budget,
                max_sentences=max_sentences,
            )
        if len(picked) < 2:
            continue
        claim_cues = negation_cues(claim)
        if any(cues[p] - claim_cues for p in picked):
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
        elif not coherent([texts[p] for p in picked]):
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
