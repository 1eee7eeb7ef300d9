"""Mapping a model's output indices to entailment / neutral / contradiction.

The label indices are read from ``config.id2label`` (names matched
case-insensitively), or given by the user. Two-way models (entailment vs.
not-entailment, supported vs. unsupported, consistent vs. hallucinated) are
supported: their "no" class is kept as ``not_entailment`` and counts neither
as neutral nor as contradiction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from nli_faith.checks import check_label_map as check_label_map
from nli_faith.errors import (
    E_LABEL_MAP_INDEX,
    E_LABEL_MAP_KEY,
    E_LABEL_MAP_NO_ENTAIL,
    E_LABEL_MAP_TWICE,
    E_UNKNOWN_LABELS,
    LabelMapError,
)

ENTAILMENT = "entailment"
NEUTRAL = "neutral"
CONTRADICTION = "contradiction"
NOT_ENTAILMENT = "not_entailment"

#: Output order of the NLI probability matrix: ``[..., (entail, neutral, contradict)]``.
CANONICAL_LABELS: tuple[str, str, str] = (ENTAILMENT, NEUTRAL, CONTRADICTION)
ENTAIL_IDX, NEUTRAL_IDX, CONTRADICT_IDX = 0, 1, 2

_SYNONYMS: dict[str, str] = {
    "entailment": ENTAILMENT,
    "entailed": ENTAILMENT,
    "entails": ENTAILMENT,
    "supported": ENTAILMENT,
    "supports": ENTAILMENT,
    "support": ENTAILMENT,
    "consistent": ENTAILMENT,
    "faithful": ENTAILMENT,
    "true": ENTAILMENT,
    "neutral": NEUTRAL,
    "not_enough_info": NEUTRAL,
    "nei": NEUTRAL,
    "contradiction": CONTRADICTION,
    "contradicted": CONTRADICTION,
    "contradicts": CONTRADICTION,
    "refutes": CONTRADICTION,
    "refuted": CONTRADICTION,
    "not_entailment": NOT_ENTAILMENT,
    "non_entailment": NOT_ENTAILMENT,
    "not_entailed": NOT_ENTAILMENT,
    "unsupported": NOT_ENTAILMENT,
    "not_supported": NOT_ENTAILMENT,
    "inconsistent": NOT_ENTAILMENT,
    "hallucinated": NOT_ENTAILMENT,
    "hallucination": NOT_ENTAILMENT,
    "false": NOT_ENTAILMENT,
}


def _normalise(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


@dataclass(frozen=True)
class LabelMap:
    """Output indices of a classifier, by canonical label.

    ``neutral`` and ``contradiction`` are ``None`` for a two-way model, whose
    negative class is ``not_entailment``.

    Example:
        >>> m = LabelMap.from_id2label({0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"})
        >>> (m.entailment, m.neutral, m.contradiction)
        (1, 2, 0)
    """

    entailment: int
    num_labels: int
    neutral: int | None = None
    contradiction: int | None = None
    not_entailment: int | None = None

    @property
    def is_binary(self) -> bool:
        return self.contradiction is None and self.neutral is None

    @classmethod
    def from_id2label(cls, id2label: Mapping[int | str, str], *, model: str = "?") -> LabelMap:
        found: dict[str, int] = {}
        for idx, name in id2label.items():
            canon = _SYNONYMS.get(_normalise(str(name)))
            if canon is not None and canon not in found:
                found[canon] = int(idx)
        if ENTAILMENT not in found or not ({NEUTRAL, CONTRADICTION, NOT_ENTAILMENT} & set(found)):
            raise LabelMapError(E_UNKNOWN_LABELS.format(labels=dict(id2label), model=model))
        return cls.from_mapping(found, num_labels=len(id2label))

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, int], *, num_labels: int) -> LabelMap:
        """Build from ``{"entailment": i, "contradiction": j, ...}`` (user override)."""
        check_label_map(mapping)
        clean: dict[str, int] = {}
        for key, index in mapping.items():
            canon = _SYNONYMS.get(_normalise(key))
            if canon is None:
                raise LabelMapError(E_LABEL_MAP_KEY.format(key=key))
            if canon in clean:
                raise LabelMapError(
                    E_LABEL_MAP_TWICE.format(label_map=dict(mapping), what=f"the label {canon!r}")
                )
            if int(index) in clean.values():
                raise LabelMapError(
                    E_LABEL_MAP_TWICE.format(label_map=dict(mapping), what=f"the index {index}")
                )
            if not 0 <= index < num_labels:
                raise LabelMapError(
                    E_LABEL_MAP_INDEX.format(
                        label_map=dict(mapping), index=index, num_labels=num_labels
                    )
                )
            clean[canon] = int(index)
        if ENTAILMENT not in clean:
            raise LabelMapError(E_LABEL_MAP_NO_ENTAIL.format(label_map=dict(mapping)))
        return cls(
            entailment=clean[ENTAILMENT],
            neutral=clean.get(NEUTRAL),
            contradiction=clean.get(CONTRADICTION),
            not_entailment=clean.get(NOT_ENTAILMENT),
            num_labels=num_labels,
        )

    def to_canonical(self, probs):  # numpy array [..., num_labels] -> [..., 3]
        """Reorder softmax outputs into ``(entail, neutral, contradict)``.

        A two-way model's negative mass goes to ``neutral`` (it says "not
        supported", never "contradicted"), so such a model yields no ``no``
        verdicts.
        """
        import numpy as np

        out = np.zeros(probs.shape[:-1] + (3,), dtype=np.float32)
        out[..., ENTAIL_IDX] = probs[..., self.entailment]
        if self.contradiction is not None:
            out[..., CONTRADICT_IDX] = probs[..., self.contradiction]
        out[..., NEUTRAL_IDX] = 1.0 - out[..., ENTAIL_IDX] - out[..., CONTRADICT_IDX]
        return out
