"""The shipped model, end to end: the mission cases and a fixed set of clear pairs."""

import json

import pytest
from conftest import BUNDLED


def test_bundled_model_is_registered_and_loads_offline():
    from nli_faith.nli.registry import resolve_model

    spec = resolve_model("default")
    assert spec.bundled and spec.path == str(BUNDLED)
    config = json.loads((BUNDLED / "config.json").read_text())
    assert set(config["id2label"].values()) == {"entailment", "neutral", "contradiction"}


CLEAR_PAIRS = [
    (
        "We provide complimentary delivery on purchases over $50.",
        "Shipping is free for orders above fifty dollars.",
        0,
    ),
    (
        "The device is covered for a period of twenty-four months.",
        "The device is covered for a period of thirty-six months.",
        2,
    ),
    ("A man is playing a guitar on stage.", "A man is playing an instrument.", 0),
    ("A man is playing a guitar on stage.", "Nobody is playing music.", 2),
    (
        "A woman is slicing an onion in the kitchen.",
        "The woman is cooking dinner for her family.",
        1,
    ),
    ("The meeting was moved from Monday to Wednesday.", "The meeting takes place on Wednesday.", 0),
    ("The company was founded in 1998 in Austin.", "The company was founded in 2004.", 2),
    (
        "Marie Curie won the Nobel Prize in Physics in 1903.",
        "Marie Curie never won a Nobel Prize.",
        2,
    ),
]


def test_shipped_model_on_clear_pairs():
    from nli_faith.nli.model import NLIModel

    nli = NLIModel("default", device="cpu")
    probs = nli.predict([(p, h) for p, h, _ in CLEAR_PAIRS])
    predicted = probs.argmax(axis=1).tolist()
    assert predicted == [label for _, _, label in CLEAR_PAIRS]


TOC = (
    "The document contains a section '5.6 Session Management' and a section "
    "'5.7 Token Refresh'.\nTable of Contents\n1. Introduction\n2. Architecture Overview\n"
    "3. Authentication\n5.6 Session Management\n5.7 Token Refresh\n6. Logging and Monitoring\n"
    "7. Deployment"
)
TECH_ANSWER = (
    "Session management is handled by a Redis-backed session store. Sessions expire after "
    "30 minutes of inactivity. Tokens are refreshed automatically five minutes before expiry. "
    "The refresh endpoint requires a valid refresh token. Authentication uses OAuth 2.0 with "
    "PKCE. Logs are shipped to Elasticsearch every 10 seconds. The service is deployed on "
    "Kubernetes with three replicas."
)


def test_mission_table_of_contents_context(bundled_scorer):
    r = bundled_scorer.score(TECH_ANSWER, TOC)
    assert r.n_claims == 7
    assert r.lenient >= 0.85
    assert r.strict <= 0.15
    assert "unsupported" in r.reason.lower()
    assert "trust the strict score" in r.reason


def test_mission_number_swap_is_contradicted(bundled_scorer):
    r = bundled_scorer.score(
        "The device is covered for a period of thirty-six months.",
        "Warranty terms. The device is covered for a period of twenty-four months.",
    )
    assert [c.verdict for c in r.claims] == ["no"]
    assert "twenty-four" in r.claims[0].evidence.text


def test_mission_paraphrase_is_supported(bundled_scorer):
    r = bundled_scorer.score(
        "Shipping is free for orders above fifty dollars.",
        "We provide complimentary delivery on purchases over $50.",
    )
    assert [c.verdict for c in r.claims] == ["yes"]
    assert r.strict == 1.0


def test_mission_one_invented_sentence(bundled_scorer):
    context = [
        "The Eiffel Tower is located in Paris, France. It was completed in 1889 for the "
        "World's Fair.",
        "The tower is 330 metres tall and was designed by the engineering company of "
        "Gustave Eiffel.",
    ]
    answer = (
        "The Eiffel Tower is in Paris. It was finished in 1889. It is 330 metres tall. "
        "The tower is painted gold every year."
    )
    r = bundled_scorer.score(answer, context)
    verdicts = [c.verdict for c in r.claims]
    assert verdicts[:3] == ["yes", "yes", "yes"]
    assert verdicts[3] != "yes"
    assert r.strict == pytest.approx(0.75)


HANDBOOK_TOC = (
    "Staff Handbook - Contents\n1. Welcome\n2. Working hours\n3. Remote work\n"
    "4. Leave and holidays\n5. Expenses and travel\n6. Equipment\n7. Health and safety\n"
    "8. Code of conduct\n9. Performance reviews\n10. Leaving the company"
)
HANDBOOK_CLAIMS = [
    "Core working hours are from 9 am to 3 pm.",
    "Staff may work from home two days a week.",
    "Home working must be approved by a manager.",
    "Every employee gets 25 days of paid holiday.",
    "Up to five unused days can be carried over.",
    "Sick leave longer than three days needs a doctor's note.",
    "Parental leave is fully paid for 14 weeks.",
    "Expense claims must be filed within 60 days.",
    "Flights under five hours are booked in economy.",
    "The daily allowance on business trips is 40 euros.",
    "New staff receive a laptop and a headset.",
    "Phones may be kept after three years of service.",
    "A one-off home office budget of 300 euros is paid.",
    "Fire drills are held every quarter.",
    "Each floor has two trained first-aiders.",
    "Gifts above 30 euros must be reported.",
    "Performance reviews happen once a year.",
    "Pay rises are agreed in the April review.",
    "Permanent staff have a notice period of two months.",
    "Leavers have an exit interview with their manager.",
]


def test_mission_twenty_claims_against_a_table_of_contents(bundled_scorer):
    r = bundled_scorer.score(" ".join(HANDBOOK_CLAIMS), HANDBOOK_TOC)
    assert r.n_claims == 20
    assert r.n_idk >= 18  # a table of contents neither supports nor contradicts
    assert r.lenient >= 0.9  # DeepEval's formula forgives it ...
    assert r.strict <= 0.1  # ... the strict score does not
