"""Sentence-level NLI kept after fine-tuning: SNLI test, MNLI-binary dev, held-out swaps.

    python -m research.studies run nli_checks --models nli-faith-minilm-l6 runs/new/model

For each model (registry name, folder or hub id), with fp32 ONNX (the probabilities of
torch): accuracy on ``nli/eval/snli_test.jsonl`` (3-way) and
``nli/eval/mnli_binary_dev.jsonl`` (entailment against the rest), and the share of the
held-out synthetic number and entity swaps predicted as contradiction. The swaps are
made as the bundled model's training made its held-out set: the same seeded 1,500
premises of ``nli/train``, which the bundled model never trained on
(:mod:`research.augment`; a task-shaped fine-tune's NLI slice may hold a few of them,
never their swapped claims). The number rules have widened since that run, so the pairs
differ slightly from its own file.
These are the no-forgetting checks a task-shaped fine-tune must pass.
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from benchmarks.harness import DEFAULT_DATA_DIR, Outcome

TITLE = "Sentence-level NLI kept after fine-tuning"
#: As the bundled model's training: ``Synthesis.seed`` and ``Synthesis.heldout_premises``.
SYNTHETIC_SEED = 13
HELD_PREMISES = 1500


def heldout_swaps(data: Path) -> list[dict]:
    """The held-out synthetic pairs, regenerated as ``nli-faith train --synthetic`` made them."""
    from nli_faith.training.data import read_nli_jsonl
    from research.augment import heldout_premises
    from research.synthetic import generate

    rows = [r for path in sorted((data / "nli" / "train").glob("*.jsonl"))
            for r in read_nli_jsonl(path)]  # fmt: skip
    held, _ = heldout_premises(rows, seed=SYNTHETIC_SEED, n_held=HELD_PREMISES)
    return [
        {"premise": p.premise, "hypothesis": p.hypothesis, "label": p.label, "kind": p.kind,
         "source": p.source}
        for p in generate(held, seed=SYNTHETIC_SEED + 1)
    ]  # fmt: skip


def add_arguments(ap, name: str) -> None:
    ap.add_argument("--models", nargs="+", default=["default"], help="models to check")
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    ap.add_argument("--limit", type=int, default=None, help="rows per eval file")


def run(args, bench) -> Outcome:
    from nli_faith.nli.model import NLIModel
    from nli_faith.training.evaluate import evaluate_files

    t0 = time.time()
    evals = [
        args.data_dir / "nli" / "eval" / f"{n}.jsonl" for n in ("snli_test", "mnli_binary_dev")
    ]
    with tempfile.TemporaryDirectory() as tmp:
        swaps = Path(tmp) / "synthetic_heldout.jsonl"
        swaps.write_text(
            "".join(json.dumps(r) + "\n" for r in heldout_swaps(args.data_dir)), encoding="utf-8"
        )
        results = {}
        for model in args.models:
            nli = NLIModel(model, backend="onnx", onnx_quantize=False, batch_size=32)
            results[model] = evaluate_files(nli, [*evals, swaps], limit=args.limit)
            print(f"{model}: {time.time() - t0:.0f} s", flush=True)
    lines = [
        "| model | SNLI test | MNLI-binary dev | held-out number and entity swaps "
        "predicted contradiction |",
        "|---|---:|---:|---:|",
    ]
    figures = {}
    for model, r in results.items():
        snli = r["snli_test"]["accuracy"]
        mnli = r["mnli_binary_dev"]["accuracy"]
        swap = r["synthetic_heldout"]["synthetic"]["number_and_entity_predicted_contradiction"]
        lines.append(f"| {model} | {100 * snli:.1f} | {100 * mnli:.1f} | {100 * swap:.1f} |")
        figures |= {f"{model} snli": round(100 * snli, 1), f"{model} mnli_binary":
                    round(100 * mnli, 1), f"{model} swaps": round(100 * swap, 1)}  # fmt: skip
    return Outcome(body="\n".join(lines) + "\n", figures=figures, data=results)
