"""Unsupported-word spans against human span labels: character-level precision, recall, F1.

    python -m benchmarks run spans [--data-dir ../shared/data] [--n 300] [--seed 0]

Labels: XSumFaith (Maynez et al. 2020, "On Faithfulness and Factuality in Abstractive
Summarization"; released by Google Research under CC BY 4.0): BBC articles, one-sentence
summaries from five systems (including the reference), and three annotators who each
marked the hallucinated spans of every summary. The labels give the span texts, not
offsets; each is located in the summary (case-insensitive, first occurrence). A
character is hallucinated when at least two of the three annotators marked it (the
"any annotator" union is reported too). Summaries with no hallucination count: every
character predicted there is a false positive.

Compared, on a seeded sample of ``--n`` summaries scored once with the bundled model:

* **spans**: the characters of every claim's ``unsupported_spans`` (:mod:`nli_faith.text.spans`);
* **whole claim** (baseline): every character of every claim that is not ``yes``,
  what the report highlighted before spans existed.

Characters are counted without whitespace, micro-averaged over the sample. The one
setting chosen on data (:data:`nli_faith.text.spans.MAX_JOINED_STOP_WORDS`) was chosen on
150 other summaries of the set, disjoint from the seeded samples of 100 to 400.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

from .harness import Outcome
from .speed_common import REPO, read_jsonl, rnd, versions

TITLE = "Unsupported-word spans against human span labels (XSumFaith)"

#: ``../shared/data`` beside the checkout (or beside the worktrees' folder).
DEFAULT_DATA_DIR = next(
    (
        p
        for p in (REPO.parent / "shared" / "data", REPO.parents[1] / "shared" / "data")
        if p.is_dir()
    ),
    REPO.parent / "shared" / "data",
)
DATASET = "xsumfaith"


def locate(text: str, span: str) -> tuple[int, int] | None:
    """Where an annotator's span text sits in ``text`` (case-insensitive), or None."""
    span = span.strip()
    k = text.lower().find(span.lower()) if span else -1
    return None if k < 0 else (k, k + len(span))


def gold_chars(row: dict[str, Any], *, min_votes: int) -> tuple[set[int], int, int]:
    """Characters of the response marked by at least ``min_votes`` annotators; also how
    many span labels there were and how many could not be located."""
    text = row["response"]
    votes: dict[int, set[str]] = {}
    n = missed = 0
    for label in row["meta"].get("hallucinated_spans") or []:
        n += 1
        where = locate(text, label["span"])
        if where is None:
            missed += 1
            continue
        for k in range(*where):
            votes.setdefault(k, set()).add(label["worker"])
    return {k for k, w in votes.items() if len(w) >= min_votes}, n, missed


def chars(text: str, spans: list[tuple[int, int]]) -> set[int]:
    """The non-space characters of ``text`` inside any of ``spans``."""
    return {
        k for s, e in spans for k in range(max(0, s), min(e, len(text))) if not text[k].isspace()
    }


def prf(tp: int, fp: int, fn: int) -> dict[str, float | None]:
    p = tp / (tp + fp) if tp + fp else None
    r = tp / (tp + fn) if tp + fn else None
    f = 2 * p * r / (p + r) if p and r else 0.0
    return {"precision": rnd(p), "recall": rnd(r), "f1": rnd(f)}


def evaluate(rows: list[dict], results: list, *, min_votes: int) -> dict[str, Any]:
    """Character-level counts and P/R/F1 of the two predictions against one gold rule."""
    counts = {"spans": [0, 0, 0], "whole claim": [0, 0, 0]}
    for row, res in zip(rows, results, strict=True):
        text = row["response"]
        gold = chars(text, [(k, k + 1) for k in gold_chars(row, min_votes=min_votes)[0]])
        wrong = [c for c in res.claims if c.verdict != "yes"]
        predicted = {
            "spans": chars(text, [(s.start, s.end) for c in wrong for s in c.unsupported_spans]),
            "whole claim": chars(text, [(c.start, c.end) for c in wrong]),
        }
        for name, pred in predicted.items():
            counts[name][0] += len(pred & gold)
            counts[name][1] += len(pred - gold)
            counts[name][2] += len(gold - pred)
    return {
        name: {"tp": tp, "fp": fp, "fn": fn, **prf(tp, fp, fn)}
        for name, (tp, fp, fn) in counts.items()
    }


def measure(args: argparse.Namespace, bench) -> dict[str, Any]:
    from nli_faith import FaithfulnessScorer

    path = args.data_dir / "faithfulness" / f"{DATASET}.jsonl"
    rows = read_jsonl(path)
    sample = sorted(random.Random(args.seed).sample(range(len(rows)), min(args.n, len(rows))))
    rows = [rows[k] for k in sample]
    options = {"device": "cpu"}
    if args.backend != "torch":
        options |= {"backend": "onnx", "onnx_quantize": args.backend == "onnx"}
    scorer = FaithfulnessScorer(**options)
    results = bench.timed("score_batch", lambda: scorer.score_batch(rows), repeats=1)
    errors = [r.error for r in results if r.error]
    labels = [gold_chars(r, min_votes=1) for r in rows]
    n_spans = sum(n for _, n, _ in labels)
    n_missed = sum(m for _, _, m in labels)
    wrong = [c for r in results for c in r.claims if c.verdict != "yes"]
    whole = sum(
        1
        for c in wrong
        if len(c.unsupported_spans) == 1
        and (c.unsupported_spans[0].end - c.unsupported_spans[0].start) >= len(c.claim.rstrip(". "))
    )
    return {
        "dataset": DATASET,
        "source": str(path),
        "n": len(rows),
        "seed": args.seed,
        "backend": args.backend,
        "n_hallucinated": sum(r["label"] == 0 for r in rows),
        "span_labels": n_spans,
        "span_labels_not_located": n_missed,
        "errors": errors,
        "claims_not_supported": len(wrong),
        "claims_kept_whole": whole,
        "mean_span_chars": rnd(
            sum(s.end - s.start for c in wrong for s in c.unsupported_spans)
            / max(1, sum(len(c.unsupported_spans) for c in wrong)),
            1,
        ),
        "mean_claim_chars": rnd(sum(len(c.claim) for c in wrong) / max(1, len(wrong)), 1),
        "majority": evaluate(rows, results, min_votes=2),
        "any_annotator": evaluate(rows, results, min_votes=1),
        "versions": versions("nli-faith", "torch", "transformers", "onnxruntime"),
    }


def render(result: dict[str, Any]) -> str:
    lines = [
        f"{result['n']} summaries of {result['dataset']} (seed {result['seed']}; "
        f"{result['n_hallucinated']} with a hallucination by the majority label), scored once "
        f"with the bundled model (backend {result['backend']}). Character-level, whitespace "
        "left out, micro-averaged.",
        "",
        "| gold | prediction | precision | recall | F1 |",
        "|---|---|---:|---:|---:|",
    ]
    for gold, key in (("2 of 3 annotators", "majority"), ("any annotator", "any_annotator")):
        for name in ("spans", "whole claim"):
            m = result[key][name]
            lines.append(f"| {gold} | {name} | {m['precision']} | {m['recall']} | {m['f1']} |")
    lines += [
        "",
        f"- claims not supported: {result['claims_not_supported']}; kept whole (no smaller "
        f"span to blame): {result['claims_kept_whole']}",
        f"- mean span length {result['mean_span_chars']} characters, mean claim length "
        f"{result['mean_claim_chars']}",
        f"- span labels: {result['span_labels']}, not found in their summary: "
        f"{result['span_labels_not_located']}; records that failed: {len(result['errors'])}",
        "",
        "Labels: XSumFaith (Maynez et al., 2020; Google Research, CC BY 4.0), each summary "
        "marked by three annotators; see the module doc of `benchmarks/spans.py`.",
        "",
    ]
    return "\n".join(lines)


def add_arguments(p: argparse.ArgumentParser, name: str) -> None:
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--n", type=int, default=300, help="summaries in the seeded sample")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--backend",
        choices=("torch", "onnx-fp32", "onnx"),
        default="onnx-fp32",
        help="onnx-fp32 (default): the bundled model's fp32 ONNX export, torch's "
        "probabilities, faster on a CPU; onnx: the int8 export",
    )


def run(args: argparse.Namespace, bench) -> Outcome:
    if args.n < 1:
        raise SystemExit("--n must be at least 1")
    result = measure(args, bench)
    figures = {
        f"F1 {name}, {gold}": result[key][name]["f1"]
        for gold, key in (("majority", "majority"), ("any annotator", "any_annotator"))
        for name in ("spans", "whole claim")
    }
    return Outcome(body=render(result), figures=figures, data=result)
