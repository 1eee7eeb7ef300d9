"""The FastAPI application of ``nli-faith serve``: a thin shell over ``FaithfulnessScorer``.

Endpoints: ``POST /v1/score``, ``POST /v1/score/batch``, ``GET /healthz``, ``GET /readyz``,
``GET /metrics``, ``GET /docs``. Scoring goes through a :class:`MicroBatcher` (one model
thread, requests batched together); the event loop only reads, validates and replies.

The lifespan starts the batcher, whose thread loads the scorer and runs a warm-up request:
the server listens meanwhile, ``/healthz`` answers at once and ``/readyz`` turns 200 when
the model is warm. On shutdown (SIGTERM: uvicorn stops accepting and lets in-flight
requests finish) the batcher finishes what is queued before the process exits.

Example:
    >>> from fastapi.testclient import TestClient
    >>> from nli_faith.config import ScorerConfig
    >>> app = create_app(ServeSettings(scorer=ScorerConfig.guardrail()))
    >>> with TestClient(app) as client:
    ...     _ = app.state.service.batcher.wait_ready(timeout=120)
    ...     reply = client.post("/v1/score", json={"response": "It lasts 24 months.",
    ...                                            "context": "It lasts 24 months."})
    >>> reply.status_code, reply.json()["decision"], reply.json()["claims"][0]["verdict"]
    (200, 'pass', 'yes')
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import time
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from nli_faith.engine.runner import Outcome
from nli_faith.errors import (
    E_SERVE_INTERNAL,
    E_SERVE_LOAD_FAILED,
    E_SERVE_NOT_READY,
    E_SERVE_QUEUE_FULL,
    E_SERVE_SHUTTING_DOWN,
    E_SERVE_TIMEOUT,
    E_SERVE_UNAUTHORIZED,
    RecordError,
    with_flag,
)
from nli_faith.records import Record, question_of
from nli_faith.rows import scored_row
from nli_faith.serve.access import AccessLog
from nli_faith.serve.auth import ApiKeys
from nli_faith.serve.batcher import MicroBatcher, NotReady, QueueFull, ShuttingDown
from nli_faith.serve.body import read_body
from nli_faith.serve.metrics import Metrics
from nli_faith.serve.schema import (
    BatchReply,
    ErrorReply,
    ScoreReply,
    ServeError,
    batch_records,
    parse_body,
    record_of,
    request_body_doc,
    single_record,
)
from nli_faith.serve.settings import SETTINGS_ENV, ServeSettings
from nli_faith.serve.stream import MEDIA_TYPE, open_stream, stream_body_doc

logger = logging.getLogger("nli_faith.serve")

#: Seconds a client is told to wait (Retry-After) when the queue is full / while loading.
RETRY_AFTER_BUSY = 1
RETRY_AFTER_LOADING = 5


class JSONReply(Response):
    """JSON with non-ASCII escaped, so that any echoed text is valid UTF-8 on the wire."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return json.dumps(content, separators=(",", ":")).encode("ascii")


@dataclass
class Service:
    """What the endpoints share: the batcher, the metrics and the accepted keys."""

    batcher: MicroBatcher
    metrics: Metrics
    keys: ApiKeys


def get_settings(request: Request) -> ServeSettings:
    return request.app.state.settings


def get_service(request: Request) -> Service:
    return request.app.state.service


ServiceDep = Annotated[Service, Depends(get_service)]
SettingsDep = Annotated[ServeSettings, Depends(get_settings)]


def require_key(request: Request, service: ServiceDep) -> None:
    if not service.keys.allows(request.headers.get("authorization")):
        raise ServeError(401, E_SERVE_UNAUTHORIZED, headers={"WWW-Authenticate": "Bearer"})


def default_scorer_factory(settings: ServeSettings) -> Callable[[], Any]:
    """Build the scorer of ``settings.scorer`` (with the service's limits)."""
    config = settings.scorer_config()

    def build() -> Any:
        from nli_faith.scorer import FaithfulnessScorer

        return FaithfulnessScorer.from_config(config)

    return build


def create_app(
    settings: ServeSettings,
    *,
    scorer_factory: Callable[[], Any] | None = None,
    keys: ApiKeys | None = None,
    on_load_failure: Callable[[str], None] | None = None,
) -> FastAPI:
    """The application. ``scorer_factory`` (default: from ``settings.scorer``) runs in
    the model thread; ``keys`` default to :meth:`ApiKeys.load` of the settings' key file
    and ``NLI_FAITH_API_KEYS``; ``on_load_failure`` is called if the model cannot load."""
    metrics = Metrics()
    batcher = MicroBatcher(
        scorer_factory or default_scorer_factory(settings),
        max_batch_pairs=settings.max_batch_pairs,
        max_wait_ms=settings.max_wait_ms,
        max_queue=settings.max_queue,
        limits=settings.limits,
        metrics=metrics,
    )
    service = Service(
        batcher, metrics, keys if keys is not None else ApiKeys.load(settings.api_key_file)
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        batcher.start()
        watch = asyncio.create_task(_watch_loading(batcher, on_load_failure))
        yield
        watch.cancel()
        await asyncio.to_thread(batcher.close, settings.request_timeout_s)

    app = FastAPI(
        title="nli-faith",
        summary="Claim-level faithfulness guardrail: a local NLI cross-encoder, no LLM calls.",
        lifespan=lifespan,
        default_response_class=JSONReply,
    )
    app.state.settings = settings
    app.state.service = service
    _install_handlers(app)
    app.add_middleware(AccessLog, settings=settings, metrics=metrics)

    @app.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        """The process is up (no key needed)."""
        return {"status": "ok"}

    @app.get("/readyz", tags=["health"])
    async def readyz(service: ServiceDep, settings: SettingsDep) -> Response:
        """200 once the model is loaded and one warm-up request has run (no key needed)."""
        b = service.batcher
        if b.ready:
            nli = b.scorer.nli
            return JSONReply(
                {
                    "ready": True,
                    "model": nli.name,
                    "backend": nli.backend,
                    "policy": asdict(settings.policy),
                    "limits": asdict(settings.limits),
                }
            )
        if b.load_error is not None:
            return JSONReply({"ready": False, "status": "failed", "error": b.load_error}, 503)
        return JSONReply(
            {"ready": False, "status": "loading"},
            503,
            headers={"Retry-After": str(RETRY_AFTER_LOADING)},
        )

    @app.get("/metrics", tags=["health"], dependencies=[Depends(require_key)])
    async def metrics_endpoint(service: ServiceDep) -> Response:
        """Prometheus text: requests by status, latency, batch sizes, queue depth, pairs."""
        body, content_type = service.metrics.render()
        return Response(body, media_type=content_type)

    @app.post(
        "/v1/score",
        tags=["score"],
        dependencies=[Depends(require_key)],
        openapi_extra=request_body_doc(batch=False),
        responses={200: {"model": ScoreReply}, 422: {"model": ErrorReply}},
    )
    async def score(
        request: Request,
        service: ServiceDep,
        settings: SettingsDep,
    ) -> Response:
        """Score one record; the reply is what ``nli-faith score`` writes for it, plus the
        policy's ``decision`` and ``time_ms``."""
        t0 = time.perf_counter()
        raw = parse_body(await read_body(request, settings.max_body_bytes))
        rec = single_record(raw, limits=settings.limits)
        _note(request, settings, [rec], n=1)
        (scored,) = await _score(service, settings, [rec])
        _count(request, service, [scored])
        if scored.internal:
            raise ServeError(500, E_SERVE_INTERNAL.format(request_id=_rid(request)))
        if scored.failure is not None:  # the input's fault, found by the engine (claims)
            raise ServeError(422, with_flag(scored.failure.message), field="response")
        out = scored_row(service.batcher.scorer, None, raw, scored.result, question=rec.question)
        out["decision"] = settings.policy.decide(scored.result)
        out["time_ms"] = round((time.perf_counter() - t0) * 1000, 2)
        return JSONReply(out)

    @app.post(
        "/v1/score/batch",
        tags=["score"],
        dependencies=[Depends(require_key)],
        openapi_extra=request_body_doc(batch=True),
        responses={200: {"model": BatchReply}, 422: {"model": ErrorReply}},
    )
    async def score_batch(
        request: Request,
        service: ServiceDep,
        settings: SettingsDep,
    ) -> Response:
        """Score up to ``--max-batch-records`` records; a bad record gets its own ``error``
        and the others are scored."""
        t0 = time.perf_counter()
        raws = batch_records(
            parse_body(await read_body(request, settings.max_body_bytes)),
            max_records=settings.max_batch_records,
        )
        # each record parsed once; one that does not parse goes to the runner as its error,
        # which the runner turns into the record's failure (the others are scored)
        parsed: list[Record | RecordError] = []
        for raw in raws:
            try:
                parsed.append(record_of(raw, limits=settings.limits))
            except RecordError as err:
                parsed.append(err)
        questions = [
            p.question if isinstance(p, Record) else question_of(raw)  # as the CLI's row
            for raw, p in zip(raws, parsed)
        ]
        _note(request, settings, [p for p in parsed if isinstance(p, Record)], n=len(raws))
        results = await _score(service, settings, parsed) if parsed else []
        _count(request, service, results)
        items = []
        for k, (raw, s, q) in enumerate(zip(raws, results, questions)):
            row = scored_row(service.batcher.scorer, None, raw, s.result, question=q)
            item = {"index": k, **row}
            if s.internal:
                item["error"] = E_SERVE_INTERNAL.format(request_id=_rid(request))
            item["decision"] = settings.policy.decide(s.result)
            items.append(item)
        return JSONReply({"results": items, "time_ms": round((time.perf_counter() - t0) * 1000, 2)})

    @app.post(
        "/v1/score/stream",
        tags=["score"],
        dependencies=[Depends(require_key)],
        openapi_extra=stream_body_doc(),
        responses={200: {"content": {MEDIA_TYPE: {}}}, 422: {"model": ErrorReply}},
    )
    async def score_stream(request: Request, service: ServiceDep, settings: SettingsDep):
        """Check an answer while it is streamed (NDJSON in: the record without its answer,
        then one ``{"text": ...}`` a piece; NDJSON out: a ``sentence`` event as each
        sentence completes, then the ``result``). The policy stops the stream at the
        first failing sentence."""
        _note(request, settings, [], n=1)
        return await open_stream(request, service, settings)

    return app


def configure_logging() -> None:
    """Service log lines (one JSON object each) to stderr, whatever the root logger does."""
    log = logging.getLogger("nli_faith.serve")
    if not log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


def app_from_env() -> FastAPI:
    """uvicorn factory for ``--workers N``: settings from :data:`SETTINGS_ENV`."""
    configure_logging()
    settings = ServeSettings.from_json(os.environ[SETTINGS_ENV])
    return create_app(settings, on_load_failure=lambda _msg: os.kill(os.getpid(), signal.SIGTERM))


# -- helpers ------------------------------------------------------------------------------


async def _watch_loading(batcher: MicroBatcher, on_failure: Callable[[str], None] | None):
    ready = await asyncio.to_thread(batcher.wait_ready)
    if ready:
        logger.info(json.dumps({"event": "ready", "model": batcher.scorer.nli.name}))
    elif on_failure is not None:
        on_failure(batcher.load_error or "unknown error")


async def _score(service: Service, settings: ServeSettings, records: list) -> list[Outcome]:
    try:
        return await service.batcher.score(records, timeout=settings.request_timeout_s)
    except NotReady:
        if service.batcher.load_error is not None:  # it failed: retrying will not help
            raise ServeError(
                503, E_SERVE_LOAD_FAILED.format(error=service.batcher.load_error)
            ) from None
        raise ServeError(
            503,
            E_SERVE_NOT_READY.format(retry_after=RETRY_AFTER_LOADING),
            headers={"Retry-After": str(RETRY_AFTER_LOADING)},
        ) from None
    except ShuttingDown:
        raise ServeError(503, E_SERVE_SHUTTING_DOWN) from None
    except QueueFull as err:
        raise ServeError(
            503,
            E_SERVE_QUEUE_FULL.format(
                queued=err.queued, limit=settings.max_queue, retry_after=RETRY_AFTER_BUSY
            ),
            headers={"Retry-After": str(RETRY_AFTER_BUSY)},
        ) from None
    except asyncio.TimeoutError:  # = TimeoutError from Python 3.11
        raise ServeError(504, E_SERVE_TIMEOUT.format(timeout=settings.request_timeout_s)) from None


def _rid(request: Request) -> str:
    return request.scope.get("state", {}).get("request_id", "-")


def _note(request: Request, settings: ServeSettings, records: list, *, n: int) -> None:
    """What the access log line tells of the request (text only with --log-text)."""
    state = request.scope.setdefault("state", {})
    state["log"] = {"records": n}
    if settings.log_text:
        state["log"]["text"] = [{"response": r.response, "context": r.context} for r in records]


def _count(request: Request, service: Service, results: list[Outcome]) -> None:
    log = request.scope.setdefault("state", {}).setdefault("log", {})
    log["claims"] = sum(s.result.n_claims for s in results)
    log["pairs"] = sum(s.pairs for s in results)
    log["errors"] = sum(s.result.error is not None for s in results)
    settings: ServeSettings = request.app.state.settings
    for s in results:
        outcome = "error" if s.result.error is not None else settings.policy.decide(s.result)
        service.metrics.records.labels(outcome=outcome).inc()


def _error_reply(request: Request, status: int, message: str, **extra: Any) -> JSONReply:
    body = {"error": message, **{k: v for k, v in extra.items() if v is not None}}
    body["request_id"] = _rid(request)
    return JSONReply(body, status_code=status)


def _install_handlers(app: FastAPI) -> None:
    """Every failure is a JSON reply with a status that says whose fault it was."""

    @app.exception_handler(ServeError)
    async def serve_error(request: Request, err: ServeError) -> Response:
        reply = _error_reply(request, err.status, err.message, field=err.field)
        reply.headers.update(err.headers)
        return reply

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException) -> Response:
        reply = _error_reply(request, err.status_code, str(err.detail))
        reply.headers.update(err.headers or {})
        return reply

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, err: RequestValidationError) -> Response:
        return _error_reply(request, 422, str(err.errors()))

    @app.exception_handler(Exception)
    async def internal_error(request: Request, err: Exception) -> Response:
        logger.exception("unhandled error (request id %s)", _rid(request))
        return _error_reply(request, 500, E_SERVE_INTERNAL.format(request_id=_rid(request)))
