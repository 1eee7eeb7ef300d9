"""One-off studies: measurements made once to choose a model, a recipe or a setting.

``python -m research.studies list`` / ``run NAME [options]`` runs one through the
benchmarks' runner (:class:`benchmarks.harness.Runner`: the same envelope, machine record
and page), writing ``research/studies/results/NAME.json`` and ``NAME.md``; the
documentation's Studies pages are generated from them. The standing benchmarks, run again
for every change, stay in ``benchmarks/``.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.harness import Runner

RESULTS_DIR = Path(__file__).resolve().parent / "results"

#: name -> module; ``python -m research.studies list`` shows them in this order.
STUDIES = {
    "quality_ab": "research.studies.quality_ab",
    "guardrail_ab": "research.studies.guardrail_ab",
    "model_ab": "research.studies.model_ab",
    "model_ensemble": "research.studies.model_ensemble",
    "nli_checks": "research.studies.nli_checks",
    "train_speed": "research.studies.train_speed",
}

RUNNER = Runner("python -m research.studies", STUDIES, RESULTS_DIR)
