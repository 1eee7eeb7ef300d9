"""``POST /v1/score/stream``: an answer checked sentence by sentence while it is streamed.

The request body is NDJSON, sent as it is produced (chunked): its first line is the
record without its answer, ``{"context": ..., "question": ...}`` (the field names of
``/v1/score``), and every further line a piece of the answer, ``{"text": "..."}``. The
reply is NDJSON too, one event a line, written as soon as it is known:

* ``{"event": "sentence", ...}`` for each sentence once it is complete: its text, span,
  the verdicts of its claims with their evidence, and the policy's ``decision``;
* ``{"event": "result", ...}`` at the end: the row ``/v1/score`` would give for the answer
  streamed (stopped at the failing sentence, if the policy stopped it), with
  ``blocked``, ``released`` (the text that passed) and, when blocked, ``reason`` and
  ``failed_claim``;
* ``{"event": "error", "status": ..., "error": ...}`` if the stream cannot go on (a bad
  line, a limit, no piece for ``request_timeout_s``); nothing follows it.

A client that reads while it writes gets each sentence's check as it completes; one that
writes its whole body first gets them all at once, still computed as the pieces arrived.
The check's steps run on the model thread between model passes
(:meth:`~nli_faith.serve.batcher.MicroBatcher.call`); the event loop only reads and
writes, so a slow or silent client holds nothing but its own connection, and one that
goes away ends its stream.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import asdict
from typing import Any

from fastapi import Request
from fastapi.responses import StreamingResponse
from starlette.requests import ClientDisconnect

from nli_faith.engine.stream import StreamCheck
from nli_faith.errors import (
    E_SERVE_STREAM_FIRST,
    E_SERVE_STREAM_IDLE,
    E_SERVE_STREAM_JSON,
    E_SERVE_STREAM_LINE,
    E_SERVE_STREAM_PIECE,
    NliFaithError,
    RecordError,
    with_flag,
)
from nli_faith.rows import scored_row
from nli_faith.serve.schema import ServeError, record_of

MEDIA_TYPE = "application/x-ndjson"


class NDJSONStream(StreamingResponse):
    """A streamed reply that does not itself listen for the client's disconnect: the
    endpoint is still reading the request body from the same channel (a reply that
    listened would take its pieces). A client that goes away ends the body, and so the
    stream."""

    async def __call__(self, scope, receive, send) -> None:
        await self.stream_response(send)


async def lines(request: Request, *, limit: int, idle_s: float) -> AsyncIterator[bytes]:
    """The request body's lines as they arrive; a line over ``limit`` bytes, or no data
    for ``idle_s`` seconds, is a :class:`ServeError`."""
    chunks = request.stream().__aiter__()
    buffer = b""
    while True:
        try:
            chunk = await asyncio.wait_for(chunks.__anext__(), idle_s)
        except StopAsyncIteration:
            break
        except asyncio.TimeoutError:
            raise ServeError(408, E_SERVE_STREAM_IDLE.format(seconds=idle_s)) from None
        buffer += chunk
        *done, buffer = buffer.split(b"\n")
        for line in done:
            if line.strip():
                yield line
        if len(buffer) > limit:
            raise ServeError(413, E_SERVE_STREAM_LINE.format(limit=limit))
    if buffer.strip():
        yield buffer


def _json_line(event: dict[str, Any]) -> bytes:
    return json.dumps(event, separators=(",", ":")).encode("ascii") + b"\n"


def _piece(line: bytes, n: int) -> str:
    try:
        obj = json.loads(line)
    except ValueError as err:
        raise ServeError(400, E_SERVE_STREAM_JSON.format(line=n, error=err)) from None
    if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
        raise ServeError(422, E_SERVE_STREAM_PIECE.format(line=n), field="text")
    return obj["text"]


async def open_stream(request: Request, service: Any, settings: Any) -> NDJSONStream:
    """Read the first line (the record without its answer), then reply with the events."""
    body = lines(request, limit=settings.max_body_bytes, idle_s=settings.request_timeout_s)
    try:
        first = await body.__anext__()
    except StopAsyncIteration:
        raise ServeError(422, E_SERVE_STREAM_FIRST.format(got="an empty body")) from None
    except ClientDisconnect:
        raise ServeError(400, "the client disconnected before the stream began.") from None
    try:
        head = json.loads(first)
    except ValueError as err:
        raise ServeError(400, E_SERVE_STREAM_JSON.format(line=1, error=err)) from None
    if not isinstance(head, dict) or "text" in head:
        got = "a piece of the answer" if isinstance(head, dict) else type(head).__name__
        raise ServeError(422, E_SERVE_STREAM_FIRST.format(got=got))
    try:  # the record without its answer, parsed once: fields, aliases, limits, id
        rec = record_of({**head, "response": ""}, limits=settings.limits)
    except RecordError as err:
        raise ServeError(422, with_flag(str(err)), field=err.field) from None
    batcher = service.batcher
    timeout = settings.request_timeout_s

    def start(scorer: Any) -> StreamCheck:
        return StreamCheck(scorer.parts, rec.context, rec.question, policy=settings.policy)

    async def events() -> AsyncIterator[bytes]:
        try:
            check = await batcher.call(start, timeout=timeout)
            n = 1
            async for line in body:
                n += 1
                if check.add(_piece(line, n)):
                    for event in await batcher.call(lambda _s: check.checks(), timeout=timeout):
                        yield _json_line({"event": "sentence", **asdict(event)})
                if check.done:
                    break
            for event in await batcher.call(lambda _s: check.finish(), timeout=timeout):
                yield _json_line({"event": "sentence", **asdict(event)})
            yield _json_line(_final(check, head, rec.question, settings, batcher.scorer))
            service.metrics.records.labels(outcome="block" if check.blocked else "pass").inc()
        except ClientDisconnect:  # the client went away: nothing to write to
            return
        except ServeError as err:
            yield _json_line({"event": "error", "status": err.status, "error": err.message})
        except NliFaithError as err:  # a limit, a bad piece: the input's fault
            yield _json_line({"event": "error", "status": 422, "error": with_flag(str(err))})
        except asyncio.TimeoutError:
            yield _json_line(
                {"event": "error", "status": 504, "error": f"no answer in {timeout} s."}
            )

    return NDJSONStream(events(), media_type=MEDIA_TYPE)


def _final(
    check: StreamCheck, head: dict, question: str | None, settings: Any, scorer: Any
) -> dict[str, Any]:
    """The ``result`` event: the row ``/v1/score`` gives for the answer streamed."""
    end = check.result
    out = {"event": "result", **scored_row(scorer, None, head, end.result, question=question)}
    out["decision"] = "block" if end.blocked else settings.policy.decide(end.result)
    out["blocked"] = end.blocked
    out["released"] = end.released
    if end.blocked:
        out["block_reason"] = end.reason
        out["failed_claim"] = asdict(end.failed_claim) if end.failed_claim else None
    return out


def stream_body_doc() -> dict[str, Any]:
    """``openapi_extra`` describing the NDJSON body of ``/v1/score/stream``."""
    head = {
        "title": "StreamHead",
        "type": "object",
        "description": "line 1: the record without its answer (context, question, id)",
        "required": ["context"],
        "properties": {
            "context": {
                "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
            },
            "question": {"type": "string"},
            "id": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        },
    }
    piece = {
        "title": "StreamPiece",
        "type": "object",
        "description": "every further line: a piece of the answer, as it is produced",
        "required": ["text"],
        "properties": {"text": {"type": "string"}},
    }
    schema = {"oneOf": [head, piece]}
    return {"requestBody": {"required": True, "content": {MEDIA_TYPE: {"schema": schema}}}}
