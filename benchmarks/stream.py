"""What checking a streamed answer costs the reader: latency per sentence.

    python -m benchmarks run stream --requests 40 --token-ms 20

Each of ``--requests`` unseen guardrail requests (:func:`.speed_inputs.guardrail_requests`:
three passages of ~150 words, a 5-sentence answer; new passages and claims every time)
is streamed word by word, one piece every ``--token-ms`` milliseconds (an LLM writing
about 1000/token-ms pieces a second), into ``FaithfulnessScorer.check_stream`` with the
``guardrail()`` settings, and, as the baseline, read unchecked at the same pace. Measured:

* per sentence, the time from the arrival of its last piece to its check (a sentence is
  known to be complete only when the next piece arrives, or the stream ends, so this
  includes one piece interval), and the time from that confirming piece to the check
  (the part that is the library's);
* the time to the first released sentence, from the first piece;
* the whole answer's extra time over reading it unchecked (until the final result).

Verdicts are checked too: every final result must equal ``score()`` of the whole answer.
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path
from typing import Any

from .harness import DEFAULT_DATA_DIR, Outcome, table
from .speed_common import percentile, rnd
from .speed_inputs import guardrail_requests

TITLE = "Streamed answers: latency per sentence"


def add_arguments(p, name: str) -> None:
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--requests", type=int, default=40, help="unseen requests, each streamed")
    p.add_argument("--warmup", type=int, default=3, help="requests run first, not counted")
    p.add_argument("--token-ms", type=float, default=20.0, help="interval between pieces")


def pieces(answer: str) -> list[str]:
    """The answer as an LLM streams it: words with their leading space."""
    return re.findall(r"\s*\S+", answer)


async def _paced(parts: list[str], interval: float, arrivals: list[float]):
    """The pieces, piece ``k`` due ``k + 1`` intervals after the start whatever the reader
    does meanwhile (an LLM does not wait for its reader: its pieces queue up)."""
    start = time.perf_counter()
    for k, piece in enumerate(parts):
        due = start + (k + 1) * interval
        await asyncio.sleep(max(0.0, due - time.perf_counter()))
        arrivals.append(max(due, start))
        yield piece


async def _one(scorer, req: dict[str, Any], interval: float) -> dict[str, Any]:
    parts = pieces(req["response"])
    arrivals: list[float] = []
    t0 = time.perf_counter()
    stream = scorer.check_stream(_paced(parts, interval, arrivals), req["context"])
    ends = []  # character offset where each piece ends
    pos = 0
    for p in parts:
        pos += len(p)
        ends.append(pos)
    rows = []
    async for check in stream:
        now = time.perf_counter()
        last = next(k for k, e in enumerate(ends) if e >= check.end)  # its last piece
        rows.append(
            {
                "from_last_piece_ms": (now - arrivals[last]) * 1e3,
                "from_confirming_piece_ms": (now - arrivals[-1]) * 1e3,
                "since_start_ms": (now - t0) * 1e3,
                "streamed_by_ms": (arrivals[last] - t0) * 1e3,  # its last piece, unchecked
            }
        )
    done = time.perf_counter()
    return {
        "sentences": rows,
        "total_ms": (done - t0) * 1e3,
        "unchecked_ms": None,
        "result": stream.result.result,
    }


async def _unchecked(req: dict[str, Any], interval: float) -> float:
    t0 = time.perf_counter()
    async for _ in _paced(pieces(req["response"]), interval, []):
        pass
    return (time.perf_counter() - t0) * 1e3


def run(args, b) -> Outcome:
    from nli_faith import FaithfulnessScorer

    interval = args.token_ms / 1e3
    reqs = guardrail_requests(args.data_dir, args.warmup + args.requests)
    scorer = FaithfulnessScorer.guardrail()
    for req in reqs[: args.warmup]:
        asyncio.run(_one(scorer, req, interval))
    b.log(f"streaming {args.requests} unseen requests, a piece every {args.token_ms} ms")
    runs, same = [], 0
    for k, req in enumerate(reqs[args.warmup :]):
        one = asyncio.run(_one(scorer, req, interval))
        one["unchecked_ms"] = asyncio.run(_unchecked(req, interval))
        same += one.pop("result") == scorer.score(req["response"], req["context"])
        runs.append(one)
        if (k + 1) % 10 == 0:
            b.log(f"{k + 1} requests")
    sent = [s for r in runs for s in r["sentences"]]
    first = [r["sentences"][0]["since_start_ms"] for r in runs if r["sentences"]]
    first_unchecked = [r["sentences"][0]["streamed_by_ms"] for r in runs if r["sentences"]]
    extra = [r["total_ms"] - r["unchecked_ms"] for r in runs]

    def q(values: list[float]) -> tuple[float | None, float | None]:
        return rnd(percentile(values, 50), 1), rnd(percentile(values, 95), 1)

    figures = {
        "sentence_latency_p50_ms": q([s["from_last_piece_ms"] for s in sent])[0],
        "sentence_latency_p95_ms": q([s["from_last_piece_ms"] for s in sent])[1],
        "check_after_confirming_piece_p50_ms": q([s["from_confirming_piece_ms"] for s in sent])[0],
        "check_after_confirming_piece_p95_ms": q([s["from_confirming_piece_ms"] for s in sent])[1],
        "first_sentence_p50_ms": q(first)[0],
        "first_sentence_unchecked_p50_ms": q(first_unchecked)[0],
        "extra_time_p50_ms": q(extra)[0],
        "extra_time_p95_ms": q(extra)[1],
        "final_equals_score": f"{same}/{len(runs)}",
        "sentences": len(sent),
        "token_ms": args.token_ms,
    }
    rows = [
        [
            "from the sentence's last piece to its check",
            *q([s["from_last_piece_ms"] for s in sent]),
        ],
        [
            "from the piece that confirms the end to the check",
            *q([s["from_confirming_piece_ms"] for s in sent]),
        ],
        ["from the first piece to the first released sentence", *q(first)],
        ["... the same sentence read unchecked (its last piece)", *q(first_unchecked)],
        ["whole answer: extra time over reading it unchecked", *q(extra)],
    ]
    body = (
        f"{args.requests} unseen guardrail requests (5-sentence answers, 3 passages of ~150 "
        f"words), streamed a word every {args.token_ms:g} ms into "
        f"`FaithfulnessScorer.guardrail().check_stream`; {len(sent)} sentences. Final "
        f"results equal to `score()` of the whole answer: {same}/{len(runs)}.\n\n"
        + table(["latency", "p50 ms", "p95 ms"], rows)
    )
    return Outcome(body=body, figures=figures, data={"runs": runs})
