"""A small, deterministic set of NLI training rows (weather-station premises)."""

from __future__ import annotations

from nli_faith.training.data import NLIExample


def toy_rows(n: int = 60) -> list[NLIExample]:
    """``4 * n`` rows: per premise an entailment, a contradiction, a neutral and a
    binary-labelled row (label 3, "not entailment", every fifth premise)."""
    rows = []
    for i in range(n):
        p = f"Station {i} recorded {i + 3} storms in the spring of year {2000 + i}."
        rows.append(NLIExample(p, f"Station {i} recorded storms.", 0, "toy"))
        rows.append(NLIExample(p, f"Station {i} recorded no storms.", 2, "toy"))
        rows.append(NLIExample(p, f"Station {i} is near the sea.", 1, "toy"))
        rows.append(NLIExample(p, f"Station {i} saw weather.", 3 if i % 5 == 0 else 0, "bin"))
    return rows
