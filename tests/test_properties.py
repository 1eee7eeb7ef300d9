"""Property-based tests, end to end on the bundled model: whatever the input, nothing is lost.

Inputs mix hypothesis's arbitrary unicode with the fragments of ``tests/suites/fuzz_inputs.py``
(Markdown, tables, code, JSON, HTML, emoji, zero-width characters, blank documents), plus
explicit long examples (a run-on sentence in the response and in the context, a blob longer
than the model's window). ``derandomize=True``: the examples are fixed by the test's code,
so a failure replays on every run; a failing example is printed by hypothesis.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from suites import fuzz_inputs as fz

#: Fragments from the fuzz generator, each fixed by a named seed (``fz.<maker>(Random(seed))``).
SNIPPETS = [
    maker(random.Random(seed))
    for seed, maker in enumerate(
        (
            fz.prose,
            fz.markdown,
            fz.table,
            fz.code,
            fz.json_text,
            fz.html,
            fz.sprinkled,
            fz.unicode_soup,
            fz.prose,
            fz.sprinkled,
            fz.markdown,
            fz.table,
        )
    )  # fmt: skip
] + ["", " ", "\n\n", "\u200b\u200d", "😀🚀", "```\nx = 1\n```", "| a | b |\n|---|---|\n| 1 | 2 |"]
#: Just past what a claim or a chunk may hold (254 tokens): split into 2 pieces, not more.
RUN_ON = " ".join(fz.WORDS[i % len(fz.WORDS)] for i in range(330))
BLOB = "https://example.com/" + "/".join(["aB3x"] * 150)  # ~600 tokens, no space

fragment = st.one_of(st.text(max_size=60), st.sampled_from(SNIPPETS))
text = st.lists(fragment, max_size=3).map("\n".join)
context = st.one_of(
    text,
    st.lists(text, max_size=4),
    st.lists(st.sampled_from(["", " ", "\n", "\t\u00a0", "\u200b"]), max_size=3),
    st.lists(st.sampled_from(SNIPPETS[:8]), min_size=8, max_size=12),  # many documents
)
few_docs = st.one_of(text, st.lists(text, max_size=3))  # for the batch test: each runs twice
PROFILE = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def check_result(response: str, context: str | list[str], res) -> None:
    """The properties every scored record must have."""
    if res.error is not None:  # isolated: named, typed, never raised (see the report)
        assert ": " in res.error and res.strict is None
        return
    for name in ("lenient", "strict", "soft"):
        value = getattr(res, name)
        assert value is None or 0.0 <= value <= 1.0
    assert res.n_claims == len(res.claims) == res.n_yes + res.n_no + res.n_idk
    docs = [context] if isinstance(context, str) else context
    for c in res.claims:
        assert 0 <= c.start < c.end <= len(response)
        assert 0.0 <= c.p_entail <= 1.0 and 0.0 <= c.p_contradict <= 1.0
        ev = c.evidence
        if ev is not None:
            assert 0 <= ev.start <= ev.end <= len(docs[ev.doc_index])


@settings(PROFILE, max_examples=10)
@given(response=text, context=context)
@example(response=RUN_ON, context=["The server logs every request.", ""])
@example(response="The server retries each request three times.", context=[RUN_ON, BLOB])
@example(response=BLOB + " is the address.", context="The address is https://example.com/.")
def test_score_never_raises(bundled_scorer, response, context):
    check_result(response, context, bundled_scorer.score(response, context))


BAD = [
    {"response": None, "context": "x"},
    {"response": "x", "context": [1, 2]},
    {"answer": "x"},
    "not an object",
    {"response": "x" * 60_001, "context": "y"},  # past the default limit
]


@settings(PROFILE, max_examples=4)
@given(
    good=st.lists(st.tuples(text, few_docs), min_size=1, max_size=3),
    bad=st.lists(st.sampled_from(BAD), max_size=2),
    seed=st.integers(0, 2**16),
)
@example(
    good=[("Paris is in France.", "Paris is the capital of France."), (RUN_ON, [BLOB, ""])],
    bad=[BAD[0]],
    seed=1,
)
def test_score_batch_keeps_every_record_and_matches_alone(bundled_scorer, good, bad, seed):
    records = [{"response": r, "context": c} for r, c in good] + bad
    random.Random(seed).shuffle(records)
    out = bundled_scorer.score_batch(records)
    assert len(out) == len(records)
    for rec, res in zip(records, out):
        if any(rec is b for b in BAD):
            assert res.error.startswith("RecordError: ") and res.strict is None
            continue
        check_result(rec["response"], rec["context"], res)
        alone = bundled_scorer.score_batch([rec])[0]
        assert [c.verdict for c in res.claims] == [c.verdict for c in alone.claims]


@pytest.mark.parametrize("n_docs", [0, 1, 30])
def test_many_and_empty_documents(bundled_scorer, n_docs):
    docs = [SNIPPETS[k % len(SNIPPETS)] for k in range(n_docs)]
    response = "The warranty lasts two years. Shipping is free for orders above fifty dollars."
    check_result(response, docs, bundled_scorer.score(response, docs))
