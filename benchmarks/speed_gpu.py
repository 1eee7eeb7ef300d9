"""GPU figures for ``benchmarks.speed``: bare forwards vs ``NLIModel.predict``, bf16, batch sizes.

Run as ``python -m benchmarks run speed_gpu``. Needs torch, transformers
and numpy only: no spaCy (it is blocked on purpose, so an accidental import fails loudly),
no benchmark data outside the repository (the pairs are generated here, deterministically,
plus the texts of ``examples/answers.jsonl``).
"""

from __future__ import annotations

import contextlib
import json
import random
import sys
import time
from typing import Any

from .speed_common import (
    REPO,
    CpuMonitor,
    cpu_info,
    median,
    padded_batches,
    rnd,
    simple_sentences,
    usable_cores,
    versions,
)

DEFAULT_BATCH_SIZES = (32, 64, 128, 256, 512, 1024)

# -- deterministic, realistic-looking (premise, hypothesis) pairs ------------------------

_PEOPLE = (
    "Maria Lopez",
    "David Chen",
    "Amara Okafor",
    "Tom Becker",
    "Priya Natarajan",
    "Jonas Lindqvist",
    "Sofia Rossi",
    "Kenji Watanabe",
    "Laura Smith",
    "Omar Haddad",
)
_ORGS = (
    "Northwind Logistics",
    "the city council",
    "Helios Energy",
    "the national health service",
    "Brightline Software",
    "the regional transport authority",
    "Oakridge University",
    "the central bank",
    "Meridian Foods",
    "the football club",
)
_PLACES = (
    "Lyon",
    "Manchester",
    "Osaka",
    "Cape Town",
    "Toronto",
    "Valencia",
    "Leipzig",
    "Melbourne",
    "Nairobi",
    "Porto",
)
_THINGS = (
    "the warranty",
    "the new bridge",
    "the pilot programme",
    "the mobile app",
    "the stadium",
    "the vaccine trial",
    "the solar farm",
    "the library",
    "the software update",
    "the bus network",
)
_MONTHS = (
    "January",
    "March",
    "April",
    "June",
    "August",
    "September",
    "October",
    "December",
)
_TEMPLATES = (
    "{Org} reported revenue of {n1} million dollars in {year}, up {pct} percent on the year.",
    "{person}, who joined {org} in {year}, said {thing} would reach {place} by {month}.",
    "{Thing} costs {n1} dollars and comes with a {small}-year guarantee.",
    "According to {person}, about {n2} people attended the meeting in {place} on Tuesday.",
    "{Place} has roughly {n2} residents and lies {small} kilometres from the coast.",
    "The board voted {small} to {tiny} to approve {thing} after a debate of {tiny} hours.",
    "Researchers at {org} found that {thing} cut costs by {pct} percent in a study of "
    "{n2} households.",
    "{person} was born in {place} in {year} and studied engineering before joining {org}.",
    "Orders above {n1} dollars ship free, and delivery usually takes {small} business days.",
    "{Thing} was closed for {small} weeks in {month} because of flooding, {org} confirmed.",
    "The report, published in {month} {year}, criticised {org} for delays to {thing}.",
    "{person} scored twice in the second half as the visitors won {small}-{tiny} in {place}.",
    "Ticket prices will rise by {pct} percent from {month}, {person} told reporters.",
    "{Org} plans to hire {n1} staff in {place} over the next {small} years.",
    "Critics say {thing} has run {pct} percent over budget since work began in {year}.",
    "The agreement between {org} and the unions covers {n2} workers and runs until {year}.",
)


def _sentence(rng: random.Random) -> str:
    t = rng.choice(_TEMPLATES)
    org, thing, place = rng.choice(_ORGS), rng.choice(_THINGS), rng.choice(_PLACES)
    return t.format(
        person=rng.choice(_PEOPLE),
        org=org,
        Org=org[0].upper() + org[1:],
        thing=thing,
        Thing=thing[0].upper() + thing[1:],
        place=place,
        Place=place,
        month=rng.choice(_MONTHS),
        year=rng.randint(1990, 2024),
        n1=rng.randint(12, 950),
        n2=rng.randint(150, 90000),
        pct=rng.randint(2, 60),
        small=rng.randint(3, 12),
        tiny=rng.randint(1, 2),
    )


def _alter_number(sentence: str, rng: random.Random) -> str:
    import re

    m = re.search(r"\d+", sentence)
    if not m:
        return sentence.replace(" was ", " was not ", 1)
    n = int(m.group(0))
    return sentence[: m.start()] + str(n + rng.randint(1, 9)) + sentence[m.end() :]


def _example_texts() -> list[str]:
    """Sentences of ``examples/answers.jsonl`` (responses and contexts), if present."""
    path = REPO / "examples" / "answers.jsonl"
    out: list[str] = []
    if not path.is_file():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        for key in ("response", "actual_output", "answer"):
            if isinstance(rec.get(key), str):
                out.extend(simple_sentences(rec[key]))
        for key in ("context", "retrieval_context", "retrieved_contexts", "contexts"):
            value = rec.get(key)
            if isinstance(value, str):
                value = [value]
            for doc in value or []:
                out.extend(simple_sentences(doc))
    return out


def synthetic_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` distinct pairs shaped like the scorer's: ~75% one-sentence premises, ~25%
    windows of several sentences (~120-200 words); hypotheses copied, number-altered,
    shortened or taken from another document."""
    rng = random.Random(seed)
    extra = _example_texts()
    pairs: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    while len(pairs) < n:
        doc = [_sentence(rng) for _ in range(rng.randint(6, 14))]
        if extra and rng.random() < 0.2:
            doc[rng.randrange(len(doc))] = rng.choice(extra)
        other = _sentence(rng)
        for _ in range(rng.randint(3, 8)):
            i = rng.randrange(len(doc))
            if rng.random() < 0.25:
                j, words = i, 0
                while j < len(doc) and words < rng.randint(120, 200):
                    words += len(doc[j].split())
                    j += 1
                premise = " ".join(doc[i:j])
            else:
                premise = doc[i]
            r = rng.random()
            src = doc[rng.randrange(len(doc))]
            if r < 0.4:
                hyp = src
            elif r < 0.6:
                hyp = _alter_number(src, rng)
            elif r < 0.8:
                hyp = src.split(",")[0].rstrip(".") + "."
            else:
                hyp = other
            key = (premise, hyp)
            if key not in seen:
                seen.add(key)
                pairs.append(key)
    return pairs[:n]


# -- timing ------------------------------------------------------------------------------


def _prepare(nli: Any, pairs: list[tuple[str, str]], batch_size: int, device: str) -> list:
    """The same inputs ``NLIModel.predict`` builds, padded once and moved to the device."""
    import torch

    return [
        {k: torch.from_numpy(v).to(device) for k, v in b.items()}
        for b in padded_batches(nli, pairs, batch_size)
    ]


def _sync(device: str) -> None:
    import torch

    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _autocast(device: str, dtype: Any):
    import torch

    if dtype is None:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.split(":")[0], dtype=dtype)


def _time_bare(model: Any, batches: list, device: str, autocast_dtype: Any) -> float:
    import torch

    _sync(device)
    t0 = time.perf_counter()
    with torch.inference_mode(), _autocast(device, autocast_dtype):
        for b in batches:
            model(**b).logits  # noqa: B018 - the forward is the point
    _sync(device)
    return time.perf_counter() - t0


def _time_predict(nli: Any, pairs: list, batch_size: int, device: str, autocast_dtype: Any):
    _sync(device)
    t0 = time.perf_counter()
    with _autocast(device, autocast_dtype):
        nli.predict(pairs, batch_size=batch_size)
    _sync(device)
    return time.perf_counter() - t0


def run_gpu(
    *,
    quick: bool = False,
    device: str | None = None,
    n_pairs: int | None = None,
    batch_sizes: tuple[int, ...] = DEFAULT_BATCH_SIZES,
    rounds: int | None = None,
    model: str = "default",
) -> dict[str, Any]:
    import torch

    from nli_faith.nli.model import NLIModel

    cuda = torch.cuda.is_available()
    device = device or ("cuda" if cuda else "cpu")
    if quick:
        n_pairs = n_pairs or (1024 if device.startswith("cuda") else 96)
        rounds = rounds or 1
        if not device.startswith("cuda"):
            batch_sizes = tuple(b for b in batch_sizes if b <= 64) or (32,)
    n_pairs = n_pairs or 8192
    rounds = rounds or 3
    mon = CpuMonitor()
    pairs = synthetic_pairs(n_pairs, seed=0)
    out: dict[str, Any] = {
        "kind": "nli-faith speed, GPU-only path",
        "quick": quick,
        "device": device,
        "machine": {
            "cpu": cpu_info(),
            "cores_usable": usable_cores(),
            "versions": versions("torch", "transformers", "onnxruntime", "numpy"),
            "torch_threads": torch.get_num_threads(),
        },
        "workload": {
            "n_pairs": len(pairs),
            "source": "benchmarks/speed_gpu.py synthetic_pairs(seed=0) + examples/answers.jsonl",
            "rounds": rounds,
            "timing": "median of rounds; bare = pre-tokenized, length-sorted, padded batches "
            "already on the device, timed forwards only (synchronised); predict = "
            "NLIModel.predict end to end (dedup, tokenize, sort, pad, H2D, softmax, D2H)",
        },
        "spacy_imported": None,
    }
    if cuda and device.startswith("cuda"):
        props = torch.cuda.get_device_properties(device)
        out["machine"]["gpu"] = {
            "name": props.name,
            "memory_gib": round(props.total_memory / 2**30, 1),
            "capability": f"{props.major}.{props.minor}",
            "cuda": torch.version.cuda,
            "bf16_supported": torch.cuda.is_bf16_supported(),
        }
    bf16 = torch.bfloat16
    nli_bf16 = NLIModel(model, device=device, dtype="bfloat16")
    nli_fp32 = NLIModel(model, device=device, dtype="float32")
    enc_stats = nli_bf16.count_tokens([p for p, _ in pairs[:2000]])
    out["workload"]["mean_premise_tokens_first2000"] = rnd(sum(enc_stats) / len(enc_stats), 1)
    t_tok = time.perf_counter()
    nli_bf16.tokenizer([p for p, _ in pairs], [h for _, h in pairs], truncation=False)
    out["workload"]["tokenize_all_pairs_s"] = rnd(time.perf_counter() - t_tok, 4)

    rows = []
    for bs in batch_sizes:
        row: dict[str, Any] = {"batch_size": bs}
        b_bf16 = _prepare(nli_bf16, pairs, bs, device)
        b_fp32 = b_bf16  # same integer tensors; the model differs
        variants = [
            (
                "bare_bf16_weights",
                lambda b=b_bf16: _time_bare(nli_bf16.torch_model, b, device, None),
            ),
            (
                "bare_fp32_autocast_bf16",
                lambda b=b_fp32: _time_bare(nli_fp32.torch_model, b, device, bf16),
            ),
            (
                "predict_bf16_weights",
                lambda bs=bs: _time_predict(nli_bf16, pairs, bs, device, None),
            ),
            (
                "predict_fp32_autocast_bf16",
                lambda bs=bs: _time_predict(nli_fp32, pairs, bs, device, bf16),
            ),
        ]
        if bs == 256 or bs == batch_sizes[0]:
            variants.append(
                ("bare_fp32", lambda b=b_fp32: _time_bare(nli_fp32.torch_model, b, device, None))
            )
        times: dict[str, list[float]] = {name: [] for name, _ in variants}
        for _, fn in variants:  # warm-up (cuDNN/cuBLAS heuristics, allocator)
            fn()
        for _ in range(rounds):
            for name, fn in variants:
                times[name].append(fn())
        for name, ts in times.items():
            row[name + "_pairs_per_s"] = rnd(len(pairs) / median(ts), 1)
        row["ratio_predict_vs_bare_bf16"] = rnd(
            row["predict_bf16_weights_pairs_per_s"] / row["bare_bf16_weights_pairs_per_s"]
        )
        row["ratio_predict_vs_bare_autocast"] = rnd(
            row["predict_fp32_autocast_bf16_pairs_per_s"]
            / row["bare_fp32_autocast_bf16_pairs_per_s"]
        )
        rows.append(row)
        del b_bf16, b_fp32
        if device.startswith("cuda"):
            torch.cuda.empty_cache()
    out["rows"] = rows
    if device.startswith("cuda"):
        out["peak_gpu_memory_gib"] = rnd(torch.cuda.max_memory_allocated() / 2**30, 2)
    out["spacy_imported"] = "spacy" in sys.modules and sys.modules["spacy"] is not None
    out["cpu_monitor"] = mon.stop()
    return out


def block_spacy() -> None:
    """Make ``import spacy`` fail, proving that the GPU path does not need it."""
    if "spacy" not in sys.modules:
        sys.modules["spacy"] = None  # type: ignore[assignment]


def run_gpu_only(*, quick: bool, device: str | None, n_pairs: int | None) -> dict[str, Any]:
    block_spacy()
    result = run_gpu(quick=quick, device=device, n_pairs=n_pairs)
    for row in result["rows"]:
        print(json.dumps(row), file=sys.stderr)
    return result
