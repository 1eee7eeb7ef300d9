"""The access log middleware: a request id, one JSON log line and the metrics of each request."""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from nli_faith.serve.metrics import Metrics
from nli_faith.serve.settings import ServeSettings

access_log = logging.getLogger("nli_faith.serve.access")
#: The scoring endpoints (their requests are always logged and counted in flight).
_SCORING = ("/v1/score", "/v1/score/batch")


class AccessLog:
    """ASGI middleware: request id, one JSON log line and the metrics of each request."""

    def __init__(self, app: Any, *, settings: ServeSettings, metrics: Metrics) -> None:
        self.app = app
        self.settings = settings
        self.metrics = metrics

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        rid = _request_id(scope) or uuid.uuid4().hex
        state = scope.setdefault("state", {})
        state["request_id"] = rid
        path = scope.get("path", "")
        scoring = path in _SCORING
        status = 500

        async def send_with_id(message: dict) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", rid.encode())]
            await send(message)

        if scoring:
            self.metrics.in_flight.inc()
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            elapsed = time.perf_counter() - t0
            if scoring:
                self.metrics.in_flight.dec()
            endpoint = path if scoring or path in ("/healthz", "/readyz", "/metrics") else "other"
            self.metrics.requests.labels(endpoint=endpoint, status=str(status)).inc()
            self.metrics.latency.labels(endpoint=endpoint).observe(elapsed)
            if scoring or (status >= 400 and endpoint == "other"):
                line = {
                    "event": "request",
                    "ts": round(time.time(), 3),
                    "request_id": rid,
                    "method": scope.get("method"),
                    "path": path,
                    "status": status,
                    "latency_ms": round(elapsed * 1000, 2),
                    **state.get("log", {}),
                }
                access_log.info(json.dumps(line, ensure_ascii=True))


def _request_id(scope: dict) -> str | None:
    """A client's ``X-Request-ID`` if it is short and printable."""
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            text = value.decode("latin-1")
            if 0 < len(text) <= 128 and text.isprintable():
                return text
    return None
