"""Pack what one device call needs to fine-tune the bundled model on a GPU, in one file.

The call sends at most 64 MiB: the tracked tree without the two ONNX graphs and the
second bundled model (about 46 MiB, the starting point's fp16 weights included) plus this
tar.xz (about 13 MiB):

    python scripts/gpu_training/pack_finetune.py --data ../shared/data --mix runs/mixC -o .carry

It holds every ``nli/train`` and ``nli/train-extra`` row whose premise has at most
``--max-premise-words`` words, shuffled with a fixed seed (``nli_all.jsonl``), and the
task mix's ``train.jsonl``, ``replay.jsonl`` and ``dev_select.jsonl`` (from
``python -m research.taskmix``). ``finetune_pair.sh`` reads it on the machine.
"""

from __future__ import annotations

import argparse
import json
import random
import tarfile
from pathlib import Path

MIX_FILES = ("train.jsonl", "replay.jsonl", "dev_select.jsonl")


def nli_rows(data: Path, max_words: int, seed: int) -> list[str]:
    lines = []
    paths = [
        *(data / "nli" / "train").glob("*.jsonl"),
        *(data / "nli" / "train-extra").glob("*.jsonl"),
    ]
    for path in sorted(map(str, paths)):  # train-extra/ sorts before train/
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if len(json.loads(line)["premise"].split()) <= max_words:
                    lines.append(line if line.endswith("\n") else line + "\n")
    random.Random(seed).shuffle(lines)
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, type=Path, help="the shared data folder")
    ap.add_argument("--mix", required=True, type=Path, help="a taskmix output folder")
    ap.add_argument("-o", "--output", default=Path(".carry"), type=Path)
    ap.add_argument("--max-premise-words", type=int, default=220)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--nli-rows", type=int, help="keep only the first N shuffled rows")
    ap.add_argument("--name", default="data.tar.xz", help="the archive's file name")
    args = ap.parse_args(argv)
    stage = args.output / "data"
    stage.mkdir(parents=True, exist_ok=True)
    rows = nli_rows(args.data, args.max_premise_words, args.seed)[: args.nli_rows]
    (stage / "nli_all.jsonl").write_text("".join(rows), encoding="utf-8")
    for name in MIX_FILES:
        (stage / name).write_bytes((args.mix / name).read_bytes())
    target = args.output / args.name
    with tarfile.open(target, "w:xz") as tar:
        tar.add(stage, arcname="data")
    print(f"{len(rows)} NLI rows; wrote {target} ({target.stat().st_size / 2**20:.1f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
