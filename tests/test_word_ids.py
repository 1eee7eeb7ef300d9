"""Token ids put together from the words' ids are the ids of the whole text."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nli_faith.nli.registry import resolve_model
from nli_faith.nli.tokens import PairEncoder, WordIds

#: Characters where word-by-word and whole tokenizing could part: whitespace of every
#: kind, controls a BERT normalizer deletes, accents, CJK, added tokens, word pieces.
PIECES = [" ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x1c", "\x85", "\u00a0", "\u2003",
          "\u200b", "\u0301", "e\u0301", "\u00e9", "\u4e2d", "\u0130", "\u00df", "\ufb01",
          "[SEP]", "[MASK]", "[", "]", "##ing", "O'Neil", "3.5%", "$1,200", "-", ".",
          "supercalifragilistic", "x" * 120, "Cat", "cats", "!" * 3, "\U0001f600"]  # fmt: skip
texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join) | st.text(max_size=30)


@pytest.fixture(scope="module")
def tokenizer():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(resolve_model("default").path)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(batch=st.lists(texts, min_size=1, max_size=4))
def test_ids_from_words_are_the_ids_of_the_whole_text(tokenizer, batch):
    enc = PairEncoder(tokenizer)
    assert enc.words is not None  # the bundled (BERT) tokenizer splits at whitespace
    whole = tokenizer(batch, add_special_tokens=False, truncation=False)["input_ids"]
    assert enc.text_ids(batch) == whole
    assert enc.text_ids(batch) == whole  # from the caches


def test_a_tokenizer_that_does_not_split_at_whitespace_first_tokenizes_whole(tokenizer):
    from tokenizers import pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    other = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer.backend_tokenizer.__class__.from_str(
            tokenizer.backend_tokenizer.to_str()
        )
    )
    other.backend_tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    assert WordIds.of(other) is None
    assert PairEncoder(other).words is None
