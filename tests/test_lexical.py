import numpy as np

from nli_faith.scoring.verdicts import decide
from nli_faith.text.lexical import content_words, overlap_mask


def test_content_words_drop_stop_words_and_plurals():
    assert content_words("The employees and their policies") == {"employee", "policy"}
    assert content_words("It is what it is.") == set()


def test_a_chunk_must_share_content_to_contradict():
    claims = ["The absolute lifetime of a session is capped at 8 hours."]
    chunks = ["5.6 Session Management", "A session lasts at most 4 hours in total."]
    mask = overlap_mask(claims, chunks, min_share=0.3)
    np.testing.assert_array_equal(mask, [[False, True]])
    assert overlap_mask(claims, chunks, min_share=0).all()
    probs = np.array([[[0.0, 0.1, 0.9], [0.1, 0.5, 0.4]]], dtype=np.float32)
    assert decide(probs).verdicts.tolist() == ["no"]
    assert decide(probs, contradict_mask=mask).verdicts.tolist() == ["idk"]
