"""The one gate and the one row builder: every door's pass/fail and row come from them."""

from __future__ import annotations

import dataclasses

import pytest

from nli_faith.results import ClaimVerdict, FaithfulnessResult
from nli_faith.rows import OPTIONAL_KEYS, arrow_row, json_row, output_row
from nli_faith.scoring.gate import gate
from nli_faith.scoring.thresholds import Decision
from nli_faith.serve.settings import Policy

CLAIMS = [
    ClaimVerdict("It is red.", 0, 10, "yes", 0.9, 0.0, None),
    ClaimVerdict("It is big.", 11, 21, "idk", 0.2, 0.1, None),
]
HALF = FaithfulnessResult(1.0, 0.5, 0.55, 2, 1, 0, 1, "...", CLAIMS)
CONTRADICTED = dataclasses.replace(HALF, lenient=0.5, n_no=1, n_idk=0)
NO_CLAIMS = FaithfulnessResult(None, None, None, 0, 0, 0, 0, "No claims.")
FAILED = dataclasses.replace(NO_CLAIMS, error="RecordError: field 'response' is null")
#: What the engine gives an answer checked against no text: nothing supported, nothing
#: contradicted, so the lenient score is 1.0.
EMPTY = FaithfulnessResult(
    1.0, 0.0, 0.0, 2, 0, 0, 2, "...", [dataclasses.replace(c, verdict="idk") for c in CLAIMS],
    context_empty=True,
)  # fmt: skip


def test_the_gate_rules_in_order():
    assert gate(HALF, score="strict", min_score=0.75).passed is False
    assert gate(HALF, score="strict", min_score=0.5).passed is True
    assert gate(HALF, score="lenient", min_score=0.75).passed is True
    assert gate(HALF).why == "no_rule" and gate(HALF).passed is None
    assert gate(CONTRADICTED, block_on_contradiction=True).why == "contradicted"
    assert gate(HALF, block_on_contradiction=True).passed is True
    assert gate(NO_CLAIMS, min_score=0.5).why == "no_claims"
    assert gate(FAILED, min_score=0.5).why == "not_scored"
    with pytest.raises(ValueError, match="score_type must be one of"):
        gate(HALF, score="bogus")


@pytest.mark.parametrize("score", ["strict", "lenient", "soft"])
def test_an_empty_context_passes_no_rule(score):
    result = EMPTY
    for min_score in (None, 0.0, 0.5):
        ruling = gate(result, score=score, min_score=min_score)
        assert ruling.passed is False and ruling.why == "no_context"
        assert "no retrieved context to check the answer against" in ruling.reason
    assert Decision(score, 0.0).passes(result) is False
    assert Decision(score, 0.0).passes(output_row(result)) is False  # on a scored line too
    assert Policy().decide(result) == "block"
    assert Policy(block_on_contradiction=True).decide(result) == "block"


def test_every_gate_is_the_one_gate():
    """The thresholds' decision, the server's policy and a scored line agree with it."""
    for result in (HALF, CONTRADICTED, NO_CLAIMS, FAILED, EMPTY):
        for score in ("strict", "lenient"):
            want = gate(result, score=score, min_score=0.75).passed
            assert Decision(score, 0.75).passes(result) is want
            assert Decision(score, 0.75).passes(output_row(result)) is want
        policy = gate(result, score="strict", min_score=0.75, block_on_contradiction=True)
        decided = Policy(0.75, True).decide(result)
        assert decided == (None if result.error else "block" if policy.passed is False else "pass")


def test_a_row_has_the_optional_keys_only_when_they_apply():
    record = {"id": 7, "question": "What is it?", "response": "It is red.", "context": "Red."}
    row = output_row(HALF, record=record, line=3)
    assert list(row)[:3] == ["line", "id", "question"] and row["question"] == "What is it?"
    assert not {"error", "faithful", "hallucination_rate", "context_empty"} & set(row)
    assert all("reference_label" not in c and "rule" not in c for c in row["claims"])
    assert output_row(FAILED)["error"] == FAILED.error
    assert output_row(EMPTY)["context_empty"] is True
    decided = output_row(HALF, decision=Decision("strict", 0.75))
    assert list(decided)[-1] == "faithful" and decided["faithful"] is False
    referenced = dataclasses.replace(HALF, hallucination_rate=0.5, self_knowledge_rate=0.0)
    assert output_row(referenced)["self_knowledge_rate"] == 0.0
    kept = output_row(HALF, reference=True)  # a judged line that had a reference keeps it
    assert kept["hallucination_rate"] is None and "reference_label" in kept["claims"][0]


def test_the_arrow_shape_round_trips_every_optional_key():
    for result in (HALF, FAILED, EMPTY):
        row = output_row(result, record={"id": "a"}, line=1, decision=Decision())
        flat = arrow_row(row)
        assert set(OPTIONAL_KEYS) <= set(flat)
        # a null faithful (no score) comes back absent: a Parquet null cannot say which
        want = {k: v for k, v in row.items() if not (k == "faithful" and v is None)}
        assert json_row(flat) == want


def test_a_rebuilt_line_keeps_its_own_keys():
    original = {"line": 4, "id": "x", "note": "kept", "faithful": True, **HALF.to_dict()}
    row = output_row(CONTRADICTED, keys=original)
    assert [k for k in row][:3] == ["line", "id", "note"] and "faithful" not in row
    assert row["n_no"] == 1


def test_the_engine_flags_claims_checked_against_no_text(bundled_scorer):
    recs = [
        {"response": "The warranty lasts 36 months.", "context": ctx}
        for ctx in ([], [""], ["  ", "\n"], "", ["The warranty lasts 24 months."])
    ]
    recs += [
        {"response": "Unable to answer based on the given passages.", "context": []},
        {"response": "Sure! What would you like to know?", "context": []},
    ]
    flags = [r.context_empty for r in bundled_scorer.score_batch(recs)]
    assert flags == [True, True, True, True, False, False, False]
