"""The engine in stages: typed plans, one runner behind every way in, failure isolation
the same through ``score``, ``score_batch``, ``score_stream`` and the server's batcher."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from nli_faith.engine import Failed, Plan, Planned
from nli_faith.records import Limits, parse_record
from nli_faith.serve.batcher import MicroBatcher

RECORDS = [
    {"response": "The warranty lasts 24 months.", "context": "The warranty lasts 24 months."},
    {"response": "The BOOM device is red.", "context": "The device is red. It is small."},
    {
        "response": "Shipping is free. The tower was finished in 1889.",
        "context": ["Shipping costs nothing."],
        "reference": "The tower was completed in 1889.",
    },
]


def _fields(result):
    return result.to_dict()


@pytest.fixture
def failing_model(tiny_scorer, monkeypatch):
    """The model fails on any pair whose claim says BOOM (a stand-in for a bad record)."""
    predict = tiny_scorer.nli.predict

    def guarded(pairs, **kw):
        if any("BOOM" in claim for _, claim in pairs):
            raise RuntimeError("boom")
        return predict(pairs, **kw)

    monkeypatch.setattr(tiny_scorer.nli, "predict", guarded)
    return tiny_scorer


def test_a_plan_is_typed(tiny_scorer):
    plan = tiny_scorer.stages.plan("It is blue. It is big.", ["The sky is blue.", "It is big."])
    assert isinstance(plan, Plan)
    assert plan.mask.shape == (len(plan.claims), len(plan.chunks)) == (2, len(plan.chunks))
    assert plan.n_pairs == int(plan.mask.sum()) > 0
    planned = tiny_scorer.runner.plan(({"response": None, "context": "x"}, "line 7"))
    assert isinstance(planned, Failed) and planned.input_error
    assert planned.error == "RecordError: " + planned.message


def test_one_record_breaking_the_model_fails_alone_through_every_way_in(failing_model):
    sc = failing_model
    alone = [sc.score_batch([r])[0] for r in RECORDS]
    batch = sc.score_batch(RECORDS)
    stream = list(sc.score_stream(iter(RECORDS), block_size=2))
    assert batch[1].error == stream[1].error == "RuntimeError: boom"
    for k in (0, 2):
        assert _fields(batch[k]) == _fields(alone[k]) == _fields(stream[k])
    assert batch[2].hallucination_rate is not None  # the reference pass ran for record 2
    with pytest.raises(RuntimeError, match="boom"):  # one record alone: raised, as before
        sc.score(RECORDS[1]["response"], RECORDS[1]["context"])


def test_the_server_batcher_gives_score_batch_results(tiny_scorer):
    from nli_faith.errors import RecordError

    bad = {"response": None, "context": "x"}
    with pytest.raises(RecordError) as parsing:
        parse_record(bad)
    # records parsed once by the server; one that did not parse travels as its error
    records = [parse_record(r) for r in RECORDS] + [parsing.value]
    # the server's limits, not the scorer's (which allow 500 claims)
    b = MicroBatcher(lambda: tiny_scorer, max_wait_ms=1, limits=Limits(max_claims=1))
    b.start()
    try:
        assert b.wait_ready(timeout=120)
        scored = asyncio.run(b.score(records, timeout=120))
    finally:
        b.close(timeout=30)
    expected = tiny_scorer.score_batch([*RECORDS, bad])
    assert _fields(scored[0].result) == _fields(expected[0])
    assert _fields(scored[1].result) == _fields(expected[1])
    assert scored[0].pairs == int(
        tiny_scorer.stages.matrices([tiny_scorer.stages.plan(**_rc(RECORDS[0]))])[0].mask.sum()
    )
    # two claims, over the server's own limit: the input's fault (a 422), not the scorer's
    assert not scored[2].internal and "(max_claims)" in scored[2].failure.message
    assert scored[2].result.error.startswith("RecordError: ")
    # the record that did not parse: the same error result as score_batch gives it
    assert _fields(scored[3].result) == _fields(expected[3])
    assert scored[3].failure.input_error and scored[3].exception is parsing.value


def test_matrices_of_plans_as_score_batch_does(tiny_scorer):
    from nli_faith.errors import RecordError

    bad = {"response": "It is.", "context": 7}
    matrices = tiny_scorer.stages.matrices_of([RECORDS[0], bad, RECORDS[1]])
    assert isinstance(matrices[1], RecordError) and "context" in str(matrices[1])
    for m, rec in zip((matrices[0], matrices[2]), (RECORDS[0], RECORDS[1])):
        want = tiny_scorer.stages.matrices([tiny_scorer.stages.plan(**_rc(rec))])[0]
        assert np.array_equal(m.mask, want.mask) and np.allclose(m.probs, want.probs, atol=1e-5)
    batch = tiny_scorer.score_batch([RECORDS[0], bad, RECORDS[1]])
    assert _fields(tiny_scorer.stages.aggregate(matrices[2])) == _fields(batch[2])


def test_a_planning_failure_crosses_processes_without_its_exception():
    import pickle

    from nli_faith.errors import RecordError

    failed = Failed.of(RecordError("field 'response' is null"))
    assert failed.exception is not None and failed.input_error
    back = pickle.loads(pickle.dumps(failed))
    assert back == failed and back.exception is None
    assert (back.error, back.message) == (failed.error, failed.message)


def _rc(rec):
    return {"response": rec["response"], "context": rec["context"]}


def test_planned_records_run_as_one_block(tiny_scorer):
    runner = tiny_scorer.runner
    planned = [runner.plan((r, f"record {k}")) for k, r in enumerate(RECORDS)]
    assert all(isinstance(p, Planned) for p in planned)
    assert planned[2].reference == RECORDS[2]["reference"]
    outcomes = runner.run(planned)
    assert [o.failure for o in outcomes] == [None, None, None]
    assert [_fields(o.result) for o in outcomes] == [
        _fields(r) for r in tiny_scorer.score_batch(RECORDS)
    ]
    assert all(np.isfinite(o.result.soft) for o in outcomes)
