"""The one pass/fail gate and the framework adapters (DeepEval, RAGAS, LangChain, Guardrails,
LlamaIndex)."""

from __future__ import annotations

from nli_faith.exceptions import Message

__all__ = [
    "E_EXTRA_MISSING",
    "E_GATE_BELOW",
    "E_GATE_CONTRADICTED",
    "E_GATE_NO_CONTEXT",
    "E_INPUT_KEY_EMPTY",
    "E_INPUT_KEY_MISSING",
    "E_INTEGRATION_LLM_MODEL",
    "E_SCORER_AND_OPTIONS",
    "E_SCORE_TYPE",
]

E_EXTRA_MISSING = Message(
    "E082",
    "{what} needs the optional package {package!r}, which cannot be imported ({error}). "
    'Install it with: pip install "nli-faith[{extra}]"',
)
E_INTEGRATION_LLM_MODEL = Message(
    "E083",
    "{metric} uses no LLM, so it takes no {name!r} (for the LLM judge of {library}). Pass "
    "nli_model= for the NLI model (a registry name, local path or hub id), or scorer= for "
    "a ready FaithfulnessScorer.",
)
E_SCORER_AND_OPTIONS = Message(
    "E084",
    "pass either scorer= or scorer options ({names}), not both: a ready scorer already has "
    "its options.",
)
E_SCORE_TYPE = Message("E085", "score_type must be one of {allowed}, got {score!r}.")
E_GATE_NO_CONTEXT = Message(
    "E150",
    "no retrieved context to check the answer against (no document holds any text), so it "
    "does not pass.",
)
E_GATE_CONTRADICTED = Message("E151", "{n} claim(s) contradicted by the context.")
E_GATE_BELOW = Message("E152", "the {score} score {value:.2f} is below {min_score}.")
E_INPUT_KEY_MISSING = Message(
    "E153", "input key {key!r} is missing (the input has keys {keys}); set {option}= to its key."
)
E_INPUT_KEY_EMPTY = Message("E154", "input key {key!r} is empty: there is no answer to check.")
