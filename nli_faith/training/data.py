"""Reading ``{premise, hypothesis, label}`` JSONL files for training and evaluation."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nli_faith.errors import (
    E_DATA_FIELD,
    E_DATA_LABEL,
    E_DEV_FRACTION,
    E_MERGE_JSON,
    E_MERGE_NOT_OBJECT,
    DataError,
    OptionError,
)
from nli_faith.records import JSONInputError, load_json

#: Training targets. 0..2 are the 3-way classes in canonical order; 3 marks a
#: binary ``not_entailment`` row, whose loss is on P(neutral) + P(contradiction).
LABEL_IDS: dict[str, int] = {
    "entailment": 0,
    "neutral": 1,
    "contradiction": 2,
    "not_entailment": 3,
    "non_entailment": 3,
}
NOT_ENTAILMENT_ID = 3


@dataclass(frozen=True)
class NLIExample:
    premise: str
    hypothesis: str
    label: int
    source: str = ""


def read_nli_jsonl(path: str | Path) -> list[NLIExample]:
    """Read one NLI JSONL file; a malformed row raises :class:`DataError` naming its line."""
    path = Path(path)
    rows: list[NLIExample] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = load_json(line)
            except JSONInputError as err:
                raise DataError(E_MERGE_JSON.format(path=path, line=lineno, error=err)) from None
            if not isinstance(rec, dict):
                raise DataError(E_MERGE_NOT_OBJECT.format(path=path, line=lineno))
            for field in ("premise", "hypothesis", "label"):
                if not isinstance(rec.get(field), str):
                    raise DataError(E_DATA_FIELD.format(path=path, line=lineno, field=field))
            label = rec["label"].strip().lower()
            if label not in LABEL_IDS:
                raise DataError(
                    E_DATA_LABEL.format(
                        path=path, line=lineno, label=rec["label"], allowed=sorted(LABEL_IDS)
                    )
                )
            rows.append(
                NLIExample(
                    rec["premise"],
                    rec["hypothesis"],
                    LABEL_IDS[label],
                    rec.get("source", path.stem),
                )
            )
    return rows


def expand_paths(paths: list[str | Path]) -> list[Path]:
    """Files as given; a directory stands for every ``*.jsonl`` in it, sorted."""
    out: list[Path] = []
    for p in map(Path, paths):
        out.extend(sorted(p.glob("*.jsonl")) if p.is_dir() else [p])
    return out


def in_dev(key: str, *, fraction: float, seed: int) -> bool:
    """Whether ``key`` (a premise, a document id) falls in the seeded development split."""
    import hashlib

    h = int.from_bytes(hashlib.sha1(f"{seed}\x1f{key}".encode()).digest()[:4], "big")
    return h < int(fraction * 2**32)


def split_dev(
    rows: list[NLIExample], *, fraction: float, seed: int = 7
) -> tuple[list[NLIExample], list[NLIExample]]:
    """A seeded development split carved from training rows, by premise.

    Every row of a premise goes to the same side, so a sibling hypothesis of a
    development premise never leaks into training. Evaluation files are never
    used for model selection: this split is.

    >>> rows = [NLIExample(f"premise {i}", "h", 0) for i in range(1000)]
    >>> train, dev = split_dev(rows, fraction=0.1)
    >>> len(train) + len(dev), 60 < len(dev) < 140
    (1000, True)
    """
    if not 0 <= fraction < 1:
        raise OptionError(E_DEV_FRACTION.format(fraction=fraction))
    train: list[NLIExample] = []
    dev: list[NLIExample] = []
    for r in rows:
        (dev if in_dev(r.premise, fraction=fraction, seed=seed) else train).append(r)
    return train, dev
