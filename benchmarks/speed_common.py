"""Shared helpers of the speed benchmarks: CPU-contention monitor, timing, inputs.

Nothing here imports spaCy (the GPU-only path uses this module on a machine without it).
"""

from __future__ import annotations

import json
import os
import platform
import re
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from nli_faith.environment import usable_cores  # noqa: F401 - the benchmarks import it from here

from .harness import REPO, cpu_info, loadavg  # noqa: F401 - the benchmarks import them here

# -- machine ---------------------------------------------------------------------------


def versions(*names: str) -> dict[str, str | None]:
    from importlib import metadata

    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


# -- CPU contention --------------------------------------------------------------------


def _proc_stat() -> tuple[int, int, int] | None:
    """(total, busy, steal) jiffies of all CPUs, from ``/proc/stat``."""
    try:
        parts = Path("/proc/stat").read_text().split("\n", 1)[0].split()
    except OSError:
        return None
    vals = [int(x) for x in parts[1:9]]  # user nice system idle iowait irq softirq steal
    total = sum(vals)
    busy = total - vals[3] - vals[4]
    return total, busy, vals[7]


def _own_cpu_s() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class CpuMonitor:
    """What share of the machine's CPU time went to *other* processes during a section.

    ``foreign_share`` = (CPU time spent by everybody - CPU time of this process and its
    children) / (wall time x CPUs). The other engineers' jobs on this shared machine
    are invisible to ``ps`` but show up here; 0.0 means we had the cores to ourselves.
    """

    def __init__(self) -> None:
        self.hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        self.start_stat = _proc_stat()
        self.start_own = _own_cpu_s()
        self.start_wall = time.perf_counter()
        self.start_load = loadavg()

    def stop(self) -> dict[str, Any]:
        end_stat = _proc_stat()
        own = _own_cpu_s() - self.start_own
        wall = time.perf_counter() - self.start_wall
        out: dict[str, Any] = {
            "wall_s": round(wall, 2),
            "own_cpu_s": round(own, 2),
            "loadavg_start": self.start_load,
            "loadavg_end": loadavg(),
        }
        if self.start_stat and end_stat:
            total = (end_stat[0] - self.start_stat[0]) / self.hz
            busy = (end_stat[1] - self.start_stat[1]) / self.hz
            steal = (end_stat[2] - self.start_stat[2]) / self.hz
            if total > 0:
                out["machine_busy_share"] = round(busy / total, 3)
                out["foreign_share"] = round(max(0.0, busy - own) / total, 3)
                out["steal_share"] = round(steal / total, 3)
        return out


def wait_for_quiet(max_wait_s: float, threshold: float = 0.15, sample_s: float = 5.0) -> dict:
    """Sleep until other processes use less than ``threshold`` of the CPUs (sampled over
    ``sample_s``), at most ``max_wait_s``. Returns what was waited and the last sample."""
    t0 = time.perf_counter()
    last = measure_foreign_load(sample_s) if max_wait_s > 0 else {}
    while max_wait_s > 0 and last.get("foreign_share", 0.0) >= threshold:
        if time.perf_counter() - t0 >= max_wait_s:
            break
        time.sleep(10)
        last = measure_foreign_load(sample_s)
    return {"waited_s": round(time.perf_counter() - t0, 1), "last_sample": last}


def measure_foreign_load(seconds: float = 3.0) -> dict[str, Any]:
    """Sample the machine while this process sleeps: the other jobs' CPU share."""
    mon = CpuMonitor()
    time.sleep(seconds)
    return mon.stop()


# -- timing ------------------------------------------------------------------------------


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolation percentile (numpy's default), ``q`` in [0, 100]."""
    xs = sorted(values)
    if not xs:
        return float("nan")
    pos = (len(xs) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def median(values: Iterable[float]) -> float:
    values = list(values)
    return statistics.median(values) if values else float("nan")


def rnd(x: float | None, nd: int = 3) -> float | None:
    if x is None:
        return None
    return round(float(x), nd)


# -- data --------------------------------------------------------------------------------


def read_jsonl(path: Path, limit: int | None = None) -> list[dict]:
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            out.append(json.loads(line))
            if limit is not None and len(out) >= limit:
                break
    return out


def faithfulness_path(data_dir: Path, name: str) -> Path:
    return Path(data_dir) / "faithfulness" / f"{name}.jsonl"


_SENT_RE = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)]*\s+(?=[\"'\u201c\u2018(]?[A-Z0-9])")


def simple_sentences(text: str) -> list[str]:
    """A plain regex sentence split, used only to *build* benchmark inputs (not to score)."""
    text = re.sub(r"\s+", " ", text).strip()
    return [s.strip() for s in _SENT_RE.split(text) if s.strip()]


def words(text: str) -> int:
    return len(text.split())


def padded_batches(nli, pairs: list[tuple[str, str]], batch_size: int) -> list[dict]:
    """The model's own inputs for ``pairs``, built once: tokenized and padded exactly as
    ``NLIModel.predict`` does (length-sorted, numpy int64 arrays), for timing bare forwards."""
    import numpy as np

    from nli_faith.nli.batching import batch_plan, pad_batch

    tok = nli.tokenizer
    enc = tok([p for p, _ in pairs], [h for _, h in pairs], truncation=False)
    ids, types = enc["input_ids"], enc.get("token_type_ids")
    lengths = np.array([len(x) for x in ids])
    pad_id = tok.pad_token_id or 0
    return [
        pad_batch(ids, types, sel, nli.max_length, pad_id, width=width)
        for sel, width in batch_plan(lengths, batch_size=batch_size, max_length=nli.max_length)
    ]
