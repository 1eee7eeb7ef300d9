"""Synthetic multi-fact examples: claims that need several sentences of the context.

A small checker trained only on one-sentence premises learns to find *one*
supporting sentence, not to check *every* fact of a claim (MiniCheck's finding).
These generators build, from ordinary NLI rows, examples whose label depends on
several premises at once:

* **conjunctions** (:func:`conjunction_pairs`): the premise is two or three
  premises of other rows, in random order; the claim joins their hypotheses.
  It is entailed only if every part is; one contradicted part makes it a
  contradiction, otherwise one neutral (or binary not-entailed) part makes it
  not entailed;
* **summaries** (:func:`summary_pairs`): several entailed facts, stated as one
  summary sentence ("In short, A, B and C."), against a premise holding all of
  their sources among unrelated sentences; the negative copies drop one source
  from the premise, so the summary is no longer supported.

Everything is driven by one ``random.Random(seed)``: a seed gives the same set.

Example:
    >>> from nli_faith.training.data import NLIExample
    >>> rows = [NLIExample(f"Fact {i} holds here.", f"Fact {i} holds.", i % 2 * 2, "t")
    ...         for i in range(10)]
    >>> pairs = conjunction_pairs(rows, n=20, seed=1)
    >>> len(pairs), sorted({p.label for p in pairs})
    (20, ['contradiction', 'entailment'])
    >>> [p.hypothesis for p in pairs if p.label == "entailment"][0]
    'Fact 8 holds, and Fact 0 holds.'
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from nli_faith.training.data import NOT_ENTAILMENT_ID, NLIExample
from research.synthetic import SyntheticPair

_NAMES = {0: "entailment", 1: "neutral", 2: "contradiction", NOT_ENTAILMENT_ID: "not_entailment"}
#: Words that start a sentence but not a name: lower-cased when the part is joined mid-sentence.
_STARTERS = {
    "a", "an", "the", "this", "that", "these", "those", "there", "it", "he", "she", "they",
    "his", "her", "their", "its", "some", "many", "most", "all", "no", "one", "two", "several",
    "people", "we", "you", "i",
}  # fmt: skip


def _part(text: str, *, first: bool) -> str:
    """A hypothesis as a clause of a longer sentence: no final stop, mid-sentence case."""
    text = re.sub(r"[\s.!?]+$", "", text.strip())
    if not first:
        word = text.split(" ", 1)[0]
        if word.lower() in _STARTERS and word != "I":
            text = word.lower() + text[len(word) :]
    return text


def join_claims(parts: Sequence[str], *, lead: str = "") -> str:
    """Join hypotheses into one claim: ``A, and B.`` / ``A, B, and C.`` (``lead`` first)."""
    clauses = [_part(p, first=i == 0 and not lead) for i, p in enumerate(parts)]
    body = clauses[0] if len(clauses) == 1 else ", ".join(clauses[:-1]) + ", and " + clauses[-1]
    return f"{lead}{body}."


def conjunction_label(labels: Sequence[int]) -> int:
    """Label of a conjunction from its parts' labels (0 entail, 1 neutral, 2 contra, 3 not-entail).

    >>> conjunction_label([0, 0]), conjunction_label([0, 2, 1]), conjunction_label([0, 1])
    (0, 2, 1)
    >>> conjunction_label([0, 3])  # a binary not-entailed part: not entailed
    3
    """
    if 2 in labels:
        return 2
    if 1 in labels:
        return 1
    if NOT_ENTAILMENT_ID in labels:
        return NOT_ENTAILMENT_ID
    return 0


def _eligible(rows: Sequence[NLIExample], max_premise_words: int, max_claim_words: int) -> list:
    return [
        r
        for r in rows
        if 3 <= len(r.premise.split()) <= max_premise_words
        and 2 <= len(r.hypothesis.split()) <= max_claim_words
    ]


def conjunction_pairs(
    rows: Sequence[NLIExample],
    *,
    n: int,
    seed: int = 31,
    positive_share: float = 0.4,
    max_premise_words: int = 50,
    max_claim_words: int = 20,
) -> list[SyntheticPair]:
    """``n`` claims joining 2-3 hypotheses whose premises all sit in one context.

    ``positive_share`` of them join only entailed parts (label entailment); the
    others have exactly one part that is not entailed, so the label is that
    part's (contradiction, neutral or not_entailment) — the hard case, where
    every other part is supported.
    """
    rng = random.Random(seed)
    pool = _eligible(rows, max_premise_words, max_claim_words)
    pos = [r for r in pool if r.label == 0]
    neg = [r for r in pool if r.label != 0]
    if len(pos) < 3 or not neg:
        return []
    out: list[SyntheticPair] = []
    attempts = 0
    while len(out) < n and attempts < 20 * n:
        attempts += 1
        k = rng.choice((2, 2, 3))
        parts = rng.sample(pos, k)
        if rng.random() >= positive_share:
            parts[rng.randrange(k)] = rng.choice(neg)
        if len({p.premise for p in parts}) < k:
            continue
        premises = [p.premise for p in parts]
        rng.shuffle(premises)
        label = conjunction_label([p.label for p in parts])
        out.append(
            SyntheticPair(
                " ".join(premises),
                join_claims([p.hypothesis for p in parts]),
                _NAMES[label],
                f"conjunction{k}",
            )
        )
    return out


_LEADS = ("In short, ", "In summary, ", "Overall, ", "To sum up, ", "")


def summary_pairs(
    rows: Sequence[NLIExample],
    *,
    n: int,
    seed: int = 37,
    max_premise_words: int = 40,
    max_claim_words: int = 16,
    distractors: int = 2,
) -> list[SyntheticPair]:
    """Summary-style claims over 2-3 entailed facts, each with a supported and a gapped premise.

    The supported premise holds every fact's source sentence and ``distractors``
    unrelated premises, shuffled: the summary is entailed. Its gapped copy drops
    one source: the summary is then neutral (one of its facts is not found).
    """
    rng = random.Random(seed)
    pool = _eligible(rows, max_premise_words, max_claim_words)
    pos = [r for r in pool if r.label == 0]
    others = sorted({r.premise for r in pool})
    if len(pos) < 3 or len(others) < distractors + 3:
        return []
    out: list[SyntheticPair] = []
    attempts = 0
    while len(out) < n and attempts < 20 * n:
        attempts += 1
        facts = rng.sample(pos, rng.choice((2, 3)))
        sources = [f.premise for f in facts]
        if len(set(sources)) < len(sources):
            continue
        extra = [p for p in rng.sample(others, distractors + 3) if p not in sources][:distractors]
        claim = join_claims([f.hypothesis for f in facts], lead=rng.choice(_LEADS))
        full = sources + extra
        rng.shuffle(full)
        out.append(SyntheticPair(" ".join(full), claim, "entailment", "summary"))
        dropped = rng.choice(sources)
        gapped = [p for p in full if p != dropped]
        out.append(SyntheticPair(" ".join(gapped), claim, "neutral", "summary_gap"))
    return out[:n]
