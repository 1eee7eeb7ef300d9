"""How many CPU threads the NLI runtimes (torch, ONNX Runtime) compute with."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def cpu_threads() -> int:
    """Threads to compute with on the CPU: ``OMP_NUM_THREADS`` when set to a count (Ray
    sets it to an actor's CPUs), else :func:`usable_cores`."""
    try:
        n = int(os.environ.get("OMP_NUM_THREADS", ""))
    except ValueError:
        n = 0
    return n if n > 0 else usable_cores()
