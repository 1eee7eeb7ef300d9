"""The checks of the scorer's options, shared by the configuration and the stages, and
the named choices they check against: a threshold in [0, 1], a whole number, a flag, a
batch size, a label map. The stages import them from here, so that a configuration can
be checked without importing a stage.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any

from nli_faith.errors import (
    E_BATCH_SIZE,
    E_LABEL_MAP_TYPE,
    E_OPTION_TYPE,
    E_PREFILTER_TOP_K,
    E_THRESHOLD,
    E_WHOLE_NUMBER,
    LabelMapError,
    OptionError,
)
from nli_faith.records import is_whole

#: The NLI runtimes (``backend``).
BACKENDS = ("torch", "onnx")
#: How a response is split into claims (``granularity``).
GRANULARITIES = ("sentence", "clause")
#: The pre-filters (``prefilter``).
PREFILTERS = ("lexical", "embedding")
#: How a composite premise picks its sentences (``composite_premise``).
COMPOSITE_PREMISES = ("covering", "ranked")


def whole_number(name: str, value: object, *, least: int) -> int:
    """``value`` if it is an ``int`` (not a bool) of at least ``least``, else ``ValueError``.

    Example:
        >>> whole_number("chunk_overlap", -1, least=0)
        Traceback (most recent call last):
        ...
        nli_faith.exceptions.OptionError: chunk_overlap must be a whole number of at least 0, \
got -1.
    """
    if not is_whole(value, least):
        raise OptionError(E_WHOLE_NUMBER.format(name=name, least=least, value=value))
    return int(value)


def check_threshold(name: str, value: float) -> float:
    """``value`` as a float if it is a number in [0, 1] (not a bool), else ``ValueError``."""
    if isinstance(value, bool) or not isinstance(value, Real) or not 0.0 <= float(value) <= 1.0:
        raise OptionError(E_THRESHOLD.format(name=name, value=value))
    return float(value)


def check_batch_size(value: object) -> int:
    """``value`` if it is a whole number of at least 1 (not a bool), else ``ValueError``."""
    if not is_whole(value):
        raise OptionError(E_BATCH_SIZE.format(batch_size=value))
    return int(value)


def check_top_k(top_k: object) -> int:
    """``top_k`` if it is a whole number of at least 1, else ``OptionError`` (E023)."""
    if not is_whole(top_k):
        raise OptionError(E_PREFILTER_TOP_K.format(top_k=top_k))
    return int(top_k)


def check_label_map(mapping: object) -> None:
    """A ``LabelMapError`` unless ``mapping`` maps label names (str) to indices (int).

    Example:
        >>> check_label_map({"entailment": 0, "contradiction": 2})
        >>> check_label_map("entailment=0")
        Traceback (most recent call last):
        ...
        nli_faith.exceptions.LabelMapError: label_map must be a mapping of label names to \
output indices, such as {'entailment': 0, 'contradiction': 2}, got 'entailment=0'.
    """
    if not isinstance(mapping, Mapping) or not all(
        isinstance(k, str) and isinstance(v, Integral) and not isinstance(v, bool)
        for k, v in mapping.items()
    ):
        raise LabelMapError(E_LABEL_MAP_TYPE.format(value=mapping))


def check_flag(name: str, value: object) -> bool:
    """``value`` if it is ``True`` or ``False``, else ``OptionError`` naming ``name``."""
    if not isinstance(value, bool):
        raise OptionError(E_OPTION_TYPE.format(name=name, expected="True or False", value=value))
    return value


def check_composite_premise(name: str, value: object) -> str:
    """``value`` if it is one of :data:`COMPOSITE_PREMISES`, else ``OptionError`` naming ``name``.

    Example:
        >>> check_composite_premise("composite_premise", "minicheck")
        Traceback (most recent call last):
        ...
        nli_faith.exceptions.OptionError: composite_premise must be one of 'covering', \
'ranked', got 'minicheck'.
    """
    if not isinstance(value, str) or value not in COMPOSITE_PREMISES:
        expected = "one of " + ", ".join(map(repr, COMPOSITE_PREMISES))
        raise OptionError(E_OPTION_TYPE.format(name=name, expected=expected, value=value))
    return value


#: The settings a loaded scorer may change (``scorer.entail_threshold = 0.7``), each
#: checked as the configuration checks it (:func:`check_setting`).
_SETTING_CHECKS = {
    "entail_threshold": check_threshold,
    "contradict_threshold": check_threshold,
    "contradiction_overlap": check_threshold,
    "sentence_chunks": check_flag,
    "number_check": check_flag,
    "early_exit": check_flag,
    "composite": check_flag,
    "composite_premise": check_composite_premise,
    "chunk_overlap": lambda name, value: whole_number(name, value, least=0),
    "chunk_tokens": lambda name, v: v if v is None else whole_number(name, v, least=1),
}


def check_setting(name: str, value: Any) -> Any:
    """``value`` for the option ``name``, checked as the configuration checks it (a
    threshold as a float, a flag, a whole number); a name without a check is returned as is."""
    check = _SETTING_CHECKS.get(name)
    return value if check is None else check(name, value)
