"""Render scored records as one self-contained HTML file (inline CSS and JS, no network).

Every user text goes through Jinja2's autoescaping, or into a JSON block whose ``<``, ``>``
and ``&`` are escaped and that the page's script reads with ``JSON.parse`` and writes with
``textContent`` only, so no response, context or id can inject markup or script.

Example:
    >>> from nli_faith.report.records import ReportRecord
    >>> html = render_report([ReportRecord.of(
    ...     {"line": 1, "strict": 0.0, "lenient": 1.0, "soft": 0.1, "n_claims": 1, "n_yes": 0,
    ...      "n_no": 0, "n_idk": 1, "reason": "", "claims": [{"claim": "<b>x</b>", "start": 0,
    ...      "end": 8, "verdict": "idk", "p_entail": 0.1, "p_contradict": 0.0,
    ...      "evidence": None}]},
    ...     {"response": "<b>x</b>", "context": "y"})])
    >>> "<b>x</b>" in html, "&lt;b&gt;x&lt;/b&gt;" in html
    (False, True)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from nli_faith.records import valid_text
from nli_faith.report.records import ReportRecord

#: Verdict -> (label shown, CSS class).
VERDICTS = {
    "no": ("contradicted", "no"),
    "idk": ("not found", "idk"),
    "yes": ("supported", "yes"),
}
HISTOGRAM_BINS = 10


@dataclass
class Part:
    text: str
    span: int | None = None  # index into the claim's unsupported spans


@dataclass
class Segment:
    text: str
    claim: int | None = None  # index into the card's claims
    parts: list[Part] = field(default_factory=list)  # a claim's text, its wrong words apart


@dataclass
class Card:
    index: int
    line: Any
    id: Any
    question: str | None
    segments: list[Segment]
    extra_claims: list[int]  # claims that could not be placed in the response text
    claims: list[dict[str, Any]]
    scores: dict[str, float | None]
    reason: str
    error: str | None
    faithful: bool | None
    verdicts: list[str] = field(default_factory=list)
    search: str = ""


def _segments(response: str | None, claims: list[dict]) -> tuple[list[Segment], list[int]]:
    """The response cut into plain text and claims (by span); overlapping claims go apart."""
    if response is None:  # no input record: show the claims one after another
        segs: list[Segment] = []
        for i, c in enumerate(claims):
            segs += [Segment(c["claim"], i), Segment(" ")]
        return segs, []
    segs, extra, pos = [], [], 0
    order = sorted(range(len(claims)), key=lambda i: (claims[i].get("start", 0), i))
    for i in order:
        s, e = claims[i].get("start"), claims[i].get("end")
        if not isinstance(s, int) or not isinstance(e, int) or s < pos or e > len(response):
            extra.append(i)
            continue
        if s > pos:
            segs.append(Segment(response[pos:s]))
        segs.append(Segment(response[s:e], i, _parts(response, s, e, claims[i])))
        pos = e
    if pos < len(response):
        segs.append(Segment(response[pos:]))
    return segs, extra


def _wrong_spans(c: dict[str, Any]) -> list[dict[str, Any]]:
    spans = c.get("unsupported_spans") or []
    return [x for x in spans if isinstance(x, dict) and isinstance(x.get("start"), int)]


def _parts(response: str, start: int, end: int, c: dict[str, Any]) -> list[Part]:
    """``response[start:end]`` (a claim) cut so that its unsupported spans stand apart."""
    parts, pos = [], start
    for k, x in sorted(enumerate(_wrong_spans(c)), key=lambda kx: kx[1]["start"]):
        s, e = x["start"], x.get("end")
        if not isinstance(e, int) or s < pos or e > end or s >= e:
            continue  # outside the claim or overlapping the previous one: not shown
        if s > pos:
            parts.append(Part(response[pos:s]))
        parts.append(Part(response[s:e], k))
        pos = e
    if pos < end:
        parts.append(Part(response[pos:end]))
    return parts


def _claim_view(c: dict[str, Any], docs: dict[int, str]) -> dict[str, Any]:
    label, css = VERDICTS.get(c.get("verdict"), ("unknown", "idk"))
    ev = c.get("evidence") or None
    view = {
        "text": c.get("claim", ""),
        "verdict": css,
        "label": label,
        "pe": c.get("p_entail"),
        "pc": c.get("p_contradict"),
        "doc": None,
        "ref": c.get("reference_label"),  # hallucination / self_knowledge, with a reference
        "spans": [
            {"text": x.get("text", ""), "kind": x.get("kind"), "ev": x.get("evidence")}
            for x in _wrong_spans(c)
        ],
    }
    if ev:
        view |= {"doc": ev.get("doc_index"), "s": ev.get("start"), "e": ev.get("end")}
        view["ev"] = ev.get("text", "")
        if ev.get("doc_index") in docs:
            view["ev"] = None  # the page highlights the span inside the document
    return view


def _card(index: int, rec: ReportRecord) -> tuple[Card, dict[str, Any]]:
    sc = rec.scored
    claims = [c for c in sc.get("claims") or [] if isinstance(c, dict)]
    wanted = {(c.get("evidence") or {}).get("doc_index") for c in claims if c.get("evidence")} - {
        None
    }
    docs = {
        d: rec.context[d]
        for d in sorted(wanted)
        if rec.context is not None and isinstance(d, int) and 0 <= d < len(rec.context)
    }
    views = [_claim_view(c, docs) for c in claims]
    segments, extra = _segments(rec.response, claims)
    card = Card(
        index=index,
        line=sc.get("line"),
        id=sc.get("id"),
        question=rec.question,
        segments=segments,
        extra_claims=extra,
        claims=views,
        scores={k: sc.get(k) for k in ("strict", "lenient", "soft")},
        reason=sc.get("reason") or "",
        error=sc.get("error"),
        faithful=sc.get("faithful"),
        verdicts=sorted({v["verdict"] for v in views}),
    )
    card.search = (
        " ".join(
            str(x) for x in (card.id, card.question, rec.response, card.reason, card.error) if x
        ).lower()
        + " "
        + " ".join(v["text"].lower() for v in views)
    )
    data = {"docs": {str(k): v for k, v in docs.items()}, "claims": views}
    return card, data


def _order(records: Sequence[ReportRecord]) -> list[int]:
    """Worst first: failed, then by strict (then soft) ascending, then no verifiable claims."""

    def key(i: int) -> tuple:
        sc = records[i].scored
        if sc.get("error"):
            return (0, 0.0, 0.0, i)
        if sc.get("strict") is None:
            return (2, 0.0, 0.0, i)
        return (1, sc["strict"], sc.get("soft") or 0.0, i)

    return sorted(range(len(records)), key=key)


def _mean(values: list[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _histogram(values: list[float]) -> list[dict[str, Any]]:
    counts = [0] * HISTOGRAM_BINS
    for v in values:
        counts[min(int(v * HISTOGRAM_BINS), HISTOGRAM_BINS - 1)] += 1
    top = max(counts) or 1
    return [
        {
            "lo": k / HISTOGRAM_BINS,
            "hi": (k + 1) / HISTOGRAM_BINS,
            "count": n,
            "height": n / top,
        }
        for k, n in enumerate(counts)
    ]


def summary(records: Sequence[ReportRecord]) -> dict[str, Any]:
    """The figures at the top of the report."""
    sc = [r.scored for r in records]
    ok = [s for s in sc if not s.get("error") and s.get("strict") is not None]
    verdict_counts = {"yes": 0, "no": 0, "idk": 0}
    for s in sc:
        for c in s.get("claims") or []:
            if isinstance(c, dict) and c.get("verdict") in verdict_counts:
                verdict_counts[c["verdict"]] += 1
    faithful = [s.get("faithful") for s in sc if s.get("faithful") is not None]
    return {
        "n_records": len(sc),
        "n_scored": len(ok),
        "n_no_claims": sum(not s.get("error") and s.get("strict") is None for s in sc),
        "failed": [s for s in sc if s.get("error")],
        "means": {k: _mean([s.get(k) for s in ok]) for k in ("strict", "lenient", "soft")},
        "claims": [
            {"key": k, "label": VERDICTS[k][0], "count": verdict_counts[k]}
            for k in ("yes", "no", "idk")
        ],
        "n_claims": sum(verdict_counts.values()),
        "histogram": _histogram([s["strict"] for s in ok]),
        "faithful": (sum(faithful), len(faithful)) if faithful else None,
        "hallucination_rate": _mean([s.get("hallucination_rate") for s in ok]),
        "self_knowledge_rate": _mean([s.get("self_knowledge_rate") for s in ok]),
    }


def _script_json(data: Any) -> str:
    """JSON safe inside a ``<script type="application/json">`` element."""
    text = json.dumps(data, ensure_ascii=False)
    for ch, esc in (("&", "\\u0026"), ("<", "\\u003c"), (">", "\\u003e")):
        text = text.replace(ch, esc)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render_report(records: Sequence[ReportRecord], *, title: str = "nli-faith report") -> str:
    """The report's HTML as a string."""
    from jinja2 import Environment
    from markupsafe import Markup

    cards, data = [], []
    for i in _order(records):
        card, d = _card(len(cards), records[i])
        cards.append(card)
        data.append(d)
    template = resources.files("nli_faith.report").joinpath("template.html").read_text("utf-8")
    env = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
    html = env.from_string(template).render(
        title=title,
        summary=summary(records),
        cards=cards,
        data=Markup(_script_json(data)),
        verdicts=VERDICTS,
    )
    return valid_text(html)  # a lone surrogate of an input text is shown as U+FFFD


def write_report(
    records: Sequence[ReportRecord], path: str | Path, *, title: str = "nli-faith report"
) -> None:
    """Write :func:`render_report` to ``path`` (UTF-8)."""
    Path(path).write_text(render_report(records, title=title), encoding="utf-8")
