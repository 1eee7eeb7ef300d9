"""Load test of ``nli-faith serve``: ``python -m benchmarks.serve_load``.

Starts the server with the guardrail preset on a free loopback port and drives it with 1, 4,
8 and 16 concurrent clients (httpx, asyncio) for a fixed time each (bounded in requests
too). The requests are the speed benchmark's guardrail requests (a 5-sentence answer, three
passages of ~150 words). Reported per level: requests/s, p50/p95/p99 latency, non-2xx
replies, records per model pass (from the server's /metrics) and the server's RSS (VmRSS
sampled every 0.25 s; VmHWM). After the levels, the same requests go through the library
(``FaithfulnessScorer.guardrail().score``) and the idle server alternately: the lone-client
overhead.
Then, with ``--ablation``, the 8-client load goes to two more servers: one with
cross-request batching off (``--max-batch-pairs 1 --max-wait-ms 0``), to separate what
micro-batching adds from what overlapping HTTP with the model adds, and one whose model
passes run 16 pairs per ONNX call (``--batch-size 16``; the int8 graph's default is one pair
per call, so that a pair's result never depends on the other requests in its batch); and
1 and 8 clients go to a server on the torch backend, whose cost per pair falls with the
batch size, where micro-batching can save model work.

``python -m benchmarks run serve [--ablation]``. The client runs on the same
machine as the server and competes with it for the CPU; the other processes' share of the
CPU during each level is reported (``foreign_share``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from .harness import DEFAULT_DATA_DIR, Outcome
from .speed_common import (
    REPO,
    CpuMonitor,
    cpu_info,
    loadavg,
    percentile,
    rnd,
    usable_cores,
    versions,
)
from .speed_inputs import guardrail_requests
from .speed_report import _table

#: Runs against other set-ups: (label, extra server flags, client counts).
ABLATIONS = (
    ("batching off", ["--max-batch-pairs", "1", "--max-wait-ms", "0"], (8,)),
    ("16 pairs per ONNX call", ["--batch-size", "16"], (8,)),
    # a backend whose cost per pair falls with the batch: where micro-batching pays
    ("torch backend", ["--backend", "torch"], (1, 8)),
)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _status_kb(pid: int) -> dict[str, int]:
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":", 1)
                out[key] = int(value.split()[0])
    except OSError:
        pass
    return out


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a running process (``/proc/<pid>/stat``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


class RssSampler:
    """Samples the server's VmRSS every ``interval`` seconds in a thread."""

    def __init__(self, pid: int, interval: float = 0.25) -> None:
        self.pid, self.interval = pid, interval
        self.samples: list[tuple[float, int]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            kb = _status_kb(self.pid).get("VmRSS")
            if kb:
                self.samples.append((time.monotonic(), kb))
            self._stop.wait(self.interval)

    def window(self, t0: float, t1: float) -> list[int]:
        return [kb for t, kb in self.samples if t0 <= t <= t1]

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


class Server:
    def __init__(self, extra: list[str], log: Path) -> None:
        import httpx

        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "nli_faith.cli", "serve", "--guardrail"]
        cmd += ["--port", str(self.port), *extra]
        self.cmd = cmd
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb")
        )
        t0 = time.perf_counter()
        while True:
            if self.proc.poll() is not None:
                raise SystemExit(f"server exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/readyz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.perf_counter() - t0 > 300:
                raise SystemExit("server not ready after 300 s")
            time.sleep(0.2)
        self.ready_s = time.perf_counter() - t0

    def metrics(self) -> dict[str, float]:
        import httpx

        out = {}
        for line in httpx.get(self.url + "/metrics", timeout=10).text.splitlines():
            if line.startswith("nli_faith_batch_") and ("_sum " in line or "_count " in line):
                name, value = line.split()
                out[name] = float(value)
        return out

    def stop(self) -> int:
        self.proc.terminate()
        return self.proc.wait(60)


class Feed:
    """The requests to send, each once, in order, to every level and server in turn; past
    the last it starts again and counts the requests sent a second time."""

    def __init__(self, requests: list[dict]) -> None:
        self.requests, self.sent = requests, 0

    def next(self) -> dict:
        body = self.requests[self.sent % len(self.requests)]
        self.sent += 1
        return body

    @property
    def repeated(self) -> int:
        return max(0, self.sent - len(self.requests))


async def _drive(url: str, feed: Feed, clients: int, seconds: float, cap: int) -> dict:
    import httpx

    latencies: list[float] = []
    statuses: dict[int, int] = {}
    errors: list[str] = []
    sent = 0
    deadline = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:

        async def worker() -> None:
            nonlocal sent
            while time.perf_counter() < deadline and sent < cap:
                sent += 1
                body = feed.next()
                t0 = time.perf_counter()
                try:
                    r = await client.post("/v1/score", json=body)
                    statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                except httpx.HTTPError as err:
                    errors.append(type(err).__name__)
                    continue
                latencies.append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        wall = time.perf_counter() - t0
    ok = sum(n for s, n in statuses.items() if 200 <= s < 300)
    return {
        "clients": clients,
        "requests": sum(statuses.values()) + len(errors),
        "wall_s": round(wall, 2),
        "requests_per_s": rnd(ok / wall, 2),
        "p50_ms": rnd(percentile(latencies, 50) * 1000, 1),
        "p95_ms": rnd(percentile(latencies, 95) * 1000, 1),
        "p99_ms": rnd(percentile(latencies, 99) * 1000, 1),
        "non_2xx": sum(n for s, n in statuses.items() if not 200 <= s < 300) + len(errors),
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "transport_errors": errors[:10],
    }


def _level(server: Server, sampler: RssSampler, feed: Feed, clients, seconds, cap) -> dict:
    before = server.metrics()
    mon = CpuMonitor()
    cpu0 = _cpu_s(server.proc.pid)
    t0 = time.monotonic()
    out = asyncio.run(_drive(server.url, feed, clients, seconds, cap))
    t1 = time.monotonic()
    out["cpu"] = cpu = mon.stop()
    # the server is a running child: CpuMonitor counts it as foreign; take it out
    cpu["server_cpu_s"] = round(_cpu_s(server.proc.pid) - cpu0, 2)
    if "foreign_share" in cpu:
        total = cpu["wall_s"] * (os.cpu_count() or 1)
        cpu["foreign_share"] = round(
            max(0.0, cpu["foreign_share"] - cpu["server_cpu_s"] / total), 3
        )
    after = server.metrics()
    passes = after["nli_faith_batch_records_count"] - before["nli_faith_batch_records_count"]
    recs = after["nli_faith_batch_records_sum"] - before["nli_faith_batch_records_sum"]
    pairs = after["nli_faith_batch_pairs_sum"] - before["nli_faith_batch_pairs_sum"]
    out["model_passes"] = int(passes)
    out["records_per_pass"] = rnd(recs / passes, 2) if passes else None
    out["pairs_per_request"] = rnd(pairs / recs, 1) if recs else None
    rss = sampler.window(t0, t1)
    status = _status_kb(server.proc.pid)
    out["rss_mb"] = {
        "first": rnd(rss[0] / 1024, 1) if rss else None,
        "last": rnd(rss[-1] / 1024, 1) if rss else None,
        "max": rnd(max(rss) / 1024, 1) if rss else None,
        "hwm": rnd(status.get("VmHWM", 0) / 1024, 1),
    }
    print(
        f"{clients:>3} clients: {out['requests_per_s']} req/s, p50 {out['p50_ms']} ms, "
        f"p99 {out['p99_ms']} ms, non-2xx {out['non_2xx']}, {out['records_per_pass']} "
        f"records/pass, RSS max {out['rss_mb']['max']} MB, load {loadavg()}",
        file=sys.stderr,
    )
    return out


def paired_lone_client(url: str, feed: Feed, n: int) -> dict:
    """Library call and lone HTTP request on the same request, alternately, ``n`` times.

    The two run in the same moments, so the shared machine's load weighs on both alike:
    ``FaithfulnessScorer.guardrail().score`` in this process, then ``POST /v1/score`` to
    the idle server (which runs the same preset in its own process).
    """
    import httpx

    from nli_faith.scorer import FaithfulnessScorer

    scorer = FaithfulnessScorer.guardrail()
    lib, http, diff = [], [], []
    mon = CpuMonitor()
    with httpx.Client(base_url=url, timeout=120) as client:
        for i in range(n + 8):
            r = feed.next()
            t0 = time.perf_counter()
            scorer.score(r["response"], r["context"])
            t1 = time.perf_counter()
            reply = client.post("/v1/score", json=r)
            t2 = time.perf_counter()
            if i < 8 or reply.status_code != 200:  # warm-up
                continue
            lib.append(t1 - t0)
            http.append(t2 - t1)
            diff.append((t2 - t1) - (t1 - t0))
    return {
        "pairs": len(lib),
        "library_p50_ms": rnd(percentile(lib, 50) * 1000, 1),
        "library_p95_ms": rnd(percentile(lib, 95) * 1000, 1),
        "http_p50_ms": rnd(percentile(http, 50) * 1000, 1),
        "http_p95_ms": rnd(percentile(http, 95) * 1000, 1),
        "median_difference_ms": rnd(percentile(diff, 50) * 1000, 1),
        "cpu": mon.stop(),
    }


def measure(args: argparse.Namespace) -> dict[str, Any]:
    feed = Feed(guardrail_requests(Path(args.data_dir), args.requests))
    levels = [int(x) for x in args.levels.split(",")]
    report: dict[str, Any] = {
        "machine": {"cores": usable_cores(), "cpu": cpu_info(), "loadavg_start": loadavg()},
        "versions": versions("fastapi", "uvicorn", "httpx", "onnxruntime"),
        "settings": {
            "seconds_per_level": args.seconds,
            "max_requests_per_level": args.max_requests,
            "distinct_requests": len(feed.requests),
            "server_args": ["--guardrail", *args.server_args.split()],
        },
    }
    logs = Path(tempfile.mkdtemp(prefix="serve_load_"))  # the servers' stderr
    report["server_logs"] = str(logs)
    log = logs / "server.log"
    server = Server(args.server_args.split(), log)
    report["server_ready_s"] = round(server.ready_s, 1)
    sampler = RssSampler(server.proc.pid)
    asyncio.run(_drive(server.url, feed, 1, 5.0, 10))  # warm the HTTP path
    report["levels"] = [
        _level(server, sampler, feed, c, args.seconds, args.max_requests) for c in levels
    ]
    print("library vs lone client, alternately ...", file=sys.stderr)
    report["lone_client"] = paired_lone_client(server.url, feed, args.library_calls)
    print(report["lone_client"], file=sys.stderr)
    sampler.stop()
    report["server_exit_code"] = server.stop()
    if args.ablation:
        report["ablations"] = []
        for label, extra, counts in ABLATIONS:
            print(f"ablation: {label} ...", file=sys.stderr)
            name = extra[0].strip("-").replace("-", "_")
            srv = Server([*args.server_args.split(), *extra], logs / f"server_{name}.log")
            sampler = RssSampler(srv.proc.pid)
            asyncio.run(_drive(srv.url, feed, 1, 5.0, 10))
            for clients in counts:
                row = _level(srv, sampler, feed, clients, args.seconds, args.max_requests)
                report["ablations"].append({"label": label, "server_args": extra, **row})
            sampler.stop()
            srv.stop()
    report["machine"]["loadavg_end"] = loadavg()
    report["settings"]["requests_sent"] = feed.sent
    report["settings"]["requests_sent_twice"] = feed.repeated
    return report


def _cpu_ms(x: dict) -> float:
    """Server CPU milliseconds per request over a level."""
    return x["cpu"].get("server_cpu_s", 0) / x["requests"] * 1000 if x["requests"] else 0.0


def render(rep: dict[str, Any]) -> str:
    levels = rep["levels"]
    by = {x["clients"]: x for x in levels}

    def row(label: Any, x: dict) -> list:
        return [
            label, x["requests"], x["requests_per_s"], x["p50_ms"], x["p95_ms"], x["p99_ms"],
            x["non_2xx"], x["records_per_pass"], rnd(_cpu_ms(x), 0), x["rss_mb"]["max"],
            x["cpu"].get("foreign_share"),
        ]  # fmt: skip

    rows = [row(x["clients"], x) for x in levels]
    rows += [row(f"{x['clients']}, {x['label']}", x) for x in rep.get("ablations", [])]
    m = rep["machine"]
    out = [
        "Server: "
        f"`nli-faith serve {' '.join(rep['settings']['server_args'])}` on loopback, "
        f"{m['cores']} cores ({m['cpu'].get('model_name')}); the httpx client runs on the "
        "same cores. "
        f"Each level: {rep['settings']['seconds_per_level']} s or "
        f"{rep['settings']['max_requests_per_level']} requests, taken in turn from "
        f"{rep['settings']['distinct_requests']:,} distinct guardrail requests (5-sentence "
        "answer, 3 passages of ~150 words; `benchmarks/speed_inputs.py`), each level and "
        "server going on where the last stopped (neighbouring requests share a passage: "
        "one's retrieval noise is the next one's first passage): of "
        f"{rep['settings'].get('requests_sent', 0):,} requests sent, "
        f"{rep['settings'].get('requests_sent_twice', 0):,} repeated one sent before.",
        "",
        f"Load average (1, 5, 15 min) at the start {m['loadavg_start']}, at the end "
        f"{m.get('loadavg_end')}; *foreign CPU* is the share of the machine's CPU time used "
        "by other processes during the level (the machine is shared); *server CPU ms / "
        "request* is the server process's CPU time (user + system) over the level divided by "
        "its requests, a figure that other processes' load disturbs less than req/s.",
        "",
        _table(
            [
                "clients",
                "requests",
                "req/s",
                "p50 ms",
                "p95 ms",
                "p99 ms",
                "non-2xx",
                "records / model pass",
                "server CPU ms / request",
                "server RSS max MB",
                "foreign CPU",
            ],
            rows,
        ),  # fmt: skip
    ]
    one, eight = by.get(1), by.get(8)
    if one and eight:
        gain = eight["requests_per_s"] / one["requests_per_s"]
        out.append(
            f"* Throughput at 8 clients: **{gain:.2f}×** that at 1 client "
            f"({eight['requests_per_s']} vs {one['requests_per_s']} req/s)."
        )
    lone = rep["lone_client"]
    out.append(
        f"* Lone client against the library, alternately on the same requests "
        f"({lone['pairs']} of each): `POST /v1/score` p50 **{lone['http_p50_ms']} ms** "
        f"(p95 {lone['http_p95_ms']}), `FaithfulnessScorer.guardrail().score` p50 "
        f"**{lone['library_p50_ms']} ms** (p95 {lone['library_p95_ms']}); median difference "
        f"per request {lone['median_difference_ms']:+.1f} ms."
    )
    bad = {x["clients"]: x["statuses"] for x in levels if x["non_2xx"]}
    if bad:
        out.append(f"* Replies by status where some were not 2xx (clients: statuses): {bad}.")
    busiest = max(x["cpu"].get("foreign_share") or 0 for x in levels)
    if busiest > 0.5:
        out.insert(
            5,
            f"\n**Other processes used up to {busiest:.0%} of the CPU during these levels: the "
            "figures measure the contention more than the server. Rerun on a quiet machine "
            "before comparing them with `speed.md`.**\n",
        )
    rss_first = levels[0]["rss_mb"]["first"]
    rss_last = levels[-1]["rss_mb"]["last"]
    out.append(
        f"* Server RSS: {rss_first} MB at the start of the first level, {rss_last} MB at the "
        f"end of the last; peak (VmHWM) {levels[-1]['rss_mb']['hwm']} MB. Ready "
        f"{rep['server_ready_s']} s after start (model load and warm-up request)."
    )
    out.append(
        f"* Non-2xx replies over all levels: {sum(x['non_2xx'] for x in levels)}; server exit "
        f"code after SIGTERM: {rep['server_exit_code']} (-15: uvicorn re-raises the signal "
        "after a clean shutdown)."
    )
    series: dict[str, dict[int, dict]] = {}
    for x in rep.get("ablations", []):
        series.setdefault(x["label"], {})[x["clients"]] = x
    for label, runs in series.items():
        if 1 in runs and 8 in runs:
            a, b = runs[1], runs[8]
            out.append(
                f"* {label} (`{' '.join(b['server_args'])}`): 8 clients "
                f"**{b['requests_per_s'] / a['requests_per_s']:.2f}×** 1 client "
                f"({b['requests_per_s']} vs {a['requests_per_s']} req/s), "
                f"{b['records_per_pass']} records a model pass, server CPU per request "
                f"{_cpu_ms(b):.0f} vs {_cpu_ms(a):.0f} ms."
            )
    for x in rep.get("ablations", []) if eight else []:
        if x["label"] in series and 1 in series[x["label"]]:
            continue
        out.append(
            f"* 8 clients, {x['label']} (`{' '.join(x['server_args'])}`): "
            f"{x['requests_per_s']} req/s, p50 {x['p50_ms']} ms, {x['records_per_pass']} records "
            f"a model pass (default set-up: {eight['requests_per_s']} req/s, p50 "
            f"{eight['p50_ms']} ms, {eight['records_per_pass']} records a pass)."
        )
    return "\n".join(out) + "\n"


TITLE = "`nli-faith serve` under load"


def add_arguments(p, name: str) -> None:
    p.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    p.add_argument("--levels", default="1,4,8,16", help="concurrent clients, comma-separated")
    p.add_argument("--seconds", type=float, default=20.0, help="per level")
    p.add_argument("--max-requests", type=int, default=3000, help="per level")
    p.add_argument("--requests", type=int, default=2000, help="distinct requests, each sent once")
    p.add_argument("--library-calls", type=int, default=48, help="paired lone-client calls")
    p.add_argument("--server-args", default="", help="more `nli-faith serve` flags")
    p.add_argument("--ablation", action="store_true", help="also 8 clients on other set-ups")


def run(args, bench) -> Outcome:
    rep = measure(args)
    one = rep["levels"][0]
    return Outcome(
        body=render(rep),
        figures={
            f"requests/s, {one['clients']} client(s)": one["requests_per_s"],
            f"p50 ms, {one['clients']} client(s)": one["p50_ms"],
            f"p95 ms, {one['clients']} client(s)": one["p95_ms"],
            "non-2xx replies": sum(x["non_2xx"] for x in rep["levels"]),
        },
        data=rep,
    )
