"""Issue 10, sections 2-4 end to end through FaithfulnessScorer with the bundled model."""

import logging

import pytest


@pytest.mark.parametrize(
    ("response", "context"),
    [
        (
            "Apple's revenue was 383.3 billion dollars in 2023.",
            'AAPL revenue (USD bn): {"2022": 394.3, "2023": 383.3, "2024": 391.0}',
        ),
        (
            "Tesla's deliveries rose from 1.31 million in 2022 to 1.81 million in 2023.",
            'TSLA deliveries (millions): {"2022": 1.31, "2023": 1.81}',
        ),
        ("The approval rate was nearly 40%.", "The approval rate was 39.6%."),
        ("Refunds are processed within three days.", "Refunds are processed within 72 hours."),
        (
            "The Gold tier costs $120 a year.",
            "| Tier | Annual fee | Lounge visits |\n|---|---|---|\n| Silver | $60 | 0 |\n"
            "| Gold | $120 | 4 |",
        ),
    ],
)
def test_the_issue_cases_are_supported(bundled_scorer, response, context):
    (claim,) = bundled_scorer.score(response, [context]).claims
    assert claim.verdict == "yes", (claim.p_entail, claim.evidence)


def test_evidence_from_json_points_at_the_real_text(bundled_scorer):
    context = 'AAPL revenue (USD bn): {"2022": 394.3, "2023": 383.3, "2024": 391.0}'
    (claim,) = bundled_scorer.score(
        "Apple's revenue was 383.3 billion dollars in 2023.", [context]
    ).claims
    ev = claim.evidence
    assert "383.3" in context[ev.start : ev.end] and "394.3" not in context[ev.start : ev.end]
    assert ev.text == "AAPL revenue: $383.3 billion in 2023."


def test_a_differing_quantity_on_the_same_topic_is_contradicted(bundled_scorer):
    r = bundled_scorer.score(
        "The device is covered for thirty-six months. The battery lasts 10 hours.",
        [
            "The device is covered for a period of twenty-four months.",
            "The battery lasts ten hours on a charge.",
        ],
    )
    assert [c.verdict for c in r.claims] == ["no", "yes"]
    assert r.claims[0].evidence.text.startswith("The device is covered")


def test_a_different_id_or_year_is_not_a_number_contradiction(bundled_scorer):
    # nothing in the context states the claim's model number: not found, never contradicted
    # by the number rule (the model itself may still judge the sentence)
    r = bundled_scorer.score(
        "Section 4.2 covers refunds.", ["Section 5.1 covers shipping. Refunds are covered."]
    )
    assert r.claims[0].verdict != "yes"


def test_web_text_one_item_per_line_has_no_overlong_pieces(bundled_scorer, caplog):
    lines = ["Home", "Products", "Pricing", "About us", "Contact"]
    lines += [
        f"Plan number {i} includes unlimited storage and priority support for every team"
        for i in range(20)
    ]
    web = "\n".join(lines)
    with caplog.at_level(logging.WARNING):
        r = bundled_scorer.score("Plan number 7 includes unlimited storage.", [web])
        chunks = bundled_scorer.stages.chunks(
            [web], bundled_scorer.splitter.split("Plan number 7.")
        )
    assert r.claims[0].verdict == "yes"
    assert "exceeds" not in caplog.text and "Token indices" not in caplog.text
    sizes = bundled_scorer.nli.count_tokens([c.text for c in chunks])
    assert max(sizes) <= 256
    singles = [c for c in chunks if "\n" not in web[c.start : c.end]]
    assert {web[c.start : c.end] for c in singles} >= set(lines)


def test_transformers_length_warning_never_reaches_the_user(bundled_scorer, capfd, caplog):
    run_on = "word " * 2000 + "end."
    with caplog.at_level(logging.WARNING):
        bundled_scorer.score("The word is end.", [run_on])
    out, err = capfd.readouterr()
    assert "Token indices sequence length" not in out + err + caplog.text
    assert "exceeds the" in caplog.text  # real run-on text still gets the chunker's warning


def test_a_markdown_table_in_the_answer_is_checked_row_by_row(bundled_scorer):
    response = (
        "Here is a comparison:\n\n| Plan | Price | Seats |\n|---|---|---|\n"
        "| Pro | $20 | 5 |\n| Team | $50 | 20 |"
    )
    pro = "The Pro plan costs {} per month and includes 5 seats."
    team = "The Team plan costs $50 per month and includes 20 seats."
    r = bundled_scorer.score(response, [pro.format("$20"), team])
    assert [(c.claim, c.verdict) for c in r.claims] == [
        ("Plan Pro: price $20; 5 seats.", "yes"),
        ("Plan Team: price $50; 20 seats.", "yes"),
    ]
    assert response[r.claims[0].start : r.claims[0].end] == "| Pro | $20 | 5 |"
    r = bundled_scorer.score(response, [pro.format("$25"), team])
    assert [c.verdict for c in r.claims] == ["no", "yes"]
    assert r.claims[0].evidence.doc_index == 0  # the Pro plan's price, not the Team plan's
