"""Every claim's verdict from two versions of the library: does a change move any?

    python -m benchmarks run verdict_agreement --src /tmp/before --save before.json
    python -m benchmarks run verdict_agreement --against before.json

Scores the first ``--per-set`` records of each visible faithfulness set
(``data/faithfulness/*.jsonl``) through ``score_batch`` and every evidence case and
mission edge case of ``tests/suites/`` through ``score``, with the default scorer and the
``guardrail`` preset, and keeps each claim's verdict, band and citation status and each
record's scores. ``--src`` scores with an older checkout instead of this one (imported as
``nli_faith_before``, see :mod:`benchmarks.before`); ``--save`` writes what was
scored; ``--against`` compares it with a saved run, record by record, and lists every
difference. A refactoring must show 100% agreement.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from .before import bundled_scorer, import_before
from .harness import DEFAULT_DATA_DIR, Outcome

TITLE = "Verdict agreement between two versions"
#: The scorer set-ups compared (keyword options over the bundled model; ``None``: the
#: version's own ``FaithfulnessScorer.guardrail()`` preset).
SETUPS: dict[str, dict[str, Any] | None] = {
    "default": {"device": "cpu"},
    "guardrail": None,
    "early_exit": {"device": "cpu", "early_exit": True},
}


def add_arguments(p, name: str) -> None:
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--per-set", type=int, default=60, help="first records of each set")
    p.add_argument("--src", type=Path, default=None, help="an older checkout to score with")
    p.add_argument("--save", type=Path, default=None, help="write this run's verdicts here")
    p.add_argument("--against", type=Path, default=None, help="a saved run to compare with")
    p.add_argument("--setups", nargs="*", default=["default", "guardrail"], choices=list(SETUPS))
    p.add_argument(
        "--compare-as",
        default=None,
        choices=list(SETUPS),
        metavar="SETUP",
        help="compare this run's set-up with the saved run's SETUP (e.g. --setups early_exit "
        "--compare-as default: what early exit changes)",
    )


def _scorer_class(src: Path | None):
    if src is not None:
        return import_before(src.resolve())
    from nli_faith.scorer import FaithfulnessScorer

    return FaithfulnessScorer


def _inputs(data_dir: Path, per_set: int) -> dict[str, list[dict[str, Any]]]:
    """Record groups by name: each faithfulness set's first records, and the suites."""
    from tests.suites.edge_cases import CASES as EDGE
    from tests.suites.evidence_cases import CASES as EVIDENCE

    groups: dict[str, list[dict[str, Any]]] = {}
    for path in sorted((data_dir / "faithfulness").glob("*.jsonl")):
        recs = []
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if len(recs) >= per_set:
                    break
                r = json.loads(line)
                recs.append({"id": r["id"], "response": r["response"], "context": r["context"]})
        groups[path.stem] = recs
    groups["evidence_cases"] = [
        {"id": c.key, "response": c.response, "context": c.context} for c in EVIDENCE
    ]
    groups["edge_cases"] = [
        {"id": c.key, "response": c.response, "context": c.context} for c in EDGE
    ]
    return groups


def _row(rec: dict[str, Any], r: Any) -> dict[str, Any]:
    return {
        "id": rec["id"],
        "error": r.error,
        "strict": r.strict,
        "lenient": r.lenient,
        "soft": r.soft,
        "claims": [
            [
                c.claim,
                c.verdict,
                c.band,
                c.citation,
                c.p_entail,
                c.p_contradict,
                None if c.evidence is None else c.evidence.text,
            ]
            for c in r.claims
        ],
    }


def score_all(args, bench) -> dict[str, Any]:
    logging.getLogger("nli_faith").setLevel(logging.ERROR)
    logging.getLogger("nli_faith_before").setLevel(logging.ERROR)
    cls = _scorer_class(args.src)
    groups = _inputs(args.data_dir, args.per_set)
    out: dict[str, Any] = {}
    for setup in args.setups:
        scorer = bundled_scorer(cls, SETUPS[setup])
        for name, recs in groups.items():
            bench.log(f"{setup}: {name} ({len(recs)} records)")
            if name.endswith("_cases"):  # one at a time, through score()
                results = [scorer.score(r["response"], r["context"]) for r in recs]
            else:
                batch = [{"response": r["response"], "context": r["context"]} for r in recs]
                results = scorer.score_batch(batch)
            out[f"{setup}/{name}"] = [_row(rec, r) for rec, r in zip(recs, results)]
    return out


def compare(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Claims with the same verdict, band and citation status; every difference listed."""
    n = same = same_verdict = with_evidence = same_evidence = 0
    diffs: list[dict[str, Any]] = []
    per_group: dict[str, dict[str, int]] = {}
    for group, rows in after.items():
        g = per_group.setdefault(group, {"claims": 0, "same_verdict": 0})
        for a, b in zip(rows, before.get(group, []), strict=False):
            if a["error"] != b["error"] or len(a["claims"]) != len(b["claims"]):
                diffs.append({"group": group, "id": a["id"], "what": "record", "after": a,
                              "before": b})  # fmt: skip
            for ca, cb in zip(a["claims"], b["claims"], strict=False):
                n += 1
                g["claims"] += 1
                if ca[1] == cb[1]:
                    same_verdict += 1
                    g["same_verdict"] += 1
                if len(ca) > 6 and len(cb) > 6:  # runs saved before evidence was kept lack it
                    with_evidence += 1
                    same_evidence += ca[6] == cb[6]
                if ca[:4] == cb[:4]:
                    same += 1
                else:
                    diffs.append({"group": group, "id": a["id"], "after": ca, "before": cb})
    return {
        "claims": n,
        "same_verdict": same_verdict,
        "same_verdict_band_citation": same,
        "same_evidence": f"{same_evidence} of {with_evidence}",
        "agreement": round(same_verdict / n, 6) if n else None,
        "per_group": per_group,
        "differences": diffs,
    }


def run(args, bench) -> Outcome:
    scored = bench.timed("score every record", lambda: score_all(args, bench), repeats=1)
    if args.save is not None:
        args.save.write_text(json.dumps(scored))
    n_claims = sum(len(r["claims"]) for rows in scored.values() for r in rows)
    figures: dict[str, Any] = {"claims": n_claims}
    data: dict[str, Any] = {"src": str(args.src) if args.src else None}
    lines = [f"{n_claims} claims scored in {len(scored)} groups (set-up / record group)."]
    if args.against is not None:
        mine = scored
        if args.compare_as is not None:  # this run's set-up read as the saved run's
            mine = {f"{args.compare_as}/{g.split('/', 1)[1]}": rows for g, rows in scored.items()}
        cmp = compare(json.loads(args.against.read_text()), mine)
        figures["verdict agreement"] = cmp["agreement"]
        figures["differences"] = len(cmp["differences"])
        data["comparison"] = cmp
        lines += [
            "",
            f"Same verdict on {cmp['same_verdict']} of {cmp['claims']} claims "
            f"({cmp['agreement']:.2%}); same verdict, band and citation status on "
            f"{cmp['same_verdict_band_citation']}; same evidence on {cmp['same_evidence']}. "
            f"Differences: {len(cmp['differences'])}.",
            "",
            "| group | claims | same verdict |",
            "|---|---:|---:|",
        ]
        for group, g in cmp["per_group"].items():
            lines.append(f"| {group} | {g['claims']} | {g['same_verdict']} |")
    return Outcome(body="\n".join(lines), figures=figures, data=data)
