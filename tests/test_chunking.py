import logging
import re

from nli_faith.text.chunking import chunk_document, chunk_documents
from nli_faith.text.sentences import sentence_spans


def count_words(texts):
    return [len(t.split()) for t in texts]


def word_offsets(text):
    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


DOC = (
    "The warranty covers the device for twenty-four months. It does not cover water damage. "
    "Repairs are free during the warranty period. Shipping for repairs is paid by the customer. "
    "Extended warranties can be bought within thirty days of purchase. "
    "They add another twelve months of cover."
)


def test_offsets_round_trip_to_the_original_text():
    docs = [DOC, "Second document.\n\nIt has two paragraphs."]
    chunks = chunk_documents(docs, budget=20, count_tokens=count_words, token_offsets=word_offsets)
    assert chunks
    for c in chunks:
        assert docs[c.doc_index][c.start : c.end] == c.text
    assert {c.doc_index for c in chunks} == {0, 1}


def test_windows_respect_the_budget_and_cover_every_sentence():
    spans = sentence_spans(DOC)
    chunks = chunk_document(
        DOC,
        spans,
        doc_index=0,
        budget=20,
        count_tokens=count_words,
        token_offsets=word_offsets,
        sentences=False,
    )
    assert len(chunks) > 1  # the document does not fit in one window
    assert all(len(c.text.split()) <= 20 for c in chunks)
    covered = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    for s, e in spans:
        assert set(range(s, e)) <= covered
    # neighbouring windows share a sentence (overlap=1)
    assert chunks[1].start < chunks[0].end


def test_sentence_chunks_are_added_once():
    spans = sentence_spans(DOC)
    chunks = chunk_document(
        DOC,
        spans,
        doc_index=0,
        budget=1000,
        count_tokens=count_words,
        token_offsets=word_offsets,
        sentences=True,
    )
    sentence_chunks = [c for c in chunks if (c.start, c.end) in set(spans)]
    assert len(sentence_chunks) == len(spans)
    assert any(c.start == spans[0][0] and c.end == spans[-1][1] for c in chunks)
    assert len({(c.start, c.end) for c in chunks}) == len(chunks)


def test_a_long_document_is_fully_covered():
    doc = " ".join(
        f"Sentence number {i} says that item {i} costs {i * 3} dollars." for i in range(300)
    )
    chunks = chunk_documents([doc], budget=50, count_tokens=count_words, token_offsets=word_offsets)
    covered = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    assert all(i in covered for i, ch in enumerate(doc) if not ch.isspace())


def test_an_overlong_sentence_is_split_with_a_warning(caplog):
    doc = "word " * 120 + "end."
    with caplog.at_level(logging.WARNING, logger="nli_faith.text.chunking"):
        chunks = chunk_documents(
            [doc], budget=50, count_tokens=count_words, token_offsets=word_offsets
        )
    assert "exceeds the 50-token chunk budget" in caplog.text
    assert all(len(c.text.split()) <= 50 for c in chunks)
    covered = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    assert all(i in covered for i, ch in enumerate(doc) if not ch.isspace())


def test_scorer_chunks_fit_the_model_beside_the_claim(tiny_scorer):
    from nli_faith.text.claims import Claim

    long_doc = " ".join(["The committee met on Tuesday and discussed the annual budget."] * 200)
    claims = [Claim("The committee discussed the budget.", 0, 10)]
    chunks = tiny_scorer.stages.chunks([long_doc], claims)
    nli = tiny_scorer.nli
    sizes = nli.count_tokens([c.text for c in chunks])
    claim_len = nli.count_tokens([claims[0].text])[0]
    assert max(sizes) + claim_len + nli.num_special_tokens <= nli.max_length
    assert chunks[-1].end == len(long_doc)


def test_sentence_members_map_windows_to_their_sentences():
    from nli_faith.text.chunking import Chunk, sentence_members

    doc = "One fact here. Two facts here. Three facts here."
    spans = sentence_spans(doc)
    chunks = chunk_document(
        doc, spans, doc_index=0, budget=6, count_tokens=count_words,
        token_offsets=word_offsets, sentences=True,
    )  # fmt: skip
    members = sentence_members(chunks)
    for chunk, m in zip(chunks, members):
        if (chunk.start, chunk.end) in set(spans):
            assert [chunks[k] for k in m] == [chunk]
        else:  # a window: its members are exactly the sentences inside it
            inside = [(chunks[k].start, chunks[k].end) for k in m]
            assert inside == [s for s in spans if chunk.start <= s[0] and s[1] <= chunk.end]
    other_doc = Chunk("x", 1, 0, 1)
    assert sentence_members([*chunks, other_doc])[-1] == [len(chunks)]


def test_a_heading_is_context_for_the_sentences_under_it():
    doc = (
        "# Plans\n\n## Gold tier\nThe annual fee is $120. Gold members get 4 lounge visits.\n\n"
        "## Silver tier\nThe annual fee is $60."
    )
    chunks = chunk_documents([doc], budget=60, count_tokens=count_words, token_offsets=word_offsets)
    alone = {doc[c.start : c.end]: c.text for c in chunks if "\n" not in doc[c.start : c.end]}
    assert alone["The annual fee is $120."] == "Gold tier: The annual fee is $120."
    assert alone["The annual fee is $60."] == "Silver tier: The annual fee is $60."
    # a sentence that already names its subject, and the headings themselves, stay as written
    assert alone["Gold members get 4 lounge visits."] == "Gold members get 4 lounge visits."
    assert alone["## Gold tier"] == "## Gold tier"
    # windows are the verbatim text
    window = max(chunks, key=lambda c: c.end - c.start)
    assert window.text == doc[window.start : window.end]
