"""Confidence bands, the LLM-judge cascade and the judge merge."""

from __future__ import annotations

from nli_faith.exceptions import Message

__all__ = [
    "E_BAND_ORDER",
    "E_CONCURRENCY",
    "E_JUDGE_GAVE_UP",
    "E_JUDGE_HTTP",
    "E_JUDGE_HTTPX",
    "E_JUDGE_KEY_ENV",
    "E_JUDGE_REPLY",
    "E_JUDGE_TYPE",
    "E_JUDGE_VERDICT",
    "E_MAX_ATTEMPTS",
    "E_MERGE_CLAIM_TEXT",
    "E_MERGE_DUPLICATE",
    "E_MERGE_FIELD",
    "E_MERGE_JSON",
    "E_MERGE_NOT_OBJECT",
    "E_MERGE_UNKNOWN",
    "E_MERGE_VERDICT",
    "E_REFERENCE_AFTER_JUDGE",
]

E_BAND_ORDER = Message("E028", "band_low ({low}) must not be above band_high ({high}).")
E_MERGE_JSON = Message("E029", "{path}:{line}: not valid JSON: {error}.")
E_MERGE_FIELD = Message("E030", "{path}:{line}: field '{field}' is missing or not {kind}.")
E_MERGE_UNKNOWN = Message(
    "E031",
    "{path}:{line}: no claim {claim_index} in record line {record_line}"
    "{id_part} of the scored file.",
)
E_MERGE_VERDICT = Message(
    "E032",
    "{path}:{line}: verdict {verdict!r} is not one of 'yes', 'no', 'idk'; "
    "the claim is not merged (an unreadable verdict never counts as supported).",
)
E_MERGE_DUPLICATE = Message(
    "E033", "{path}:{line}: claim {claim_index} of record line {record_line} is judged twice."
)
E_MERGE_CLAIM_TEXT = Message(
    "E034",
    "{path}:{line}: the claim text differs from claim {claim_index} of record line "
    "{record_line} in the scored file; was the judged file made from another scored file?",
)
E_JUDGE_VERDICT = Message("E035", "the judge answered {verdict!r}, not one of 'yes', 'no', 'idk'.")
E_JUDGE_REPLY = Message("E036", "the judge's reply is not the JSON asked for: {detail}.")
E_JUDGE_HTTP = Message("E037", "the judge endpoint answered HTTP {status}: {body}")
E_JUDGE_GAVE_UP = Message(
    "E038", "no usable verdict after {attempts} attempts; last error: {error}"
)
E_JUDGE_TYPE = Message(
    "E039",
    "judge must be a callable (claim, evidence_texts, question) -> 'yes' | 'no' | 'idk' "
    "(sync or async) or an OpenAIJudge, got {type_name}.",
)
E_JUDGE_KEY_ENV = Message("E040", "--api-key-env {var}: the environment variable is not set.")
E_CONCURRENCY = Message("E041", "concurrency must be a whole number from 1 to 1000, got {value!r}.")
E_MAX_ATTEMPTS = Message("E042", "max_attempts must be a whole number from 1 to 20, got {value!r}.")
E_JUDGE_HTTPX = Message(
    "E043",
    "OpenAIJudge needs the optional package 'httpx', which cannot be imported ({error}). "
    'Install it with: pip install "nli-faith[judge]"',
)
E_MERGE_NOT_OBJECT = Message("E099", "{path}:{line}: the line is not a JSON object.")
E_REFERENCE_AFTER_JUDGE = Message(
    "E100",
    "The judge turned {n} supported claim(s) into unsupported ones that were never checked "
    "against the reference answer, so no hallucination / self-knowledge rates are given: "
    "run FaithfulnessScorer.check_reference on the merged results.",
)
