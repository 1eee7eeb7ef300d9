"""Records that fail: the error text a record gets, its result, and a planning failure.

A record that cannot be parsed, planned or scored never stops its batch: it gets an
error result (:func:`error_result`) whose text (:func:`describe`) names the exception.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nli_faith.errors import E_RECORD_FAILED, NliFaithError
from nli_faith.results import FaithfulnessResult


def describe(err: BaseException) -> str:
    """The error text a record gets: ``"<ExceptionType>: message"``.

    Example:
        >>> describe(ZeroDivisionError("division by zero"))
        'ZeroDivisionError: division by zero'
    """
    message = str(err).strip() or "(no message)"
    return E_RECORD_FAILED.format(type_name=type(err).__name__, message=message)


def error_result(message: str) -> FaithfulnessResult:
    """The result of a record that was not scored; ``message`` is its error text."""
    return FaithfulnessResult(
        lenient=None,
        strict=None,
        soft=None,
        n_claims=0,
        n_yes=0,
        n_no=0,
        n_idk=0,
        reason=f"Not scored: {message}",
        error=message,
    )


@dataclass(frozen=True)
class Failed:
    """A record that could not be planned: its error text (``"<Type>: message"``), the
    bare message, whether the input is at fault (a library error) or the scorer, and the
    exception itself where it was raised in this process (a planning worker sends the
    rest, not the exception: it may not survive pickling)."""

    error: str
    message: str
    input_error: bool = True
    exception: BaseException | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, err: BaseException) -> Failed:
        return cls(describe(err), str(err), isinstance(err, NliFaithError), err)

    def __reduce__(self) -> tuple:
        return (type(self), (self.error, self.message, self.input_error))
