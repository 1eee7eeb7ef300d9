import numpy as np

from nli_faith.rules.numbers import number_support_mask
from nli_faith.text.numerals import extract_numbers, number_to_words


def test_digits_and_words_normalise_to_the_same_value():
    assert extract_numbers("thirty-six months") == {"36"}
    assert extract_numbers("36 months") == {"36"}
    assert extract_numbers("over $50") == extract_numbers("over fifty dollars") == {"50"}
    assert extract_numbers("$1,200.50 and 3.50%") == {"1200.5", "3.5"}
    assert extract_numbers("one of them", include_one=False) == set()
    assert number_to_words(36) == "thirty-six"


def test_a_chunk_without_the_claims_number_cannot_support_it():
    claims = ["The device is covered for thirty-six months.", "The device is covered."]
    chunks = ["Covered for twenty-four months.", "Covered for 36 months."]
    mask = number_support_mask(claims, chunks)
    np.testing.assert_array_equal(mask, [[False, True], [True, True]])


def test_list_and_section_markers_are_not_quantities():
    toc = "Contents\n1. Welcome\n5.6 Session Management\n10. Leaving the company"
    assert extract_numbers(toc) == set()
    assert extract_numbers("5 people came.\n3.5 million live there.") == {"5", "3.5"}
    mask = number_support_mask(["Core hours are from 10 am to 4 pm."], [toc])
    assert not mask.any()


# ---------------------------------------------------------------- quantities (issue 10, section 4)

import pytest  # noqa: E402

from nli_faith.rules.numbers import quantity_mismatch_mask  # noqa: E402
from nli_faith.text.align import align_premise  # noqa: E402
from nli_faith.text.equivalence import equivalent  # noqa: E402
from nli_faith.text.quantities import extract_quantities  # noqa: E402


def _one(text):
    (q,) = extract_quantities(text, include_one=False)
    return q


@pytest.mark.parametrize(
    ("claimed", "stated"),
    [
        ("within three days", "within 72 hours"),
        ("18 months", "1.5 years"),
        ("two years", "24 months"),
        ("half an hour", "30 minutes"),
        ("1.5 million users", "1,500,000 users"),
        ("$383.3 billion", "383.3 billion dollars"),
        ("$50", "fifty dollars"),
        ("€20", "20 euros"),
        ("a quarter", "25%"),
        ("half of the staff", "50 percent of the staff"),
        ("two thirds", "66.7%"),
        ("nearly 40%", "39.6%"),
        ("almost 2 hours", "115 minutes"),
        ("about 500 people", "530 people"),
        ("roughly $1.2m", "$1,150,000"),
        ("over 1,000 customers", "1,250 customers"),
        ("at least 3 days", "one week"),
        ("up to 10 GB", "8 GB"),
    ],
)
def test_equivalent_forms_are_the_same_quantity(claimed, stated):
    assert equivalent(_one(claimed), _one(stated)), (claimed, stated)


@pytest.mark.parametrize(
    ("claimed", "stated"),
    [
        ("nearly 40%", "40.4%"),  # "nearly" is from below
        ("nearly 40%", "30%"),  # outside the 10% tolerance
        ("about 500 people", "600 people"),
        ("over 1,000 customers", "900 customers"),
        ("three days", "3 business days"),  # business days are not calendar days
        ("thirty-six months", "twenty-four months"),
        ("3 days", "3 km"),
        ("40%", "39.6%"),  # an unhedged claim is exact
    ],
)
def test_different_values_or_units_are_not_equivalent(claimed, stated):
    assert not equivalent(_one(claimed), _one(stated)), (claimed, stated)


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("The iPhone 15 launched in 2023.", ["id", "year"]),
        ("Windows 11 replaced it.", ["id"]),
        ("See Section 4.2 of the contract.", ["id"]),
        ("COVID-19 cases fell.", ["id"]),
        ("Order #12345 shipped.", ["id"]),
        ("The Paris 2024 games were held.", ["year"]),
        ("Doors open at 10 am.", ["clock"]),
        ("It is on the 5th floor.", ["id"]),
        ("Model 3 deliveries rose by 5%.", ["id", "quantity"]),
    ],
)
def test_ids_years_and_times_are_not_quantities(text, kinds):
    assert [q.kind for q in extract_quantities(text)] == kinds


def test_list_markers_and_section_numbers_are_skipped_entirely():
    assert extract_quantities("1. Open the app\n2) Sign in\n5.6 Session Management") == ()


def test_a_different_id_or_year_never_counts_as_a_differing_value():
    claims = ["The iPhone 15 costs $799.", "The rule is in Section 4.2.", "It opened in 2019."]
    chunks = ["The iPhone 14 costs $799.", "The rule is in Section 5.1.", "It opened in 2018."]
    assert not quantity_mismatch_mask(claims, chunks).any()
    # ...but a chunk still has to state the same id to support the claim
    assert not number_support_mask(claims, chunks).diagonal().any()


def test_a_differing_value_of_the_same_quantity_is_a_mismatch_only_on_the_same_topic():
    claim = ["The device is covered for thirty-six months."]
    chunks = [
        "The device is covered for a period of twenty-four months.",  # same topic, 24 != 36
        "The device is covered for three years.",  # same value
        "Shipping takes twenty-four months.",  # another topic
        "The device is covered for 36 months and costs $40.",
        "The device is covered.",  # no quantity of that unit
    ]
    assert quantity_mismatch_mask(claim, chunks).tolist() == [[True, False, False, False, False]]
    assert number_support_mask(claim, chunks).tolist() == [[False, True, False, True, False]]


def test_align_rewrites_equivalent_quantities_and_abbreviations_only():
    assert align_premise("The rate was 39.6%.", "The rate was nearly 40%.") == (
        "The rate was nearly 40%."
    )
    # a vague context value is never made exact
    assert (
        align_premise("The rate was about 40%.", "The rate was 40%.") == "The rate was about 40%."
    )
    # a different value is left for the model (and the mismatch rule) to judge
    assert align_premise("It took 24 months.", "It took 36 months.") == "It took 24 months."
    assert align_premise(
        "TSLA deliveries: 1.81 million.", "Tesla delivered 1.81 million cars."
    ) == ("Tesla deliveries: 1.81 million.")
    assert align_premise("The WHO said so.", "The World Health Organization said so.") == (
        "The World Health Organization said so."
    )
    # not an abbreviation of the claim's name, or the name is already there
    assert align_premise("AMD revenue rose.", "Apple revenue rose.") == "AMD revenue rose."
    assert align_premise("Apple (AAPL) rose.", "Apple rose.") == "Apple (AAPL) rose."


def test_a_value_stated_without_its_noun_is_not_a_mismatch():
    claim = ["The company has 500 employees in France."]
    chunk = ["The company has 300 employees in Germany and 500 in France."]
    assert not quantity_mismatch_mask(claim, chunk).any()
    assert quantity_mismatch_mask(claim, ["The company has 300 employees in France."]).all()


def test_a_hedged_year_like_number_is_a_quantity():
    (q,) = extract_quantities("Over 2000 people attended.")
    assert (q.kind, q.dimension, q.hedge) == ("quantity", "count:people", "min")
    (y,) = extract_quantities("It opened in 2000 after delays.")
    assert y.kind == "year"


@pytest.mark.parametrize(
    ("claimed", "stated", "same"),
    [
        ("30 days", "one month", True),
        ("1 month", "30 days", True),
        ("52 weeks", "a year", False),  # "a year" is not a number here
        ("52 weeks", "1 year", True),
        ("104 weeks", "24 months", True),
        ("103 weeks", "24 months", False),
        ("4 weeks", "1 month", True),  # 28 days: a month is 28-31 days
        ("3 weeks", "1 month", False),
        ("90 days", "3 months", True),
    ],
)
def test_calendar_conversions_round_as_the_claim_is_written(claimed, stated, same):
    have = extract_quantities(stated)
    assert any(equivalent(_one(claimed), c) for c in have) is same


def test_two_bounds_of_the_same_kind_must_be_equal():
    """ "within 14 days" does not make "within 30 days" true: each states a limit."""
    from nli_faith.rules.numbers import number_support_mask, quantity_mismatch

    claim = ["Returns are accepted within 30 days."]
    assert not number_support_mask(claim, ["Returns are accepted within 14 days."])[0, 0]
    assert quantity_mismatch(claim, ["Returns are accepted within 14 days."])[0, 0] == 1
    # the calendar slack still applies between bounds: 30 days = one month
    assert quantity_mismatch(claim, ["Returns are accepted within one month."])[0, 0] == 0
    # a bound is still made true by an exact value inside it
    assert number_support_mask(["It arrives within 3 days."], ["It arrives in 2 days."])[0, 0]


def test_a_fraction_word_is_read_as_the_percentage_it_names():
    from nli_faith.text.align import align_premise

    premise = "25% of the staff work remotely."
    assert align_premise(premise, "A quarter of the staff work remotely.") == (
        "A quarter of the staff work remotely."
    )
    # the same number spelled otherwise is left alone
    assert align_premise("Delivery is free over $50.", "Free over fifty dollars.") == (
        "Delivery is free over $50."
    )
