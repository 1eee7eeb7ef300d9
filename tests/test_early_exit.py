"""Early exit: the pure reductions, and verdicts equal to scoring every pair."""

from __future__ import annotations

import numpy as np
import pytest

from nli_faith.engine.infer import first_candidates, settled_claims


def test_first_candidate_is_the_most_similar_preferred_chunk_in_the_mask():
    sim = np.array([[0.9, 0.8, 0.1], [0.2, 0.1, 0.3]])
    mask = np.array([[True, True, True], [True, True, False]])
    preferred = np.array([False, True, True])  # chunk 0 is a window
    first = first_candidates(sim, mask, preferred)
    # claim 0: the window is most similar, but a sentence goes first
    # claim 1: its only preferred candidate in the mask is chunk 1
    assert first.tolist() == [[False, True, False], [False, True, False]]
    # without preference, the most similar chunk in the mask
    assert first_candidates(sim, mask).tolist() == [[True, False, False], [True, False, False]]


def test_a_claim_is_settled_only_by_a_chunk_allowed_to_support_it():
    probs = np.array([[[0.9, 0.05, 0.05], [0.1, 0.1, 0.8]]])
    scored = np.array([[True, False]])
    assert settled_claims(probs, scored, entail_threshold=0.5).tolist() == [True]
    assert settled_claims(probs, scored, entail_threshold=0.95).tolist() == [False]
    no_numbers = np.array([[False, True]])
    assert settled_claims(
        probs, scored, entail_threshold=0.5, support_mask=no_numbers
    ).tolist() == [False]


RECORDS = [
    {
        "response": "The warranty lasts twenty-four months. Returns are accepted within "
        "30 days. The store is open on Sundays. Shipping is free over fifty dollars.",
        "context": [
            "Our warranty covers every device for 24 months from the date of purchase. "
            "It does not cover accidental damage. Repairs take about a week.",
            "You may return any item within 30 days if it is unused. Refunds go to the "
            "original card. We offer complimentary delivery on purchases over $50.",
            "The store opens at nine on weekdays and is closed on weekends.",
        ],
    },
    {
        "response": "The museum opened in 1998. It holds four thousand paintings.",
        "context": "The city museum opened its doors in 1998. Its collection counts about "
        "four thousand paintings and two hundred sculptures. Entry is free on Mondays.",
    },
]


@pytest.mark.parametrize("prefilter", [None, "lexical"])
def test_early_exit_gives_the_verdicts_of_scoring_every_pair(prefilter):
    from nli_faith.scorer import FaithfulnessScorer

    full = FaithfulnessScorer(device="cpu", prefilter=prefilter)
    fast = FaithfulnessScorer(device="cpu", prefilter=prefilter, early_exit=True)
    for rec in RECORDS:
        m_full = full.stages.matrices([full.stages.plan(rec["response"], rec["context"])])[0]
        m_fast = fast.stages.matrices([fast.stages.plan(rec["response"], rec["context"])])[0]
        r_full, r_fast = full.stages.aggregate(m_full), fast.stages.aggregate(m_fast)
        assert [c.verdict for c in r_fast.claims] == [c.verdict for c in r_full.claims]
        assert not (m_fast.mask & ~m_full.mask).any()  # never scores a pair the scan skips
        assert m_fast.mask.sum() < m_full.mask.sum()  # and skips some here
        for i, c in enumerate(r_fast.claims):
            if c.verdict != "yes":  # an unsettled claim saw all its candidates
                assert (m_fast.mask[i] == m_full.mask[i]).all()
                assert c.p_entail == pytest.approx(r_full.claims[i].p_entail, abs=1e-4)
    yes = [c.verdict for c in full.score(**RECORDS[0]).claims]
    assert "yes" in yes and yes.count("yes") < len(yes)  # the record tests both paths


def test_an_early_exit_matrix_refuses_a_higher_entail_threshold():
    from nli_faith.scorer import FaithfulnessScorer

    fast = FaithfulnessScorer(device="cpu", early_exit=True)
    m = fast.stages.matrices([fast.stages.plan(**RECORDS[1])])[0]
    assert m.settled_at == fast.entail_threshold
    assert fast.stages.aggregate(m, entail_threshold=0.3).n_claims == 2  # lower: still exact
    with pytest.raises(ValueError, match="built with early_exit=True"):
        fast.stages.aggregate(m, entail_threshold=0.9)


def test_guardrail_preset_sets_the_fast_options_and_takes_overrides():
    pytest.importorskip("onnxruntime")
    from nli_faith.scorer import FaithfulnessScorer
    from nli_faith.scoring.prefilter import LexicalPrefilter

    g = FaithfulnessScorer.guardrail()
    assert g.nli.backend == "onnx" and g.early_exit
    assert isinstance(g.prefilter, LexicalPrefilter) and g.prefilter.top_k == 2
    assert g.prefilter.keep_overlap == g.contradiction_overlap
    assert FaithfulnessScorer.guardrail(prefilter_top_k=4).prefilter.top_k == 4
    r = g.score(**RECORDS[1])
    assert [c.verdict for c in r.claims] == ["yes", "yes"]
