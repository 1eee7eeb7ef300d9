"""A model's identity for saved thresholds: its name and a SHA-256 of its weight files.

Thresholds calibrated on one model mean nothing for another (a different model gives
different probabilities), so a thresholds file records which weights it was made for.

Example:
    >>> from nli_faith.nli.registry import resolve_model
    >>> len(weights_sha256(resolve_model("default").path))
    64
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

#: Weight files hashed, in this order of preference (the first kind present is used).
WEIGHT_PATTERNS = ("*.safetensors", "pytorch_model*.bin", "*.onnx")


def _weight_files(folder: Path) -> list[Path]:
    for pattern in WEIGHT_PATTERNS:
        files = sorted(p for p in folder.glob(pattern) if p.is_file())
        if files:
            return files
    return []


@lru_cache(maxsize=32)
def _hash_files(files: tuple[tuple[str, int, int], ...]) -> str:
    """SHA-256 over the files' names and bytes; cached on (path, size, mtime)."""
    h = hashlib.sha256()
    for path, _, _ in files:
        h.update(Path(path).name.encode())
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def weights_sha256(path: str) -> str | None:
    """SHA-256 of a checkpoint's weights (a local folder or a hub id in the local cache).

    ``None`` when no weight file can be found without the network.
    """
    folder = Path(path).expanduser()
    if not folder.is_dir():
        folder = _hub_snapshot(path)
        if folder is None:
            return None
    files = _weight_files(folder)
    if not files:
        return None
    key = tuple((str(p.resolve()), p.stat().st_size, p.stat().st_mtime_ns) for p in files)
    return _hash_files(key)


def _hub_snapshot(repo_id: str) -> Path | None:
    """The cached snapshot folder of a hub model, if it was downloaded before."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover - a transformers dependency
        return None
    found = try_to_load_from_cache(repo_id, "config.json")
    return Path(found).parent if isinstance(found, str) else None
