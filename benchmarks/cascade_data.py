"""Claim-level human labels and their cached NLI matrices, for the cascade benchmark.

``qags_cnndm`` and ``qags_xsum`` carry per-sentence gold in ``claims`` (label 1 = the
sentence is supported by the article). Each gold sentence is scored as one claim
against the record's context with the default scorer's chunking; the full matrices
(every chunk, no pre-filter, no early exit) are pickled once, so every band setting
is a cheap re-aggregation.
"""

from __future__ import annotations

import json
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .metrics import split_by_id

#: The visible sets with per-sentence gold.
CLAIM_SETS = ("qags_cnndm", "qags_xsum")


@dataclass(frozen=True)
class LabelledRecord:
    """One response whose claims carry human labels (1 = supported)."""

    set: str
    id: str
    context: list[str]
    claims: list[str]
    labels: list[int]


def load_claim_records(data_dir: Path, sets: tuple[str, ...] = CLAIM_SETS) -> list[LabelledRecord]:
    """Records of ``sets`` with at least one labelled claim, in file order."""
    out = []
    for name in sets:
        with (data_dir / "faithfulness" / f"{name}.jsonl").open(encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    continue
                rec = json.loads(line)
                claims = [c for c in rec.get("claims") or [] if c["text"].strip()]
                if not claims:
                    continue
                out.append(
                    LabelledRecord(
                        set=name,
                        id=rec["id"],
                        context=list(rec["context"]),
                        claims=[c["text"] for c in claims],
                        labels=[int(c["label"]) for c in claims],
                    )
                )
    return out


def report_half(records: list[LabelledRecord]) -> np.ndarray:
    """``True`` for records of the report half (seeded hash of the record id)."""
    return split_by_id([r.id for r in records])


def build_matrices(scorer, records: list[LabelledRecord], cache: Path | None) -> list[Any]:
    """Full-scan NLI matrices, one per record, with the gold sentences as the claims.

    Pickled in ``cache``, keyed by the record ids and the claims, the library's source and
    the model's weights (so a change to chunking or to the model is never served stale):
    a re-run of the same code is instant.
    """
    from nli_faith.engine import infer
    from nli_faith.engine.infer import NLIMatrix
    from nli_faith.engine.plan import Plan
    from nli_faith.nli.fingerprint import weights_sha256
    from nli_faith.text.claims import Claim

    key = [
        ("library", _source_sha256(), weights_sha256(scorer.nli.path)),
        *[(r.set, r.id, tuple(r.claims)) for r in records],
    ]
    if cache is not None and cache.exists():
        with cache.open("rb") as fh:
            saved = pickle.load(fh)
        if saved["key"] == key:
            return saved["mats"]
    plans = []
    for r in records:
        claims = [Claim(text, 0, len(text)) for text in r.claims]
        chunks = scorer.stages.chunks(r.context, claims)
        plans.append(Plan(claims, chunks, np.ones((len(claims), len(chunks)), dtype=bool)))
    mats = infer.fill(scorer.parts, plans, True)
    mats = [NLIMatrix(m.claims, m.chunks, m.probs, m.mask) for m in mats]
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        with cache.open("wb") as fh:
            pickle.dump({"key": key, "mats": mats}, fh)
    return mats


def _source_sha256() -> str:
    """SHA-256 of the ``nli_faith`` package's Python source (paths and bytes)."""
    import hashlib

    import nli_faith

    root = Path(nli_faith.__file__).parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()
