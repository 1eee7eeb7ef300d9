"""Prepare what a lent GPU machine needs to train the model issue's models, in pieces.

The device tool sends at most 64 MiB a call (the tracked working tree included) and
the machine keeps its disk only while warm (30 s between calls). This packs the mpnet
base (fp16), the current bundled model (the student's starting point) and the NLI
training data into one tar, split into pieces that each fit one call's ``carry``:

    python scripts/gpu_training/prepare.py --data ../shared/data/nli -o .carry

Then follow scripts/gpu_training/README.md call by call.
"""

from __future__ import annotations

import argparse
import io
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _mpnet_fp16(work: Path) -> Path:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from nli_faith.training.parts import assemble

    base = assemble("all-mpnet-base-v2", work / "base") / "all-mpnet-base-v2"
    out = work / "mpnet-fp16"
    model = AutoModelForSequenceClassification.from_pretrained(
        base, num_labels=3, dtype=torch.float32
    )
    model.half().save_pretrained(out)
    AutoTokenizer.from_pretrained(base).save_pretrained(out)
    return out


def _synthetic(args: argparse.Namespace, run: str) -> Path:
    """The synthetic sets ``python -m research.train --synthetic --dev-fraction 0.02`` would
    make."""
    from nli_faith.training.rows import load_training_rows
    from nli_faith.training.train import TrainConfig
    from research.augment import Synthesis

    out = args.work / "runs" / run
    cfg = TrainConfig(
        base_model="unused",
        train_files=[str(args.data / "train"), str(args.data / "train-extra")],
        output_dir=str(out),
        dev_fraction=0.02,
    )
    # writes OUTPUT/synthetic/, which the training run reuses
    load_training_rows(cfg, Synthesis(output_dir=str(out), synthetic=True))
    return out / "synthetic"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, type=Path, help="the shared nli/ data folder")
    ap.add_argument("-o", "--output", default=REPO / ".carry", type=Path)
    ap.add_argument("--piece-mb", type=int, default=60)
    ap.add_argument("--work", default=Path("/tmp/nli-faith-gpu-prep"), type=Path)
    ap.add_argument(
        "--synthetic",
        action="store_true",
        help="also generate the spaCy-made synthetic sets here (the GPU image has no spaCy) "
        "for runs/mpnet and runs/student, with the dev split of the recipe (--dev-fraction 0.02)",
    )
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    mpnet = _mpnet_fp16(args.work)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(mpnet, arcname="stage/mpnet-fp16")
        tar.add(REPO / "models" / "nli-faith-minilm-l6", arcname="stage/minilm")
        for split in ("train", "train-extra"):
            tar.add(args.data / split, arcname=f"stage/data/{split}")
        if args.synthetic:
            for run in ("mpnet", "student"):
                tar.add(_synthetic(args, run), arcname=f"runs/{run}/synthetic")
    data = buf.getvalue()
    size = args.piece_mb << 20
    args.output.mkdir(parents=True, exist_ok=True)
    n = 0
    for n, start in enumerate(range(0, len(data), size), start=1):
        folder = args.output / f"c{n}"
        folder.mkdir(exist_ok=True)
        (folder / f"stage.tgz.{n:02d}").write_bytes(data[start : start + size])
    print(f"{len(data) / 2**20:.0f} MiB in {n} pieces under {args.output}/c1..c{n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
