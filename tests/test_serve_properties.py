"""Property-based tests of the service's request handling and of the parser, splitter and
chunker behind it: arbitrary JSON, bytes, unicode, empty strings, huge tokens, deep nesting,
wrong types. Nothing may crash (no 500) and every reply must keep its contract."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nli_faith.engine.plan import token_offsets

pytest.importorskip("fastapi")


def fast(n: int):
    return settings(FAST, max_examples=n)


FAST = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=True,
)
ERRORS_OK = {400, 413, 422}

# -- strategies ---------------------------------------------------------------------------

texts = st.text(max_size=60) | st.sampled_from(
    ["", " ", "\n\n", ".", "Hi.", "The warranty lasts 24 months.", "x" * 300, "ü" * 50]
)
#: JSON scalars: NaN and Infinity are not JSON (the service answers 400 for them).
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)
field_names = st.sampled_from(
    ["response", "actual_output", "answer", "context", "retrieval_context",
     "retrieved_contexts", "contexts", "question", "input", "user_input", "id"]
)  # fmt: skip
# record-shaped objects whose fields have arbitrary values (mostly the wrong type)
record_like = st.dictionaries(field_names, json_values, max_size=5)
sentences = st.lists(
    st.sampled_from(
        ["The warranty lasts 24 months.", "Shipping is free.", "Paris is in France.",
         "It was built in 1889.", "Sure!", "What?", "Thanks for asking."]
    ),
    max_size=4,
).map(" ".join)  # fmt: skip
valid_records = st.fixed_dictionaries(
    {
        "response": sentences | texts,
        "context": texts | st.lists(texts | sentences, max_size=4),
    },
    optional={"question": texts, "id": st.integers() | texts},
)


@pytest.fixture(scope="module")
def client(bundled_scorer):
    from fastapi.testclient import TestClient

    from nli_faith.records import Limits
    from nli_faith.serve.app import create_app
    from nli_faith.serve.auth import ApiKeys
    from nli_faith.serve.settings import ServeSettings

    limits = Limits(max_response_chars=400, max_context_chars=1200, max_documents=4, max_claims=6)
    app = create_app(
        ServeSettings(limits=limits, max_body_bytes=20_000, max_batch_records=4),
        scorer_factory=lambda: bundled_scorer,
        keys=ApiKeys([]),
    )
    with TestClient(app, raise_server_exceptions=False) as c:
        assert app.state.service.batcher.wait_ready(timeout=120)
        yield c


def _check_scored(body: dict, record: dict) -> None:
    from nli_faith.records import RESPONSE_FIELDS, parse_record

    response = parse_record(record).response
    assert body["decision"] in ("pass", "block")
    assert body["n_claims"] == len(body["claims"]) == body["n_yes"] + body["n_no"] + body["n_idk"]
    for c in body["claims"]:
        assert 0 <= c["start"] <= c["end"] <= len(response)
        assert c["verdict"] in ("yes", "no", "idk")
    if body["n_claims"]:
        assert 0 <= body["strict"] <= body["lenient"] <= 1
    else:
        assert body["strict"] is None
    assert any(f in record for f in RESPONSE_FIELDS)


# -- the HTTP layer -----------------------------------------------------------------------


@fast(300)
@given(body=json_values | record_like)
def test_any_json_body_gets_a_clear_reply(client, body):
    r = client.post("/v1/score", content=json.dumps(body))
    assert r.status_code in ERRORS_OK | {200}, r.text
    reply = r.json()
    if r.status_code == 200:
        _check_scored(reply, body)
    else:
        assert reply["error"] and reply["request_id"]


@fast(300)
@given(body=st.binary(max_size=200))
def test_any_bytes_get_a_clear_reply(client, body):
    r = client.post("/v1/score", content=body)
    assert r.status_code in ERRORS_OK | {200}, r.text


@fast(50)
@given(depth=st.integers(1, 30_000), inner=st.sampled_from(["[", '{"a":']))
def test_deeply_nested_json(client, depth, inner):
    closer = "]" if inner == "[" else "}"
    body = inner * depth + "1" + closer * depth
    for payload in (body, json.dumps({"response": "a", "context": "b", "extra": "x"})[:-1]
                    + f', "deep": {body}}}'):  # fmt: skip
        r = client.post("/v1/score", content=payload)
        assert r.status_code in (200, 400, 413, 422), r.text


@fast(30)
@given(record=valid_records)
def test_well_formed_records_are_scored_or_refused_by_a_limit(client, record):
    r = client.post("/v1/score", content=json.dumps(record))
    if r.status_code == 422:
        assert "over the limit of" in r.json()["error"]
    else:
        assert r.status_code == 200, r.text
        _check_scored(r.json(), record)


@fast(20)
@given(records=st.lists(valid_records | record_like, max_size=5))
def test_batches_keep_every_record(client, records):
    r = client.post("/v1/score/batch", content=json.dumps({"records": records}))
    if len(records) > 4:
        assert r.status_code == 422 and "--max-batch-records" in r.json()["error"]
        return
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [x["index"] for x in results] == list(range(len(records)))
    for rec, res in zip(records, results):
        assert ("error" in res) == (res["decision"] is None)
        if "error" not in res:
            _check_scored(res, rec)


# -- the parser, splitter and chunker behind it ------------------------------------------


@settings(max_examples=600, deadline=None, derandomize=True)
@given(rec=json_values | record_like)
def test_parse_record_raises_only_record_errors(rec):
    from nli_faith.errors import RecordError
    from nli_faith.records import Limits, parse_record

    try:
        out = parse_record(rec, limits=Limits(max_response_chars=50, max_documents=2))
    except RecordError as err:
        assert str(err)
        return
    assert isinstance(out.response, str) and len(out.response) <= 50
    assert all(isinstance(d, str) for d in out.context) and len(out.context) <= 2


unicode_text = st.text(st.characters(codec="utf-8"), max_size=200) | st.builds(
    lambda a, b: a + "x" * 3000 + b, st.text(max_size=20), st.text(max_size=20)
)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(text=unicode_text)
def test_claim_spans_point_into_the_response(text):
    from nli_faith.text.claims import ClaimSplitter

    for claim in _splitter(ClaimSplitter).split(text):
        assert 0 <= claim.start < claim.end <= len(text)
        assert claim.text.strip()


@settings(max_examples=200, deadline=None, derandomize=True)
@given(docs=st.lists(unicode_text, max_size=3), budget=st.integers(16, 120))
def test_chunks_are_spans_of_their_document_and_fit_the_budget(bundled_scorer, docs, budget):
    from nli_faith.text.chunking import chunk_documents

    nli = bundled_scorer.nli
    chunks = chunk_documents(
        docs,
        budget=budget,
        count_tokens=nli.count_tokens,
        token_offsets=lambda text: token_offsets(bundled_scorer.parts, text),
    )
    for c in chunks:
        assert 0 <= c.doc_index < len(docs)
        assert docs[c.doc_index][c.start : c.end] == c.text
        assert nli.count_tokens([c.text])[0] <= budget  # nothing is silently truncated


_SPLITTERS: dict = {}


def _splitter(cls):
    if cls not in _SPLITTERS:
        _SPLITTERS[cls] = cls()
    return _SPLITTERS[cls]
