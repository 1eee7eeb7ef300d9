"""The one reading of the environment for the scorer: what the fields of
:class:`~nli_faith.config.ScorerConfig` left ``None`` become in the process that loads
the model (``OMP_NUM_THREADS``, ``NLI_FAITH_CACHE``, ``XDG_CACHE_HOME``). No stage of the
engine reads the environment; a test keeps it so.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def env_threads(environ: Mapping[str, str] | None = None) -> int:
    """CPU threads to compute with when not told: ``OMP_NUM_THREADS`` when set to a count
    (Ray sets it to an actor's CPUs), else :func:`usable_cores`; ``environ`` defaults to
    ``os.environ``.

    Example:
        >>> env_threads({"OMP_NUM_THREADS": "3"})
        3
        >>> env_threads({"OMP_NUM_THREADS": "many"}) == usable_cores()
        True
    """
    env = os.environ if environ is None else environ
    try:
        n = int(env.get("OMP_NUM_THREADS", ""))
    except ValueError:
        n = 0
    return n if n > 0 else usable_cores()


def env_onnx_cache_dir(environ: Mapping[str, str] | None = None) -> str:
    """Where ONNX exports are cached when not told: ``$NLI_FAITH_CACHE/onnx`` when set, else
    ``$XDG_CACHE_HOME/nli-faith/onnx``, else ``~/.cache/nli-faith/onnx``; ``environ``
    defaults to ``os.environ`` (``{}``: the path no variable moves).

    Example:
        >>> env_onnx_cache_dir({"NLI_FAITH_CACHE": "/srv/cache"})
        '/srv/cache/onnx'
        >>> env_onnx_cache_dir({"XDG_CACHE_HOME": "/tmp/xdg"})
        '/tmp/xdg/nli-faith/onnx'
    """
    env = os.environ if environ is None else environ
    root = env.get("NLI_FAITH_CACHE")
    if root:
        return os.fspath(Path(root).expanduser() / "onnx")
    xdg = env.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return os.fspath(base / "nli-faith" / "onnx")
