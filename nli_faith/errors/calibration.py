"""Calibration and thresholds files (``nli-faith calibrate``)."""

from __future__ import annotations

from nli_faith.exceptions import Message

__all__ = [
    "E_BANDS_KEPT",
    "E_BAND_CALIBRATION_FEW",
    "E_CALIBRATION_CLASSES",
    "E_CLAIM_LABELS",
    "E_DECISION_FIELD",
    "E_DECISION_FILE",
    "E_DECISION_NEEDS_LABELS",
    "E_FAITHFUL_STALE",
    "E_LABEL",
    "E_REPORT_JOIN",
    "E_REPORT_LINE",
    "E_TARGET_AGREEMENT",
    "E_TARGET_PRECISION",
    "E_THRESHOLDS_FILE",
    "E_THRESHOLDS_MODEL",
    "E_THRESHOLDS_SCORE",
]

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
E_DECISION_FILE = Message(
    "E330",
    "{path}: not an answer decision file (nli_faith.scoring.answer_decision) ({problem}).",
)
E_DECISION_FIELD = Message("E331", "{path}: field {field!r} of the answer decision {problem}.")
E_DECISION_NEEDS_LABELS = Message(
    "E332",
    "fitting an answer decision needs faithful and unfaithful records in both halves: the "
    "calibration half holds {n_pos} faithful and {n_neg} unfaithful scored records.",
)
