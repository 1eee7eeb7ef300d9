"""A claim's value found next to something else (another row, year or line) supports nothing."""

from __future__ import annotations

import doctest

import pytest

from nli_faith.rules.numbers import quantity_mismatch
from nli_faith.text import attribution, line_structure, sentence_tables, sentences
from nli_faith.text.attribution import key_words, misattributed, segments
from nli_faith.text.sentences import sentence_spans


def split_sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


@pytest.mark.parametrize(
    "module", [attribution, sentences, line_structure, sentence_tables], ids=lambda m: m.__name__
)
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def _veto(claim: str, chunks: list[str]) -> list[bool]:
    return misattributed([claim], chunks, quantity_mismatch([claim], chunks))[0].tolist()


def test_a_value_of_another_row_year_or_line_is_vetoed():
    # the other row of a table (alone, and in a window holding both rows)
    both_rows = (
        "Tier Gold: annual fee $120; 4 lounge visits. Tier Silver: annual fee $60; 2 lounge visits."
    )
    assert _veto(
        "The Silver tier includes 4 lounge visits.",
        [
            "Tier Gold: annual fee $120; 4 lounge visits.",
            "Tier Silver: 2 lounge visits.",
            both_rows,
        ],
    ) == [True, False, True]
    # the other year of a JSON record
    assert _veto(
        "Apple's revenue was 394.3 billion dollars in 2023.",
        [
            "AAPL revenue: $394.3 billion in 2022; $383.3 billion in 2023.",
            "AAPL revenue: $383.3 billion in 2023.",
        ],
    ) == [True, False]
    # the other line of a price list; one-letter names still tell rows apart
    assert _veto(
        "The basic plan costs $15 per month.", ["Basic plan $9 per month", "Pro plan $15 per month"]
    ) == [False, True]
    assert _veto(
        "The Model S costs $80,000.", ["Model X: price $80,000.", "Model S: price $75,000."]
    ) == [True, False]


def test_no_veto_when_the_value_sits_with_the_claims_subject():
    # the subject in the sentence (or heading) before the value still counts
    for holder in (
        "Silver members get extra perks. They receive 4 lounge visits per year.",
        "Silver tier\nIt includes 4 lounge visits.",
    ):
        assert _veto(
            "The Silver tier includes 4 lounge visits.",
            [holder, "The Gold tier includes 6 lounge visits."],
        ) == [False, False]
    # a rival that only repeats the claim's verb does not win ("takes")
    assert _veto(
        "The refund takes 5 business days.",
        [
            "Refunds are processed quickly: expect 5 business days.",
            "The refund of a gift card takes 10 business days.",
        ],
    ) == [False, False]
    # a year elsewhere in the context does not take the value away from its sentence
    assert _veto(
        "The company had 300 employees by 2005.",
        ["The company was founded in 1998.", "It had 300 employees by 2005, and 450 by 2010."],
    ) == [False, False]
    # a claim over two years keeps the record that holds both values
    assert _veto(
        "Tesla's deliveries rose from 1.31 million in 2022 to 1.81 million in 2023.",
        [
            "TSLA deliveries: 1.31 million in 2022; 1.81 million in 2023.",
            "TSLA deliveries: 1.31 million in 2022.",
            "TSLA deliveries: 1.81 million in 2023.",
        ],
    ) == [False, False, False]


def test_segments_and_key_words():
    text = "Pro plan $15 per month\nTeam plan: 3.5 GB; 10 seats. Done"
    assert [text[s:e].strip() for s, e in segments(text)] == [
        "Pro plan $15 per month",
        "Team plan: 3.5 GB",
        "10 seats",
        "Done",
    ]
    assert key_words("The Pro plan costs $15 in 2024.") >= {"pro", "plan", "2024"}


def test_end_to_end_the_scorer_says_no_with_the_right_row_as_evidence(bundled_scorer):
    table = (
        "| Tier | Annual fee | Lounge visits |\n|---|---|---|\n"
        "| Gold | $120 | 4 |\n| Silver | $60 | 2 |\n"
    )
    r = bundled_scorer.score("The Silver tier includes 4 lounge visits.", table)
    (c,) = r.claims
    assert c.verdict == "no" and "Silver" in c.evidence.text
    ok = bundled_scorer.score("The Gold tier includes 4 lounge visits.", table)
    assert ok.claims[0].verdict == "yes"
    web = "Shipping\nOrders ship within 2 business days\nStandard delivery takes 3 to 5 days"
    r = bundled_scorer.score("Orders ship within 5 business days.", web)
    assert r.claims[0].verdict == "no" and "2 business days" in r.claims[0].evidence.text


def test_one_item_per_line_pages_split_per_line_whatever_the_case():
    lines = ["home", "pricing", "blog", "careers", "about us", "log in", "sign up"]
    lines += ["the company was founded in 2016", "we employ 85 people"]
    assert split_sentences("\n".join(lines)) == lines
    assert split_sentences("home\npricing\nblog\nwe employ 85 people") == [
        "home",
        "pricing",
        "blog",
        "we employ 85 people",
    ]
    # hard-wrapped prose still joins: its lines run on ("the", a comma), or it has full stops
    prose = "We met the\nsupplier on Monday, and\nthe order was\nconfirmed by noon today"
    assert len(split_sentences(prose)) == 1
    narrow = (
        "Revenue grew by 12 percent\nin the third quarter as demand\n"
        "for cloud services rose sharply\nacross all regions."
    )
    assert len(split_sentences(narrow)) == 1
    two = (
        "The patient was admitted on Monday\nwith chest pain. She was given\n"
        "aspirin and monitored overnight\nbefore being discharged."
    )
    assert len(split_sentences(two)) == 2
