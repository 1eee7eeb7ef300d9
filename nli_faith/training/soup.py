"""Weight averaging of fine-tuned NLI models (a "model soup", WiSE-FT style).

A model fine-tuned on task-shaped pairs gains on the task and forgets some of what its
start knew; averaging its weights with the start's, ``(1 - w) * A + w * B``, often keeps
most of both. With several fine-tuned models (each fine-tuned from the same start on a
different mix), ``B`` is their uniform average, a "uniform soup". ``--grid`` tries several
weights and keeps the one with the best mean accuracy over development files carved from
the *training* data (never evaluation sets):

```bash
python -m nli_faith.training.soup default runs/rag/model runs/joint/model -o runs/soup \\
  --grid 0 0.25 0.5 0.75 1 --dev mix/dev_select.jsonl mix2/dev_confusions.jsonl
```

All models must share an architecture and a tokenizer (the fine-tuned ones start from
the first). The output folder holds the averaged fp16 or fp32 weights, the first model's
config and tokenizer, and ``soup.json`` (the weights tried and their development figures).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np

from nli_faith.nli.registry import resolve_model

_COPIED = ("config.json", "tokenizer.json", "tokenizer_config.json")


def _weights(folder: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def interpolate(a: dict, b: dict, weight: float) -> dict:
    """``(1 - weight) * a + weight * b`` for every floating tensor (others from ``a``)."""
    if a.keys() != b.keys():
        missing = sorted(a.keys() ^ b.keys())[:5]
        raise ValueError(f"the two models do not share their parameters (e.g. {missing})")
    out = {}
    for name, ta in a.items():
        tb = b[name]
        if ta.shape != tb.shape:
            raise ValueError(f"parameter {name!r}: shapes {tuple(ta.shape)} and {tuple(tb.shape)}")
        if ta.is_floating_point():
            mixed = (1.0 - weight) * ta.float() + weight * tb.float()
            out[name] = mixed.to(ta.dtype)
        else:
            out[name] = ta.clone()
    return out


def average(models: list[dict]) -> dict:
    """The uniform average of several models' weights (the first model's non-float tensors)."""
    out = models[0]
    for i, other in enumerate(models[1:], start=2):
        # the running mean of i models: (i - 1) / i of the first i - 1, 1 / i of the i-th
        out = interpolate(out, other, 1.0 / i)
    return out


def write_model(source: Path, weights: dict, out: Path, *, fp16: bool = False) -> None:
    """Save ``weights`` with the config and tokenizer of ``source`` into ``out``."""
    import torch
    from safetensors.torch import save_file

    out.mkdir(parents=True, exist_ok=True)
    for name in _COPIED:
        if (source / name).exists():
            shutil.copy2(source / name, out / name)
    tensors = {
        k: (v.half() if fp16 and v.dtype == torch.float32 else v).contiguous()
        for k, v in weights.items()
    }
    save_file(tensors, str(out / "model.safetensors"), metadata={"format": "pt"})


def dev_accuracy(model_dir: Path, files: list[Path], *, batch_size: int = 32) -> dict[str, float]:
    """Accuracy of the model in ``model_dir`` on each development file (see ``evaluate``)."""
    from nli_faith.nli.model import NLIModel

    from .evaluate import evaluate_files

    nli = NLIModel(str(model_dir), device="cpu", dtype="float32", batch_size=batch_size)
    return {k: v["accuracy"] for k, v in evaluate_files(nli, files).items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m nli_faith.training.soup", description=__doc__)
    ap.add_argument("model_a", help="the start (registry name or folder)")
    ap.add_argument(
        "model_b", nargs="+", help="the fine-tuned model(s) (folders); several are averaged"
    )
    ap.add_argument("-o", "--output", type=Path, required=True)
    ap.add_argument("--weight", type=float, default=0.5, help="share of model_b (default 0.5)")
    ap.add_argument("--grid", type=float, nargs="+", help="weights to try; needs --dev")
    ap.add_argument("--dev", type=Path, nargs="+", help="development files that pick the weight")
    ap.add_argument("--fp16", action="store_true", help="save the weights in float16")
    args = ap.parse_args(argv)
    if args.grid and not args.dev:
        ap.error("--grid needs --dev (development files carved from the training data)")
    for w in args.grid or [args.weight]:
        if not 0.0 <= w <= 1.0:
            ap.error(f"weight {w} is outside [0, 1]")
    src_a = Path(resolve_model(args.model_a).path)
    a = _weights(src_a)
    b = average([_weights(Path(resolve_model(m).path)) for m in args.model_b])
    model_b = args.model_b[0] if len(args.model_b) == 1 else args.model_b
    report: dict = {"model_a": args.model_a, "model_b": model_b, "tried": {}}
    chosen = args.weight
    if args.grid:
        for w in args.grid:
            trial = args.output / f"trial-{w:g}"
            write_model(src_a, interpolate(a, b, w), trial)
            acc = dev_accuracy(trial, args.dev)
            report["tried"][f"{w:g}"] = {**acc, "mean": float(np.mean(list(acc.values())))}
            shutil.rmtree(trial)
            print(f"weight {w:g}: {json.dumps(report['tried'][f'{w:g}'])}", flush=True)
        chosen = max(args.grid, key=lambda w: report["tried"][f"{w:g}"]["mean"])
    write_model(src_a, interpolate(a, b, chosen), args.output, fp16=args.fp16)
    report["weight"] = chosen
    report["dev_files"] = [str(p) for p in args.dev or []]
    (args.output / "soup.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.output} (weight {chosen:g} of {args.model_b})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
