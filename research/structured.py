"""Synthetic structured examples: small tables, JSON objects and key-value lists with numbers.

RAG contexts often hold structured data (a financial table, a JSON record, a
spec sheet). Each example here is one such block, rendered in one of four
formats (JSON object, Markdown table, ``key: value`` lines, CSV), with a claim
that

* restates a cell (entailment);
* swaps the value, the year or the row (contradiction): the block states the
  same quantity with another value;
* names a year or a row the block does not have (neutral).

The premise is the block as the scorer reads it: :func:`premise_text` passes
it through the scorer's own linearisation (``nli_faith.text.structured``) when
that module is present, so training and scoring see the same text.

Example:
    >>> pairs = structured_pairs(n=4, seed=3)
    >>> sorted({p.label for p in pairs}) <= ["contradiction", "entailment", "neutral"]
    True
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from research.synthetic import SyntheticPair

_COMPANIES = (
    ("AAPL", "Apple"), ("MSFT", "Microsoft"), ("GOOGL", "Alphabet"), ("AMZN", "Amazon"),
    ("TSLA", "Tesla"), ("IBM", "IBM"), ("NVDA", "Nvidia"), ("ORCL", "Oracle"),
    ("INTC", "Intel"), ("SAP", "SAP"), ("ADBE", "Adobe"), ("CSCO", "Cisco"),
    ("NFLX", "Netflix"), ("KO", "Coca-Cola"), ("PEP", "PepsiCo"), ("NKE", "Nike"),
)  # fmt: skip
_PLACES = (
    "Lisbon", "Oslo", "Nairobi", "Lima", "Osaka", "Denver", "Porto", "Leeds", "Quito",
    "Perth", "Gdansk", "Tartu", "Malmo", "Cork", "Bergen", "Turku",
)  # fmt: skip


@dataclass(frozen=True)
class Metric:
    name: str  # "revenue"
    unit: str  # as written in the block's title: "USD bn"
    low: float
    high: float
    decimals: int
    words: str  # how a claim states the unit: "{v} billion dollars"
    of: str  # "companies" or "places"


_METRICS = (
    Metric("revenue", "USD bn", 5, 600, 1, "{v} billion dollars", "companies"),
    Metric("net income", "USD bn", 1, 120, 1, "${v} billion", "companies"),
    Metric("deliveries", "millions", 0.2, 5, 2, "{v} million", "companies"),
    Metric("operating margin", "%", 3, 45, 1, "{v}%", "companies"),
    Metric("employees", "thousands", 5, 400, 0, "{v} thousand", "companies"),
    Metric("earnings per share", "USD", 0.5, 20, 2, "${v}", "companies"),
    Metric("population", "millions", 0.1, 9, 2, "{v} million", "places"),
    Metric("annual rainfall", "mm", 200, 2500, 0, "{v} mm", "places"),
    Metric("average rent", "EUR", 400, 3000, 0, "{v} euros", "places"),
    Metric("unemployment rate", "%", 2, 15, 1, "{v}%", "places"),
)


def _fmt(v: float, decimals: int) -> str:
    return f"{v:.{decimals}f}" if decimals else str(int(round(v)))


def _value(rng: random.Random, m: Metric) -> float:
    return round(rng.uniform(m.low, m.high), m.decimals)


def _other(rng: random.Random, m: Metric, v: float) -> float:
    """A clearly different value of the same quantity (at least 8% away)."""
    for _ in range(50):
        w = _value(rng, m)
        if abs(w - v) > 0.08 * max(abs(v), 1e-9) and _fmt(w, m.decimals) != _fmt(v, m.decimals):
            return w
    return round(v * 1.5 + 1, m.decimals)


def render(fmt: str, metric: Metric, table: dict[str, dict[str, float]], label: str) -> str:
    """One block: ``table[row][year] = value`` in ``fmt`` (json, markdown, kv, csv)."""
    rows = list(table)
    years = list(next(iter(table.values())))
    title = f"{label} {metric.name} ({metric.unit})"
    if fmt == "json" and len(rows) == 1:
        obj = {y: table[rows[0]][y] for y in years}
        return f"{title}: {json.dumps(obj)}"
    if fmt == "json":
        obj = {r: {y: table[r][y] for y in years} for r in rows}
        return f"{metric.name.capitalize()} ({metric.unit}): {json.dumps(obj)}"
    if fmt == "markdown":
        head = (
            f"| {'Company' if metric.of == 'companies' else 'City'} | " + " | ".join(years) + " |"
        )
        sep = "|" + "---|" * (len(years) + 1)
        body = [
            f"| {r} | " + " | ".join(_fmt(table[r][y], metric.decimals) for y in years) + " |"
            for r in rows
        ]
        return "\n".join([f"{metric.name.capitalize()} ({metric.unit})", "", head, sep, *body])
    if fmt == "csv":
        lines = ["name," + ",".join(years)]
        lines += [
            r + "," + ",".join(_fmt(table[r][y], metric.decimals) for y in years) for r in rows
        ]
        return f"{metric.name.capitalize()} ({metric.unit})\n" + "\n".join(lines)
    lines = [
        f"{r} {metric.name} {y}: {_fmt(table[r][y], metric.decimals)} {metric.unit}"
        for r in rows
        for y in years
    ]
    return "\n".join(lines)


def premise_text(block: str) -> str:
    """The block as the scorer's chunker hands it to the model (its linearisation)."""
    try:
        from nli_faith.text.structured import linearise
    except ImportError:  # the scorer reads structured blocks as plain text
        return block
    return linearise(block)


def _claim(metric: Metric, name: str, year: str, value: float) -> str:
    stated = metric.words.format(v=_fmt(value, metric.decimals))
    verb = "were" if metric.name.split()[0].endswith("s") else "was"
    return f"{name}'s {metric.name} {verb} {stated} in {year}."


def structured_pairs(*, n: int, seed: int = 43) -> list[SyntheticPair]:
    """``n`` (block, claim) pairs: about 40% entailed, 40% contradicted, 20% neutral."""
    rng = random.Random(seed)
    out: list[SyntheticPair] = []
    while len(out) < n:
        metric = rng.choice(_METRICS)
        fmt = rng.choice(("json", "json", "markdown", "kv", "csv"))
        first = rng.randint(2015, 2023)
        years = [str(y) for y in range(first, first + rng.randint(2, 4))]
        if metric.of == "companies":
            picks = rng.sample(_COMPANIES, 1 if fmt == "json" and rng.random() < 0.6 else 3)
            labels = {t: n_ for t, n_ in picks}
        else:
            picks = rng.sample(_PLACES, rng.choice((1, 3)))
            labels = {p: p for p in picks}
        table = {key: {y: _value(rng, metric) for y in years} for key in labels}
        title = next(iter(labels)) if len(labels) == 1 else ""
        premise = premise_text(render(fmt, metric, table, title).strip())
        key = rng.choice(list(table))
        name = labels[key] if rng.random() < 0.5 or metric.of == "places" else key
        year = rng.choice(years)
        v = table[key][year]
        roll = rng.random()
        if roll < 0.4:
            claim, label, kind = _claim(metric, name, year, v), "entailment", "cell"
        elif roll < 0.8:
            options = ["value"]
            if len(years) > 1 and len({table[key][y] for y in years}) > 1:
                options.append("year")
            if len(table) > 1:
                options.append("row")
            how = rng.choice(options)
            if how == "value":
                w = _other(rng, metric, v)
            elif how == "year":
                w = table[key][rng.choice([y for y in years if table[key][y] != v])]
            else:
                other = rng.choice([k for k in table if k != key and table[k][year] != v] or [key])
                w = table[other][year] if other != key else _other(rng, metric, v)
            claim, label, kind = _claim(metric, name, year, w), "contradiction", f"swap_{how}"
        else:
            if rng.random() < 0.5:
                absent_year = str(int(years[-1]) + rng.randint(1, 3))
                claim = _claim(metric, name, absent_year, _value(rng, metric))
            else:
                pool = _COMPANIES if metric.of == "companies" else tuple((p, p) for p in _PLACES)
                absent = rng.choice([c for c in pool if c[0] not in table])
                claim = _claim(metric, absent[1], year, _value(rng, metric))
            label, kind = "neutral", "absent"
        out.append(SyntheticPair(premise, claim, label, f"structured_{fmt}_{kind}"))
    return out
