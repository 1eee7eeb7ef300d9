"""Binary development accuracy kind by kind: which kinds of task-shaped pair a model gets right.

    python scripts/dev_by_kind.py --dev runs/mixC/dev_select.jsonl nli-faith-minilm-l6 runs/gS4

A pair counts as right when P(entailment) > 0.5 matches its gold label read as binary
(entailment against anything else). Kinds (the ``kind`` field of the task mix's rows, else
``source``) with fewer than ``--min-rows`` rows are left out. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="+", help="registry names or folders")
    ap.add_argument("--dev", required=True, type=Path)
    ap.add_argument("--max-length", type=int, default=320)
    ap.add_argument("--min-rows", type=int, default=40)
    args = ap.parse_args(argv)
    from nli_faith.nli.model import NLIModel

    with args.dev.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    kinds = [r.get("kind") or r.get("source") or "?" for r in rows]
    gold = np.array([r["label"] == "entailment" for r in rows])
    pairs = [(r["premise"], r["hypothesis"]) for r in rows]
    right = {}
    for name in args.models:
        model = NLIModel(name, device="cpu", max_length=args.max_length)
        right[name] = (model.predict(pairs, batch_size=32)[:, 0] > 0.5) == gold
    print("| kind | rows | " + " | ".join(args.models) + " |")
    print("|---|---:|" + "---:|" * len(args.models))
    for kind, n in Counter(kinds).most_common():
        if n < args.min_rows:
            continue
        idx = np.array([k == kind for k in kinds])
        cells = " | ".join(f"{100 * right[m][idx].mean():.1f}" for m in args.models)
        print(f"| {kind} | {n} | {cells} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
