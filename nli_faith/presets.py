"""Named scorer presets (keyword options of :class:`~nli_faith.scorer.FaithfulnessScorer`);
:class:`~nli_faith.config.ScorerConfig` builds on them."""

from __future__ import annotations

from typing import Any

#: The ``guardrail`` preset: CPU latency (int8 ONNX, lexical pre-filter, early exit, and
#: composite premises of the sentences that each add claim words, which are fewer and
#: shorter than the ranked ones: the ranked premise made a request 11% slower).
GUARDRAIL: dict[str, Any] = {
    "backend": "onnx",
    "prefilter": "lexical",
    "prefilter_top_k": 2,
    "early_exit": True,
    "composite_premise": "covering",
}
