"""The shared runner of every benchmark: ``python -m benchmarks run NAME [options]``.

A benchmark is a module of this package with

* ``TITLE``: one line, the heading of its result page;
* ``add_arguments(parser, name)``: its own options;
* ``run(args, bench) -> Outcome``: the measurement (``args.benchmark`` is its name).
  ``bench.timed(label, fn)`` times a step over ``--repeats`` runs; ``bench.log`` prints
  progress on stderr.

The runner records the machine (CPU model, cores, load average before and after), the
library's commit, the command line and the timings (min / median / max over the
repeats), and writes ``results/NAME.json`` and ``results/NAME.md`` in one format, the one
the documentation's Benchmarks pages are generated from (``docs/hooks/results.py``).

The JSON envelope::

    {"name", "title", "command", "started", "finished", "seconds",
     "machine": {"cpu", "cores", "cpu_limit", "gpu", "platform", "python",
                 "load_before", "load_after"},
     "library": {"commit", "modified"},
     "timings": {label: {"repeats", "min_s", "median_s", "max_s"}},
     "figures": {name: value},          # the headline numbers, quoted by the docs
     "body": "markdown",               # the benchmark's own tables
     "data": {...}}                    # everything else it measured
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS_DIR = Path(__file__).resolve().parent / "results"
DEFAULT_DATA_DIR = REPO / ".." / "shared" / "data"

# The standing benchmarks: name -> module of this package; `python -m benchmarks list` shows
# them in this order. The one-off studies have their own runner on this one
# (`python -m research.studies`, research/studies/).
BENCHMARKS = {
    "quality": "benchmarks.quality",
    "speed": "benchmarks.speed",
    "speed_gpu": "benchmarks.speed",
    "serve": "benchmarks.serve_load",
    "cascade": "benchmarks.cascade",
    "calibration": "benchmarks.calibration",
    "prefilter": "benchmarks.prefilter_study",
    "evidence_cases": "benchmarks.regressions",
    "fuzz": "benchmarks.regressions",
    "batch_invariance": "benchmarks.regressions",
    "report_screenshot": "benchmarks.report_screenshot",
    "spans": "benchmarks.spans",
    "verdict_agreement": "benchmarks.verdict_agreement",
    "stream": "benchmarks.stream",
    "rag_dev": "benchmarks.rag_dev",
    "decision_fit": "benchmarks.decision_fit",
    "answer_decision_fit": "benchmarks.answer_decision_fit",
    "host_profile": "benchmarks.host_profile",
    "model_feed": "benchmarks.model_feed",
    "model_bound": "benchmarks.model_bound",
}


@dataclass
class Outcome:
    """What a benchmark hands back to the runner."""

    body: str
    figures: dict[str, Any] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)


class Bench:
    """Passed to a benchmark's ``run``: repeats, timings and progress."""

    def __init__(self, repeats: int = 1) -> None:
        self.repeats = max(1, repeats)
        self.timings: dict[str, dict[str, Any]] = {}

    def timed(self, label: str, fn: Callable[[], Any], repeats: int | None = None) -> Any:
        """Run ``fn`` ``repeats`` times (default ``--repeats``); keep min / median / max."""
        n = max(1, repeats or self.repeats)
        times, out = [], None
        for _ in range(n):
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
        self.timings[label] = {
            "repeats": n,
            "min_s": round(min(times), 4),
            "median_s": round(statistics.median(times), 4),
            "max_s": round(max(times), 4),
        }
        return out

    @staticmethod
    def log(msg: str) -> None:
        print(f"[{dt.datetime.now():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


# --- machine and library -------------------------------------------------------------


def cpu_info() -> dict[str, Any]:
    """CPU model and the SIMD features that matter for int8 / bf16 inference."""
    info: dict[str, Any] = {"model_name": platform.processor() or platform.machine()}
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return info
    first = text.split("\n\n", 1)[0]
    fields = {}
    for line in first.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            fields[k.strip()] = v.strip()
    info["model_name"] = fields.get("model name", info["model_name"])
    for key in ("vendor_id", "cpu family", "model", "stepping", "cpu MHz"):
        if key in fields:
            info[key.replace(" ", "_")] = fields[key]
    flags = set(fields.get("flags", "").split())
    wanted = (
        "avx2",
        "fma",
        "avx512f",
        "avx512bw",
        "avx512_vnni",
        "avx_vnni",
        "avx512_bf16",
        "amx_bf16",
        "amx_int8",
    )
    info["simd"] = [f for f in wanted if f in flags]
    info["logical_cpus_online"] = text.count("processor\t:")
    info["hypervisor"] = "hypervisor" in flags
    return info


def cgroup_cpu_limit() -> str | None:
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()
    except (OSError, ValueError):
        return None
    return None if quota == "max" else f"{int(quota) / int(period):g} CPUs"


def loadavg() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def gpu_name() -> str | None:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip().replace("\n", ", ") or None


def machine() -> dict[str, Any]:
    return {
        "cpu": cpu_info()["model_name"],
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_limit": cgroup_cpu_limit(),
        "gpu": gpu_name(),
        "platform": platform.platform(),
        "python": platform.python_version(),
    }


def library_commit() -> dict[str, Any]:
    def git(*a: str) -> str | None:
        try:
            r = subprocess.run(["git", *a], cwd=REPO, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return r.stdout.strip() if r.returncode == 0 else None

    status = git("status", "--porcelain", "--", "nli_faith", "models")
    return {"commit": git("rev-parse", "--short=12", "HEAD"), "modified": bool(status)}


# --- the common format ----------------------------------------------------------------


def _num(x: Any) -> str:
    return f"{x:,.4g}" if isinstance(x, float) else str(x)


def machine_line(m: dict[str, Any]) -> str:
    if m.get("text"):
        return m["text"]
    parts = [m.get("cpu") or "CPU not recorded"]
    if m.get("cores"):
        parts.append(f"{m['cores']} cores")
    if m.get("cpu_limit"):
        parts.append(f"limit {m['cpu_limit']}")
    if m.get("gpu"):
        parts.append(f"GPU {m['gpu']}")
    line = ", ".join(parts)
    if m.get("load_before") is not None:
        line += f"; load average {m['load_before']} before, {m.get('load_after')} after"
    return line


def _cell(x: Any) -> str:
    if isinstance(x, (dict, list)):
        x = json.dumps(x, ensure_ascii=False, default=str)
        x = x if len(x) <= 120 else x[:117] + "..."
    elif isinstance(x, float):
        x = f"{x:,.4g}" if abs(x) < 1e6 else f"{x:,.0f}"
    elif isinstance(x, bool) or x is None:
        x = {True: "yes", False: "no", None: "–"}[x]
    return str(x).replace("|", "\\|").replace("\n", " ")


def table(header: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table; cells formatted by one rule (numbers to 4 significant digits)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(map(_cell, r)) + " |" for r in rows]) + "\n"


def data_markdown(data: Any, level: int = 3) -> str:
    """Any benchmark's measurements as Markdown: a dict's plain fields as one table, a list
    of records as a table with a column per field, nested dicts as subsections."""
    if isinstance(data, list):
        if data and all(isinstance(r, dict) for r in data):
            keys = list(dict.fromkeys(k for r in data for k in r))
            return table(keys, [[r.get(k) for k in keys] for r in data])
        return _cell(data) + "\n"
    if not isinstance(data, dict):
        return _cell(data) + "\n"
    plain = [[k, v] for k, v in data.items() if not isinstance(v, (dict, list)) or not v]
    out = [table(["field", "value"], plain)] if plain else []
    for k, v in data.items():
        if isinstance(v, (dict, list)) and v:
            out.append(f"{'#' * level} {k}\n\n{data_markdown(v, min(level + 1, 6))}")
    return "\n".join(out)


def render(env: dict[str, Any], *, with_commit: bool = True) -> str:
    """``NAME.md`` from ``NAME.json``; the docs call it with ``with_commit=False``."""
    out = [f"# {env['title']}", ""]
    out.append(f"- **Command:** `{env['command']}`")
    out.append(f"- **Machine:** {machine_line(env.get('machine') or {})}")
    when = env.get("started") or "not recorded"
    if env.get("seconds") is not None:
        when += f" ({env['seconds']:,.0f} s)"
    out.append(f"- **Run:** {when}")
    lib = env.get("library") or {}
    if with_commit and lib.get("commit"):
        mod = " with uncommitted changes to the library" if lib.get("modified") else ""
        out.append(f"- **Library:** commit `{lib['commit']}`{mod}")
    if env.get("timings"):
        out += [
            "",
            "| timed step | repeats | min s | median s | max s |",
            "|---|---:|---:|---:|---:|",
        ]
        for label, t in env["timings"].items():
            out.append(
                f"| {label} | {t['repeats']} | {t['min_s']:.4g} | {t['median_s']:.4g} | "
                f"{t['max_s']:.4g} |"
            )
    if env.get("figures"):
        out += ["", "| headline figure | value |", "|---|---:|"]
        out += [f"| {k} | {_num(v)} |" for k, v in env["figures"].items()]
    body = (env.get("body") or "").strip()
    if body:
        out += ["", body]
    return "\n".join(out) + "\n"


def load_results(
    directory: Path = RESULTS_DIR, order: list[str] | None = None
) -> list[dict[str, Any]]:
    """Every result envelope in ``directory`` (files without ``title``/``command`` skipped),
    in the ``order`` of the names (default: :data:`BENCHMARKS`'), the others last."""
    envs = []
    for path in sorted(directory.glob("*.json")):
        try:
            env = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(env, dict) and {"name", "title", "command"} <= env.keys():
            envs.append(env)
    order = list(BENCHMARKS) if order is None else list(order)
    envs.sort(key=lambda e: order.index(e["name"]) if e["name"] in order else len(order))
    return envs


def write(env: dict[str, Any], directory: Path = RESULTS_DIR) -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    js, md = directory / f"{env['name']}.json", directory / f"{env['name']}.md"
    js.write_text(json.dumps(env, indent=1, ensure_ascii=False, default=str) + "\n")
    md.write_text(render(env))
    return js, md


# --- the command line -----------------------------------------------------------------


@dataclass(frozen=True)
class Runner:
    """A command line over a registry of benchmark modules and the folder of their results."""

    prog: str
    registry: dict[str, str]
    results_dir: Path

    def module_of(self, name: str):
        return importlib.import_module(self.registry[name])

    def run(self, name: str, argv: list[str]) -> dict[str, Any]:
        mod = self.module_of(name)
        p = argparse.ArgumentParser(prog=f"{self.prog} run {name}", description=mod.TITLE)
        p.add_argument("--repeats", type=int, default=1, help="repeats of each timed step")
        p.add_argument(
            "--out-dir", type=Path, default=self.results_dir, help="where NAME.json/md go"
        )
        mod.add_arguments(p, name)
        args = p.parse_args(argv)
        args.benchmark = name
        bench = Bench(args.repeats)
        m = machine()
        m["load_before"] = loadavg()
        started = dt.datetime.now(dt.timezone.utc)
        t0 = time.perf_counter()
        outcome: Outcome = mod.run(args, bench)
        seconds = time.perf_counter() - t0
        m["load_after"] = loadavg()
        env = {
            "name": name,
            "title": getattr(mod, "TITLES", {}).get(name, mod.TITLE),
            "command": f"{self.prog} run " + shlex.join([name, *argv]),
            "started": started.isoformat(timespec="seconds"),
            "finished": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "seconds": round(seconds, 1),
            "machine": m,
            "library": library_commit(),
            "timings": bench.timings,
            "figures": outcome.figures,
            "body": outcome.body,
            "data": outcome.data,
        }
        js, md = write(env, args.out_dir)
        Bench.log(f"wrote {js} and {md}")
        return env

    def main(self, argv: list[str] | None = None) -> int:
        argv = list(sys.argv[1:] if argv is None else argv)
        if not argv or argv[0] in ("-h", "--help"):
            print(
                f"usage: {self.prog} list\n"
                f"       {self.prog} run NAME [--repeats N] [--out-dir DIR] [options]\n"
                f"       {self.prog} run NAME --help   (its options)"
            )
            return 0
        cmd, rest = argv[0], argv[1:]
        if cmd == "list":
            width = max(map(len, self.registry))
            for name in self.registry:
                mod = self.module_of(name)
                print(f"{name:<{width}}  {getattr(mod, 'TITLES', {}).get(name, mod.TITLE)}")
            return 0
        if cmd == "run" and rest and rest[0] in self.registry:
            self.run(rest[0], rest[1:])
            return 0
        known = ", ".join(self.registry)
        print(f"unknown command {' '.join(argv)!r}; known: {known}", file=sys.stderr)
        return 2


#: ``python -m benchmarks``: the standing benchmarks.
RUNNER = Runner("python -m benchmarks", BENCHMARKS, RESULTS_DIR)


def module_of(name: str):
    return RUNNER.module_of(name)


def run_benchmark(name: str, argv: list[str]) -> dict[str, Any]:
    return RUNNER.run(name, argv)


def main(argv: list[str] | None = None) -> int:
    return RUNNER.main(argv)
