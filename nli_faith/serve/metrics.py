"""Prometheus metrics of one server process (its own registry, so apps do not collide).

Example:
    >>> m = Metrics()
    >>> m.requests.labels(endpoint="/v1/score", status="200").inc()
    >>> b"nli_faith_requests_total" in m.render()[0]
    True
"""

from __future__ import annotations

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

#: Request latency buckets, seconds: a guardrail answers in tens of milliseconds.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: Batch size buckets (records and pairs per model pass).
SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


class Metrics:
    """The service's counters, gauges and histograms."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "nli_faith_requests", "HTTP requests by endpoint and status", ["endpoint", "status"],
            registry=r,
        )  # fmt: skip
        self.latency = Histogram(
            "nli_faith_request_seconds", "HTTP request latency", ["endpoint"],
            buckets=LATENCY_BUCKETS, registry=r,
        )  # fmt: skip
        self.in_flight = Gauge(
            "nli_faith_requests_in_flight", "scoring requests being handled", registry=r
        )
        self.queue_depth = Gauge(
            "nli_faith_queue_depth", "records waiting for the model", registry=r
        )
        self.batch_records = Histogram(
            "nli_faith_batch_records", "records per model pass", buckets=SIZE_BUCKETS, registry=r
        )
        self.batch_pairs = Histogram(
            "nli_faith_batch_pairs", "(claim, chunk) pairs scored per model pass",
            buckets=SIZE_BUCKETS, registry=r,
        )  # fmt: skip
        self.pairs = Counter("nli_faith_pairs_scored", "(claim, chunk) pairs scored", registry=r)
        self.records = Counter(
            "nli_faith_records", "records by outcome (pass, block, error)", ["outcome"],
            registry=r,
        )  # fmt: skip
        self.model_busy = Gauge("nli_faith_model_busy", "1 while a model pass runs", registry=r)
        self.ready = Gauge("nli_faith_ready", "1 once the model is loaded and warm", registry=r)

    def render(self) -> tuple[bytes, str]:
        """The Prometheus text exposition and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
