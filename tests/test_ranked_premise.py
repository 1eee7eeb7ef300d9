"""Ranked premises (``composite_premise="ranked"``, MiniCheck's premise): a claim's
best-matching sentences from every document, as many as fit the budget, in document order."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from nli_faith.checks import COMPOSITE_PREMISES, check_setting
from nli_faith.cli.options import add_scorer_options, config_from_args
from nli_faith.config import ScorerConfig
from nli_faith.errors import OptionError
from nli_faith.scoring.composite import plan_composites, ranked_sentences
from nli_faith.text.chunking import Chunk

# three documents; the claim's words are spread over them, and one sentence of each
# document is about something else
DOCS = [
    "The museum opens at nine. Parking is free on Sundays.",
    "Tickets for the museum cost twelve euros. The cafe serves lunch.",
    "The museum closes at six on weekdays. Children enter free.",
]
REFUND_DOCS = [
    "Cancellation: Annual plans may be cancelled within 14 days of purchase.",
    "Refunds: Cancelled plans receive a full refund of the amount paid.",
]
REFUND_CLAIM = "Annual plans can be cancelled within 14 days for a full refund."
CLAIM = "Tickets cost twelve euros; the museum opens at nine and closes at six."


def _words(texts):
    return [len(t.split()) for t in texts]


def _sentence_chunks(docs):
    """One chunk per sentence (split at ". "), as the chunker's sentence chunks."""
    chunks = []
    for k, doc in enumerate(docs):
        start = 0
        for piece in doc.split(". "):
            text = piece if piece.endswith(".") else piece + "."
            chunks.append(Chunk(text, k, start, start + len(text)))
            start += len(text) + 1
    return chunks


def _ranked(claims, chunks, budget=64, **kw):
    return plan_composites(
        claims, chunks, count_tokens=_words, budget=budget, premise="ranked", **kw
    )


def test_ranked_sentences_are_taken_best_first_while_they_fit():
    sim = np.array([0.2, 0.9, 0.0, 0.5, 0.7])
    sizes = [4, 6, 3, 8, 5]
    assert ranked_sentences(sim, sizes, budget=100) == [1, 4, 3, 0]  # never a 0-match one
    assert ranked_sentences(sim, sizes, budget=15) == [1, 4, 0]  # 8 does not fit; 4 does
    assert ranked_sentences(sim, sizes, budget=100, max_sentences=2) == [1, 4]
    assert ranked_sentences(sim, sizes, budget=5) == [4]
    assert ranked_sentences(np.zeros(3), [1, 1, 1], budget=10) == []


def test_every_document_is_searched_and_the_premise_is_in_document_order():
    chunks = _sentence_chunks(list(reversed(DOCS)))  # the closing hours come first now
    comps, mask = _ranked([CLAIM], chunks)
    assert len(comps) == 1 and mask.tolist() == [[True]]
    parts = comps[0].parts
    assert {p.doc_index for p in parts} == {0, 1, 2}
    assert [(p.doc_index, p.start) for p in parts] == sorted((p.doc_index, p.start) for p in parts)
    assert comps[0].text == " ".join(p.text for p in parts)
    assert "Parking" not in comps[0].text and "cafe" not in comps[0].text  # no shared word


def test_the_budget_is_respected():
    chunks = _sentence_chunks(DOCS)
    for budget in (6, 12, 14, 20, 64):
        comps, _ = _ranked([CLAIM], chunks, budget=budget)
        for c in comps:
            assert sum(_words([p.text for p in c.parts])) <= budget
            assert len(c.text.split()) <= budget
    assert _ranked([CLAIM], chunks, budget=6)[0] == []  # one 5-word sentence: no premise


def test_a_sentence_adding_no_new_claim_word_is_still_joined():
    docs = ["The museum opens at nine.", "The museum opens daily at nine sharp."]
    claim = "The museum opens at nine."
    covering = plan_composites([claim], _sentence_chunks(docs), count_tokens=_words, budget=64)
    assert covering[0] == []  # one sentence covers the claim: no covering composite
    comps, _ = _ranked([claim], _sentence_chunks(docs))
    assert [p.doc_index for p in comps[0].parts] == [0, 1]


def test_the_sentence_cap():
    comps, _ = _ranked([CLAIM], _sentence_chunks(DOCS), max_sentences=2)
    assert len(comps[0].parts) == 2


def test_claims_with_the_same_sentences_share_one_ranked_premise():
    claims = [CLAIM, "Museum tickets cost twelve euros; it opens at nine and closes at six."]
    comps, mask = _ranked(claims, _sentence_chunks(DOCS))
    assert len(comps) == 1 and mask.tolist() == [[True], [True]]


def test_the_option_is_checked():
    assert ScorerConfig(composite_premise="ranked").composite_premise == "ranked"
    assert ScorerConfig().composite_premise in COMPOSITE_PREMISES
    with pytest.raises(OptionError, match="composite_premise must be one of 'covering', 'ranked'"):
        ScorerConfig(composite_premise="minicheck")
    with pytest.raises(OptionError, match="composite_premise must be one of"):
        ScorerConfig(composite_premise=None)
    assert ScorerConfig().composite_premise == "ranked"  # the default, as measured
    with pytest.raises(OptionError, match="composite_premise is used only with composite=True"):
        ScorerConfig(composite=False, composite_premise="covering")
    assert not ScorerConfig(composite=False).composite  # the default premise is no error
    with pytest.raises(OptionError, match="composite_premise must be one of"):
        check_setting("composite_premise", "chunks")  # a loaded scorer's setting, too
    assert ScorerConfig.from_dict(ScorerConfig(composite_premise="ranked").to_dict()) == (
        ScorerConfig(composite_premise="ranked")
    )


def test_the_cli_flag_is_generated_from_the_field():
    p = argparse.ArgumentParser()
    add_scorer_options(p)
    assert config_from_args(p.parse_args(["--composite-premise", "ranked"])).composite_premise == (
        "ranked"
    )
    with pytest.raises(SystemExit):
        p.parse_args(["--composite-premise", "minicheck"])


def test_a_scorer_reads_the_ranked_premise_end_to_end(bundled_scorer):
    from nli_faith.scorer import FaithfulnessScorer

    docs = ["Support is available by email. Annual plans renew each year.", *REFUND_DOCS]
    ranked = FaithfulnessScorer(device="cpu", composite_premise="ranked")
    ranked.nli = bundled_scorer.nli
    c = ranked.score(REFUND_CLAIM, docs).claims[0]
    assert c.verdict == "yes"
    # every document searched: the renewal sentence adds no claim word, yet is read too
    assert [(s.doc_index, s.start) for s in c.evidence.spans] == [(0, 31), (1, 0), (2, 0)]
    for s in c.evidence.spans:
        assert docs[s.doc_index][s.start : s.end] in c.evidence.text
    with pytest.raises(OptionError, match="composite_premise"):
        ranked.composite_premise = "best"
