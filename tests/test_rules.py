"""The rules stage: context statements, trends, exceptions, aggregates, summaries by rule.

The rule-decided verdicts do not depend on the model, so the scorer-level tests run on
the tiny random model; the verdicts the model decides are not asserted there.
"""

import pytest

from nli_faith.rows import output_row
from nli_faith.rules.absence import judge_absence
from nli_faith.rules.aggregates import judge_count
from nli_faith.rules.exceptions import differing_bound, judge_exception
from nli_faith.rules.summaries import judge_summary
from nli_faith.rules.trends import judge_trend, series
from nli_faith.scoring.composite import plan_composites
from nli_faith.scoring.summary_statements import modifier_conflict
from nli_faith.text.align import align_premise
from nli_faith.text.chunking import Chunk
from nli_faith.text.claims import ClaimSplitter
from nli_faith.text.context_statements import classify, split_joined
from nli_faith.text.structured.lenient import csv_fragment

ABB = ["ABB ROE: 21.4% in 2022; 28.6% in 2023; 24.1% in 2024."]


@pytest.mark.parametrize(
    ("sentence", "kind", "about"),
    [
        ("Unable to answer based on the given passages.", "abstention", ""),
        ("The passages do not provide further explanation.", "abstention", ""),
        ("I don't know.", "abstention", ""),
        ("Watching stories is not mentioned as a factor.", "absence", "Watching stories"),
        ("The context does not mention the ticket price.", "absence", "ticket price"),
        ("There is no information about refunds in the documents.", "absence", "refunds"),
        ("Meals are not included in the documents.", "absence", "Meals"),
        # led by a connective or a note label
        ("Note: Unable to answer based on given passages.", "abstention", ""),
        ("Therefore, I am unable to provide instructions based on the passages.", "abstention", ""),
        (
            "If none of these methods work, unable to answer based on given passages.",
            "abstention",
            "",
        ),
        (
            "However, none of the passages provide information about making the dish spicy.",
            "absence",
            "making the dish spicy",
        ),
        # a numbered or ordinal passage as the subject
        (
            "Passage 2 does not provide any information about the digestive system.",
            "absence",
            "digestive system",
        ),
        ("The second passage does not mention frying.", "absence", "frying"),
        # an absence followed by the abstention it leads to
        (
            "On the other hand, a tax return copy is not explicitly mentioned in the passages "
            "provided, therefore we are unable to answer the question.",
            "absence",
            "tax return copy",
        ),
    ],
)
def test_context_statements_are_recognised(sentence, kind, about):
    said = classify(sentence)
    assert said is not None and (said.kind, said.about) == (kind, about)


@pytest.mark.parametrize(
    "sentence",
    [
        "Meals are not included.",
        "Refunds are not provided.",
        "The warranty is not transferable.",
        # a connective, a condition or a consequence makes no world claim a context statement
        "However, meals are not included.",
        "If it rains, the game is not played.",
        "Other sources do not provide vitamin B12.",
        "Refunds are not given, so we are unable to help.",
    ],
)
def test_negative_world_claims_are_no_context_statements(sentence):
    assert classify(sentence) is None
    assert [c.text for c in ClaimSplitter(context_statements=True).split(sentence)] == [sentence]


def test_a_context_preamble_never_hides_the_world_claim():
    text = "The context does not list prices, but a ticket costs $15."
    assert split_joined(text) == (32, 38, "second")
    for keep in (False, True):
        claims = ClaimSplitter(context_statements=keep).split(text)
        world = [c for c in claims if c.kind is None]
        assert [c.text for c in world] == ["A ticket costs $15."]
        assert text[world[0].start : world[0].end] == "a ticket costs $15."
        assert len(claims) == (2 if keep else 1)
    # the plain splitter still drops a context statement alone
    assert ClaimSplitter().split("The provided context does not mention the price.") == []


def test_absence_is_judged_against_the_chunks():
    assert judge_absence("watching stories", ["Diet and sleep matter."]).verdict == "yes"
    got = judge_absence("watching stories", ["Others", "Children watch stories at night."])
    assert (got.verdict, got.chunk) == ("no", 1)
    assert judge_absence("prices", ["Tickets cost $15."]).verdict == "no"  # an amount of money
    assert judge_absence("ticket prices for students", ["Tickets cost $15."]).verdict == "idk"


def test_trends_over_a_series():
    assert series(ABB[0])[2023].number == "28.6"
    ok = judge_trend("ABB's ROE fell from 28.6% in 2023 to 24.1% in 2024.", ABB)
    assert ok.verdict == "yes" and "28.6% in 2023 to 24.1% in 2024" in ok.note
    assert judge_trend("ABB's ROE rose from 28.6% in 2023 to 24.1% in 2024.", ABB).verdict == "no"
    assert judge_trend("ABB's ROE fell from 30% in 2023 to 24.1% in 2024.", ABB).verdict == "no"
    assert judge_trend("ABB's ROE was higher in 2023 than in 2022.", ABB).verdict == "yes"
    assert judge_trend("ABB's ROE was highest in 2022.", ABB).verdict == "no"
    assert judge_trend("ABB's ROE rose by about 7 points from 2022 to 2023.", ABB).verdict == "yes"
    assert judge_trend("ABB's ROE rose by 3 points from 2022 to 2023.", ABB).verdict == "no"
    # not a trend claim, another company, a year the series lacks: the rule says nothing
    assert judge_trend("ABB's ROE was 24.1% in 2024.", ABB) is None
    assert judge_trend("Siemens' ROE fell from 28.6% in 2023 to 24.1% in 2024.", ABB) is None
    assert judge_trend("ABB's ROE fell from 2019 to 2024.", ABB) is None
    sales = ["Sales were $12 million in 2021 and $24 million in 2023."]
    assert judge_trend("Sales doubled from 2021 to 2023.", sales).verdict == "yes"
    assert judge_trend("Sales tripled from 2021 to 2023.", sales).verdict == "no"


def test_an_exception_overrides_the_rule():
    rule = ["Items may be returned within 30 days.", "Electronics have a 14-day return window."]
    got = judge_exception("Electronics can be returned within 30 days.", rule, 0)
    assert (got.verdict, got.chunk) == ("no", 1) and '"14-day"' in got.note
    assert judge_exception("Books can be returned within 30 days.", rule, 0) is None
    assert (
        judge_exception("Electronics ship within 3 days.", ["Orders ship in 3 days."] + rule, 0)
        is None
    )
    leave = ["Employees get 25 days of paid leave.", "Contractors are not entitled to paid leave."]
    assert judge_exception("Contractors get 25 days of paid leave.", leave, 0).verdict == "no"
    assert differing_bound("It can be returned within 30 days.", rule[1]) is not None
    assert differing_bound("It can be returned within 14 days.", rule[1]) is None
    # a lower bound holds an exact amount above it, but not another tier's bound
    found = ["Mexican authorities have begun exhuming bodies.", "Prosecutors found 116 bodies."]
    assert judge_exception("Prosecutors have found more than 100 bodies.", found, 0) is None
    tiers = ["Orders over $50 ship free.", "Premium members get free shipping over $75."]
    got = judge_exception("Premium members get free shipping over $50.", tiers, 0)
    assert got is not None and got.verdict == "no"
    # a "no" that negates something else in a news sentence does not override
    club = [
        "Luis Enrique coaches the club, and the club is happy with his work.",
        "Club president Josep Bartomeu says they have no plans to replace Luis Enrique.",
    ]
    claim = "Club president Josep Bartomeu says the club is happy with Luis Enrique."
    assert judge_exception(claim, club, 0) is None
    match = [
        "Williams won the match against the Italian.",
        "World No 1 Williams eventually prevailed against the Italian.",
    ]
    claim = "Williams eventually prevailed against the Italian."
    assert judge_exception(claim, match, 0) is None  # "No 1" is a rank


def test_counts_against_what_the_context_enumerates():
    trials = ["The first trial found a drop.", "The second trial found a drop."]
    assert judge_count("The three trials all found a drop.", trials).verdict == "no"
    assert judge_count("Both trials found a drop.", trials) is None
    assert judge_count("Trial 3 found a drop.", trials) is None  # a label, not a count
    stated = ["Three trials were run.", "The first trial found a drop."]
    assert judge_count("The two trials found a drop.", stated) is None  # the number check's
    named = ["Patients came from the Oslo, Bergen and Tromso hospitals."]
    assert judge_count("Patients came from four hospitals.", named).verdict == "no"
    assert judge_count("Patients came from three hospitals.", named).verdict == "yes"


def test_glossary_and_reverse_aliases_in_the_alignment_step():
    claim = "Microsoft's return on equity was 38.8% in 2023."
    assert align_premise("MSFT ROE: 38.8% in 2023.", claim) == (
        "Microsoft return on equity: 38.8% in 2023."
    )
    assert align_premise("Microsoft's return on equity was 38.8%.", "MSFT ROE was 38.8%.") == (
        "MSFT's ROE was 38.8%."
    )
    assert align_premise("KO EPS: $2.47.", "Coca-Cola's earnings per share were $2.47.") == (
        "Coca-Cola earnings per share: $2.47."
    )


def test_scorer_counts_abstentions_apart_and_explains_rule_verdicts(tiny_scorer):
    ctx = ["Factors linked to better sleep: a fixed bedtime and less caffeine.", ABB[0]]
    r = tiny_scorer.score("Unable to answer based on the given passages.", ctx)
    assert (r.n_claims, r.n_abstentions, r.strict, r.lenient) == (0, 1, None, None)
    assert "declines to answer" in r.reason
    r = tiny_scorer.score(
        "Watching stories is not mentioned as a factor. I cannot answer the rest. "
        "ABB's ROE rose from 28.6% in 2023 to 24.1% in 2024.",
        ctx,
    )
    assert r.n_abstentions == 1 and r.n_claims == 2
    absent, trend = r.claims
    assert (absent.verdict, absent.p_entail, absent.evidence) == ("yes", 1.0, None)
    assert absent.rule.startswith("absence claim: no part of the context")
    assert (trend.verdict, trend.p_contradict) == ("no", 1.0)
    assert trend.rule.startswith("trend over a series") and trend.evidence.doc_index == 1
    assert (r.strict, r.lenient) == (0.5, 0.5)
    out = output_row(r)
    assert out["n_abstentions"] == 1 and all("rule" in c for c in out["claims"])
    r = tiny_scorer.score("Note: Unable to answer based on the given passages.", ctx)
    assert (r.n_claims, r.n_abstentions) == (0, 1)  # a note label does not hide it
    plain = output_row(tiny_scorer.score("The bedtime is fixed.", ctx))
    assert all("rule" not in c for c in plain["claims"])  # only rule-decided claims say so


NETWORK = [
    "When a phone registers, the radio network element forwards its request to the core.",
    "The AMF is the network element that handles registration and mobility.",
    "Another network element, the AUSF, checks the subscriber's credentials.",
]
COOPERATION = (
    "The whole process involves close cooperation among several network elements, "
    "each with its own role."
)


def test_a_summary_is_judged_against_the_statements_it_sums_up():
    j = judge_summary(COOPERATION, NETWORK)
    assert (j.verdict, j.statements) == ("yes", [0, 1, 2])
    assert "'element', 'network' in statement 1" in j.note
    # unrelated context, one statement, a word no statement holds, a restriction
    assert judge_summary(COOPERATION, ["The bakery opens at 7 am.", "Bread is baked."]) is None
    assert judge_summary(COOPERATION, NETWORK[1:2] + ["The bakery opens at 7 am."]) is None
    assert judge_summary(COOPERATION.replace("role", "role in billing"), NETWORK) is None
    assert judge_summary("The whole process uses a single network element.", NETWORK) is None
    offices = ["The Oslo office has a gym.", "The Bergen office has a canteen."]
    assert judge_summary("Both offices have a gym and a canteen.", offices) is None
    # a sentence led by a pronoun is read with the one before; another plan is no support
    kit = ["The starter kit contains a fast charger.", "It also has a leather case.",
           "Kit buyers get a screen protector as well."]  # fmt: skip
    claim = "The starter kit includes a charger, a case and a screen protector."
    assert judge_summary(claim, kit).statements == [0, 1, 2]
    plans = ["The basic plan includes 20 GB of storage.",
             "The family plan adds phone support and early access to new features."]  # fmt: skip
    assert modifier_conflict("The basic plan includes support.", plans[1]) == "family plan"
    assert judge_summary("The basic plan includes storage, phone support and early access.",
                         plans) is None  # fmt: skip


def test_summary_composites_join_the_statements_and_skip_another_thing_s():
    chunks = [Chunk(t, k, 0, len(t)) for k, t in enumerate(NETWORK)]
    comps, mask = plan_composites([COOPERATION], chunks, count_tokens=_words, budget=200)
    assert [len(c.parts) for c in comps] == [3] and mask.tolist() == [[True]]
    plans = ["The basic plan includes 20 GB of storage.",
             "The family plan adds phone support and early access to new features."]  # fmt: skip
    chunks = [Chunk(t, k, 0, len(t)) for k, t in enumerate(plans)]
    claim = "The basic plan includes storage, phone support and early access to new features."
    assert plan_composites([claim], chunks, count_tokens=_words, budget=200)[0] == []
    # a claim that is no summary keeps the ordinary composite (the model judges it)
    claim = "The basic plan includes storage and early access to new features."
    assert len(plan_composites([claim], chunks, count_tokens=_words, budget=200)[0]) == 1


def _words(texts):
    return [len(t.split()) for t in texts]


def test_summary_rule_decides_in_the_scorer_with_the_statements_as_evidence(tiny_scorer):
    r = tiny_scorer.score(COOPERATION, NETWORK)
    c = r.claims[0]
    # the tiny model may itself say yes or no; where it says idk, the rule decides
    assert c.verdict != "idk"
    if c.rule is not None:
        assert c.verdict == "yes" and c.rule.startswith("summary:")
        assert len(c.evidence.spans) == 3


def test_csv_fragments_years_and_ids():
    from nli_faith.text.structured import structured_statements

    texts = [s.text for s in structured_statements("ticker,year,roe\nMSFT,2023,38.8%")]
    assert texts == ["ticker MSFT, roe: 38.8% in 2023."]
    texts = [s.text for s in structured_statements("order_id,items,total\n4411,3,$59.90")]
    assert texts[0] == "order id 4411: 3 items; total $59.90."
    assert structured_statements("Hello, world\nOn 3 May, we met") == []
    assert csv_fragment([["a", "b"], ["1", "2"], ["3", "4"]]) is False  # two rows: a table
    claim = "Microsoft's return on equity was 38.8% in 2023."
    assert align_premise("ticker MSFT, roe: 38.8% in 2023.", claim) == (
        "ticker Microsoft, return on equity: 38.8% in 2023."
    )
