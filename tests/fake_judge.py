"""A small OpenAI chat-completions server for the judge tests, on a loopback port.

It reads the claim out of the prompt and answers as its script says, per claim and
per attempt: a verdict (``yes`` / ``no`` / ``idk``), ``fenced:<verdict>`` (JSON in a
code fence), ``malformed`` (prose), ``badverdict`` (``"maybe"``), ``empty`` (no
choices), ``429``, ``500``, ``401``, ``braces`` (the verdict, then prose with braces),
``surrogate`` (a lone surrogate in the reason), ``huge`` (a 2 MiB body), ``drip:<seconds>``
(the verdict one byte at a time), or ``sleep:<seconds>:<action>``. It records every
request (headers and body) and the most requests it ever had in flight.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
import time
from dataclasses import dataclass, field

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

_CLAIM_RE = re.compile(r"\nCLAIM:\n(.*?)\n\nJSON:", re.DOTALL)


@dataclass
class Script:
    default: str = "yes"
    per_claim: dict[str, list[str]] = field(default_factory=dict)  # claim -> actions by attempt
    requests: list[dict] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0

    def reset(self, default: str = "yes", per_claim: dict[str, list[str]] | None = None) -> None:
        self.default = default
        self.per_claim = dict(per_claim or {})
        self.requests = []
        self.in_flight = self.max_in_flight = 0

    def action(self, claim: str) -> str:
        seen = sum(r["claim"] == claim for r in self.requests) - 1  # this request included
        todo = self.per_claim.get(claim)
        if todo:
            return todo[min(seen, len(todo) - 1)]
        return self.default

    def claims_sent(self) -> list[str]:
        return [r["claim"] for r in self.requests]


def _completion(content: str) -> dict:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }


def make_app(script: Script) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        body = await request.json()
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        found = _CLAIM_RE.search(user)
        claim = found.group(1) if found else ""
        script.requests.append(
            {"claim": claim, "body": body, "authorization": request.headers.get("authorization")}
        )
        script.in_flight += 1
        script.max_in_flight = max(script.max_in_flight, script.in_flight)
        try:
            action = script.action(claim)
            while action.startswith("sleep:"):
                _, seconds, action = action.split(":", 2)
                await asyncio.sleep(float(seconds))
            if action in ("429", "500", "401"):
                return JSONResponse({"error": {"message": f"status {action}"}}, int(action))
            if action == "malformed":
                return _completion("I think the claim is probably fine.")
            if action == "badverdict":
                return _completion(json.dumps({"verdict": "maybe"}))
            if action == "empty":
                return {"id": "x", "choices": []}
            if action == "braces":
                return _completion('{"verdict": "no", "reason": "r"}\nNote: the format {verdict}.')
            if action == "surrogate":
                body = json.dumps(_completion(json.dumps({"verdict": "no", "reason": "a \ud800"})))
                return Response(body, media_type="application/json")
            if action == "huge":
                return _completion(json.dumps({"verdict": "yes", "reason": "x" * (2 << 20)}))
            if action.startswith("drip:"):
                data = json.dumps(_completion(json.dumps({"verdict": "yes"}))).encode()
                pause = float(action.split(":", 1)[1])

                async def drip():
                    for k in range(len(data)):
                        yield data[k : k + 1]
                        await asyncio.sleep(pause)

                return StreamingResponse(drip(), media_type="application/json")
            if action.startswith("fenced:"):
                verdict = action.split(":", 1)[1]
                return _completion(f'```json\n{{"verdict": "{verdict}", "reason": "fenced"}}\n```')
            return _completion(json.dumps({"verdict": action, "reason": f"judged {action}"}))
        finally:
            script.in_flight -= 1

    return app


class FakeJudgeServer:
    """Runs :func:`make_app` with uvicorn in a thread on a free 127.0.0.1 port."""

    def __init__(self) -> None:
        self.script = Script()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(
            make_app(self.script), log_level="warning", lifespan="off", access_log=False
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeJudgeServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the fake judge server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()
