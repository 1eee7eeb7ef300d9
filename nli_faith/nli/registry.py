"""Known NLI models: the bundled default and well-known hub checkpoints.

The table lives in ``models/registry.json`` (installed as the package data
``nli_faith.models``). Each entry gives a hub id or a bundled folder, the label
map (output index of each label) and the maximum pair length.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from nli_faith.errors import E_MODEL_NAME, ModelLoadError

DEFAULT_MODEL = "default"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    path: str  # local directory or hub id, as given to from_pretrained
    label_map: dict[str, int] | None = None
    max_length: int | None = None
    bundled: bool = False


def models_dir() -> Path:
    """The folder that holds the registry and the bundled model."""
    repo = Path(__file__).resolve().parents[2] / "models"
    if (repo / "registry.json").is_file():  # running from a checkout or editable install
        return repo
    return Path(str(resources.files("nli_faith.models")))


@lru_cache(maxsize=1)
def _table() -> dict[str, dict]:
    data = json.loads((models_dir() / "registry.json").read_text(encoding="utf-8"))
    return data["models"] | {DEFAULT_MODEL: data["models"][data["default"]]}


def known_names() -> list[str]:
    return sorted(_table())


def resolve_model(model: str) -> ModelSpec:
    """Registry name -> spec; anything else is a local path or a hub id, passed through.

    A name that is not a non-empty string is a :class:`~nli_faith.errors.ModelLoadError`
    (an empty one would otherwise load the current directory).
    """
    if isinstance(model, os.PathLike):
        model = os.fspath(model)
    if not isinstance(model, str) or not model.strip():
        raise ModelLoadError(E_MODEL_NAME.format(value=model))
    entry = _table().get(model)
    if entry is None:
        local = Path(model).expanduser()
        return ModelSpec(name=model, path=str(local) if local.exists() else model)
    bundled = "folder" in entry
    path = str(models_dir() / entry["folder"]) if bundled else entry["hub_id"]
    name = entry.get("folder") or entry["hub_id"]
    return ModelSpec(
        name=name,
        path=path,
        label_map=entry.get("label_map"),
        max_length=entry.get("max_length"),
        bundled=bundled,
    )


#: Beside a checkpoint's weights: the decision thresholds chosen for that model.
DECISION_FILE = "decision.json"
DECISION_KEYS = ("entail_threshold", "contradict_threshold", "band_high", "band_low")


def decision_defaults(path: str) -> dict[str, float]:
    """The decision thresholds a local checkpoint ships in ``decision.json``, else ``{}``.

    ``nli-faith train`` users and the bundled model write the thresholds they chose on a
    development split there; the scorer takes them for every threshold it is not given.
    Only the keys of :data:`DECISION_KEYS` are read.
    """
    file = Path(path) / DECISION_FILE
    if not file.is_file():
        return {}
    data = json.loads(file.read_text(encoding="utf-8"))
    return {k: float(data[k]) for k in DECISION_KEYS if k in data}
