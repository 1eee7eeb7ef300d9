"""Streamed answers: ``check_stream`` and the service's ``/v1/score/stream``."""

from __future__ import annotations

from nli_faith.exceptions import Message

__all__ = [
    "E_SERVE_STREAM_FIRST",
    "E_SERVE_STREAM_IDLE",
    "E_SERVE_STREAM_JSON",
    "E_SERVE_STREAM_LINE",
    "E_SERVE_STREAM_PIECE",
    "E_STREAM_INPUT",
    "E_STREAM_NO_CONTEXT",
    "E_STREAM_PIECE",
    "E_STREAM_PIECES",
    "E_STREAM_POLICY",
]

E_STREAM_PIECE = Message(
    "E301", "a streamed answer is made of strings; got a piece of type {type_name}."
)
E_STREAM_PIECES = Message(
    "E303",
    "check_stream takes the answer as an iterable (or async iterable) of strings, got "
    "{type_name}; to check a whole answer at once, call score().",
)
E_STREAM_POLICY = Message(
    "E302", "block_below_strict must be a number from 0 to 1 or None, got {value!r}."
)
E_SERVE_STREAM_FIRST = Message(
    "E304",
    'the first line of a stream is the record without its answer, {{"context": ..., '
    '"question": ...}}, got {got}; the pieces of the answer follow, one {{"text": ...}} a line.',
)
E_SERVE_STREAM_IDLE = Message(
    "E305", "no piece of the stream arrived for {seconds} s; the stream is closed."
)
E_SERVE_STREAM_LINE = Message(
    "E306", "a line of the stream is over the limit of {limit:,} bytes (max_body_bytes)."
)
E_SERVE_STREAM_JSON = Message("E307", "line {line} of the stream is not valid JSON: {error}.")
E_SERVE_STREAM_PIECE = Message(
    "E308",
    'line {line} of the stream must be an object {{"text": "..."}} holding a piece of the answer.',
)
E_STREAM_NO_CONTEXT = Message(
    "E320",
    "the answer arrived before its context: no input key {key!r} came first, and no "
    "context= was given when the guard was made; set context_key= to the key of the "
    "retrieved documents, or pass context=.",
)
E_STREAM_INPUT = Message(
    "E321",
    "a streamed answer's chunks are strings, chat message chunks or mappings holding "
    "input key {key!r}; got a chunk of type {type_name}.",
)
