"""One result schema: the server's OpenAPI reply models list every key the JSON output has,
and the Arrow schema is read from the same model."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")

RECORDS = [
    {  # a reference answer (hallucination / self-knowledge), citations, a question, an id
        "id": 7,
        "question": "How long is the warranty?",
        "response": "The warranty lasts 24 months [1]. It was made in Norway [2].",
        "context": ["The warranty lasts 24 months.", "Shipping is free over fifty dollars."],
        "reference": "The warranty lasts 24 months and the device was made in Norway.",
    },
    {"response": "It rained.", "context": ["The sun shone all day."]},
    {"response": None, "context": "x"},  # an error
]


def _keys(schema: dict, defs: dict) -> set[str]:
    if "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[1]]
    return set(schema.get("properties", {}))


def _resolve(schema: dict, defs: dict) -> dict:
    for option in schema.get("anyOf", [schema]):
        if "$ref" in option:
            return defs[option["$ref"].rsplit("/", 1)[1]]
        if option.get("type") == "array":
            return _resolve(option["items"], defs)
    return schema


def test_openapi_reply_lists_every_key_of_the_json_output(bundled_thresholds):
    from nli_faith.rows import scored_row
    from nli_faith.scorer import FaithfulnessScorer
    from nli_faith.serve.app import create_app
    from nli_faith.serve.settings import ServeSettings

    scorer = FaithfulnessScorer.from_thresholds(bundled_thresholds, device="cpu")
    rows = [
        scored_row(scorer, k, rec, res)
        for k, (rec, res) in enumerate(zip(RECORDS, scorer.score_batch(RECORDS)), 1)
    ]
    row_keys = set().union(*rows)
    claims = [c for r in rows for c in r["claims"]]
    claim_keys = set().union(*claims)
    evidence_keys = set().union(*(c["evidence"] for c in claims if c["evidence"]))
    # the rows hold every optional key: error, reference rates and labels, citations
    assert {"error", "faithful", "question", "id", "hallucination_rate"} <= row_keys
    assert {"reference_label", "citation", "cited_docs", "band", "candidates"} <= claim_keys

    spec = create_app(ServeSettings(), scorer_factory=lambda: None).openapi()
    defs = spec["components"]["schemas"]
    for path, reply in (("/v1/score", "ScoreReply"), ("/v1/score/batch", "BatchReply")):
        ref = spec["paths"][path]["post"]["responses"]["200"]["content"]["application/json"]
        assert ref["schema"]["$ref"].endswith(reply)
    score = defs["ScoreReply"]["properties"]
    item = _resolve(defs["BatchReply"]["properties"]["results"], defs)["properties"]
    for props in (score, item):
        assert row_keys - {"line"} <= set(props)
        claim = _resolve(props["claims"], defs)
        assert claim_keys <= set(claim["properties"])
        assert evidence_keys <= set(_resolve(claim["properties"]["evidence"], defs)["properties"])
    assert {"decision", "time_ms"} <= set(score) and {"index", "decision"} <= set(item)


def test_arrow_schema_has_every_key_of_the_json_output():
    from nli_faith.rows import OPTIONAL_KEYS, ScoredRecord, arrow_schema

    names = arrow_schema().names
    assert names == list(ScoredRecord.model_fields)
    assert set(OPTIONAL_KEYS) <= set(names)
