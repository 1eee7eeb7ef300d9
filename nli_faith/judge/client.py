"""``OpenAIJudge``: an LLM judge behind any OpenAI-compatible chat-completions endpoint.

Hosted APIs, vLLM, llama.cpp's server, Ollama (``/v1``) all speak it. Only ``httpx``
is used. Time-outs, HTTP 429, 5xx, connection errors and replies that are not the
JSON verdict raise :class:`RetryableJudgeError` (the caller retries with back-off);
any other HTTP error raises :class:`FatalJudgeError` (retrying cannot help, e.g. a
wrong key). The API key is sent as ``Authorization: Bearer ...``, never logged, and
masked in ``repr`` and in error messages.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Sequence
from typing import Any

from nli_faith.errors import (
    E_JUDGE_ENDPOINT,
    E_JUDGE_HTTP,
    E_JUDGE_HTTPX,
    E_JUDGE_REPLY,
    E_JUDGE_TIMEOUT,
    MissingDependencyError,
    OptionError,
)
from nli_faith.judge.prompt import JudgeReply, JudgeReplyError, build_messages, parse_reply
from nli_faith.records import load_json

logger = logging.getLogger(__name__)

#: Largest HTTP reply body read from the endpoint, in bytes (a verdict is a few hundred).
MAX_REPLY_BYTES = 1 << 20


class RetryableJudgeError(RuntimeError):
    """Worth another try: time-out, 429, 5xx, transport error, unparsable reply."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class FatalJudgeError(RuntimeError):
    """Retrying cannot help (e.g. HTTP 401 or 404)."""


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


class OpenAIJudge:
    """A chat-completions judge: one request per claim, one JSON verdict per reply.

    Args:
        base_url: the API root including its version, e.g. ``https://api.openai.com/v1``
            or ``http://localhost:8000/v1`` (``/chat/completions`` is appended).
        model: the model name the endpoint expects.
        api_key: sent as a bearer token; ``None`` sends no ``Authorization`` header.
        timeout: seconds for one request, from sending it to the last byte of the reply
            (a server that drips its reply byte by byte is cut off too).
        temperature: sampling temperature (0: as repeatable as the endpoint allows).
        max_tokens: cap on the reply's length.
        json_mode: send ``response_format={"type": "json_object"}`` (turn off for
            servers that reject it; the prompt asks for JSON anyway).

    Example:
        >>> judge = OpenAIJudge(base_url="http://127.0.0.1:8000/v1", model="m", api_key="sk-1")
        >>> judge
        OpenAIJudge(base_url='http://127.0.0.1:8000/v1', model='m', api_key='***')
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        temperature: float = 0.0,
        max_tokens: int = 256,
        json_mode: bool = True,
    ) -> None:
        number = isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
        if not number or not 0 < timeout < math.inf:  # NaN fails the comparison too
            raise OptionError(E_JUDGE_TIMEOUT.format(value=timeout))
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise OptionError(
                E_JUDGE_ENDPOINT.format(
                    what="base URL", expected="an http:// or https:// URL", value=base_url
                )
            )
        if not isinstance(model, str) or not model.strip():
            raise OptionError(
                E_JUDGE_ENDPOINT.format(what="model", expected="a model name", value=model)
            )
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._api_key = api_key
        self.timeout = timeout
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.json_mode = json_mode

    def __repr__(self) -> str:
        key = "***" if self._api_key else None
        return f"OpenAIJudge(base_url={self.base_url!r}, model={self.model!r}, api_key={key!r})"

    @property
    def url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text

    def client(self, *, concurrency: int = 100):
        """A new ``httpx.AsyncClient`` with the bearer key, the time-out, and a connection
        pool as large as ``concurrency`` (requests never queue for a connection)."""
        try:
            import httpx
        except ImportError as err:
            raise MissingDependencyError(E_JUDGE_HTTPX.format(error=err)) from err

        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        return httpx.AsyncClient(headers=headers, timeout=self.timeout, limits=limits)

    def payload(self, claim: str, evidence: Sequence[str], question: str | None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": build_messages(claim, evidence, question),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.json_mode:
            body["response_format"] = {"type": "json_object"}
        return body

    async def _post(self, client, payload: dict[str, Any]) -> tuple[int, Any, bytes]:
        """Status, headers and body of one request; the body is read up to one byte past
        :data:`MAX_REPLY_BYTES` (a bigger reply is refused, never held whole)."""
        async with client.stream("POST", self.url, json=payload) as resp:
            body = bytearray()
            async for chunk in resp.aiter_bytes():
                body += chunk
                if len(body) > MAX_REPLY_BYTES:
                    break
            return resp.status_code, resp.headers, bytes(body)

    async def ajudge(
        self, client, claim: str, evidence: Sequence[str], question: str | None = None
    ) -> JudgeReply:
        """One request with ``client`` (from :meth:`client`); raises the errors above."""
        import httpx

        try:
            status, headers, body = await asyncio.wait_for(
                self._post(client, self.payload(claim, evidence, question)), self.timeout
            )
        except (httpx.TimeoutException, asyncio.TimeoutError) as err:
            raise RetryableJudgeError(
                f"time-out after {self.timeout:g} s ({type(err).__name__})"
            ) from None
        except httpx.TransportError as err:
            raise RetryableJudgeError(self._redact(f"{type(err).__name__}: {err}")) from None
        text = body.decode("utf-8", errors="replace")
        if status != 200:
            message = E_JUDGE_HTTP.format(status=status, body=self._redact(text[:200].strip()))
            if status == 429 or status >= 500:
                raise RetryableJudgeError(
                    message, retry_after=_retry_after(headers.get("retry-after"))
                )
            raise FatalJudgeError(message)
        if len(body) > MAX_REPLY_BYTES:
            detail = f"a body of more than {MAX_REPLY_BYTES:,} bytes"
            raise RetryableJudgeError(E_JUDGE_REPLY.format(detail=detail))
        try:
            content = load_json(text)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise RetryableJudgeError(
                E_JUDGE_REPLY.format(detail="no choices[0].message.content in the response")
            ) from None
        try:
            return parse_reply(content)
        except JudgeReplyError as err:
            raise RetryableJudgeError(self._redact(str(err))) from None
