"""The exception classes of nli-faith, and :class:`Message`, the coded message string.

Every error nli-faith raises is an :class:`NliFaithError` (and, where it fits, a
built-in error such as ``ValueError``, so callers may catch either). Its message is
one of the coded texts of :mod:`nli_faith.errors`; the error knows that code
(:attr:`NliFaithError.code`) and :func:`with_code` puts it in front of the message.
The classes are imported from :mod:`nli_faith.errors` as well, beside the messages.

Example:
    >>> err = RecordError(Message("E047", "field 'response' is null."), field="response")
    >>> err.code, err.field, with_code(err)
    ('E047', 'response', "[E047] field 'response' is null.")
"""

from __future__ import annotations

from typing import Any


class Message(str):
    """A message text with its stable code; ``format`` keeps the code."""

    code: str

    def __new__(cls, code: str, text: str) -> Message:
        obj = super().__new__(cls, text)
        obj.code = code
        return obj

    def __getnewargs__(self) -> tuple[str, str]:  # pickles (worker processes, Ray)
        return self.code, str(self)

    def format(self, *args: Any, **kwargs: Any) -> Message:
        return Message(self.code, str.format(self, *args, **kwargs))


def with_code(err: BaseException) -> str:
    """An error's message, after its code in brackets when it has one."""
    code = getattr(err, "code", None)
    args = getattr(err, "args", ())
    if code is None and args and not isinstance(err, str):  # a ValueError with our message
        code = getattr(args[0], "code", None)
    return f"[{code}] {err}" if code else str(err)


class NliFaithError(Exception):
    """Base class of all nli-faith errors."""

    @property
    def code(self) -> str | None:
        """The stable code of the message this error was raised with (``None``: no code)."""
        return getattr(self.args[0], "code", None) if self.args else None


class LabelMapError(NliFaithError, ValueError):
    """A model's labels cannot be mapped to entailment / neutral / contradiction."""


class OptionError(NliFaithError, ValueError):
    """An option (a keyword argument, a flag, a setting) has the wrong type or value."""


class OptionTypeError(OptionError, TypeError):
    """An option is of a type that cannot work (a judge that is not callable)."""


class RecordError(NliFaithError, ValueError):
    """An input record is malformed. ``field`` names the offending field."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class ParserMissingError(NliFaithError, RuntimeError):
    """Clause-level splitting needs a spaCy pipeline with a dependency parser."""


class ModelLoadError(NliFaithError, OSError):
    """A model could not be found or loaded."""


class DataError(NliFaithError, ValueError):
    """A training or evaluation file is malformed."""


class MissingDependencyError(NliFaithError, ImportError):
    """An optional dependency (an extra such as ``[onnx]``) is not installed."""


class OnnxBackendError(NliFaithError, RuntimeError):
    """A checkpoint could not be exported to, or run with, ONNX Runtime."""


class ThresholdsError(NliFaithError, ValueError):
    """A thresholds file is malformed, or was calibrated for another model."""
