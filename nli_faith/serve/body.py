"""Reading a request body within the service's size limit, as nginx does.

A body over the limit is answered with 413 as soon as it is known to be too large; what
is left of it is read and dropped first (within bounds), so that a client that writes
its whole body before reading the reply (Python's urllib, requests) reads the 413, not a
reset connection.
"""

from __future__ import annotations

import asyncio
import contextlib

from fastapi import Request
from starlette.requests import ClientDisconnect

from nli_faith.errors import E_SERVE_BODY_TOO_LARGE
from nli_faith.serve.schema import ServeError

#: A body over the limit is read and dropped up to this many bytes, for this long, before the
#: 413 is sent (as nginx's lingering close does): a client that writes its whole body before
#: reading the reply (Python's urllib, requests) then reads the 413, not a reset connection.
DRAIN_MAX_BYTES = 256 * 1024 * 1024
DRAIN_MAX_SECONDS = 10.0


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, or 413 as soon as it is known to exceed ``limit`` bytes."""
    too_large = ServeError(413, E_SERVE_BODY_TOO_LARGE.format(limit=limit))
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        if request.headers.get("expect", "").lower() != "100-continue":  # else nothing is sent
            await _drain(request)
        raise too_large
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                await _drain(request)
                raise too_large
            chunks.append(chunk)
    except ClientDisconnect:
        raise ServeError(400, "the client disconnected before sending the whole body.") from None
    return b"".join(chunks)


async def _drain(request: Request) -> None:
    """Read and drop what is left of the body, within :data:`DRAIN_MAX_BYTES` and
    :data:`DRAIN_MAX_SECONDS` (past them the connection is closed unread)."""
    size = 0

    async def drop() -> None:
        nonlocal size
        while size <= DRAIN_MAX_BYTES:
            message = await request.receive()
            if message["type"] != "http.request":  # the client went away
                return
            size += len(message.get("body", b""))
            if not message.get("more_body", False):
                return

    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(drop(), DRAIN_MAX_SECONDS)
