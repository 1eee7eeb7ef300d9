import numpy as np
import pytest

from nli_faith.scoring.scores import compute_scores, explain
from nli_faith.scoring.verdicts import decide


def m(*rows):
    """Matrix from per-claim lists of (e, n, c) triples."""
    return np.array(rows, dtype=np.float32)


def test_max_entailment_over_chunks_decides():
    probs = m(
        [(0.1, 0.8, 0.1), (0.7, 0.2, 0.1)],  # second chunk supports
        [(0.1, 0.1, 0.8), (0.2, 0.7, 0.1)],  # first chunk contradicts
        [(0.3, 0.6, 0.1), (0.2, 0.5, 0.3)],  # nothing either way
    )
    d = decide(probs)
    assert d.verdicts.tolist() == ["yes", "no", "idk"]
    assert d.p_entail.tolist() == pytest.approx([0.7, 0.2, 0.3])
    assert d.best_entail_chunk.tolist() == [1, 1, 0]
    assert d.evidence_chunk.tolist() == [1, 0, 0]  # "no" shows the contradicting chunk


def test_support_wins_over_contradiction_elsewhere():
    d = decide(m([(0.9, 0.05, 0.05), (0.0, 0.0, 1.0)]))
    assert d.verdicts.tolist() == ["yes"]


def test_thresholds_are_settable_and_checked():
    probs = m([(0.45, 0.1, 0.45)])
    assert decide(probs).verdicts.tolist() == ["idk"]
    assert decide(probs, entail_threshold=0.4).verdicts.tolist() == ["yes"]
    assert decide(probs, contradict_threshold=0.4).verdicts.tolist() == ["no"]
    with pytest.raises(ValueError, match="entail_threshold"):
        decide(probs, entail_threshold=1.5)


def test_masks_exclude_pairs():
    probs = m([(0.9, 0.05, 0.05), (0.1, 0.1, 0.8)])
    assert decide(probs, mask=np.array([[False, True]])).verdicts.tolist() == ["no"]
    d = decide(probs, support_mask=np.array([[False, True]]))
    assert d.verdicts.tolist() == ["no"]
    assert d.p_entail[0] == pytest.approx(0.1)


def test_no_chunks_means_idk():
    d = decide(np.zeros((2, 0, 3), dtype=np.float32))
    assert d.verdicts.tolist() == ["idk", "idk"]
    assert d.evidence_chunk.tolist() == [-1, -1]


def test_lenient_strict_soft_formulas():
    s = compute_scores(["yes", "idk", "no", "yes", "idk"], [0.9, 0.3, 0.1, 0.8, 0.4])
    assert s.lenient == pytest.approx(4 / 5)  # (n - contradicted) / n
    assert s.strict == pytest.approx(2 / 5)  # supported / n
    assert s.soft == pytest.approx(0.5)
    assert (s.n_yes, s.n_no, s.n_idk, s.n_claims) == (2, 1, 2, 5)


def test_all_idk_is_lenient_one_and_strict_zero_and_the_reason_says_so():
    verdicts = ["idk"] * 20
    s = compute_scores(verdicts, [0.1] * 20)
    assert (s.lenient, s.strict) == (1.0, 0.0)
    reason = explain(s, verdicts, [f"claim {i}" for i in range(20)])
    assert "0 of 20 claims are supported" in reason
    assert "unsupported" in reason.lower()
    assert "trust the strict score" in reason
    assert "fully" not in reason.lower()


def test_no_claims_is_never_scored_one():
    s = compute_scores([], [])
    assert (s.lenient, s.strict, s.soft) == (None, None, None)
    assert "no verifiable claims" in explain(s, [], [])


def test_reason_names_contradicted_claims():
    verdicts = ["yes", "no"]
    s = compute_scores(verdicts, [0.9, 0.1])
    reason = explain(s, verdicts, ["It is blue.", "It costs $36."])
    assert 'Contradicted: "It costs $36."' in reason
    assert "1 of 2 claims are supported" in reason
