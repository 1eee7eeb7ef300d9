"""Composite premises: planning and guards (pure), then end to end with the bundled model."""

from __future__ import annotations

import doctest
import json

import numpy as np
import pytest

from nli_faith.scoring import composite, summary_statements
from nli_faith.scoring.composite import composite_masks, is_composite, plan_composites
from nli_faith.scoring.summary_statements import coherent, negation_cues
from nli_faith.text.chunking import Chunk, sentence_members
from nli_faith.text.enumerations import drop_self_counts

REFUND_DOCS = [
    "Cancellation: Annual plans may be cancelled within 14 days of purchase.",
    "Refunds: Cancelled plans receive a full refund of the amount paid.",
]
REFUND_CLAIM = "Annual plans can be cancelled within 14 days for a full refund."
RULE_EXCEPTION_DOCS = [
    "Annual plans can be cancelled within 14 days for a full refund.",
    "Exception: annual plans bought with a discount code are not refundable.",
]
EXCEPTED_CLAIM = (
    "Annual plans bought with a discount code can be cancelled within 14 days for a full refund."
)


def _words(texts):
    return [len(t.split()) for t in texts]


def _doc_chunks(docs):
    return [Chunk(d, k, 0, len(d)) for k, d in enumerate(docs)]


@pytest.mark.parametrize("module", [composite, summary_statements], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_composite_joins_sentences_of_two_documents_in_document_order():
    chunks = _doc_chunks(list(reversed(REFUND_DOCS)))  # refund doc first this time
    comps, mask = plan_composites([REFUND_CLAIM], chunks, count_tokens=_words, budget=64)
    assert len(comps) == 1 and mask.tolist() == [[True]]
    c = comps[0]
    assert [p.doc_index for p in c.parts] == [0, 1]  # document order, not rank order
    assert c.text == " ".join(p.text for p in c.parts)
    # the main span is the best-ranked sentence: the cancellation one (doc 1 here)
    assert (c.doc_index, c.start, c.end) == (1, 0, len(REFUND_DOCS[0]))


def test_no_composite_when_one_sentence_covers_the_claim():
    chunks = _doc_chunks([REFUND_CLAIM, REFUND_DOCS[1]])
    comps, mask = plan_composites([REFUND_CLAIM], chunks, count_tokens=_words, budget=64)
    assert comps == [] and mask.shape == (1, 0)


def test_budget_limits_the_sentences_joined():
    chunks = _doc_chunks(REFUND_DOCS)
    comps, _ = plan_composites([REFUND_CLAIM], chunks, count_tokens=_words, budget=12)
    assert comps == []  # 11 + 11 words do not fit in 12


def test_guard_exception_sentence_is_never_joined():
    assert negation_cues(RULE_EXCEPTION_DOCS[1]) == {"exception", "not"}
    comps, _ = plan_composites(
        [EXCEPTED_CLAIM], _doc_chunks(RULE_EXCEPTION_DOCS), count_tokens=_words, budget=64
    )
    assert comps == []
    # the same cue in the claim itself is no reason to refuse
    claim = "Annual plans are not refundable after 14 days of purchase."
    docs = ["Annual plans are not refundable after purchase.", "The window is 14 days."]
    assert plan_composites([claim], _doc_chunks(docs), count_tokens=_words, budget=64)[0] == []
    docs = ["Annual plans are not refundable after purchase.", "Plans last 14 days."]
    assert len(plan_composites([claim], _doc_chunks(docs), count_tokens=_words, budget=64)[0]) == 1


def test_guard_sentences_about_different_things_are_not_joined():
    assert not coherent(["Alice joined in 2019.", "Bob leads the data team."])
    comps, _ = plan_composites(
        ["Alice joined the company in 2019 and leads the data team."],
        _doc_chunks(["Alice joined the company in 2019.", "Bob leads the data team."]),
        count_tokens=_words,
        budget=64,
    )
    assert comps == []


def test_no_composite_for_sentences_a_window_already_joins():
    doc = REFUND_DOCS[0] + " " + REFUND_DOCS[1]
    a = len(REFUND_DOCS[0])
    chunks = [
        Chunk(doc[:a], 0, 0, a),
        Chunk(doc[a + 1 :], 0, a + 1, len(doc)),
        Chunk(doc, 0, 0, len(doc)),
    ]
    assert plan_composites([REFUND_CLAIM], chunks, count_tokens=_words, budget=64)[0] == []


def test_claims_with_the_same_sentences_share_one_composite():
    claims = [REFUND_CLAIM, "Annual plans cancelled within 14 days get a full refund."]
    comps, mask = plan_composites(claims, _doc_chunks(REFUND_DOCS), count_tokens=_words, budget=64)
    assert len(comps) == 1 and mask.tolist() == [[True], [True]]


def test_sentence_members_ignores_composites():
    chunks = _doc_chunks(REFUND_DOCS)
    comps, _ = plan_composites([REFUND_CLAIM], chunks, count_tokens=_words, budget=64)
    members = sentence_members(chunks + comps)
    assert members == [[0], [1], [2]]
    assert is_composite(chunks + comps).tolist() == [False, False, True]


def test_composite_never_contradicts_and_is_vetoed_only_from_outside():
    chunks = _doc_chunks(REFUND_DOCS + ["Refunds are never paid for annual plans."])
    comps, _ = plan_composites([REFUND_CLAIM], chunks[:2], count_tokens=_words, budget=64)
    allc = chunks + comps
    probs = np.array([[[0.1, 0.2, 0.7], [0.2, 0.7, 0.1], [0.1, 0.8, 0.1], [0.9, 0.0, 0.1]]])
    mask = np.ones((1, 4), bool)
    support, contra = composite_masks(
        probs, mask, allc, contradict_mask=None, contradict_threshold=0.5
    )
    assert contra[0].tolist() == [True, True, True, False]
    assert support[0, 3]  # its own sentence (doc 0) contradicting alone is no veto
    probs[0, 2] = [0.0, 0.1, 0.9]  # the third document contradicts the claim
    support, _ = composite_masks(probs, mask, allc, contradict_mask=None, contradict_threshold=0.5)
    assert not support[0, 3]
    gate = np.array([[True, True, False, True]])  # ... unless it may not contradict it
    support, _ = composite_masks(probs, mask, allc, contradict_mask=gate, contradict_threshold=0.5)
    assert support[0, 3]


def test_drop_self_counts():
    assert drop_self_counts("Three teams: design, engineering and QA.") == (
        "teams: design, engineering and QA."
    )
    assert drop_self_counts("We have 2 offices (Lisbon and Porto).") == (
        "We have offices (Lisbon and Porto)."
    )
    kept = "It takes four teams: design, engineering and QA."
    assert drop_self_counts(kept) == kept
    assert drop_self_counts("The warranty lasts 3 years.") == "The warranty lasts 3 years."


# -- end to end, bundled model ---------------------------------------------------------------


def test_refund_split_across_documents_is_supported_with_both_spans(bundled_scorer):
    r = bundled_scorer.score(REFUND_CLAIM, REFUND_DOCS)
    c = r.claims[0]
    assert c.verdict == "yes"
    assert [(s.doc_index, s.start, s.end) for s in c.evidence.spans] == [
        (0, 0, len(REFUND_DOCS[0])),
        (1, 0, len(REFUND_DOCS[1])),
    ]
    for s in c.evidence.spans:
        assert REFUND_DOCS[s.doc_index][s.start : s.end] in c.evidence.text
    d = json.loads(json.dumps(r.to_dict()))
    ev = d["claims"][0]["evidence"]
    assert {"text", "doc_index", "start", "end", "spans"} <= set(ev)
    assert ev["spans"][1] == {"doc_index": 1, "start": 0, "end": len(REFUND_DOCS[1])}


def test_ordinary_evidence_has_its_one_span(bundled_scorer):
    r = bundled_scorer.score("The tower is in Paris.", ["The tower stands in Paris.", "Cats purr."])
    ev = r.claims[0].evidence
    assert [(s.doc_index, s.start, s.end) for s in ev.spans] == [(ev.doc_index, ev.start, ev.end)]


def test_without_composites_the_split_support_is_not_found(bundled_scorer):
    from nli_faith.scorer import FaithfulnessScorer

    plain = FaithfulnessScorer(device="cpu", composite=False)
    plain.nli = bundled_scorer.nli
    assert plain.score(REFUND_CLAIM, REFUND_DOCS).claims[0].verdict != "yes"


def test_claim_summing_up_one_sentence_per_team(bundled_scorer):
    r = bundled_scorer.score(
        "Releasing a new version takes work from three teams: design, engineering and QA.",
        [
            "The design team prepares the mockups for every release.",
            "The engineering team implements the features of each release.",
            "The QA team tests each release before it ships.",
        ],
    )
    assert r.claims[0].verdict == "yes"
    assert len(r.claims[0].evidence.spans) == 3


@pytest.mark.parametrize(
    ("claim", "docs"),
    [
        (EXCEPTED_CLAIM, RULE_EXCEPTION_DOCS),
        (
            "Contractors get 25 days of paid leave per year.",
            [
                "Employees get 25 days of paid leave per year.",
                "Contractors are not entitled to paid leave.",
            ],
        ),
        (
            "The Pro plan costs 20 dollars per month and includes 10 GB of storage.",
            [
                "The Pro plan costs 20 dollars per month.",
                "The Basic plan includes 10 GB of storage.",
            ],
        ),
    ],
)
def test_guard_rule_and_exception_or_different_things_stay_not_yes(bundled_scorer, claim, docs):
    assert bundled_scorer.score(claim, docs).claims[0].verdict != "yes"


def test_matrix_columns_and_reaggregation(bundled_scorer):
    claims = REFUND_CLAIM + " The weather was sunny."
    m = bundled_scorer.stages.matrices([bundled_scorer.stages.plan(claims, REFUND_DOCS)])[0]
    comp = is_composite(m.chunks)
    assert comp.sum() == 1 and m.probs.shape == (2, len(m.chunks), 3)
    assert m.mask[:, comp].tolist() == [[True], [False]]  # scored for its own claim only
    assert bundled_scorer.stages.aggregate(m).claims[0].verdict == "yes"
    strict = bundled_scorer.stages.aggregate(m, entail_threshold=0.99)
    assert strict.claims[0].verdict != "yes"


def test_guardrail_preset_uses_composites_in_its_second_round(bundled_scorer):
    from nli_faith.scorer import FaithfulnessScorer

    g = FaithfulnessScorer.guardrail()
    r = g.score(REFUND_CLAIM, REFUND_DOCS)
    assert r.claims[0].verdict == "yes" and len(r.claims[0].evidence.spans) == 2
    m = g.stages.matrices(
        [
            g.stages.plan(
                "The warranty lasts two years.", ["The warranty lasts two years.", "Cats purr."]
            )
        ]
    )[0]
    assert not is_composite(m.chunks).any()  # nothing to join: no extra pair


def test_a_sentence_adding_only_a_number_is_not_joined():
    claim = "The Pro plan costs 20 dollars per month and includes 5 seats."
    docs = ["The Pro plan costs 25 dollars per month and includes 5 seats.", "Teams get 20 seats."]
    comps, _ = plan_composites([claim], _doc_chunks(docs), count_tokens=_words, budget=64)
    assert comps == []  # "20" alone links the second sentence to the claim


def test_a_rule_conflict_vetoes_the_composite_even_from_its_own_sentence():
    chunks = _doc_chunks(REFUND_DOCS)
    comps, _ = plan_composites([REFUND_CLAIM], chunks, count_tokens=_words, budget=64)
    allc = chunks + comps
    probs = np.array([[[0.2, 0.7, 0.1], [0.2, 0.7, 0.1], [0.9, 0.05, 0.05]]])
    mask = np.ones((1, 3), bool)
    rule = np.array([[True, False, False]])  # doc 0 states a claim quantity with another value
    support, _ = composite_masks(
        probs, mask, allc, contradict_mask=None, contradict_threshold=0.5, rule_conflict=rule
    )
    assert support[0].tolist() == [True, True, False]


def test_table_row_with_a_wrong_price_is_not_rescued_by_a_composite(bundled_scorer):
    response = "| Plan | Price | Seats |\n|---|---|---|\n| Pro | $20 | 5 |\n| Team | $50 | 20 |"
    docs = [
        "The Pro plan costs $25 per month and includes 5 seats.",
        "The Team plan costs $50 per month and includes 20 seats.",
    ]
    assert [c.verdict for c in bundled_scorer.score(response, docs).claims] == ["no", "yes"]


def test_no_composite_when_a_name_of_the_claim_is_in_none_of_its_sentences():
    claim = "Our engineers and designers work in the Lisbon office."
    docs = ["Our engineers work in the office.", "Our designers work in the office too."]
    assert plan_composites([claim], _doc_chunks(docs), count_tokens=_words, budget=64)[0] == []
    docs = ["Our engineers work in the Lisbon office.", "Our designers work in the office too."]
    assert len(plan_composites([claim], _doc_chunks(docs), count_tokens=_words, budget=64)[0]) == 1
