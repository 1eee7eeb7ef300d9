"""Attribution frames: taken off the claim, and the passage they name is checked."""

from __future__ import annotations

from nli_faith.text.citations import named_passage
from nli_faith.text.claims import ClaimSplitter


def test_numbered_frames_are_taken_off():
    got = [c.text for c in ClaimSplitter().split(
        "Passage 2 clarifies that this applies to your scholarship total. "
        "According to Passage 3, the plant closed in 2019. "
        "The second passage states that fees rose."
    )]  # fmt: skip
    assert got == ["This applies to your scholarship total.", "The plant closed in 2019.",
                   "Fees rose."]  # fmt: skip


def test_the_named_passage():
    assert named_passage("Passage 2 states that it rose.") == 1
    assert named_passage("According to document 1, it rose.") == 0
    assert named_passage("In source #3, it rose.") == 2
    assert named_passage("Passage 0 says so.") is None
    assert named_passage("The passage says it rose.") is None


def test_a_framed_claim_cites_the_passage_it_names(tiny_scorer):
    r = tiny_scorer.score(
        "Passage 2 clarifies that the limit applies to the total. Fees rose.",
        ["Fees rose in 2020.", "The limit applies to the total."],
    )
    assert [c.cited_docs for c in r.claims] == [[1], None]
    assert r.claims[0].claim == "The limit applies to the total."
    assert r.n_cited == 1
