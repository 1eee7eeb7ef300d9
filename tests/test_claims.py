from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from nli_faith.errors import E_NO_PARSER, ParserMissingError
from nli_faith.text.claims import Claim, ClaimSplitter, load_parser


@pytest.fixture(scope="module")
def splitter() -> ClaimSplitter:
    return ClaimSplitter()


def texts(claims: list[Claim]) -> list[str]:
    return [c.text for c in claims]


def assert_spans_point_into(response: str, claims: list[Claim]) -> None:
    """Each claim's words appear, in order, inside ``response[start:end]``."""
    last_end = 0
    for claim in claims:
        assert 0 <= last_end <= claim.start < claim.end <= len(response)
        source = response[claim.start : claim.end].lower()
        assert source == source.strip()
        pos = 0
        for word in re.findall(r"\w+", claim.text.lower()):
            found = source.find(word, pos)
            assert found >= 0, (word, source)
            pos = found + len(word)
        last_end = claim.end


def test_claim_is_frozen() -> None:
    claim = Claim("The warranty lasts two years.", 0, 29)
    with pytest.raises(dataclasses.FrozenInstanceError):
        claim.text = "changed"  # type: ignore[misc]


@pytest.mark.parametrize("text", ["", " ", "\n\n\t  \n"])
def test_empty_and_whitespace_only(splitter: ClaimSplitter, text: str) -> None:
    assert splitter.split(text) == []


def test_plain_answer(splitter: ClaimSplitter) -> None:
    response = "The warranty lasts two years. It covers water damage. Returns are free."
    claims = splitter.split(response)
    assert claims == [
        Claim("The warranty lasts two years.", 0, 29),
        Claim("It covers water damage.", 30, 53),
        Claim("Returns are free.", 54, 71),
    ]


def test_protected_cases_survive_as_single_claims(splitter: ClaimSplitter) -> None:
    response = (
        "Revenue rose 3.5% to $1,200.50 in 2023 [1]. "
        "The U.S. office, e.g. in Austin, is run by Dr. Smith. "
        "Version v2.0 is described in No. 5 of the catalogue."
    )
    claims = splitter.split(response)
    assert texts(claims) == [
        "Revenue rose 3.5% to $1,200.50 in 2023.",
        "The U.S. office, e.g. in Austin, is run by Dr. Smith.",
        "Version v2.0 is described in No. 5 of the catalogue.",
    ]
    assert_spans_point_into(response, claims)


def test_non_claims_are_dropped_and_not_counted(splitter: ClaimSplitter) -> None:
    response = (
        "Hi there! Great question! The warranty lasts two years. "
        "It covers water damage. Would you like more details? "
        "Hope this helps! Let me know if you have any other questions."
    )
    claims = splitter.split(response)
    assert texts(claims) == ["The warranty lasts two years.", "It covers water damage."]
    assert len(claims) == 2


@pytest.mark.parametrize(
    "segment",
    [
        "Would you like more details?",
        "What else can I help you with?!",
        "Hi there!",
        "Hello everyone.",
        "Sure!",
        "Certainly.",
        "Of course!",
        "Great question!",
        "That's a good question.",
        "Thanks for asking.",
        "Thank you for your question!",
        "Hope this helps!",
        "I hope this helps",
        "Let me know if you have any other questions.",
        "Feel free to ask if anything is unclear.",
        "Please don't hesitate to reach out.",
        "If you have any further questions, just ask.",
        "Is there anything else I can do?",
        "I'm happy to help.",
        "You're welcome!",
        "Good luck!",
        "Best regards,",
        "Kind regards, The Support Team",
        "As an AI language model, I cannot browse the internet.",
        "I don't have information about the price.",
        "The provided context does not mention the price.",
        "There is no information about shipping in the documents.",
        "Let me explain how the warranty works.",
        "Here is a summary of the warranty terms.",
        "Here are the key points:",
        "Key features:",
        "## Installation",
        "# Warranty",
        "**Pricing**",
        "- Pros",
        "1. Installation",
        "---",
        "[1]",
        "(Passage 1)",
        "(Sources 2 and 3)",
        "Note: Unable to answer based on given passages.",
        "However, none of the passages mention the price.",
        "...",
        "```python\nprint('The warranty lasts two years.')\n```",
    ],
)
def test_non_claim_segments(splitter: ClaimSplitter, segment: str) -> None:
    assert splitter.split(segment) == []


@pytest.mark.parametrize(
    ("sentence", "claim"),
    [
        (
            "Based on the provided context, the warranty lasts two years.",
            "The warranty lasts two years.",
        ),
        (
            "According to the documents provided, the battery lasts ten hours.",
            "The battery lasts ten hours.",
        ),
        ("Based on the information in the documents, shipping is free.", "Shipping is free."),
        (
            "The context states that returns are accepted for 30 days.",
            "Returns are accepted for 30 days.",
        ),
        (
            "It is mentioned in the documents that the device weighs 1.2 kg.",
            "The device weighs 1.2 kg.",
        ),
        ("In summary, the plan costs $10 per month.", "The plan costs $10 per month."),
        ("Sure, based on the sources, the office is in Austin.", "The office is in Austin."),
        ("Here is what I found: the device is waterproof.", "The device is waterproof."),
    ],
)
def test_meta_prefix_is_stripped(splitter: ClaimSplitter, sentence: str, claim: str) -> None:
    response = f"Hi! {sentence}"
    claims = splitter.split(response)
    assert texts(claims) == [claim]
    assert_spans_point_into(response, claims)
    # the span starts where the kept claim starts, after the prefix
    assert response[claims[0].start : claims[0].end].lower() == claim.lower()


def test_attribution_that_is_content_is_kept(splitter: ClaimSplitter) -> None:
    response = "According to the manual, the warranty lasts two years."
    assert texts(splitter.split(response)) == [response]


def test_context_verb_without_that_is_kept(splitter: ClaimSplitter) -> None:
    response = "The text shows the price. The context says that shipping is free."
    assert texts(splitter.split(response)) == ["The text shows the price.", "Shipping is free."]


def test_plain_text_headings_are_dropped(splitter: ClaimSplitter) -> None:
    response = (
        "Warranty Details\n\nThe warranty lasts two years.\n"
        "Return Policy\nReturns are accepted within 30 days"
    )
    claims = splitter.split(response)
    assert texts(claims) == ["The warranty lasts two years.", "Returns are accepted within 30 days"]
    assert_spans_point_into(response, claims)


def test_messy_llm_answer(splitter: ClaimSplitter) -> None:
    response = (
        "Sure! Here's what I found:\n"
        "\n"
        "## Warranty\n"
        "\n"
        "1. **Duration:** The warranty lasts **two years**.[1]\n"
        "2. It covers *water damage* [2][3].\n"
        "- Returns are accepted within 30 days\n"
        "- Pros\n"
        "\n"
        "To check your version, run `app --version`. Version v2.0 added [offline mode](https://x.io/a.b).\n"
        "\n"
        "```bash\n"
        "app --version\n"
        "echo The warranty lasts ten years.\n"
        "```\n"
        "\n"
        "> The charger is sold separately.\n"
        "\n"
        "Hope this helps! Would you like more details?\n"
        "\n"
        "Best regards,\n"
        "The Support Team"
    )
    claims = splitter.split(response)
    assert texts(claims) == [
        "Duration: The warranty lasts two years.",
        "It covers water damage.",
        "Returns are accepted within 30 days",
        "To check your version, run app --version.",
        "Version v2.0 added offline mode.",
        "The charger is sold separately.",
    ]
    assert_spans_point_into(response, claims)
    assert response[claims[1].start : claims[1].end] == "It covers *water damage* [2][3]."
    assert response[claims[2].start : claims[2].end] == "Returns are accepted within 30 days"


def test_bold_list_item_with_citation() -> None:
    response = "- **The warranty lasts two years.** [1]"
    assert ClaimSplitter().split(response) == [Claim("The warranty lasts two years.", 4, 33)]


def test_inline_enumeration_numbers_are_removed(splitter: ClaimSplitter) -> None:
    response = "The steps are: 1. Open the box. 2. Remove the cover."
    claims = splitter.split(response)
    assert texts(claims) == ["Open the box.", "Remove the cover."]
    assert_spans_point_into(response, claims)


def test_wrapped_line_is_one_claim_with_single_spaces(splitter: ClaimSplitter) -> None:
    response = "The warranty covers the battery,\n   the screen and the keyboard."
    claims = splitter.split(response)
    assert texts(claims) == ["The warranty covers the battery, the screen and the keyboard."]
    assert (claims[0].start, claims[0].end) == (0, len(response))


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("今天天气很好。我们去公园吧。", ["今天天气很好。", "我们去公园吧。"]),
        (
            "Die Garantie beträgt zwei Jahre. Sie deckt Wasserschäden ab.",
            ["Die Garantie beträgt zwei Jahre.", "Sie deckt Wasserschäden ab."],
        ),
        ("Гарантия действует два года. Она покрывает повреждения водой.", None),
        ("保修期为两年", ["保修期为两年"]),
    ],
)
def test_non_english_passes_through(
    splitter: ClaimSplitter, response: str, expected: list[str] | None
) -> None:
    claims = splitter.split(response)
    if expected is None:
        expected = ["Гарантия действует два года.", "Она покрывает повреждения водой."]
    assert texts(claims) == expected
    for claim in claims:
        assert response[claim.start : claim.end] == claim.text


def test_keep_non_claims_when_asked() -> None:
    response = "Hi there! Based on the context, it is free. Would you like more?\n## Notes"
    claims = ClaimSplitter(drop_non_claims=False).split(response)
    assert texts(claims) == [
        "Hi there!",
        "Based on the context, it is free.",
        "Would you like more?",
        "Notes",
    ]
    assert_spans_point_into(response, claims)


def test_split_many_matches_split(splitter: ClaimSplitter) -> None:
    responses = [
        "The warranty lasts two years. Would you like more?",
        "",
        "- Item one is cheap\n- Item two is fast",
        "今天天气很好。",
    ]
    assert splitter.split_many(responses, batch_size=2) == [splitter.split(r) for r in responses]


def test_unknown_granularity() -> None:
    with pytest.raises(ValueError, match="granularity must be one of sentence, clause"):
        ClaimSplitter(granularity="paragraph")


# --------------------------------------------------------------------------- clause mode


@pytest.fixture(scope="module")
def clause_splitter() -> ClaimSplitter:
    try:
        load_parser(None)
    except ParserMissingError:
        pytest.skip("no spaCy pipeline with a parser installed")
    return ClaimSplitter(granularity="clause")


def test_clause_mode_splits_coordinated_clauses(clause_splitter: ClaimSplitter) -> None:
    response = "The warranty lasts two years and it covers water damage."
    claims = clause_splitter.split(response)
    assert texts(claims) == ["The warranty lasts two years.", "It covers water damage."]
    assert [response[c.start : c.end] for c in claims] == [
        "The warranty lasts two years",
        "it covers water damage.",
    ]


def test_clause_mode_other_connectors(clause_splitter: ClaimSplitter) -> None:
    response = (
        "- The device is **waterproof** but the charger is not [1].\n"
        "- The battery lasts ten hours; the charger is sold separately."
    )
    claims = clause_splitter.split(response)
    assert texts(claims) == [
        "The device is waterproof.",
        "The charger is not.",
        "The battery lasts ten hours.",
        "The charger is sold separately.",
    ]
    assert_spans_point_into(response, claims)


def test_clause_mode_keeps_disjunction_whole(clause_splitter: ClaimSplitter) -> None:
    response = (
        "You can return it or you can exchange it. You can return it or exchange it. "
        "Would you like more details?"
    )
    assert texts(clause_splitter.split(response)) == [
        "You can return it or you can exchange it.",
        "You can return it or exchange it.",
    ]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "Wayne sold his share to Jobs and left the company.",
            ["Wayne sold his share to Jobs.", "Wayne left the company."],
        ),
        (
            "The company was founded in 1998 and employs 500 people.",
            ["The company was founded in 1998.", "The company employs 500 people."],
        ),
        (  # a verb without an auxiliary of its own shares the first one's
            "The company was founded in 1998 and acquired in 2005.",
            ["The company was founded in 1998.", "The company was acquired in 2005."],
        ),
        (
            "He has visited Paris and seen the tower.",
            ["He has visited Paris.", "He has seen the tower."],
        ),
        (
            "You can return it and get a refund.",
            ["You can return it.", "You can get a refund."],
        ),
        (  # a list of verb phrases; the subject in lower case after an opening phrase
            "After the war, the general sold his house, left the army and wrote a memoir.",
            [
                "After the war, the general sold his house.",
                "The general left the army.",
                "The general wrote a memoir.",
            ],
        ),
        (  # what commas set off the subject is not restored with it
            "The G650, which sells for $65 million, is popular and comes with two engines.",
            [
                "The G650, which sells for $65 million, is popular.",
                "The G650 comes with two engines.",
            ],
        ),
        (  # a plural present tagged as a bare verb needs no auxiliary
            "Apple and Google compete in many markets and employ thousands of engineers.",
            [
                "Apple and Google compete in many markets.",
                "Apple and Google employ thousands of engineers.",
            ],
        ),
        (  # the second verb phrase has its own auxiliary
            "Apple was founded by Jobs and Wozniak and is based in Cupertino.",
            ["Apple was founded by Jobs and Wozniak.", "Apple is based in Cupertino."],
        ),
        (  # a shared subject, then a clause with a subject of its own
            "The hotel offers free parking and is located near the beach, but it does not "
            "have a pool.",
            [
                "The hotel offers free parking.",
                "The hotel is located near the beach.",
                "It does not have a pool.",
            ],
        ),
    ],
)
def test_clause_mode_splits_verb_phrases_with_shared_subject(
    clause_splitter: ClaimSplitter, sentence: str, expected: list[str]
) -> None:
    assert texts(clause_splitter.split(sentence)) == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "You can return it or exchange it.",  # a disjunction
        "He neither sold the house nor left town.",
        "The range is between 5 and 10 miles.",  # nouns, numbers
        "The kit includes a charger, a case and two cables.",
        "The device is small and light.",  # adjectives
        "The man who sold his share and left the company was Wayne.",  # relative clause
        "The study found that the drug reduced symptoms and improved sleep.",  # ccomp
        "He bought and sold shares.",  # a shared object
        "She went and bought milk.",  # a fixed phrase
        "Try and see.",
        "He did not sell the house and leave town.",  # a shared negation
        # a verb whose form does not go with the auxiliary it would share
        "The rice is cooked for ten minutes and stir in the black pepper.",
        # after a passive, a past tense or a participle: "is" shared or not?
        "The dish is garnished with herbs and served with rice.",
        "In 1998, Wayne sold his share and left, according to reports.",  # shared modifier
        "No one left the room and called the police.",  # a negative subject
        "Nobody saw the crash and reported it.",
        "Few residents stayed and voted.",
    ],
)
def test_clause_mode_keeps_these_sentences_whole(
    clause_splitter: ClaimSplitter, sentence: str
) -> None:
    claims = clause_splitter.split(sentence)
    assert texts(claims) == [sentence]
    assert claims[0].written is None


def test_clause_mode_restored_subject_spans_and_written_text(
    clause_splitter: ClaimSplitter,
) -> None:
    response = (
        "Sure! - **Wayne** sold his share to Jobs [1] and left the company.\n"
        "The warranty lasts two years and it covers water damage."
    )
    claims = clause_splitter.split(response)
    assert texts(claims) == [
        "Wayne sold his share to Jobs.",
        "Wayne left the company.",
        "The warranty lasts two years.",
        "It covers water damage.",
    ]
    # every part spans the words of the response it came from
    assert [response[c.start : c.end] for c in claims] == [
        "Wayne** sold his share to Jobs",
        "left the company.",
        "The warranty lasts two years",
        "it covers water damage.",
    ]
    # the part read with a restored subject keeps its words as written; the others are
    # scored as written (up to case and a full stop)
    assert [c.written for c in claims] == [None, "left the company.", None, None]


def test_clause_mode_result_shows_restored_subject_as_scored_as(
    clause_splitter: ClaimSplitter, tiny_model_dir: Path
) -> None:
    from nli_faith.rows import output_row
    from nli_faith.scorer import FaithfulnessScorer

    scorer = FaithfulnessScorer(str(tiny_model_dir), device="cpu", granularity="clause")
    response = "Wayne sold his share to Jobs and left the company."
    result = scorer.score(response, "Wayne sold his share to Jobs in 1976.")
    first, second = result.claims
    assert (first.claim, first.scored_as) == ("Wayne sold his share to Jobs.", None)
    assert (second.claim, second.scored_as) == ("left the company.", "Wayne left the company.")
    assert response[second.start : second.end] == second.claim
    row = output_row(result)["claims"]
    assert "scored_as" not in row[0] and row[1]["scored_as"] == "Wayne left the company."
    for claim in result.claims:  # blamed words point into the response, inside the claim
        for span in claim.unsupported_spans:
            assert claim.start <= span.start < span.end <= claim.end
            assert response[span.start : span.end] == span.text


def test_clause_mode_split_many(clause_splitter: ClaimSplitter) -> None:
    responses = ["It is red and it is big.", "", "Hi! Based on the context, the box is small."]
    result = clause_splitter.split_many(responses, n_process=1, batch_size=2)
    assert [texts(r) for r in result] == [["It is red.", "It is big."], [], ["The box is small."]]
    assert result[0] == [Claim("It is red.", 0, 9), Claim("It is big.", 14, 24)]


def test_parser_missing_for_blank_pipeline(tmp_path) -> None:  # noqa: ANN001
    import spacy

    path = tmp_path / "blank_en"
    spacy.blank("en").to_disk(path)
    with pytest.raises(ParserMissingError) as info:
        ClaimSplitter(granularity="clause", spacy_model=str(path))
    message = str(info.value)
    assert message.startswith(E_NO_PARSER.split("{what}")[0])
    assert "has no 'parser' component" in message
    assert str(path) in message
    assert isinstance(info.value, RuntimeError)


def test_parser_missing_for_unknown_pipeline() -> None:
    with pytest.raises(ParserMissingError, match="no_such_pipeline_xyz") as info:
        ClaimSplitter(granularity="clause", spacy_model="no_such_pipeline_xyz")
    assert "granularity='sentence'" in str(info.value)


def test_sentence_mode_needs_no_parser() -> None:
    splitter = ClaimSplitter(granularity="sentence", spacy_model="no_such_pipeline_xyz")
    assert texts(splitter.split("The box is small.")) == ["The box is small."]


def test_a_markdown_table_in_the_answer_gives_one_claim_per_row(splitter: ClaimSplitter) -> None:
    response = (
        "Here are the plans:\n\n| Plan | Price | Seats |\n|---|---|---|\n"
        "| Pro | $20 | 5 |\n| Team | $50 | 20 |\n\nBoth include support."
    )
    claims = splitter.split(response)
    assert texts(claims) == [
        "Plan Pro: price $20; 5 seats.",
        "Plan Team: price $50; 20 seats.",
        "Both include support.",
    ]
    assert [response[c.start : c.end] for c in claims[:2]] == [
        "| Pro | $20 | 5 |",
        "| Team | $50 | 20 |",
    ]
    assert not any("|" in c.text or "---" in c.text for c in claims)


def test_json_in_the_answer_is_read_as_claims(splitter: ClaimSplitter) -> None:
    response = 'The figures are below.\n{"revenue_2023": "$383.3 billion", "employees": 161000}'
    claims = splitter.split(response)
    assert texts(claims) == [
        "The figures are below.",
        "Revenue 2023 $383.3 billion; 161000 employees.",
    ]
    assert response[claims[1].start : claims[1].end].startswith('{"revenue_2023"')


def test_malformed_json_in_the_answer_stays_text(splitter: ClaimSplitter) -> None:
    for response in ("The config is {'a': 1} today.", 'The config is {"a": 1,} today.'):
        assert texts(splitter.split(response)) == [response]


def test_splitter_names_text_that_is_not_a_string():
    from nli_faith.text.claims import ClaimSplitter

    splitter = ClaimSplitter()
    with pytest.raises(ValueError, match="text must be a string, got None"):
        splitter.split(None)
    with pytest.raises(ValueError, match="texts must be a list of strings"):
        splitter.split_many("One claim. Another one.")  # not split letter by letter
    with pytest.raises(ValueError, match=r"texts\[1\] must be a string, got 5"):
        splitter.split_many(["One claim.", 5])
