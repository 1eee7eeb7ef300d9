"""The response-level development set: whole answers made from documents a mix did not train on."""

import json
import random
import re

from research.ragpairs import SourceDoc
from research.response_dev import held_out_documents, main, responses

DOC = SourceDoc(
    "d1",
    "Summary",
    (
        "The city council approved a budget of 45 million dollars on Monday. "
        "The mayor, Laura Chen, said the money would fund three new libraries. "
        "Construction is expected to begin in March and last two years.",
    ),
)
GOOD = [
    "The city council approved a budget of 45 million dollars on Monday.",
    "The mayor, Laura Chen, said the money would fund three new libraries.",
    "Construction is expected to begin in March and last two years.",
]


def test_the_unfaithful_answer_is_the_faithful_one_with_one_claim_made_wrong():
    wrong = "The city council approved a budget of 54 million dollars on Monday."
    claims = {"supported": GOOD, "rag_number": [wrong]}
    for seed in range(20):
        good, bad = responses(DOC, claims, random.Random(seed))
        assert (good["label"], bad["label"]) == (1, 0)
        assert bad["meta"]["wrong_kind"] == "rag_number"
        assert good["context"] == bad["context"] == list(DOC.context)
        assert GOOD[0] in good["response"]  # the original of the wrong claim is always in it
        assert [c["text"] for c in bad["claims"]] == [
            wrong if c["text"] == GOOD[0] else c["text"] for c in good["claims"]
        ]
        assert [c["label"] for c in bad["claims"]].count(0) == 1
        assert bad["response"] == " ".join(c["text"] for c in bad["claims"])


def test_a_wrong_claim_with_no_true_original_takes_the_place_of_a_true_one():
    added = "Penguins live in Antarctica near the pole."
    for seed in range(10):
        good, bad = responses(DOC, {"supported": GOOD, "rag_added": [added]}, random.Random(seed))
        assert [c["text"] for c in bad["claims"] if c["label"] == 0] == [added]
        kept = [c["text"] for c in bad["claims"] if c["label"] == 1]
        assert len(kept) == len(good["claims"]) - 1 and set(kept) < set(GOOD)
    assert responses(DOC, {"supported": GOOD[:1]}, random.Random(0)) == []  # one claim: no answer
    (alone,) = responses(DOC, {"supported": GOOD}, random.Random(0))  # nothing wrong to use
    assert alone["label"] == 1


def test_each_kind_of_error_is_drawn_evenly():
    wrong = {
        "rag_number": ["The city council approved a budget of 54 million dollars on Monday."],
        "rag_entity": [f"The mayor, Laura {n}, said the money would fund three new libraries."
                       for n in ("Smith", "Jones", "Brown", "Green", "White", "Black")],
    }  # fmt: skip
    kinds = [
        responses(DOC, {"supported": GOOD, **wrong}, random.Random(s))[1]["meta"]["wrong_kind"]
        for s in range(200)
    ]
    assert 70 < kinds.count("rag_number") < 130  # not six to one, as the claims are


def _data_dir(tmp_path, docs):
    src = tmp_path / "data" / "rag-sources"
    src.mkdir(parents=True)
    with (src / "ragtruth_train_sources.jsonl").open("w") as f:
        for d in docs:
            row = {"source_id": d.source_id, "task_type": d.task_type, "context": list(d.context)}
            f.write(json.dumps(row) + "\n")
    return tmp_path / "data"


def test_held_out_documents_are_those_the_mix_did_not_train_on(tmp_path):
    from research.taskmix import pick_documents

    docs = [SourceDoc(f"s{i}", "QA", (f"Passage {i}.",)) for i in range(40)]
    data = _data_dir(tmp_path, docs)
    manifest = {"options": {"seed": 4, "docs": 25, "dev_fraction": 0.3}}
    train, dev = pick_documents(data, n=25, seed=4, dev_fraction=0.3)
    held = held_out_documents(data, manifest)
    assert dev and {d.source_id for d in dev} <= {d.source_id for d in held}
    assert {d.source_id for d in held} == {d.source_id for d in docs} - {d.source_id for d in train}
    assert len(held) == 40 - len(train)


def test_the_command_writes_sets_in_the_faithfulness_format(tmp_path):
    news = [
        SourceDoc(
            f"n{i}",
            "Summary",
            (
                f"The city council of Springfield approved a budget of {40 + i} million dollars "
                "on Monday. The mayor, Laura Chen, said the money would fund three new "
                "libraries. Construction is expected to begin in March and last two years. "
                "Residents will be able to comment on the plans at a meeting in Riverside Hall. "
                f"The previous budget, passed in 2019, was {30 + i} million dollars.",
            ),
        )
        for i in range(6)
    ]
    data = _data_dir(tmp_path, news)
    mix = tmp_path / "mix"
    mix.mkdir()
    manifest = {"options": {"seed": 21, "docs": 0, "dev_fraction": 0.1}}  # trained on none
    (mix / "manifest.json").write_text(json.dumps(manifest))
    out = tmp_path / "out"
    main(["--data", str(data), "--mix", str(mix), "-o", str(out), "--seed", "3"])
    path = out / "faithfulness" / "response_dev_summary.jsonl"
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    summary = json.loads((out / "response_dev.json").read_text())
    assert summary["held_out_documents"] == 6
    assert summary["sets"]["response_dev_summary"]["records"] == len(recs) > 6
    assert {r["label"] for r in recs} == {0, 1}
    for r in recs:
        assert r["dataset"] == "response_dev_summary" and len(r["claims"]) >= 2
        doc = next(d for d in news if r["id"].startswith(d.source_id + "-"))
        assert r["context"] == list(doc.context)
        words = set(re.findall(r"[a-z0-9]+", doc.context[0].lower())) | {"and"}
        for c in r["claims"]:  # a true claim only reuses the document's words
            assert set(re.findall(r"[a-z0-9]+", c["text"].lower())) <= words or not c["label"]
