"""How far the int8 ONNX model drifts from the fp32 torch model it was exported from.

The full benchmark runs on ``backend="onnx"`` to fit its time budget. This check
re-runs a deterministic sample of the very pairs the run scored (and the mission
edge cases) on ``backend="torch"``, and reports how often the two agree at the
scorer's 0.5 thresholds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nli_faith.nli.labels import CONTRADICT_IDX, ENTAIL_IDX
from tests.suites.edge_cases import run_edge_cases


def agreement(onnx_probs: np.ndarray, torch_probs: np.ndarray, threshold: float = 0.5) -> dict:
    """Agreement figures between two ``(n, 3)`` probability arrays (canonical columns)."""
    a = np.asarray(onnx_probs, dtype=np.float64)
    b = np.asarray(torch_probs, dtype=np.float64)
    if len(a) == 0:
        return {"n": 0}
    de = np.abs(a[:, ENTAIL_IDX] - b[:, ENTAIL_IDX])
    dc = np.abs(a[:, CONTRADICT_IDX] - b[:, CONTRADICT_IDX])
    return {
        "n": len(a),
        "argmax_agreement": float((a.argmax(1) == b.argmax(1)).mean()),
        "entail_decision_agreement": float(
            ((a[:, ENTAIL_IDX] >= threshold) == (b[:, ENTAIL_IDX] >= threshold)).mean()
        ),
        "contradict_decision_agreement": float(
            ((a[:, CONTRADICT_IDX] >= threshold) == (b[:, CONTRADICT_IDX] >= threshold)).mean()
        ),
        "mean_abs_diff_entail": float(de.mean()),
        "p99_abs_diff_entail": float(np.percentile(de, 99)),
        "mean_abs_diff_contradict": float(dc.mean()),
        "p99_abs_diff_contradict": float(np.percentile(dc, 99)),
    }


def torch_check(
    model: str, pairs: Sequence[tuple[str, str]], onnx_probs: np.ndarray, batch_size: int
) -> dict:
    """Score ``pairs`` and the edge cases with the fp32 torch backend; compare with ONNX."""
    from nli_faith.scorer import FaithfulnessScorer

    scorer = FaithfulnessScorer(model, device="cpu", backend="torch", batch_size=batch_size)
    torch_probs = scorer.nli.predict(list(pairs))
    return {
        "pairs": agreement(onnx_probs, torch_probs),
        "edge_cases": run_edge_cases(scorer),
    }
