"""``nli-faith serve``: a real uvicorn server (a subprocess, or a thread), talked to with httpx."""

from __future__ import annotations

import json
import signal
import sys
import threading

import httpx
import pytest
from conftest import REPO
from serve_helpers import ServerProcess, ThreadServer, metric, wait_until

pytest.importorskip("fastapi")
pytest.importorskip("onnxruntime")

KEYS = ("k-alpha-0123456789", "k-beta-9876543210")
AUTH = {"Authorization": f"Bearer {KEYS[0]}"}
LIMITS = {
    "--max-response-chars": 2000,
    "--max-context-chars": 8000,
    "--max-documents": 8,
    "--max-claims": 12,
    "--max-batch-records": 8,
    "--max-body-bytes": 100_000,
}
SWAP = {
    "id": "swap-1",
    "response": "The warranty lasts 36 months. Shipping is free over fifty dollars.",
    "context": [
        "The warranty lasts 24 months.",
        "We provide complimentary delivery on purchases over $50.",
    ],
}
SECRET_TEXT = "Zanzibarine"  # appears in requests; must never reach the log


ANIMALS = ("otter", "heron", "badger", "falcon", "lynx", "marten", "osprey", "weasel")


def heavy_record(k: int) -> dict:
    """6 unsupported claims against 4 documents of 6 sentences (~90 pairs with the
    guardrail preset, ~170 with a full scan)."""
    claims = " ".join(
        f"The {SECRET_TEXT} {ANIMALS[i]} of record {k} sleeps beside the old "
        f"{ANIMALS[(i + k) % 8]} lighthouse."
        for i in range(6)
    )
    docs = [
        " ".join(
            f"Gauge {ANIMALS[d]} of the valley measured heavy {ANIMALS[j]} rainfall during "
            "the storm."
            for j in range(6)
        )
        for d in range(4)
    ]
    return {"id": f"heavy-{k}", "response": claims, "context": docs}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = _start(tmp_path_factory.mktemp("serve"))
    yield srv
    srv.stop()


def _start(tmp):
    """The server these tests talk to: the guardrail set-up, two keys, small limits."""
    keys = tmp / "keys.txt"
    keys.write_text(f"# test keys\n{KEYS[0]}\n\n{KEYS[1]}\n")
    args = ["--guardrail", "--block-on-contradiction", "--api-key-file", str(keys)]
    for flag, value in LIMITS.items():
        args += [flag, str(value)]
    return ServerProcess.start(args, tmp / "server.log")


@pytest.fixture(scope="module")
def client(server):
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


# -- endpoints and auth -----------------------------------------------------------------


def test_health_endpoints_are_open(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    body = ready.json()
    assert body["ready"] is True and body["backend"] == "onnx"
    assert body["policy"] == {"block_below_strict": None, "block_on_contradiction": True}
    assert body["limits"]["max_claims"] == 12


def test_auth_refused_and_accepted(client):
    for headers in (
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": f"Basic {KEYS[0]}"},
        {"Authorization": f"Bearer {KEYS[0]}x"},
        {"Authorization": "Bearer ключ".encode()},  # non-ASCII must not crash the comparison
    ):
        r = client.post("/v1/score", json=SWAP, headers=headers)
        assert r.status_code == 401, headers
        assert r.headers["www-authenticate"] == "Bearer"
        assert "API key" in r.json()["error"]
    assert client.get("/metrics").status_code == 401
    for key in KEYS:
        r = client.post("/v1/score", json=SWAP, headers={"Authorization": f"Bearer {key}"})
        assert r.status_code == 200


def test_score_reply_is_the_cli_record_plus_decision(client, tmp_path):
    """Same object as `nli-faith score` writes for the record (less its line number)."""
    from nli_faith.results import FaithfulnessResult
    from nli_faith.rows import OPTIONAL_KEYS

    r = client.post("/v1/score", json=SWAP, headers=AUTH)
    assert r.status_code == 200
    body = r.json()
    assert r.headers["x-request-id"]
    assert body.pop("decision") == "block"  # 36 vs 24 months is contradicted
    assert 0 < body.pop("time_ms") < 60_000
    fields = set(FaithfulnessResult.__dataclass_fields__)
    fields -= set(OPTIONAL_KEYS)  # no error, no reference answer, a context
    assert set(body) == fields | {"id"} and body["id"] == "swap-1"
    assert [c["verdict"] for c in body["claims"]] == ["no", "yes"]
    assert body["claims"][0]["evidence"] == {
        "text": "The warranty lasts 24 months.", "doc_index": 0, "start": 0, "end": 29,
        "spans": [{"doc_index": 0, "start": 0, "end": 29}],
    }  # fmt: skip
    assert body["strict"] == 0.5 and body["n_no"] == 1 and "Contradicted" in body["reason"]
    # the wrong words of the contradicted claim, with offsets into the response
    assert body["claims"][0]["unsupported_spans"] == [
        {"start": 19, "end": 28, "text": "36 months", "kind": "contradicted",
         "evidence": "The warranty lasts 24 months."},
    ]  # fmt: skip
    assert SWAP["response"][19:28] == "36 months" and body["claims"][1]["unsupported_spans"] == []
    # the same record through the batch endpoint: the same result
    batch = client.post("/v1/score/batch", json={"records": [SWAP]}, headers=AUTH).json()
    item = batch["results"][0]
    assert item.pop("index") == 0 and item.pop("decision") == "block"
    assert item == body
    # the service guide's example reply has the fields the service sends, no more, no less
    guide = (REPO / "docs" / "guides" / "service.md").read_text(encoding="utf-8")
    doc = json.loads(guide.split("```json", 1)[1].split("```", 1)[0])
    assert set(doc) == set(body) | {"decision", "time_ms"}
    assert [set(c) for c in doc["claims"]] == [set(c) for c in body["claims"]]


def test_an_empty_context_is_blocked_whatever_the_policy(client):
    """This server's policy (block on contradiction) passes an answer with nothing
    contradicted, but not one checked against no text: the same gate as every door's."""
    record = {"response": "The warranty lasts 36 months.", "context": ["  "]}
    body = client.post("/v1/score", json=record, headers=AUTH).json()
    assert body["decision"] == "block" and body["context_empty"] is True
    assert body["lenient"] == 1.0  # nothing contradicted: the score alone would pass it
    batch = client.post("/v1/score/batch", json={"records": [record, SWAP]}, headers=AUTH)
    assert [r.get("context_empty", False) for r in batch.json()["results"]] == [True, False]


def test_deepeval_and_ragas_names_and_a_passing_decision(client):
    deepeval = {
        "input": "Where is Paris?",
        "actual_output": "Paris is in France.",
        "retrieval_context": ["Paris is the capital of France."],
    }
    ragas = {
        "user_input": "Where is Paris?",
        "response": "Paris is in France.",
        "retrieved_contexts": ["Paris is the capital of France."],
    }
    replies = [client.post("/v1/score", json=rec, headers=AUTH).json() for rec in (deepeval, ragas)]
    for body in replies:
        assert body["decision"] == "pass" and body["n_yes"] == 1 and "id" not in body
    no_claims = client.post(
        "/v1/score", json={"response": "Sure! What would you like to know?", "context": "x"},
        headers=AUTH,
    ).json()  # fmt: skip
    assert no_claims["strict"] is None and no_claims["decision"] == "pass"


def test_a_reference_answer_labels_unsupported_claims(client):
    """As in `nli-faith score`: with a reference, hallucination vs self-knowledge."""
    record = {
        "response": "The tower was completed in 1889. It is painted every seven years.",
        "context": "The tower was completed in 1889.",
        "reference": "The tower is repainted every seven years.",
    }
    body = client.post("/v1/score", json=record, headers=AUTH).json()
    assert {"hallucination_rate", "self_knowledge_rate"} <= set(body)
    assert [c["reference_label"] for c in body["claims"]][0] is None  # supported by context
    plain = client.post("/v1/score", json=SWAP, headers=AUTH).json()
    assert "hallucination_rate" not in plain and "reference_label" not in plain["claims"][0]


def test_batch_with_one_bad_record(client):
    records = [SWAP, {"response": 5, "context": "x"}, {"answer": "Rome is in Italy.",
               "contexts": ["Rome is the capital of Italy."], "id": 9},
               {"question": "Q?", "response": "a" * 2001, "context": "x"}]  # fmt: skip
    r = client.post("/v1/score/batch", json={"records": records}, headers=AUTH)
    assert r.status_code == 200
    results = r.json()["results"]
    assert [x["index"] for x in results] == [0, 1, 2, 3]
    # past a limit: the record's error, and its question kept, as the CLI's row keeps it
    assert "over the limit of 2,000" in results[3]["error"] and results[3]["question"] == "Q?"
    assert results[0]["id"] == "swap-1" and results[0]["decision"] == "block"
    # the same text as `nli-faith score` writes for the record
    assert results[1]["error"] == "RecordError: field 'response' must be a string, got int."
    assert results[1]["decision"] is None
    assert results[2]["id"] == 9 and results[2]["n_yes"] == 1 and "error" not in results[2]
    assert (
        client.post("/v1/score/batch", json={"records": []}, headers=AUTH).json()["results"] == []
    )


def test_the_claim_limit_is_the_services_and_a_422(client):
    """A response of 13 claims, over --max-claims 12: a 422 naming the field and the flag
    alone, its own error in a batch (the others are scored)."""
    many = {"response": " ".join(f"Gauge {k} rose." for k in range(13)), "context": "x"}
    r = client.post("/v1/score", json=many, headers=AUTH)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "response"
    assert "13, over the limit of 12 (--max-claims)" in r.json()["error"]
    twelve = {"response": " ".join(f"Gauge {k} rose." for k in range(12)), "context": "x"}
    assert client.post("/v1/score", json=twelve, headers=AUTH).json()["n_claims"] == 12
    r = client.post("/v1/score/batch", json={"records": [many, SWAP]}, headers=AUTH)
    first, second = r.json()["results"]
    assert r.status_code == 200 and first["decision"] is None
    assert first["error"].startswith("RecordError: ") and "(max_claims)" in first["error"]
    assert second["decision"] == "block" and "error" not in second


def test_metrics_count_requests_batches_and_pairs(client):
    client.post("/v1/score", json=SWAP, headers=AUTH)
    assert client.post("/v1/score", json=SWAP).status_code == 401  # this test's own 401
    text = client.get("/metrics", headers=AUTH).text
    assert 'nli_faith_requests_total{endpoint="/v1/score",status="200"}' in text
    assert 'nli_faith_requests_total{endpoint="/v1/score",status="401"}' in text
    assert "nli_faith_request_seconds_bucket" in text
    assert metric(text, "nli_faith_batch_records_count") >= 2  # warm-up and requests
    assert metric(text, "nli_faith_pairs_scored_total") >= 4
    assert metric(text, "nli_faith_queue_depth") == 0
    assert metric(text, "nli_faith_ready") == 1


def test_docs_and_openapi(client):
    assert "swagger" in client.get("/docs").text.lower()
    spec = client.get("/openapi.json").json()
    assert {"/v1/score", "/v1/score/batch", "/healthz", "/readyz", "/metrics"} <= set(spec["paths"])
    body = spec["paths"]["/v1/score"]["post"]["requestBody"]["content"]["application/json"]
    assert {"response", "context"} <= set(body["schema"]["properties"])


# -- limits and bad input ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "field", "flag"),
    [
        ({"response": "a" * 2001, "context": "x"}, "response", "--max-response-chars"),
        ({"answer": "a" * 2001, "context": "x"}, "answer", "--max-response-chars"),
        ({"response": "a.", "context": ["b" * 4000] * 2 + ["c"]}, "context", "--max-context-chars"),
        (
            {"response": "a.", "retrieved_contexts": ["b"] * 9},
            "retrieved_contexts",
            "--max-documents",
        ),
        (
            {"response": " ".join(f"Fact {i} is true." for i in range(13)), "context": "x"},
            "response",
            "--max-claims",
        ),
    ],  # fmt: skip
)
def test_each_record_limit_is_a_422_naming_field_and_flag(client, record, field, flag):
    r = client.post("/v1/score", json=record, headers=AUTH)
    assert r.status_code == 422
    body = r.json()
    assert body["field"] == field
    assert body["error"].startswith(f"field '{field}' ") and body["error"].endswith(f"({flag}).")
    assert "over the limit of" in body["error"]
    assert body["request_id"] == r.headers["x-request-id"]


def test_body_too_large_is_413(client):
    big = {"response": "a", "context": "b" * 100_001}
    r = client.post("/v1/score", json=big, headers=AUTH)
    assert r.status_code == 413 and "100,000 bytes" in r.json()["error"]

    def chunks():  # no Content-Length: counted while reading
        for _ in range(30):
            yield b" " * 4096

    r = client.post("/v1/score", content=chunks(), headers=AUTH)
    assert r.status_code == 413


def test_body_too_large_is_413_for_clients_that_write_before_reading(server):
    """urllib and requests send the whole body before reading the reply: the server reads
    and drops it, so they see the 413 rather than a reset connection (40 MB overflows the
    loopback socket buffers)."""
    import urllib.error
    import urllib.request

    import requests

    body = json.dumps({"response": "a", "context": "b" * 40_000_000}).encode()
    headers = {**AUTH, "Content-Type": "application/json"}
    req = urllib.request.Request(server.url + "/v1/score", data=body, headers=headers)
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=60)
    assert err.value.code == 413
    assert "100,000 bytes" in json.loads(err.value.read())["error"]
    r = requests.post(server.url + "/v1/score/batch", data=body, headers=headers, timeout=60)
    assert r.status_code == 413

    def chunks():  # no Content-Length: over the limit while reading, the rest dropped
        for _ in range(10_000):
            yield b" " * 4096

    r = requests.post(server.url + "/v1/score", data=chunks(), headers=AUTH, timeout=60)
    assert r.status_code == 413


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        (b"{not json", 400, "not valid JSON"),
        (b"\xff\xfe", 400, "not valid JSON"),
        (b"[" * 50_000, 400, "nested too deeply"),
        (b"", 400, "not valid JSON"),
        (b"[1, 2]", 422, "must be a JSON object, got list"),
        (b'{"response": "a"}', 422, "no context field"),
        (b'{"response": ["a"], "context": "b"}', 422, "field 'response' must be a string"),
        (b'{"response": "a", "context": [1]}', 422, "field 'context' item 0 must be a string"),
        (b'{"response": "a", "context": "b", "id": {"x": 1}}', 422, "field 'id' must be"),
        (b'{"response": "a", "context": "b", "id": NaN}', 400, "NaN is not a JSON number"),
        (b'{"response": "a", "context": "b", "id": 1e999}', 400, "1e999 is out of range"),
        (b'{"id": ' + b"9" * 5000 + b"}", 400, "an integer has more than 4,300 digits"),
    ],
)
def test_malformed_bodies(client, body, status, needle):
    r = client.post("/v1/score", content=body, headers=AUTH)
    assert r.status_code == status, r.text
    assert needle in r.json()["error"]


def test_lone_surrogates_are_replaced_not_fatal(client):
    body = (
        b'{"response": "The warranty lasts 24 months \\ud83d.", "context": "b\\udfff", '
        b'"id": "\\ud800"}'
    )
    r = client.post("/v1/score", content=body, headers=AUTH)
    assert r.status_code == 200, r.text
    assert r.json()["claims"][0]["claim"] == "The warranty lasts 24 months \ufffd."
    assert r.json()["id"] == "\ud800"  # echoed as sent (JSON escapes keep it valid)


def test_batch_shape_and_size_limits(client):
    r = client.post("/v1/score/batch", json={"records": {"a": 1}}, headers=AUTH)
    assert r.status_code == 422 and r.json()["field"] == "records"
    r = client.post("/v1/score/batch", json={"records": [SWAP] * 9}, headers=AUTH)
    assert r.status_code == 422 and "--max-batch-records" in r.json()["error"]
    assert client.get("/nowhere").status_code == 404
    assert client.get("/v1/score", headers=AUTH).status_code == 405


def test_log_lines_have_counts_but_no_text_and_no_key(client, server):
    client.post("/v1/score", json={**SWAP, "response": f"{SECRET_TEXT} is blue."}, headers=AUTH)
    client.post("/v1/score", json=SWAP, headers={"Authorization": "Bearer not-a-key"})

    def lines() -> list[dict]:
        log = server.log_text()
        return [json.loads(x) for x in log.splitlines() if x.startswith('{"event": "request"')]

    # a request's line is written as its reply goes out: the last one may come a moment later
    wait_until(lambda: any(x["status"] == 401 for x in lines()), timeout=30, what="the 401 line")
    log, lines = server.log_text(), lines()
    scored = [x for x in lines if x["status"] == 200 and x["path"] == "/v1/score"]
    assert scored and all({"request_id", "latency_ms", "claims", "pairs"} <= set(x) for x in scored)
    assert SECRET_TEXT not in log
    assert not any(k in log for k in KEYS) and "not-a-key" not in log


# -- shutdown ----------------------------------------------------------------------------


@pytest.fixture
def own_server(tmp_path):
    """A server of this test's own, which it stops: the others keep the module's."""
    srv = _start(tmp_path)
    yield srv
    srv.stop()


def test_sigterm_finishes_the_request_in_flight(own_server):
    server = own_server
    records = [heavy_record(k) for k in range(4)]
    reply: dict = {}

    def send() -> None:
        with httpx.Client(base_url=server.url, timeout=120) as c:
            reply["r"] = c.post("/v1/score/batch", json={"records": records}, headers=AUTH)

    sender = threading.Thread(target=send)
    sender.start()

    def in_flight() -> bool:
        text = client.get("/metrics", headers=AUTH).text
        return metric(text, "nli_faith_requests_in_flight") == 1

    with httpx.Client(base_url=server.url, timeout=60) as client:
        wait_until(in_flight, timeout=30, interval=0.005, what="the request in flight")
    server.proc.send_signal(signal.SIGTERM)
    sender.join(120)
    # uvicorn re-raises the signal once shut down: the conventional "ended by SIGTERM"
    assert server.proc.wait(60) in (0, -signal.SIGTERM)
    r = reply["r"]
    assert r.status_code == 200
    results = r.json()["results"]
    assert len(results) == 4 and all("error" not in x and x["n_claims"] == 6 for x in results)
    assert "Shutting down" in server.log_text()
    with pytest.raises(httpx.TransportError):
        httpx.get(server.url + "/healthz", timeout=5)


# -- in-thread servers: readiness, load failure, queue full, time-out ---------------------


def test_readiness_before_and_after_warm_up(bundled_scorer):
    from nli_faith.serve.app import create_app
    from nli_faith.serve.auth import ApiKeys
    from nli_faith.serve.settings import ServeSettings

    gate = threading.Event()

    def factory():
        gate.wait(60)
        return bundled_scorer

    app = create_app(ServeSettings(), scorer_factory=factory, keys=ApiKeys([]))
    with ThreadServer(app) as srv, httpx.Client(base_url=srv.url, timeout=30) as c:
        assert c.get("/healthz").status_code == 200
        r = c.get("/readyz")
        assert r.status_code == 503 and r.json()["status"] == "loading"
        assert r.headers["retry-after"] == "5"
        r = c.post("/v1/score", json=SWAP)
        assert r.status_code == 503 and "still loading" in r.json()["error"]
        assert metric(c.get("/metrics").text, "nli_faith_pairs_scored_total") == 0
        gate.set()
        wait_until(lambda: c.get("/readyz").status_code == 200, timeout=60, what="ready")
        # the warm-up request went through the model before any client request
        assert metric(c.get("/metrics").text, "nli_faith_pairs_scored_total") > 0
        assert c.post("/v1/score", json=SWAP).status_code == 200


def test_a_model_that_cannot_load_is_reported():
    from nli_faith.serve.app import create_app
    from nli_faith.serve.auth import ApiKeys
    from nli_faith.serve.settings import ServeSettings

    failures = []

    def factory():
        from nli_faith.scorer import FaithfulnessScorer

        return FaithfulnessScorer("/nonexistent/model-dir")

    app = create_app(
        ServeSettings(), scorer_factory=factory, keys=ApiKeys([]), on_load_failure=failures.append
    )
    with ThreadServer(app) as srv, httpx.Client(base_url=srv.url, timeout=30) as c:
        wait_until(lambda: failures, timeout=60, what="the load failure")
        r = c.get("/readyz")
        assert r.status_code == 503 and r.json()["status"] == "failed"
        assert "[E006] Cannot load NLI model" in r.json()["error"]
        assert "Cannot load NLI model" in failures[0]
        # a request is told the model failed, not to retry while it "loads"
        r = c.post("/v1/score", json={"response": "It is.", "context": "It is."})
        assert r.status_code == 503 and "Retry-After" not in r.headers
        assert "could not be loaded" in r.text and "Cannot load NLI model" in r.text


def test_queue_full_is_503_and_slow_requests_504(bundled_scorer):
    """One heavy request holds the model thread (full scan, torch); the next waits in the
    queue; one more does not fit (503 + Retry-After); the first two pass their time-out."""
    from nli_faith.records import Limits
    from nli_faith.serve.app import create_app
    from nli_faith.serve.auth import ApiKeys
    from nli_faith.serve.settings import ServeSettings

    settings = ServeSettings(
        max_queue=2, max_batch_records=2, request_timeout_s=0.25, limits=Limits(max_claims=None)
    )
    app = create_app(settings, scorer_factory=lambda: bundled_scorer, keys=ApiKeys([]))
    batcher = app.state.service.batcher
    replies: dict = {}

    def send(name: str, body: dict, url: str) -> None:
        with httpx.Client(base_url=url, timeout=60) as c:
            replies[name] = c.post("/v1/score/batch", json=body)

    with ThreadServer(app) as srv, httpx.Client(base_url=srv.url, timeout=30) as c:
        assert batcher.wait_ready(timeout=120)
        heavy = {"records": [heavy_record(0)]}
        a = threading.Thread(target=send, args=("a", heavy, srv.url))
        a.start()
        wait_until(
            lambda: metric(c.get("/metrics").text, "nli_faith_model_busy") == 1,
            timeout=30, interval=0.002, what="the heavy request's model pass",
        )  # fmt: skip
        assert batcher.queued == 0
        b = threading.Thread(target=send, args=("b", {"records": [SWAP]}, srv.url))
        b.start()
        wait_until(lambda: batcher.queued == 1, timeout=10, interval=0.002, what="queued")
        r = c.post("/v1/score/batch", json={"records": [SWAP, SWAP]})
        assert r.status_code == 503, r.text
        assert r.headers["retry-after"] == "1" and "--max-queue" in r.json()["error"]
        a.join(60)
        b.join(60)
        assert replies["a"].status_code == 504
        assert "0.25 s (--request-timeout)" in replies["a"].json()["error"]
        assert replies["b"].status_code in (200, 504)
        text = c.get("/metrics").text
        assert 'nli_faith_requests_total{endpoint="/v1/score/batch",status="503"} 1.0' in text
    batcher.close()  # the timed-out pass still holds the shared scorer: let it finish


# -- the command line -------------------------------------------------------------------


def test_open_host_without_keys_is_refused(capsys, monkeypatch):
    from nli_faith.cli import main

    monkeypatch.delenv("NLI_FAITH_API_KEYS", raising=False)
    assert main(["serve", "--host", "0.0.0.0"]) == 2
    assert "refusing to listen on '0.0.0.0' without API keys" in capsys.readouterr().err


def test_bad_options_are_refused(capsys):
    from nli_faith.cli import main

    assert main(["serve", "--max-queue", "4", "--max-batch-records", "8"]) == 2
    assert "--max-queue must be at least --max-batch-records" in capsys.readouterr().err
    assert main(["serve", "--block-below-strict", "1.5"]) == 2
    assert "--block-below-strict must be in [0, 1]" in capsys.readouterr().err
    assert main(["serve", "--api-key-file", "/nonexistent/keys"]) == 2
    assert "cannot read --api-key-file" in capsys.readouterr().err
    # before the server binds or the model loads: each told once, with its flag
    for argv, needle in [
        (["--max-wait-ms", "inf"], "--max-wait-ms must be 0 to 60000, got inf"),
        (["--request-timeout", "inf"], "--request-timeout must be above 0 and at most 3600"),
        (["--batch-size", "0"], "[E015] --batch-size must be a whole number"),
        (["--onnx-fp32"], "[E105] --onnx-fp32"),
        (["--thresholds", "/nonexistent.json"], "[E070] /nonexistent.json"),
        (["--workers", "2", "--entail-threshold", "2"], "[E014] --entail-threshold must be"),
    ]:
        assert main(["serve", "--port", "0", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert needle in err and "Uvicorn running" not in err, err


def test_missing_extra_names_it(capsys, monkeypatch):
    from nli_faith.cli import main

    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if it were not installed
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert 'pip install "nli-faith[serve]"' in err and "'uvicorn'" in err


# -- pieces -----------------------------------------------------------------------------


def test_api_keys_from_file_and_environment(tmp_path):
    from nli_faith.serve.auth import ApiKeys

    f = tmp_path / "keys"
    f.write_text("# ops\nfile-key\n")
    keys = ApiKeys.load(str(f), environ={"NLI_FAITH_API_KEYS": "env-a, env-b"})
    assert len(keys) == 3 and repr(keys) == "ApiKeys(3 keys)"
    assert keys.allows("Bearer file-key") and keys.allows("bearer env-b")
    assert not keys.allows("Bearer env-") and not keys.allows("file-key") and not keys.allows("")
    assert ApiKeys([]).allows(None)  # no keys: open (loopback only, see the CLI)
    f.write_text("# nothing\n")
    with pytest.raises(ValueError, match="holds no key"):
        ApiKeys.load(str(f), environ={})


def test_policy_and_settings():
    from nli_faith.records import Limits
    from nli_faith.results import FaithfulnessResult
    from nli_faith.serve.settings import Policy, ServeSettings, is_loopback

    half = FaithfulnessResult(0.5, 0.5, 0.4, 2, 1, 1, 0, "")
    supported = FaithfulnessResult(1.0, 0.5, 0.6, 2, 1, 0, 1, "")
    none = FaithfulnessResult(None, None, None, 0, 0, 0, 0, "")
    failed = FaithfulnessResult(None, None, None, 0, 0, 0, 0, "", error="bad")
    strict = Policy(block_below_strict=0.6)
    assert [strict.decide(r) for r in (half, supported, none, failed)] == [
        "block", "block", "pass", None,
    ]  # fmt: skip
    contra = Policy(block_on_contradiction=True)
    assert [contra.decide(r) for r in (half, supported, none)] == ["block", "pass", "pass"]
    assert Policy().decide(half) == "pass"
    empty = FaithfulnessResult(1.0, 0.0, 0.0, 2, 0, 0, 2, "", context_empty=True)
    assert [p.decide(empty) for p in (Policy(), strict, contra)] == ["block"] * 3
    from nli_faith.config import ScorerConfig

    scorer = ScorerConfig.guardrail(limits=Limits(max_documents=3), thresholds="t.json")
    s = ServeSettings(limits=Limits(max_claims=None), policy=strict, scorer=scorer)
    assert ServeSettings.from_json(s.to_json()) == s
    assert is_loopback("::1") and is_loopback("127.0.0.2") and not is_loopback("10.0.0.1")


def test_log_text_puts_the_text_in_the_log_line(bundled_scorer, caplog):
    from fastapi.testclient import TestClient

    from nli_faith.serve.app import create_app
    from nli_faith.serve.auth import ApiKeys
    from nli_faith.serve.settings import ServeSettings

    app = create_app(
        ServeSettings(log_text=True), scorer_factory=lambda: bundled_scorer, keys=ApiKeys([])
    )
    with TestClient(app) as c, caplog.at_level("INFO", logger="nli_faith.serve.access"):
        assert app.state.service.batcher.wait_ready(timeout=120)
        r = c.post("/v1/score", json=SWAP, headers={"X-Request-ID": "req-42"})
    assert r.headers["x-request-id"] == "req-42"
    (line,) = [json.loads(m) for m in caplog.messages if '"request_id": "req-42"' in m]
    assert line["text"] == [{"response": SWAP["response"], "context": SWAP["context"]}]
    assert line["status"] == 200 and line["claims"] == 2
