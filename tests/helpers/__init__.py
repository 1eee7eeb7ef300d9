"""Helpers the tests share with the benchmarks (which may import them; never the reverse)."""
