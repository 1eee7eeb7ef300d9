"""Both halves of bringing a frozen-embeddings fine-tune back from the GPU machine.

There (``export``): every tensor but the word embeddings, in fp16, is 21 MiB against the
whole model's 45, so two fine-tunes come back in one call (16 MiB a file: split it).
Here (``join``): the bundled model's word embeddings are put back; the result is a model
folder like any other.

    python3 export_delta.py export OUT_DIR RUN_DIR [RUN_DIR ...]      # on the machine
    python export_delta.py join PIECES_DIR NAME -o runs/gB/model      # here
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

BASE = Path(__file__).resolve().parents[2] / "models" / "nli-faith-minilm-l6"
EMBEDDINGS = "word_embeddings.weight"


def _embedding_key(state: dict) -> str:
    return next(k for k in state if k.endswith(EMBEDDINGS))


def export(out: Path, runs: list[Path]) -> None:
    import torch
    from safetensors.torch import load_file, save_file

    base = load_file(str(BASE / "model.safetensors"))
    out.mkdir(parents=True, exist_ok=True)
    for run in runs:
        folder = run / "model"
        info: dict = {"name": run.name}
        if not (folder / "model.safetensors").exists():  # stopped by --time-budget
            checkpoints = sorted(
                (run / "checkpoints").glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1])
            )
            if not checkpoints:
                print(f"{run.name}: no model and no checkpoint")
                continue
            folder = checkpoints[-1]
            info["from_checkpoint"] = str(folder)
        state = load_file(str(folder / "model.safetensors"))
        key = _embedding_key(state)
        change = (state[key].float() - base[key].float()).abs().max().item()
        info["word_embeddings_max_change"] = change
        delta = {k: v.to(torch.float16).contiguous() for k, v in state.items() if k != key}
        save_file(delta, str(out / f"{run.name}.safetensors"))
        summary = run / "train_summary.json"
        info["summary"] = json.loads(summary.read_text()) if summary.exists() else None
        info["config"] = json.loads((folder / "config.json").read_text())
        states = sorted((run / "checkpoints").glob("checkpoint-*/trainer_state.json"))
        if states:
            info["log_history"] = json.loads(states[-1].read_text()).get("log_history")
        (out / f"{run.name}.json").write_text(json.dumps(info, indent=1))
        print(f"{run.name}: {len(delta)} tensors; embeddings changed by {change}")


def join(pieces: Path, name: str, output: Path) -> None:
    from safetensors.torch import load, load_file, save_file

    blob = b"".join(p.read_bytes() for p in sorted(pieces.glob(f"{name}.st.*")))
    state = load(blob)
    base = load_file(str(BASE / "model.safetensors"))
    key = _embedding_key(base)
    state[key] = base[key]
    if set(state) != set(base):
        odd = set(state) ^ set(base)
        raise SystemExit(f"{name}: tensors differ from the bundled model's: {sorted(odd)}")
    single = pieces / f"{name}.json"  # one file a run, or all runs in runs.json
    if single.exists():
        info = json.loads(single.read_text())
    else:
        info = json.loads((pieces / "runs.json").read_text())[name]
    output.mkdir(parents=True, exist_ok=True)
    save_file(state, str(output / "model.safetensors"), metadata={"format": "pt"})
    (output / "config.json").write_text(json.dumps(info["config"], indent=2) + "\n")
    for tok in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(BASE / tok, output / tok)
    (output.parent / "train_summary.json").write_text(json.dumps(info["summary"], indent=1) + "\n")
    print(f"wrote {output}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export")
    e.add_argument("out", type=Path)
    e.add_argument("runs", nargs="+", type=Path)
    j = sub.add_parser("join")
    j.add_argument("pieces", type=Path)
    j.add_argument("name")
    j.add_argument("-o", "--output", required=True, type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "export":
        export(args.out, args.runs)
    else:
        join(args.pieces, args.name, args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
