"""The words to blame in a claim that is not supported (nli_faith.text.spans), and how
they reach the result, its JSON output and the judge merge."""

from __future__ import annotations

import json

import pytest

from nli_faith.rows import output_row
from nli_faith.text.spans import find_spans, to_response


def _marked(claim: str, evidence: str | None, verdict: str) -> list[tuple[str, str]]:
    return [(claim[s:e], kind) for (s, e), kind in find_spans(claim, evidence, verdict=verdict)]


@pytest.mark.parametrize(
    ("response", "verdict", "kind"),
    [
        ("The device is covered for thirty-six months.", "no", "contradicted"),
        # quantities are matched by what they measure: a device covered for months is
        # what a warranty lasting months measures, so the other value contradicts it
        ("The warranty lasts thirty-six months.", "no", "contradicted"),
    ],
)
def test_the_wrong_number_and_nothing_else_is_marked(bundled_scorer, response, verdict, kind):
    r = bundled_scorer.score(response, "The device is covered for twenty-four months.")
    (claim,) = r.claims
    assert claim.verdict == verdict
    assert [(response[s.start : s.end], s.text) for s in claim.unsupported_spans] == [
        ("thirty-six months", "thirty-six months")
    ]
    (span,) = claim.unsupported_spans
    assert span.kind == kind  # a span never says more than its claim's verdict
    assert span.evidence == "The device is covered for twenty-four months."


def test_supported_claims_have_no_spans_and_offsets_survive_markdown(bundled_scorer):
    response = (
        "Based on the context, **the warranty** lasts thirty-six months [1]. "
        "The device is covered for twenty-four months."
    )
    r = bundled_scorer.score(response, ["The device is covered for twenty-four months."])
    wrong, right = r.claims
    assert right.verdict == "yes" and right.unsupported_spans == []
    assert [response[s.start : s.end] for s in wrong.unsupported_spans] == ["thirty-six months"]
    out = json.loads(json.dumps(output_row(r)))
    assert out["claims"][0]["unsupported_spans"][0]["text"] == "thirty-six months"
    assert out["claims"][1]["unsupported_spans"] == []


def test_a_claim_with_nothing_in_the_evidence_keeps_its_whole_span(bundled_scorer):
    response = "Penguins enjoy jazz concerts."
    r = bundled_scorer.score(response, "The device is covered for twenty-four months.")
    assert [(s.text, s.kind) for s in r.claims[0].unsupported_spans] == [
        ("Penguins enjoy jazz concerts", "unsupported")
    ]


@pytest.mark.parametrize(
    ("claim", "evidence", "verdict", "expected"),
    [
        # a negation the evidence lacks, and the word a negation of the evidence denies
        ("The plan does not cover theft.", "The plan covers theft.", "no", [("not", "c")]),
        (
            "The warranty covers accidental damage.",
            "The warranty does not cover accidental damage.",
            "no",
            [("covers", "c")],
        ),
        # a year where the evidence gives another
        ("It was finished in 1890.", "It was completed in 1889.", "no", [("1890", "c")]),
        # missing names and words, joined into runs; relation verbs are not blamed
        (
            "Rory McIlroy leads the WGC-HSBC Champions.",
            "McIlroy leads after three rounds.",
            "idk",
            [("Rory", "u"), ("WGC-HSBC Champions", "u")],
        ),
        # a missing number and a missing word, joined across the stop word between them
        (
            "McIlroy carded a 65 in Shanghai.",
            "McIlroy carded a 67.",
            "idk",
            [("65 in Shanghai", "u")],
        ),
        # ... but not across a word the evidence holds
        (
            "McIlroy carded a 65 at the course in Shanghai.",
            "McIlroy carded a 67 at the course.",
            "idk",
            [("65", "u"), ("Shanghai", "u")],
        ),
        # no evidence at all: the whole claim, without its full stop
        ("Tokens expire after an hour.", None, "idk", [("Tokens expire after an hour", "u")]),
        # nothing smaller to blame in a contradicted claim: the whole claim
        ("Alice pays Bob.", "Bob pays Alice.", "no", [("Alice pays Bob", "c")]),
        ("The sky is blue.", "The sky is blue.", "yes", []),
    ],
)
def test_find_spans(claim, evidence, verdict, expected):
    kinds = {"c": "contradicted", "u": "unsupported"}
    assert _marked(claim, evidence, verdict) == [(t, kinds[k]) for t, k in expected]


def test_to_response_maps_cleaned_claim_text_back():
    response = "Intro. - **Tokens** expire after *two* hours [2]."
    raw = response[9:]
    text = "Tokens expire after two hours."
    s, e = to_response(text, raw, 9, (text.index("two"), text.index("two") + 9))
    assert response[s:e] == "two* hours"  # the span runs from "two" to "hours"
    assert to_response(text, text, 5, (0, 6)) == (5, 11)


def test_the_judge_clears_spans_of_a_claim_it_supports():
    from nli_faith.judge.merge import JudgeOutcome, apply_outcomes
    from nli_faith.results import ClaimVerdict, FaithfulnessResult, UnsupportedSpan

    span = UnsupportedSpan(0, 6, "It red", "unsupported", "It is blue.")
    c = ClaimVerdict("It red.", 0, 7, "idk", 0.4, 0.1, None, unsupported_spans=[span])
    r = FaithfulnessResult(1.0, 0.0, 0.4, 1, 0, 0, 1, "...", [c, c], n_uncertain=2)
    m = apply_outcomes(r, {0: JudgeOutcome("yes", "fine"), 1: JudgeOutcome("no", "wrong")})
    assert m.claims[0].unsupported_spans == []
    assert m.claims[1].unsupported_spans[0].kind == "contradicted"


def test_a_negation_elsewhere_in_the_evidence_blames_nothing():
    claim = "The device is covered for a period of thirty-six months."
    evidence = (
        "Warranty. The device is covered for a period of twenty-four months from the date "
        "of purchase. The warranty does not cover accidental damage."
    )
    assert _marked(claim, evidence, "no") == [("thirty-six months", "contradicted")]
    # the same negation, in the passage the claim is about
    claim = "The warranty covers accidental damage."
    assert _marked(claim, evidence, "no") == [("covers", "contradicted")]
