"""CPU fine-tuning speed of the bundled model: which recipe affords the most pairs an hour.

For every setting (fp32 or bf16 autocast; 128 / 256 / 512 tokens; nothing frozen, the
embeddings frozen, or the embeddings and the two lowest layers frozen) it times full
training steps (forward, the NLI loss, backward, AdamW) on batches of real pairs cut or
padded to exactly that length, and reports pairs/s and tokens/s (median of the timed
steps after one warm-up step).

    python -m research.studies run train_speed --steps 4 --batch-size 16 --threads 2

Run it alone: a second job on the cores makes every figure several times slower.
"""

from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

from benchmarks.harness import DEFAULT_DATA_DIR, Outcome, table

TITLE = "CPU fine-tuning speed of the bundled model"
FREEZE = {"none": (False, 0), "embeddings": (True, 0), "embeddings+2 layers": (True, 2)}


def _batches(tokenizer, length: int, batch_size: int, n: int, data: Path):
    import torch

    from nli_faith.training.data import read_nli_jsonl

    rows = read_nli_jsonl(data / "faith-train" / "factcg_cg2c_doc.jsonl")[: batch_size * n]
    enc = tokenizer(
        [r.premise * 4 for r in rows],  # long enough to fill 512 tokens
        [r.hypothesis for r in rows],
        truncation="only_first",
        max_length=length,
        padding="max_length",
        return_tensors="pt",
    )
    labels = torch.tensor([r.label for r in rows]).clamp(max=2)
    for i in range(n):
        sl = slice(i * batch_size, (i + 1) * batch_size)
        yield {k: v[sl] for k, v in enc.items()}, labels[sl]


def time_setting(
    model_name: str,
    *,
    dtype: str,
    length: int,
    freeze_name: str,
    steps: int,
    batch_size: int,
    data: Path,
) -> dict:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from nli_faith.nli.registry import resolve_model
    from nli_faith.training.trainer import freeze, gold_loss

    path = resolve_model(model_name).path
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForSequenceClassification.from_pretrained(path, dtype=torch.float32)
    emb, layers = FREEZE[freeze_name]
    freeze(model, embeddings=emb, layers=layers)
    model.train()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5)
    times = []
    for inputs, labels in _batches(tok, length, batch_size, steps + 1, data):
        t = time.perf_counter()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=dtype == "bf16"):
            logits = model(**inputs).logits
        loss = gold_loss(logits, labels)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        times.append(time.perf_counter() - t)
    step = statistics.median(times[1:])
    return {
        "dtype": dtype,
        "tokens": length,
        "frozen": freeze_name,
        "step_s": round(step, 3),
        "step_s_min": round(min(times[1:]), 3),
        "step_s_max": round(max(times[1:]), 3),
        "pairs_per_s": round(batch_size / step, 2),
        "tokens_per_s": round(batch_size * length / step, 1),
    }


def add_arguments(ap, name: str) -> None:
    ap.add_argument("--model", default="default")
    ap.add_argument("--data", default=str(DEFAULT_DATA_DIR))
    ap.add_argument(
        "--steps", type=int, default=4, help="timed steps per setting (after 1 warm-up)"
    )
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--lengths", type=int, nargs="+", default=[128, 256, 512])
    ap.add_argument("--dtypes", nargs="+", default=["fp32", "bf16"])
    ap.add_argument("--freeze", nargs="+", default=list(FREEZE), choices=list(FREEZE))


def run(args, bench) -> Outcome:
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    rows = []
    for length in args.lengths:
        for dtype in args.dtypes:
            for fr in args.freeze:
                row = time_setting(
                    args.model,
                    dtype=dtype,
                    length=length,
                    freeze_name=fr,
                    steps=args.steps,
                    batch_size=args.batch_size,
                    data=Path(args.data),
                )
                print(json.dumps(row), flush=True)
                rows.append(row)
    keys = list(rows[0]) if rows else []
    best = max(rows, key=lambda r: r["pairs_per_s"]) if rows else None
    return Outcome(
        body=f"Torch threads {torch.get_num_threads()}, batch {args.batch_size}, "
        f"{args.steps} timed steps a setting (median, min and max of the step time).\n\n"
        + table(keys, [[r[k] for k in keys] for r in rows]),
        figures={
            "most pairs/s": best["pairs_per_s"],
            "with": f"{best['dtype']}, {best['tokens']} tokens, frozen {best['frozen']}",
        }
        if best
        else {},  # fmt: skip
        data={"rows": rows},
    )
