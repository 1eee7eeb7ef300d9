"""Failure isolation: one record that breaks a shared model batch never takes the others down.

Many records share the model's batches, so an exception raised while scoring them does not
say whose pairs caused it. :func:`run_isolated` runs the whole batch and, if it fails,
bisects it until the failing records stand alone; each of those gets its exception, the
others their results (computed exactly as in the full batch).

Example:
    >>> def invert(xs):
    ...     return [1 / x for x in xs]
    >>> [describe(r) if isinstance(r, Exception) else r for r in run_isolated(invert, [1, 0, 4])]
    [1.0, 'ZeroDivisionError: division by zero', 0.25]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from nli_faith.errors import E_RECORD_FAILED

T = TypeVar("T")
R = TypeVar("R")


def describe(err: BaseException) -> str:
    """The error text a record gets: ``"<ExceptionType>: message"``."""
    message = str(err).strip() or "(no message)"
    return E_RECORD_FAILED.format(type_name=type(err).__name__, message=message)


def run_isolated(fn: Callable[[list[T]], Sequence[R]], items: Sequence[T]) -> list[R | Exception]:
    """``fn(items)``, or where it raises, each item's own result or exception.

    ``fn`` maps a list of items to one result per item. On an exception the list is
    split in halves and each half is run again, down to single items, so a batch with
    one bad record costs about two extra passes over the batch, not one pass per record.
    """
    items = list(items)
    if not items:
        return []
    try:
        out = list(fn(items))
    except Exception as err:  # noqa: BLE001 - isolated: the failing items carry it
        if len(items) == 1:
            return [err]
        mid = len(items) // 2
        return run_isolated(fn, items[:mid]) + run_isolated(fn, items[mid:])
    if len(out) != len(items):
        raise RuntimeError(f"expected {len(items)} results, got {len(out)}")
    return out
