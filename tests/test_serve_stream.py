"""``POST /v1/score/stream`` on a real server (loopback): an answer checked as it streams."""

from __future__ import annotations

import json
import socket
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlparse

import httpx
import pytest

from tests.serve_helpers import ServerProcess, ThreadServer

KEY = "stream-test-key"
CONTEXT = [
    "The device is covered for a period of twenty-four months from the date of purchase. "
    "Returns are accepted within 30 days.",
    "We provide complimentary delivery on purchases over $50. Orders ship from Lyon, France.",
]
GOOD = "Orders ship from Lyon. Delivery is free on purchases over $50. Returns take 30 days."
BAD = "Orders ship from Lyon. Returns are accepted within 90 days. Delivery is free."
HEADERS = {"authorization": f"Bearer {KEY}", "content-type": "application/x-ndjson"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("serve-stream")
    keys = tmp / "keys.txt"
    keys.write_text(KEY + "\n")
    args = ["--guardrail", "--block-on-contradiction", "--api-key-file", str(keys)]
    srv = ServerProcess.start([*args, "--max-response-chars", "2000"], tmp / "server.log")
    yield srv
    srv.stop()


def words(text: str) -> list[str]:
    out = text.split(" ")
    return [w + " " for w in out[:-1]] + [out[-1]]


def ndjson(head: dict, pieces: list[str]) -> list[bytes]:
    return [json.dumps(head).encode() + b"\n"] + [
        json.dumps({"text": p}).encode() + b"\n" for p in pieces
    ]


def stream(url: str, head: dict, pieces: list[str], headers=HEADERS) -> httpx.Response:
    body = ndjson(head, pieces)
    return httpx.post(url + "/v1/score/stream", content=iter(body), headers=headers, timeout=120)


def events(reply: httpx.Response) -> list[dict]:
    return [json.loads(line) for line in reply.text.splitlines()]


class RawStream:
    """A client that writes the body chunk by chunk and reads the reply meanwhile (what
    httpx cannot do over HTTP/1.1): the server's full-duplex behaviour, seen on the wire."""

    def __init__(self, url: str) -> None:
        u = urlparse(url)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=120)
        head = (
            "POST /v1/score/stream HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
            f"Authorization: Bearer {KEY}\r\nContent-Type: application/x-ndjson\r\n\r\n"
        )
        self.sock.sendall(head.encode())
        self.buffer = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(f"{len(data):x}\r\n".encode() + data + b"\r\n")

    def end(self) -> None:
        self.sock.sendall(b"0\r\n\r\n")

    def read_until(self, needle: bytes) -> bytes:
        while needle not in self.buffer:
            data = self.sock.recv(65536)
            if not data:
                raise AssertionError(f"connection closed before {needle!r}: {self.buffer!r}")
            self.buffer += data
        return self.buffer

    def close(self) -> None:
        self.sock.close()


def test_each_sentence_is_answered_while_the_client_is_still_writing(server):
    raw = RawStream(server.url)
    try:
        for chunk in ndjson({"context": CONTEXT}, words("Orders ship from Lyon. Returns")):
            raw.send(chunk)
        # the body is not finished, yet the first sentence's check comes back
        got = raw.read_until(b'"event":"sentence"')
        assert b"HTTP/1.1 200" in got and b"Orders ship from Lyon." in got
        assert b'"event":"result"' not in got
        for chunk in ndjson({}, words(" are accepted within 30 days."))[1:]:
            raw.send(chunk)
        raw.end()
        got = raw.read_until(b'"event":"result"')
        assert got.count(b'"event":"sentence"') == 2
    finally:
        raw.close()


def test_the_result_event_is_the_row_of_v1_score(server):
    head = {"context": CONTEXT, "question": "Where do orders ship from?", "id": "q7"}
    evs = events(stream(server.url, head, words(GOOD)))
    assert [e["event"] for e in evs] == ["sentence"] * 3 + ["result"]
    assert "".join(e["text"] for e in evs[:-1]) == GOOD
    whole = httpx.post(
        server.url + "/v1/score", json={**head, "response": GOOD}, headers=HEADERS, timeout=120
    ).json()
    result = evs[-1]
    for key in ("event", "blocked", "released"):
        result.pop(key)
    whole.pop("time_ms")
    assert result == whole
    assert [c["verdict"] for e in evs[:-1] for c in e["claims"]] == [
        c["verdict"] for c in whole["claims"]
    ]


def test_the_policy_stops_the_stream_at_the_contradicted_sentence(server):
    evs = events(stream(server.url, {"context": CONTEXT}, words(BAD)))
    assert [(e["event"], e.get("decision")) for e in evs] == [
        ("sentence", "pass"),
        ("sentence", "block"),
        ("result", "block"),
    ]
    end = evs[-1]
    assert end["blocked"] and end["released"] == "Orders ship from Lyon."
    assert end["failed_claim"]["claim"] == "Returns are accepted within 90 days."
    assert "contradicted" in end["block_reason"] and "30 days" in end["block_reason"]
    assert end["n_claims"] == 2  # the answer up to the failing sentence, not "Delivery..."


def test_eight_concurrent_streams_lose_nothing_and_agree_with_v1_score(server):
    answers = [
        GOOD,
        BAD,
        "The device is covered for twenty-four months. Orders ship from Lyon.",
        "Orders ship from Paris. Returns are accepted within 30 days.",
        "Delivery is free on purchases over $50.",
        "Great question! Returns are accepted within 30 days.",
        "The warranty lasts thirty-six months. Orders ship from Lyon, France.",
        "Orders ship from Lyon. Delivery is free over $50. Returns take 30 days. Bye!",
    ]

    def one(k: int) -> tuple[list[dict], dict]:
        evs = events(stream(server.url, {"context": CONTEXT, "id": k}, words(answers[k])))
        return evs, evs[-1]

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(one, range(8)))
    for k, (evs, end) in enumerate(results):
        assert all(e["event"] != "error" for e in evs), evs
        assert end["event"] == "result" and end["id"] == k
        scored_up_to = answers[k] if not end["blocked"] else answers[k][: evs[-2]["end"]]
        whole = httpx.post(
            server.url + "/v1/score",
            json={"context": CONTEXT, "response": scored_up_to},
            headers=HEADERS,
            timeout=120,
        ).json()
        assert [(c["claim"], c["verdict"]) for c in end["claims"]] == [
            (c["claim"], c["verdict"]) for c in whole["claims"]
        ]
        assert end["strict"] == whole["strict"]


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ([], 422, "first line of a stream"),
        ([b'{"text": "Hello."}\n'], 422, "got a piece of the answer"),
        ([b"not json\n"], 400, "line 1 of the stream is not valid JSON"),
        ([b'{"question": "q"}\n'], 422, "context"),
        ([b'{"context": 7}\n'], 422, "context"),
    ],
)
def test_a_bad_start_is_a_4xx_naming_the_problem(server, body, status, needle):
    reply = httpx.post(
        server.url + "/v1/score/stream", content=iter(body), headers=HEADERS, timeout=60
    )
    assert reply.status_code == status and needle in reply.json()["error"]


@pytest.mark.parametrize(
    ("lines", "status", "needle"),
    [
        ([b"{oops\n"], 400, "line 3 of the stream is not valid JSON"),
        ([b'{"text": 5}\n'], 422, 'line 3 of the stream must be an object {"text": "..."}'),
        ([json.dumps({"text": "word " * 500}).encode() + b"\n"], 422, "--max-response-chars"),
    ],
)
def test_a_bad_piece_ends_the_stream_with_an_error_event(server, lines, status, needle):
    body = [json.dumps({"context": CONTEXT}).encode() + b"\n", b'{"text": "Orders ship. "}\n']
    reply = httpx.post(
        server.url + "/v1/score/stream", content=iter(body + lines), headers=HEADERS, timeout=60
    )
    assert reply.status_code == 200
    last = events(reply)[-1]
    assert last["event"] == "error" and last["status"] == status and needle in last["error"]


def test_an_empty_stream_and_a_missing_key(server):
    evs = events(stream(server.url, {"context": CONTEXT}, []))
    assert [e["event"] for e in evs] == ["result"]
    assert evs[0]["n_claims"] == 0 and evs[0]["strict"] is None
    refused = stream(server.url, {"context": CONTEXT}, ["Hi."], headers={})
    assert refused.status_code == 401


def test_a_client_that_goes_away_frees_nothing_but_its_stream(server):
    for _ in range(3):
        raw = RawStream(server.url)
        for chunk in ndjson({"context": CONTEXT}, words("Orders ship from Lyon. Returns")):
            raw.send(chunk)
        raw.read_until(b'"event":"sentence"')
        raw.close()  # mid-answer, mid-body
    evs = events(stream(server.url, {"context": CONTEXT}, words(GOOD)))
    assert evs[-1]["event"] == "result" and not evs[-1]["blocked"]
    metrics = httpx.get(server.url + "/metrics", headers=HEADERS, timeout=30).text
    assert "nli_faith_queue_depth 0.0" in metrics


def test_a_silent_client_gets_an_error_event_and_the_service_goes_on():
    from nli_faith.config import ScorerConfig
    from nli_faith.serve.app import create_app
    from nli_faith.serve.settings import ServeSettings

    app = create_app(ServeSettings(scorer=ScorerConfig.guardrail(), request_timeout_s=1.0))
    with ThreadServer(app) as srv:
        assert app.state.service.batcher.wait_ready(timeout=180)
        raw = RawStream(srv.url)
        try:
            for chunk in ndjson({"context": CONTEXT}, words("Orders ship from Lyon. Re")):
                raw.send(chunk)
            got = raw.read_until(b'"event":"error"')  # then nothing more is sent
            assert b"no piece of the stream arrived for 1.0 s" in got
        finally:
            raw.close()
        reply = httpx.post(
            srv.url + "/v1/score", json={"context": CONTEXT, "response": GOOD}, timeout=120
        )
        assert reply.status_code == 200 and reply.json()["n_claims"] == 3
