"""Citation markers: parsing (pure), the per-claim decision (pure), then end to end."""

from __future__ import annotations

import numpy as np
import pytest

from nli_faith.scoring.citations import (
    citation_status,
    citation_statuses,
    cited_chunks_mask,
    explain_citations,
    supporting_mask,
)
from nli_faith.text.chunking import Chunk
from nli_faith.text.citations import assign_citations, find_citations, strip_citations

DOCS = ["The warranty lasts two years.", "Shipping takes five days."]


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("A [1].", [(1,)]),
        ("A [1][3].", [(1,), (3,)]),
        ("A [1, 2].", [(1, 2)]),
        ("A [2-4].", [(2, 3, 4)]),
        ("A [2\u20133].", [(2, 3)]),
        ("A [Source 2].", [(2,)]),
        ("A [doc1].", [(1,)]),
        ("A [^3].", [(3,)]),
        ("A (Source 2).", [(2,)]),
        ("A (Sources 1 and 3).", [(1, 3)]),
        ("A (Doc. 4).", [(4,)]),
        ("A (2).", []),  # a bare number in brackets is no marker
        ("A (see 2019).", []),
        ("Use x[1] here.", [(1,)]),
        ("No markers at all.", []),
    ],
)
def test_find_citations(text, numbers):
    assert [c.numbers for c in find_citations(text)] == numbers


def test_marker_spans_and_strip():
    text = "Tea is cheap [1, 2] and hot (Doc 3)."
    cites = find_citations(text)
    assert [text[c.start : c.end] for c in cites] == ["[1, 2]", "(Doc 3)"]
    assert strip_citations(text) == "Tea is cheap and hot."
    assert strip_citations("Nothing to strip.") == "Nothing to strip."


def test_assign_citations_to_claims():
    text = "A is B [1]. C is D. [2] E is F (Source 3)."
    spans = [(0, 11), (12, 19), (24, 43)]
    assert assign_citations(find_citations(text), spans) == [
        frozenset({0}),
        frozenset({1}),  # the marker after the sentence goes to the claim before it
        frozenset({2}),
    ]
    assert assign_citations(find_citations("X [0]. Y [1]."), [(0, 6), (7, 13)]) == [
        frozenset({0}),
        frozenset({1}),
    ]  # some marker says [0]: documents count from 0
    assert assign_citations([], [(0, 5)]) == [None]
    assert assign_citations(find_citations("[2] A is B. C."), [(4, 11), (12, 14)]) == [
        frozenset({1}),
        None,
    ]


def test_citation_status_pure():
    assert citation_status([frozenset({0})], frozenset({0})) == "supported"
    assert citation_status([frozenset({1})], frozenset({0})) == "misattributed"
    assert citation_status([], frozenset({0})) == "unsupported"
    # a composite spanning a cited and an uncited document is not the cited documents' support
    assert citation_status([frozenset({0, 1})], frozenset({0})) == "misattributed"
    assert citation_status([frozenset({0, 1})], frozenset({0, 1})) == "supported"


def test_statuses_over_the_matrix():
    chunks = [Chunk("a", 0, 0, 1), Chunk("b", 1, 0, 1)]
    probs = np.array([[[0.9, 0.1, 0.0], [0.1, 0.9, 0.0]], [[0.9, 0.1, 0.0], [0.9, 0.1, 0.0]]])
    ok = supporting_mask(probs, mask=np.ones((2, 2), bool), support_mask=None, entail_threshold=0.5)
    assert citation_statuses(ok, [frozenset({1}), None], chunks) == ["misattributed", None]
    gated = supporting_mask(
        probs,
        mask=np.ones((2, 2), bool),
        support_mask=np.array([[False, True], [True, True]]),
        entail_threshold=0.5,
    )
    assert citation_statuses(gated, [frozenset({1}), frozenset({1})], chunks) == [
        "unsupported",
        "supported",
    ]
    assert cited_chunks_mask([frozenset({1}), None], chunks).tolist() == [
        [False, True],
        [True, True],
    ]
    assert explain_citations([None, "supported"], ["A", "B"]) == ""


# -- end to end ----------------------------------------------------------------------------------


def test_supported_misattributed_unsupported(bundled_scorer):
    r = bundled_scorer.score(
        "The warranty lasts two years [1]. Shipping takes five days [1]. "
        "Returns are accepted for 90 days [2].",
        DOCS,
    )
    assert [c.claim for c in r.claims] == [
        "The warranty lasts two years.",
        "Shipping takes five days.",
        "Returns are accepted for 90 days.",
    ]
    assert [c.verdict for c in r.claims][:2] == ["yes", "yes"]
    assert [c.citation for c in r.claims] == ["supported", "misattributed", "unsupported"]
    assert [c.cited_docs for c in r.claims] == [[0], [0], [1]]
    assert (r.n_cited, r.n_misattributed) == (3, 1)
    assert "cite the wrong document" in r.reason and "Shipping takes five days." in r.reason
    d = r.to_dict()
    assert d["n_misattributed"] == 1 and d["claims"][1]["citation"] == "misattributed"


def test_source_markers_are_stripped_and_spans_kept(bundled_scorer):
    response = "Shipping takes five days (Source 2). The warranty lasts two years (Source 1)."
    r = bundled_scorer.score(response, DOCS)
    assert [c.claim for c in r.claims] == [
        "Shipping takes five days.",
        "The warranty lasts two years.",
    ]
    assert [c.citation for c in r.claims] == ["supported", "supported"]
    assert response[r.claims[0].start : r.claims[0].end].startswith("Shipping takes five days")
    assert r.n_misattributed == 0


def test_a_marker_number_is_not_a_quantity(bundled_scorer):
    # "(Source 2)" left in the claim would make the number check ask the context for a "2"
    r = bundled_scorer.score("The warranty lasts two years (Source 1).", DOCS)
    assert r.claims[0].verdict == "yes"


def test_answers_without_markers_are_unchanged(bundled_scorer):
    r = bundled_scorer.score("The warranty lasts two years.", DOCS)
    assert r.n_cited is None and r.n_misattributed is None
    assert r.claims[0].citation is None and r.claims[0].cited_docs is None
    assert "cite" not in r.reason


def test_early_exit_settles_only_on_cited_documents():
    from nli_faith.scorer import FaithfulnessScorer

    docs = ["The warranty lasts two years.", "Warranty: the warranty lasts two years."]
    g = FaithfulnessScorer.guardrail()
    r = g.score("The warranty lasts two years [2].", docs)
    assert r.claims[0].verdict == "yes" and r.claims[0].citation == "supported"


def test_a_marker_after_the_sentence_it_sources_is_no_claim(bundled_scorer):
    # "(Passage 1)" after a list item's full stop is a segment of its own: no claim, and
    # it still cites the sentence before it
    response = (
        "1. The warranty lasts two years. (Passage 1)\n2. Shipping takes five days. (Passage 2)"
    )
    r = bundled_scorer.score(response, DOCS)
    assert [c.claim for c in r.claims] == [
        "The warranty lasts two years.",
        "Shipping takes five days.",
    ]
    assert [c.cited_docs for c in r.claims] == [[0], [1]]
