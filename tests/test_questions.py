"""A short answer read with its question (nli_faith.text.questions), end to end."""

from __future__ import annotations

import pytest

from nli_faith.rows import output_row
from nli_faith.text.questions import claim_with_question, is_elliptical


@pytest.mark.parametrize(
    ("question", "answer", "claim"),
    [
        ("How long should I keep tax records?", "3 years",
         "How long should I keep tax records: 3 years."),
        ("750 7th Avenue and 101 Park Avenue are located in which city?", "New York City",
         "750 7th Avenue and 101 Park Avenue are located in New York City."),
        ("Which magazine was started first?", "Arthur's Magazine.",
         "Arthur's Magazine was started first."),
        ("When did Roy Jenkins die?", "2003", "When did Roy Jenkins die: 2003."),
    ],
)  # fmt: skip
def test_a_short_answer_becomes_a_full_claim(question, answer, claim):
    assert claim_with_question(question, answer) == claim


@pytest.mark.parametrize(
    "answer",
    ["Roy Jenkins died in 2003.", "Brabus specializes in BMW vehicles.",
     "Yes, both were born in the United States.", "It is blue."],
)  # fmt: skip
def test_a_sentence_is_not_rewritten(answer):
    assert not is_elliptical(answer)
    assert claim_with_question("What is it?", answer) is None


def test_no_question_no_rewrite():
    assert claim_with_question(None, "3 years") is None
    assert claim_with_question("  ", "3 years") is None


def test_the_scorer_reads_a_short_answer_with_its_question(tiny_scorer):
    q = "How long should I keep tax records?"
    ctx = "Keep tax records for 3 years from the date you filed."
    r = tiny_scorer.score("3 years", ctx, question=q)
    (c,) = r.claims
    assert c.claim == "3 years" and (c.start, c.end) == (0, 7)
    assert c.scored_as == "How long should I keep tax records: 3 years."
    assert output_row(r)["claims"][0]["scored_as"] == c.scored_as
    plain = tiny_scorer.score("3 years", ctx)  # no question: scored as written
    assert plain.claims[0].scored_as is None
    assert "scored_as" not in output_row(plain)["claims"][0]
    batch = tiny_scorer.score_batch([{"response": "3 years", "context": ctx, "question": q}])
    assert batch[0].claims[0].scored_as == c.scored_as


def test_a_one_word_answer_is_read_with_its_question(tiny_scorer):
    ctx = "The 2010 Commonwealth Games were held in Delhi."
    q = "Which city hosted the 2010 Commonwealth Games?"
    alone = tiny_scorer.score("Delhi", ctx)
    assert alone.n_claims == 0  # alone, a bare word is a label, not a claim
    r = tiny_scorer.score(" Delhi", ctx, question=q)
    assert [(c.claim, c.start, c.end) for c in r.claims] == [("Delhi", 1, 6)]
    assert r.claims[0].scored_as == "Which city hosted the 2010 Commonwealth Games: Delhi."


def test_a_streamed_short_answer_is_read_with_its_question(tiny_scorer):
    q = "How long should I keep tax records?"
    ctx = "Keep tax records for 3 years from the date you filed."
    stream = tiny_scorer.check_stream(iter(["3 ", "years"]), ctx, q)
    (check,) = list(stream)
    assert stream.result.result == tiny_scorer.score("3 years", ctx, question=q)
    assert [c.scored_as for c in check.claims] == ["How long should I keep tax records: 3 years."]


def test_a_short_sentence_and_an_instruction_are_not_completed():
    from nli_faith.text.questions import is_question

    # a sentence whose verb no table knows, opening as sentences do, stays as written
    assert claim_with_question("How long is the warranty?", "The warranty lasts 24 months.") is None
    assert claim_with_question("Who played?", "The Beatles") == "Who played: The Beatles."
    # an instruction asks nothing: a short answer to it is not read with it
    assert not is_question("Tell me about Paris and the warranty.")
    assert claim_with_question("Tell me about Paris and the warranty.", "Paris") is None
