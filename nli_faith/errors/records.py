"""Records and their limits: bad input found by the readers, the parsers and the runner (one
bad record never takes its batch down)."""

from __future__ import annotations

from nli_faith.exceptions import Message

__all__ = [
    "E_CALIBRATION_FEW",
    "E_CLAIM_LABELS_ONE_CLASS",
    "E_CLAIM_LABELS_TYPE",
    "E_CLAIM_LABEL_UNMATCHED",
    "E_CLAIM_LIMIT",
    "E_CONTEXT_EMPTY",
    "E_DATA_EMPTY",
    "E_DEVICE_UNAVAILABLE",
    "E_FIELD_NULL",
    "E_INPUT_FORMAT",
    "E_INPUT_NOT_PARQUET",
    "E_JUDGE_ENDPOINT",
    "E_JUDGE_TIMEOUT",
    "E_LABELS_LENGTH",
    "E_LABEL_MAP_TWICE",
    "E_LABEL_MAP_TYPE",
    "E_LIMIT",
    "E_LIMIT_VALUE",
    "E_LONG_CLAIMS",
    "E_MAX_LENGTH_OVER",
    "E_MERGE_LINE_TWICE",
    "E_MODEL_HUB_UNREACHABLE",
    "E_MODEL_NAME",
    "E_NOT_MANY",
    "E_ONNX_FP32_TORCH",
    "E_OPTION_TYPE",
    "E_OPTION_UNUSED",
    "E_PATH_CLASH",
    "E_RECORD_FAILED",
    "E_REPORT_FIELD",
    "E_REPORT_UNREADABLE",
    "E_SERVE_LOAD_FAILED",
    "E_TRAIN_OPTION",
    "E_WHOLE_NUMBER",
]

E_LIMIT = Message(
    "E027", "field '{field}' is too long: {size:,} {unit}, over the limit of {limit:,} ({option})."
)
E_FIELD_NULL = Message("E047", "field '{field}' is null; expected {expected}.")
E_CONTEXT_EMPTY = Message(
    "E048", "The context is empty (no document holds any text), so no claim can be supported."
)
E_CLAIM_LIMIT = Message(
    "E049",
    "field '{field}' holds too many claims: {size:,}, over the limit of {limit:,} (max_claims).",
)
E_LONG_CLAIMS = Message(
    "E050",
    "{record}: {n_split} claim(s) longer than the {max_tokens} tokens a claim may use beside a "
    "chunk of context were split into {n_pieces} pieces at clause, comma or word boundaries.",
)
E_RECORD_FAILED = Message("E051", "{type_name}: {message}")
E_LABELS_LENGTH = Message(
    "E101", "labels names {n_labels} records, but there are {n_records}: give one per record."
)
E_INPUT_FORMAT = Message(
    "E102",
    "input file {path} is named as {kind}, which nli-faith does not read: give JSON Lines "
    "(one JSON object a line) or Parquet (.parquet, .pq).",
)
E_INPUT_NOT_PARQUET = Message(
    "E103", "input file {path} is named as Parquet but is not a Parquet file: {error}"
)
E_DEVICE_UNAVAILABLE = Message(
    "E104",
    "device {device!r} cannot be used here: {why}. Pass device='cpu', or no device to "
    "take CUDA where there is one.",
)
E_ONNX_FP32_TORCH = Message(
    "E105",
    "--onnx-fp32 chooses the ONNX graph's precision, but the backend is {backend!r}: add "
    "--backend onnx (or --guardrail), or leave --onnx-fp32 out.",
)
E_MERGE_LINE_TWICE = Message(
    "E106",
    "{path}:{line}: record line {record} is also at line {first}: a scored file holds each "
    "record once (score the files apart, or merge each scored file with its own verdicts).",
)
E_JUDGE_TIMEOUT = Message(
    "E107", "the judge's timeout must be a number of seconds above 0, got {value!r}."
)
E_WHOLE_NUMBER = Message(
    "E108", "{name} must be a whole number of at least {least}, got {value!r}."
)
E_DATA_EMPTY = Message(
    "E109", "no training rows: the training files ({files}) hold none after the checks above."
)
E_TRAIN_OPTION = Message("E110", "{flag} must be {expected}, got {value!r}.")
E_MODEL_HUB_UNREACHABLE = Message(
    "E111",
    "Cannot load NLI model {model!r}: it is registered as the Hugging Face hub id {hub_id!r}, "
    "which is neither in the local cache nor reachable from here (download it where the "
    "network allows, or pass a local checkpoint folder). Underlying error: {error}",
)
E_REPORT_FIELD = Message(
    "E112", "{path}:{line}: field '{field}' must be {expected}, as `nli-faith score` writes it."
)
E_CLAIM_LABEL_UNMATCHED = Message(
    "E113",
    "{where}: the labelled claim texts {indices} are not found in the response; those labels "
    "are left out of the claim-level calibration.",
)
E_CLAIM_LABELS_ONE_CLASS = Message(
    "E114",
    "the calibration half has {n_pos} supported and {n_neg} unsupported labelled claims that "
    "match the scorer's claims; choosing a claim threshold on them needs both, so it was "
    "chosen on the record labels instead.",
)
E_CALIBRATION_FEW = Message(
    "E115",
    "only {n} usable records ({n_pos} faithful, {n_neg} not): the thresholds are chosen on "
    "half of them and the held-out figures are rough; {advised} or more are advised.",
)
E_MODEL_NAME = Message(
    "E116",
    "model must be a registered name, a local checkpoint folder or a Hugging Face hub id "
    "(a non-empty string), got {value!r}.",
)
E_LABEL_MAP_TYPE = Message(
    "E117",
    "label_map must be a mapping of label names to output indices, such as "
    "{{'entailment': 0, 'contradiction': 2}}, got {value!r}.",
)
E_PATH_CLASH = Message(
    "E118",
    "{what} {path} is also {other}: writing it would overwrite that file; give another name.",
)
E_MAX_LENGTH_OVER = Message(
    "E119",
    "max_length {value} is over what model {model!r} can read: {most} tokens (its position "
    "embeddings); pass at most {most}, or leave it out.",
)
E_JUDGE_ENDPOINT = Message(
    "E120",
    "the judge's {what} must be {expected}, got {value!r}.",
)
E_LIMIT_VALUE = Message(
    "E121", "{name} must be a whole number of at least 1, or None for no limit, got {value!r}."
)
E_OPTION_TYPE = Message("E122", "{name} must be {expected}, got {value!r}.")
E_NOT_MANY = Message(
    "E123",
    "{name} must be a list (or another iterable) of {items}, got one {kind}{hint}.",
)
E_LABEL_MAP_TWICE = Message(
    "E124", "label_map {label_map!r} gives {what} twice; each label needs its own index."
)
E_CLAIM_LABELS_TYPE = Message(
    "E125",
    '{where}: field \'claims\' must be a list of {{"text": str, "label": 0 or 1}}, '
    "got {type_name}.",
)
E_REPORT_UNREADABLE = Message("E126", "{path}:{line}: {error}")
E_OPTION_UNUSED = Message(
    "E127", "{name} is used only with {needs}, got {name}={value!r} without it; {fix}."
)
E_SERVE_LOAD_FAILED = Message(
    "E128", "the model could not be loaded, so nothing can be scored here: {error}"
)
