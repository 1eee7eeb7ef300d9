"""``nli-faith serve``: the guardrail HTTP service (FastAPI + uvicorn).

A thin shell over :class:`~nli_faith.scorer.FaithfulnessScorer`: :mod:`.app` (endpoints,
error replies, access log), :mod:`.batcher` (micro-batching across requests in one model
thread), :mod:`.settings` (limits, batching, policy), :mod:`.auth` (Bearer keys),
:mod:`.metrics` (Prometheus) and :mod:`.schema` (request parsing, API shapes). Needs the
``serve`` extra: ``pip install "nli-faith[serve]"``.
"""
