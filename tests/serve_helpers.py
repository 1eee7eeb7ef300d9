"""Helpers of the ``nli-faith serve`` tests: free ports, servers in a subprocess or a thread."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, *, timeout: float, interval: float = 0.05, what: str = "") -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}")


@dataclass
class ServerProcess:
    """``nli-faith serve`` in a subprocess, its stderr in ``log``."""

    url: str
    proc: subprocess.Popen
    log: Path

    @classmethod
    def start(cls, args: list[str], log: Path, *, env: dict | None = None, timeout: float = 180):
        port = free_port()
        full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
        proc = subprocess.Popen(
            [sys.executable, "-m", "nli_faith.cli", "serve", "--port", str(port), *args],
            cwd=REPO,
            env=full_env,
            stdout=subprocess.DEVNULL,
            stderr=log.open("wb"),
        )
        server = cls(f"http://127.0.0.1:{port}", proc, log)
        server.wait_ready(timeout)
        return server

    def ready(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"server exited with {self.proc.returncode}:\n{self.log_text()}")
        try:
            return httpx.get(self.url + "/readyz", timeout=5).status_code == 200
        except httpx.TransportError:
            return False

    def wait_ready(self, timeout: float) -> None:
        wait_until(self.ready, timeout=timeout, interval=0.2, what="/readyz")

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


class ThreadServer:
    """A real uvicorn server for ``app`` on a free loopback port, in a thread."""

    def __init__(self, app) -> None:
        import uvicorn

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", access_log=False
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        wait_until(lambda: self.server.started, timeout=30, what="uvicorn start")
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(60)


def metric(text: str, name: str) -> float | None:
    """The value of an unlabelled Prometheus sample ``name`` in ``text``."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None
