"""Seeded end-to-end fuzz of ``score()`` and ``score_batch()``.

Every generated record (:mod:`fuzz_inputs`; record ``i`` of seed ``s`` is
``record(random.Random(s * 1_000_003 + i))``) goes through ``score()`` alone, then all of
them through ``score_batch()`` in shuffled batches. Counted:

* ``score()`` crashes: any exception but ``RecordError`` (a clean refusal of bad input);
* ``score_batch()`` crashes: exceptions that escaped (the whole batch lost), and records
  whose ``error`` is not a refusal (an isolated internal failure);
* broken properties: a score outside [0, 1], a claim or evidence span outside its text,
  a record whose verdicts differ alone and in a batch;
* warnings that must not reach a ``FaithfulnessScorer`` user: premises truncated
  ("exceed the model's"), transformers' "Token indices sequence length".

A regression suite: ``tests/test_suites.py`` runs a few hundred records with the
tiny model; ``python -m benchmarks run fuzz`` runs 1,000 and writes the results
(``--only I`` replays one record with its traceback).
"""

from __future__ import annotations

import logging
import random
import re
import time
from collections import Counter
from typing import Any

from .fuzz_inputs import record

_BAD_WARNINGS = {
    "truncated premise": "exceed the model's",
    "transformers 'Token indices'": "Token indices sequence length",
}


class _WarningCounter(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.counts: Counter[str] = Counter()

    def emit(self, rec: logging.LogRecord) -> None:
        msg = rec.getMessage()
        for name, needle in _BAD_WARNINGS.items():
            if needle in msg:
                self.counts[name] += 1


def make_records(n: int, seed: int) -> list[dict]:
    return [record(random.Random(seed * 1_000_003 + i)) for i in range(n)]


def _problems(rec: dict, res: Any) -> list[str]:
    """Broken properties of one result (empty when all hold)."""
    out = []
    for name in ("lenient", "strict", "soft"):
        v = getattr(res, name)
        if v is not None and not 0.0 <= v <= 1.0:
            out.append(f"{name}={v} outside [0, 1]")
    response, context = rec["response"], rec["context"]
    docs = [context] if isinstance(context, str) else context
    for c in res.claims:
        if not 0 <= c.start < c.end <= len(response):
            out.append(f"claim span {c.start}:{c.end} outside the response")
        ev = c.evidence
        if ev is not None and not (
            0 <= ev.doc_index < len(docs) and 0 <= ev.start < ev.end <= len(docs[ev.doc_index])
        ):
            out.append(f"evidence span {ev.doc_index}:{ev.start}:{ev.end} outside its document")
    return out


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0][:120] if text else ''}"


def _kind(message: str) -> str:
    """A failure's kind: its message with code points and numbers masked."""
    masked = re.sub(r"\\u[0-9a-f]{4}", lambda _: "U+XXXX", message)
    return re.sub(r"\d+", "N", masked)


def run(
    n: int, seed: int, batch: int, *, model: str = "default", only: int | None = None
) -> dict[str, Any]:
    from nli_faith.errors import RecordError
    from nli_faith.scorer import FaithfulnessScorer

    counter = _WarningCounter()
    for name in ("nli_faith", "transformers"):
        logging.getLogger(name).addHandler(counter)
    logging.getLogger("nli_faith").setLevel(logging.ERROR)  # counted, not printed
    scorer = FaithfulnessScorer(model, device="cpu")
    records = make_records(n, seed)
    if only is not None:
        rec = records[only]
        print(repr(rec)[:2000])
        scorer.score(rec["response"], rec["context"])  # raises with its traceback
        print("score(): no exception;", scorer.score_batch([rec])[0].error)
        return {}

    single: dict[int, Any] = {}
    crashes: Counter[str] = Counter()
    crashed: list[int] = []
    refused: set[int] = set()
    problems: list[str] = []
    t0 = time.perf_counter()
    for i, rec in enumerate(records):
        try:
            res = scorer.score(rec["response"], rec["context"])
        except RecordError:
            refused.add(i)
            continue
        except Exception as err:  # noqa: BLE001 - counted
            crashes[_first_line(err)] += 1
            crashed.append(i)
            continue
        single[i] = res
        problems += [f"record {i}: {p}" for p in _problems(rec, res)]
    t_single = time.perf_counter() - t0

    order = list(range(n))
    random.Random(seed).shuffle(order)
    batch_crashes: Counter[str] = Counter()
    lost = isolated = batches_failed = mismatched = 0
    isolated_errors: Counter[str] = Counter()
    max_diff = 0.0
    t0 = time.perf_counter()
    for start in range(0, n, batch):
        group = order[start : start + batch]
        try:
            results = scorer.score_batch([records[i] for i in group])
        except Exception as err:  # noqa: BLE001 - counted
            batches_failed += 1
            lost += len(group)
            batch_crashes[_first_line(err)] += 1
            continue
        for i, res in zip(group, results):
            if res.error is not None:
                if i not in refused:  # score() took it: an error here is an internal failure
                    isolated += 1
                    isolated_errors[res.error.split("\n")[0][:120]] += 1
                continue
            problems += [f"record {i} (batch): {p}" for p in _problems(records[i], res)]
            alone = single.get(i)
            if alone is None:
                continue
            if [c.verdict for c in alone.claims] != [c.verdict for c in res.claims]:
                mismatched += 1
            for a, b in zip(alone.claims, res.claims):
                max_diff = max(
                    max_diff, abs(a.p_entail - b.p_entail), abs(a.p_contradict - b.p_contradict)
                )
    t_batch = time.perf_counter() - t0
    return {
        "n": n,
        "seed": seed,
        "batch": batch,
        "score": {
            "inputs": n,
            "scored": len(single),
            "refused (RecordError)": len(refused),
            "crashes": sum(crashes.values()),
            "crash kinds": dict(crashes.most_common()),
            "crashed records": crashed[:50],
            "seconds": round(t_single, 1),
        },
        "score_batch": {
            "inputs": n,
            "batches": -(-n // batch),
            "batches that raised": batches_failed,
            "records lost with them": lost,
            "crash kinds": dict(batch_crashes.most_common()),
            "records with an internal error": isolated,
            "internal error kinds": dict(isolated_errors.most_common()),
            "verdicts differ alone vs in batch": mismatched,
            "max probability difference alone vs in batch": max_diff,
            "seconds": round(t_batch, 1),
        },
        "broken properties": problems[:50],
        "n broken properties": len(problems),
        "warnings": dict(counter.counts),
    }


def render(results: dict[str, dict]) -> str:
    lines = [
        "Inputs: `tests/suites/fuzz_inputs.py`; record `i` of seed `s` is "
        "`record(random.Random(s * 1_000_003 + i))`, replay one with `--only i`. A crash is "
        "an exception other than `RecordError` (a clean refusal).",
        "",
    ]
    for label, r in results.items():
        s, b = r["score"], r["score_batch"]
        lines += [
            f"## {label}",
            "",
            f"Model {r.get('model')}; {r['n']} records, seed {r['seed']}, batches of {r['batch']}.",
            "",
            "| | score() | score_batch() |",
            "|---|---:|---:|",
            f"| inputs | {s['inputs']} | {b['inputs']} ({b['batches']} batches) |",
            f"| crashes | {s['crashes']} | {b['batches that raised']} batches raised, "
            f"{b['records lost with them']} records lost |",
            f"| refused with RecordError | {s['refused (RecordError)']} | – |",
            f"| records with an internal error | – | {b['records with an internal error']} |",
            f"| verdicts differ alone vs in batch | – | {b['verdicts differ alone vs in batch']} |",
            f"| max p_entail or p_contradict difference (4-decimal results) | – | "
            f"{b['max probability difference alone vs in batch']:.2g} |",
            f"| seconds | {s['seconds']} | {b['seconds']} |",
            "",
            f"Broken properties: {r['n broken properties']}. Warnings that reached the user: "
            f"{r['warnings'] or 'none'}.",
            "",
        ]
        for where, table in (
            ("score() raised", s["crash kinds"]),
            ("score_batch() raised (first error of the batch)", b["crash kinds"]),
            ("score_batch() record errors", b["internal error kinds"]),
        ):
            kinds: Counter[str] = Counter()
            for message, count in table.items():
                kinds[_kind(message)] += count
            if kinds:
                lines += [f"{where}:", ""]
                lines += [f"* {k} ({v})" for k, v in kinds.most_common()]
                lines.append("")
    return "\n".join(lines)
