"""A contradiction shows its conflict (nli_faith.rules.conflicts), and the number rule
matches quantities by what they measure."""

from __future__ import annotations

import pytest

from nli_faith.rules.conflicts import conflict_note, coverage, find_conflict
from nli_faith.rules.numbers import quantity_mismatch_mask

WARRANTY = "The device is covered for a period of twenty-four months from the date of purchase."
DELIVERY = "We provide complimentary delivery on purchases over $50."


@pytest.mark.parametrize(
    ("claim", "evidence", "kind"),
    [
        ("The warranty lasts thirty-six months.", WARRANTY, "number"),
        ("The plant opened in 1998.", "The plant opened in 1996.", "number"),
        ("The fair opens in March.", "The fair opens in April.", "date"),
        ("The museum is not open on Sundays.", "The museum is open on Sundays.", "negation"),
        ("Sales increased in 2020.", "Sales decreased in 2020.", "antonym"),
        ("The bridge was designed by Gustave Eiffel.",
         "The bridge was designed by John Roebling.", "entity"),
        ("Siemens' ROE fell to 24.1% in 2024.", "ABB ROE: 24.1% in 2024.", "entity"),
    ],
)  # fmt: skip
def test_each_kind_of_conflict_is_found_and_named(claim, evidence, kind):
    found = find_conflict(claim, evidence)
    assert found is not None and found.startswith(f"{kind}:"), found


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Delivery costs nothing for purchases above $50.", DELIVERY),
        ("In 1977, Apple was incorporated without Wayne, who sold his share of the company "
         "to Jobs and Wozniak for $800.",
         "Apple was incorporated January 3, 1977 without Wayne, who sold his share of the "
         "company back to Jobs and Wozniak for $800."),
        ("There is no charge for delivery above $50.", DELIVERY),
    ],
)  # fmt: skip
def test_paraphrases_and_near_copies_show_no_conflict(claim, evidence):
    assert find_conflict(claim, evidence) is None
    why = conflict_note(claim, evidence)
    assert why.startswith("contradiction without a conflict") and "content words" in why


def test_a_conflict_is_named_in_the_note_and_coverage_is_a_share():
    assert conflict_note("The warranty lasts thirty-six months.", WARRANTY) == (
        "conflict: number: 'thirty-six months' against 'twenty-four months'"
    )
    claim = "The festival attracts ten thousand visitors from abroad every summer."
    assert coverage(claim, DELIVERY) < 0.5 <= coverage("Delivery over $50 is free.", DELIVERY)


def test_quantities_match_by_what_they_measure():
    chunks = [WARRANTY, "Returns are accepted within 30 days.", DELIVERY]
    got = quantity_mismatch_mask(
        ["The warranty lasts thirty-six months.", "Delivery takes thirty-six days."], chunks
    ).tolist()
    # the warranty's months against the coverage period; delivery days against nothing
    assert got == [[True, False, False], [False, False, False]]


@pytest.mark.slow
def test_the_issue_examples_with_the_bundled_model(bundled_scorer):
    ctx = [WARRANTY, DELIVERY]
    free = bundled_scorer.score("Delivery costs nothing for purchases above $50.", ctx)
    if free.claims[0].verdict == "no":  # the model's reading: the claim says none shows
        assert free.claims[0].decision_note.startswith("contradiction without a conflict")
    for text in ("The warranty lasts thirty-six months.",
                 "The device is covered for thirty-six months."):  # fmt: skip
        claim = bundled_scorer.score(text, ctx).claims[0]
        assert claim.verdict == "no", text
        assert claim.decision_note.startswith("conflict: number: 'thirty-six months'"), text


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # a name the sentence lacks, and a place and a weekday it names elsewhere
        ("Abdirahman Sheik Mohamud, a naturalised US citizen, has pleaded not guilty to "
         "federal charges.",
         "A naturalized U.S. citizen pleaded not guilty in Ohio Friday to federal charges."),
        # a weekday is a date, not a name
        ("The remains belonged to Jonathan Camilien, who was known to Colina.",
         "The remains of Jonathan Camilien were found on Monday."),
        # the same name, with its possessive on both sides
        ("Tapper will join ABC's George Stephanopoulos on Sunday mornings.",
         "Tapper joins ABC's George Stephanopoulos, who anchors on Sunday mornings."),
        # a shorter form of the same name
        ("The duet was sung by Pam Veasey.", "The duet was sung by Pamela Renea Veasey."),
        # the same name, its stop word read on one side only
        ("The concert Aloha from Hawaii Via Satellite was held in Honolulu.",
         "Aloha from Hawaii via Satellite was a concert held in Honolulu."),
    ],
)  # fmt: skip
def test_a_name_is_in_conflict_only_with_one_that_stands_in_its_place(claim, evidence):
    found = find_conflict(claim, evidence)
    assert found is None or not found.startswith("entity:"), found


def test_a_name_in_the_place_of_another_is_named_either_side_of_it():
    assert find_conflict("The prize went to Marie Curie in Paris.",
                         "The prize went to Pierre Curie in Paris.") == (
        "entity: 'marie curie' against 'pierre curie'")  # fmt: skip
    assert find_conflict("Obama met Castro in Panama.", "Obama met Castro in Havana.") == (
        "entity: 'panama' against 'havana'"
    )
    assert find_conflict(
        "The loss was reported by Siemens.", "The loss was reported by Bosch."
    ) == ("entity: 'siemens' against 'bosch'")


def test_a_number_conflict_names_the_quantity_that_differs_and_its_rival():
    # the claim's first quantity is stated; the one that differs is named, with the
    # evidence's quantity of the same measure
    assert (
        find_conflict(
            "The temperature in Hinesburg is 43 degrees or 48 degrees.",
            "The Hinesburg forecast is 43 degrees and partly cloudy.",
        )
        == "number: '48' against '43'"
    )
    assert (
        find_conflict(
            "Partly cloudy with a 42% chance of rain and 8 mph winds from the west.",
            "There is a 42% chance of rain and 7 mph winds from the west.",
        )
        == "number: '8' against '7'"
    )


@pytest.mark.parametrize(
    ("claim", "evidence", "want"),
    [
        # a name with an apostrophe inside is found in the evidence that holds it
        ("The show was hosted by O'Brien.",
         "The show was hosted by Conan O'Brien and Andy Richter.", None),
        # two names that merely end their sentences do not stand for each other
        ("They met in Paris.", "It was hosted by Macron.", None),
        # "May" inside a sentence is the month
        ("The fair opens in May.", "The fair opens in June.", "date: 'may' against 'june'"),
        # the rival named is a value the claim does not state
        ("The temperature is 43 degrees or 48 degrees.",
         "The forecast says 43 degrees and 50 degrees.", "number: '48' against '50'"),
    ],
)  # fmt: skip
def test_names_dates_and_numbers_in_conflict_notes(claim, evidence, want):
    assert find_conflict(claim, evidence) == want
