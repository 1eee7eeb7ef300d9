"""Regression suites with expected answers, run by the tests (and, in full, by the benchmarks)."""
