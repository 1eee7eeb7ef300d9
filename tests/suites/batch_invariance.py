"""Same input, same output: a record's verdicts must not depend on its batch mates.

For each backend set-up (torch fp32, torch in the CPU's default dtype, ONNX int8, ONNX
fp32), records are scored

* alone: ``score_batch([record])``, one call per record;
* in larger batches: shuffled with as many other records (fillers) and scored with
  ``score_batch`` in groups of ``group`` records, for each of ``shuffles`` seeds;

and compared claim by claim. Verdicts must be identical. The probability difference is
measured on the NLI matrices themselves (the model's raw output, before results round to
4 decimals), built as ``score_batch`` builds them. A regression suite
(``tests/test_suites.py``, on the example records); ``python -m benchmarks run
batch_invariance`` runs it on real records of the visible faithfulness sets.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np

#: name -> FaithfulnessScorer options.
SETUPS: dict[str, dict[str, Any]] = {
    "torch fp32": {"backend": "torch", "dtype": "float32"},
    "torch default dtype": {"backend": "torch"},
    "onnx int8": {"backend": "onnx", "onnx_quantize": True},
    "onnx fp32": {"backend": "onnx", "onnx_quantize": False},
}


def _matrices(scorer, records: list[dict]) -> list:
    """The NLI matrices of ``records`` scored together, exactly as ``score_batch`` builds
    them (one plan per record, every pair of the group in one model pass)."""
    return scorer.stages.matrices(
        [scorer.stages.plan(r["response"], r["context"]) for r in records]
    )


def _verdicts(scorer, m) -> list[str]:
    return [c.verdict for c in scorer.stages.aggregate(m).claims]


def measure(
    name: str,
    options: dict,
    records: list[dict],
    fillers: list[dict],
    *,
    group: int,
    shuffles: int,
    model: str = "default",
) -> dict[str, Any]:
    from nli_faith.scorer import FaithfulnessScorer

    scorer = FaithfulnessScorer(model, device="cpu", **options)
    t0 = time.perf_counter()
    alone = [_matrices(scorer, [r])[0] for r in records]
    alone_verdicts = [_verdicts(scorer, m) for m in alone]
    flips: list[dict[str, Any]] = []
    max_diff = 0.0
    everything = [*records, *fillers]
    for seed in range(shuffles):
        order = list(range(len(everything)))
        random.Random(seed).shuffle(order)
        for start in range(0, len(order), group):
            members = order[start : start + group]
            matrices = _matrices(scorer, [everything[k] for k in members])
            for k, m in zip(members, matrices):
                if k >= len(records):
                    continue
                verdicts = _verdicts(scorer, m)
                if verdicts != alone_verdicts[k]:
                    flips.append({"record": k, "seed": seed, "alone": alone_verdicts[k],
                                  "batch": verdicts})  # fmt: skip
                if m.mask.any():
                    diff = np.abs(m.probs - alone[k].probs)[m.mask]
                    max_diff = max(max_diff, float(diff.max()))
    n_claims = sum(len(v) for v in alone_verdicts)
    return {
        "setup": name,
        "options": options,
        "dtype": str(getattr(scorer.nli.torch_model, "dtype", "onnx")).replace("torch.", ""),
        "batch_size": scorer.nli.batch_size,
        "records": len(records),
        "claims": n_claims,
        "pairs": int(sum(m.mask.sum() for m in alone)),
        "comparisons": n_claims * shuffles,
        "verdict flips": len(flips),
        "flips": flips[:20],
        "max probability difference": max_diff,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def render(result: dict[str, Any]) -> str:
    lines = [
        f"{result['records']} records, {result['per_set']} from each visible faithfulness set; "
        f"each also scored shuffled among {result['fillers']} other records in `score_batch` "
        f"groups of {result['group']}, {result['shuffles']} shuffles; torch threads "
        f"{result['threads']}.",
        "",
        "| set-up | weights | pairs per forward | claims compared | verdict flips | "
        "max probability difference |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in result["setups"]:
        lines.append(
            f"| {r['setup']} | {r['dtype']} | {r['batch_size']} | {r['comparisons']} | "
            f"{r['verdict flips']} | {r['max probability difference']:.2g} |"
        )
    lines += [
        "",
        "Probability difference: the largest absolute difference in any of the three "
        "probabilities of any (chunk, claim) pair of a record, scored alone vs. among all the "
        "pairs of its group (raw model output, before the 4-decimal rounding of results). "
        "'pairs per forward': the model's batch size; a group's pairs are sorted by length "
        "and padded per forward pass.",
        "",
    ]
    return "\n".join(lines)
