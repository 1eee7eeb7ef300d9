import numpy as np

from nli_faith.text.numerals import extract_numbers, number_support_mask, number_to_words


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
