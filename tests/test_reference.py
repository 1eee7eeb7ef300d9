"""Hallucination or self-knowledge: unsupported claims judged by a reference answer."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest
from conftest import REPO, write_jsonl

from nli_faith.errors import RecordError
from nli_faith.records import Limits, parse_record
from nli_faith.scoring.reference import explain_reference, reference_label, reference_rates

CONTEXT = ["The Eiffel Tower is a wrought-iron landmark in Paris."]
SELF_KNOWLEDGE = {  # the year is not in the context, but the reference states it
    "id": "self-knowledge",
    "response": "The Eiffel Tower is in Paris. It was finished in 1889.",
    "context": CONTEXT,
    "reference": "The tower was completed in 1889.",
}
HALLUCINATION = {  # the reference gives another year: not in the context, not true
    "id": "hallucination",
    "question": "When was the tower finished?",
    "answer": "The Eiffel Tower is in Paris. It was finished in 1925.",
    "contexts": CONTEXT,
    "ground_truth": "The tower was completed in 1889.",
}
CONTRADICTED = {  # contradicted by the context and not in the reference: a hallucination
    "actual_output": "The warranty lasts 36 months.",
    "retrieval_context": ["The warranty lasts 24 months."],
    "expected_output": "The warranty lasts 24 months.",
}
NO_REFERENCE = {k: v for k, v in SELF_KNOWLEDGE.items() if k != "reference"}


def test_labels_and_rates_are_pure_functions_of_verdicts():
    assert [reference_label(v) for v in ("yes", "no", "idk")] == [
        "self_knowledge",
        "hallucination",
        "hallucination",
    ]
    r = reference_rates([None, None, "hallucination", "self_knowledge"])
    assert (r.n_hallucination, r.n_self_knowledge) == (1, 1)
    assert (r.hallucination_rate, r.self_knowledge_rate) == (0.25, 0.25)
    assert reference_rates([]).hallucination_rate is None
    assert "none is hallucinated" in explain_reference(reference_rates([None]))


def test_records_accept_the_reference_under_each_name():
    assert parse_record(SELF_KNOWLEDGE).reference == "The tower was completed in 1889."
    assert parse_record(HALLUCINATION).reference == "The tower was completed in 1889."
    assert parse_record(CONTRADICTED).reference == "The warranty lasts 24 months."
    assert parse_record(NO_REFERENCE).reference is None
    assert parse_record({**NO_REFERENCE, "reference": "  "}).reference is None  # blank = none
    with pytest.raises(RecordError, match="'ground_truth' must be a string, got list") as info:
        parse_record({**NO_REFERENCE, "ground_truth": ["a", "b"]})
    assert info.value.field == "ground_truth"


def test_each_kind_of_record(bundled_scorer, monkeypatch):
    calls = []
    predict = bundled_scorer.nli.predict
    monkeypatch.setattr(
        bundled_scorer.nli,
        "predict",
        lambda pairs, **kw: calls.append(pairs) or predict(pairs, **kw),
    )
    sk, hal, contra, plain, bad = bundled_scorer.score_batch(
        [
            SELF_KNOWLEDGE,
            HALLUCINATION,
            CONTRADICTED,
            NO_REFERENCE,
            {**NO_REFERENCE, "reference": 3},
        ]
    )
    # one pass over every record's context, one over the references of all of them
    assert len(calls) == 2
    # the reference pass scores only the claims that are not `yes`, against the reference
    assert sorted(h for _, h in calls[1]) == [
        "It was finished in 1889.",
        "It was finished in 1925.",
        "The warranty lasts 36 months.",
    ]
    assert {p for p, _ in calls[1]} == {
        "The tower was completed in 1889.",
        "The warranty lasts 24 months.",
    }

    assert [c.verdict for c in sk.claims] == ["yes", "idk"]
    assert [c.reference_label for c in sk.claims] == [None, "self_knowledge"]
    assert (sk.hallucination_rate, sk.self_knowledge_rate) == (0.0, 0.5)
    assert "1 is self-knowledge" in sk.reason

    assert [c.reference_label for c in hal.claims] == [None, "hallucination"]
    assert (hal.hallucination_rate, hal.self_knowledge_rate) == (0.5, 0.0)
    assert "1 unsupported claim is a hallucination" in hal.reason

    assert [(c.verdict, c.reference_label) for c in contra.claims] == [("no", "hallucination")]
    assert (contra.hallucination_rate, contra.self_knowledge_rate) == (1.0, 0.0)

    # without a reference: exactly the result of scoring the same record before
    assert plain.hallucination_rate is None and plain.self_knowledge_rate is None
    assert all(c.reference_label is None for c in plain.claims)
    assert "reference" not in plain.reason
    same = dataclasses.replace(
        sk,
        claims=[dataclasses.replace(c, reference_label=None) for c in sk.claims],
        hallucination_rate=None,
        self_knowledge_rate=None,
        reason=plain.reason,
    )
    assert same == plain  # the reference changes nothing but the new fields and the reason
    assert sk.reason.startswith(plain.reason)

    assert bad.error == "RecordError: field 'reference' must be a string, got int."


def test_score_takes_a_reference(bundled_scorer):
    r = bundled_scorer.score(
        SELF_KNOWLEDGE["response"], CONTEXT, reference=SELF_KNOWLEDGE["reference"]
    )
    assert r.self_knowledge_rate == 0.5
    all_supported = bundled_scorer.score("The Eiffel Tower is in Paris.", CONTEXT, reference="x")
    assert (all_supported.hallucination_rate, all_supported.self_knowledge_rate) == (0.0, 0.0)
    nothing = bundled_scorer.score("Sure! What would you like to know?", CONTEXT, reference="x")
    assert nothing.n_claims == 0 and nothing.hallucination_rate is None


def test_cli_reports_rates_only_when_there_is_a_reference(tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", [SELF_KNOWLEDGE, HALLUCINATION, NO_REFERENCE])
    proc = subprocess.run(
        [sys.executable, "-m", "nli_faith.cli", "score", str(src), "--device", "cpu"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    sk, hal, plain = (json.loads(line) for line in proc.stdout.splitlines())
    assert [c["reference_label"] for c in sk["claims"]] == [None, "self_knowledge"]
    assert hal["hallucination_rate"] == 0.5 and hal["self_knowledge_rate"] == 0.0
    assert "hallucination_rate" not in plain and "reference_label" not in plain["claims"][0]
    summary = dict(line.rsplit(None, 1) for line in proc.stderr.strip().splitlines()[-5:])
    assert summary == {
        "with a reference answer": "2",
        "mean hallucination rate": "0.250",
        "mean self-knowledge rate": "0.250",
        "claims hallucinated": "1",
        "claims self-knowledge": "1",
    }


def test_reference_is_held_to_the_response_limit():
    rec = {"response": "It is 1889.", "context": CONTEXT, "reference": "x" * 20}
    with pytest.raises(RecordError, match="field 'reference' is too long: 20 characters") as info:
        parse_record(rec, limits=Limits(max_response_chars=19, max_context_chars=None))
    assert info.value.field == "reference"
    assert parse_record(rec, limits=Limits(max_response_chars=60)).reference == "x" * 20
