"""The HTTP service (``nli-faith serve``) and what it checks in a request."""

from __future__ import annotations

from nli_faith.exceptions import Message

__all__ = [
    "E_SERVE_BAD_JSON",
    "E_SERVE_BAD_OPTION",
    "E_SERVE_BATCH_SHAPE",
    "E_SERVE_BATCH_TOO_MANY",
    "E_SERVE_BODY_TOO_LARGE",
    "E_SERVE_EXTRA_MISSING",
    "E_SERVE_ID_TYPE",
    "E_SERVE_INTERNAL",
    "E_SERVE_KEY_FILE",
    "E_SERVE_NOT_OBJECT",
    "E_SERVE_NOT_READY",
    "E_SERVE_NO_KEYS",
    "E_SERVE_OPEN_HOST",
    "E_SERVE_QUEUE_FULL",
    "E_SERVE_SHUTTING_DOWN",
    "E_SERVE_TIMEOUT",
    "E_SERVE_UNAUTHORIZED",
]

E_SERVE_KEY_FILE = Message("E052", "cannot read --api-key-file {path!r}: {error}")
E_SERVE_NO_KEYS = Message(
    "E053", "--api-key-file {path!r} holds no key (one key a line; # starts a comment)."
)
E_SERVE_OPEN_HOST = Message(
    "E054",
    "refusing to listen on {host!r} without API keys: anybody who can reach it could use "
    "it. Give keys with --api-key-file PATH or the NLI_FAITH_API_KEYS environment variable, "
    "or listen on 127.0.0.1 (the default).",
)
E_SERVE_EXTRA_MISSING = Message(
    "E055",
    "nli-faith serve needs the optional package {package!r} ({error}). Install the extra "
    'with: pip install "nli-faith[serve]"',
)
E_SERVE_BAD_JSON = Message("E056", "the request body is not valid JSON: {error}.")
E_SERVE_NOT_OBJECT = Message("E057", "the request body must be a JSON object, got {type_name}.")
E_SERVE_BODY_TOO_LARGE = Message(
    "E058", "the request body is larger than the limit of {limit:,} bytes (--max-body-bytes)."
)
E_SERVE_BATCH_SHAPE = Message(
    "E059", "field 'records' must be a list of record objects, got {type_name}."
)
E_SERVE_BATCH_TOO_MANY = Message(
    "E060",
    "field 'records' holds {size:,} records, over the limit of {limit:,} (--max-batch-records).",
)
E_SERVE_QUEUE_FULL = Message(
    "E061",
    "the server is busy: {queued:,} records are waiting for the model (limit {limit:,}, "
    "--max-queue); retry after {retry_after} s.",
)
E_SERVE_TIMEOUT = Message(
    "E062", "the request was not answered within {timeout:g} s (--request-timeout)."
)
E_SERVE_NOT_READY = Message(
    "E063", "the model is still loading; retry after {retry_after} s (see /readyz)."
)
E_SERVE_SHUTTING_DOWN = Message("E064", "the server is shutting down.")
E_SERVE_UNAUTHORIZED = Message(
    "E065", "missing or wrong API key: send 'Authorization: Bearer <key>'."
)
E_SERVE_INTERNAL = Message(
    "E066", "internal error while scoring (logged with request id {request_id})."
)
E_SERVE_BAD_OPTION = Message("E067", "{flag} must be {rule}, got {value!r}.")
E_SERVE_ID_TYPE = Message("E068", "field 'id' must be a string or an integer, got {type_name}.")
