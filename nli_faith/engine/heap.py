"""Keeping a loaded scorer out of Python's cyclic garbage collector while it works.

A loaded scorer is ~600,000 objects (the model, its tokenizer, torch, spaCy). Every full
pass of the cyclic collector walks them all, ~0.4 s each on a 2-core VM, and a long batch
job triggers such passes over and over: they took about 20 of the 48 µs of CPU per pair
that the model's process spent beside its planning workers (``benchmarks/model_feed.py``).
:func:`freeze` collects what is garbage already, then moves everything alive into the
collector's permanent generation (``gc.freeze``, as Python's docs advise before a fork,
so that forked workers' collections leave the pages they share alone); :func:`thaw` gives
it back once the last holder is done. The holders (planning workers, the server, a CLI
run, a Ray actor) are counted, so that one finishing does not thaw another's freeze.

Example:
    >>> import gc
    >>> freeze(); frozen = gc.get_freeze_count() > 0
    >>> thaw(); frozen, holders()
    (True, 0)
"""

from __future__ import annotations

import gc
import threading

_LOCK = threading.Lock()
_HOLDERS = 0


def freeze() -> None:
    """Collect the garbage, then leave every live object out of the collector's passes
    until :func:`thaw` is called as many times as this was."""
    global _HOLDERS
    with _LOCK:
        gc.collect()  # else garbage alive now would be held until the last thaw
        gc.freeze()
        _HOLDERS += 1


def thaw() -> None:
    """One holder is done; the last one gives the frozen objects back to the collector."""
    global _HOLDERS
    with _LOCK:
        _HOLDERS = max(0, _HOLDERS - 1)
        if _HOLDERS == 0:
            gc.unfreeze()


def holders() -> int:
    """How many holders keep the heap frozen."""
    return _HOLDERS
