"""``nli-faith serve``: the guardrail HTTP service (FastAPI + uvicorn)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from nli_faith.cli.options import add_scorer_options, add_thresholds_option

_PROG = "nli-faith serve"


def add_parser(sub: argparse._SubParsersAction) -> None:
    from nli_faith.serve.settings import SERVE_LIMITS, ServeSettings

    d = ServeSettings()
    p = sub.add_parser(
        "serve",
        help="run the guardrail HTTP service (POST /v1/score)",
        description=(
            "Serve POST /v1/score and /v1/score/batch (same JSON as `nli-faith score`, plus a "
            "pass/block decision), GET /healthz, /readyz, /metrics and /docs. Concurrent "
            "requests share model passes. Needs: pip install 'nli-faith[serve]'."
        ),
    )
    p.add_argument("--host", default=d.host, help="address to listen on (default: loopback)")
    p.add_argument("--port", type=int, default=d.port)
    p.add_argument(
        "--workers", type=int, default=d.workers, help="processes, each with its own model"
    )
    p.add_argument(
        "--api-key-file",
        default=None,
        help="accepted Bearer keys, one a line (also: NLI_FAITH_API_KEYS, comma-separated); "
        "required to listen on a non-loopback address",
    )
    g = p.add_argument_group("policy")
    g.add_argument(
        "--block-below-strict",
        type=float,
        default=None,
        metavar="X",
        help="decision 'block' when the strict score (supported / claims) is below X",
    )
    g.add_argument(
        "--block-on-contradiction",
        action="store_true",
        help="decision 'block' when any claim is contradicted by the context",
    )
    b = p.add_argument_group("batching and queue")
    b.add_argument(
        "--max-batch-pairs",
        type=int,
        default=d.max_batch_pairs,
        help="run the model once this many (claim, chunk) pairs are waiting (default %(default)s)",
    )
    b.add_argument(
        "--max-wait-ms",
        type=float,
        default=d.max_wait_ms,
        help="... or once the first waiting request has waited this long (default %(default)s)",
    )
    b.add_argument(
        "--max-queue",
        type=int,
        default=d.max_queue,
        help="records waiting for the model before 503 + Retry-After (default %(default)s)",
    )
    b.add_argument(
        "--request-timeout",
        type=float,
        default=d.request_timeout_s,
        help="seconds before a request gets 504 (default %(default)s)",
    )
    lim = p.add_argument_group("request limits")
    lim.add_argument(
        "--max-body-bytes",
        type=int,
        default=d.max_body_bytes,
        help="largest request body; 413 beyond (default %(default)s)",
    )
    lim.add_argument(
        "--max-batch-records",
        type=int,
        default=d.max_batch_records,
        help="records in one /v1/score/batch request; 422 beyond (default %(default)s)",
    )
    p.add_argument(
        "--log-text",
        action="store_true",
        help="put the request text in the log lines (default: ids, counts and timings only)",
    )
    add_scorer_options(p, limits=SERVE_LIMITS)  # the record limits, the service's defaults
    add_thresholds_option(p)


def _check(args: argparse.Namespace) -> str | None:
    from nli_faith.errors import E_SERVE_BAD_OPTION

    rules = [
        ("--port", args.port, 0 <= args.port <= 65535, "a port number (0-65535)"),
        ("--workers", args.workers, args.workers >= 1, "at least 1"),
        ("--max-batch-pairs", args.max_batch_pairs, args.max_batch_pairs >= 1, "at least 1"),
        ("--max-wait-ms", args.max_wait_ms, 0 <= args.max_wait_ms <= 60_000, "0 to 60000"),
        ("--max-batch-records", args.max_batch_records, args.max_batch_records >= 1, "≥ 1"),
        (
            "--max-queue",
            args.max_queue,
            args.max_queue >= args.max_batch_records,
            "at least --max-batch-records",
        ),
        (
            "--request-timeout",
            args.request_timeout,
            0 < args.request_timeout <= 3600,
            "above 0 and at most 3600 seconds",
        ),
        ("--max-body-bytes", args.max_body_bytes, args.max_body_bytes >= 1, "at least 1"),
    ]
    if args.block_below_strict is not None:
        ok = 0 <= args.block_below_strict <= 1
        rules.append(("--block-below-strict", args.block_below_strict, ok, "in [0, 1]"))
    for flag, value, ok, rule in rules:
        if not ok:
            return E_SERVE_BAD_OPTION.format(flag=flag, rule=rule, value=value)
    return None


def settings_from_args(args: argparse.Namespace):
    from nli_faith.cli.options import config_from_args
    from nli_faith.serve.settings import Policy, ServeSettings

    scorer = config_from_args(args)  # with the record limits of the flags
    return ServeSettings(
        host=args.host,
        port=args.port,
        workers=args.workers,
        max_body_bytes=args.max_body_bytes,
        max_batch_records=args.max_batch_records,
        max_batch_pairs=args.max_batch_pairs,
        max_wait_ms=args.max_wait_ms,
        max_queue=args.max_queue,
        request_timeout_s=args.request_timeout,
        policy=Policy(args.block_below_strict, args.block_on_contradiction),
        api_key_file=args.api_key_file,
        log_text=args.log_text,
        scorer=scorer,
        limits=scorer.limits,  # as the flags give them, the library's defaults too
    )


def run(args: argparse.Namespace) -> int:
    from nli_faith.errors import E_SERVE_EXTRA_MISSING, E_SERVE_OPEN_HOST

    for package in ("fastapi", "uvicorn", "prometheus_client"):
        try:
            __import__(package)
        except ImportError as err:
            print(f"{_PROG}: error: " + E_SERVE_EXTRA_MISSING.format(package=package, error=err),
                  file=sys.stderr)  # fmt: skip
            return 2
    problem = _check(args)
    if problem:
        print(f"{_PROG}: error: {problem}", file=sys.stderr)
        return 2
    from nli_faith.serve.auth import ApiKeys
    from nli_faith.serve.settings import is_loopback

    try:
        keys = ApiKeys.load(args.api_key_file)
    except ValueError as err:
        print(f"{_PROG}: error: {err}", file=sys.stderr)
        return 2
    if not keys and not is_loopback(args.host):
        print(f"{_PROG}: error: " + E_SERVE_OPEN_HOST.format(host=args.host), file=sys.stderr)
        return 2
    try:  # the scorer's options (checked by ScorerConfig), before the model loads
        settings = settings_from_args(args)
        if settings.scorer.thresholds is not None:  # a bad file is told now, not per worker
            from nli_faith.scoring.thresholds import Thresholds

            Thresholds.load(settings.scorer.thresholds)
    except (ValueError, OSError) as err:
        from nli_faith.cli.options import told

        print(f"{_PROG}: error: {told(err)}", file=sys.stderr)
        return 2
    import uvicorn

    from nli_faith.serve.app import configure_logging, create_app
    from nli_faith.serve.settings import SETTINGS_ENV

    configure_logging()
    start = {
        "event": "start",
        "host": settings.host,
        "port": settings.port,
        "workers": settings.workers,
        "api_keys": len(keys),
        "policy": asdict(settings.policy),
        "limits": asdict(settings.limits),
    }
    print(json.dumps(start), file=sys.stderr, flush=True)
    common = {
        "host": settings.host,
        "port": settings.port,
        "access_log": False,  # one JSON line per request comes from the app instead
        "timeout_graceful_shutdown": int(settings.request_timeout_s) + 5,
        "log_level": "info",
    }
    if settings.workers > 1:
        import os

        os.environ[SETTINGS_ENV] = settings.to_json()
        uvicorn.run(
            "nli_faith.serve.app:app_from_env", factory=True, workers=settings.workers, **common
        )
        return 0
    failure: list[str] = []
    server: uvicorn.Server | None = None

    def on_load_failure(message: str) -> None:
        failure.append(message)
        if server is not None:
            server.should_exit = True

    app = create_app(settings, keys=keys, on_load_failure=on_load_failure)
    server = uvicorn.Server(uvicorn.Config(app, **common))
    server.run()
    if failure:
        from nli_faith.cli.options import flagged

        message = flagged(str(failure[0]))
        print(f"{_PROG}: error: the model could not be loaded: {message}", file=sys.stderr)
        return 1
    return 0
