"""Defaults of the judge client, importable without loading it (``nli-faith --help``)."""

#: Requests in flight to the judge at once.
DEFAULT_CONCURRENCY = 8
#: Tries per claim (the first and the retries) before ``judge_error``.
DEFAULT_MAX_ATTEMPTS = 4
