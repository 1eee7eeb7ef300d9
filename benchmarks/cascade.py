"""How many LLM-judge calls the NLI bands save, and how often the settled claims agree with people.

The visible claim-level sets (``qags_cnndm``, ``qags_xsum``: one human label per summary
sentence, 1 = supported by the article) are split by a seeded hash of the record id
into a *design* half, on which the library's band defaults were chosen, and a
*report* half, whose figures are the ones to quote. Every gold sentence is scored as
one claim with the default ``FaithfulnessScorer()``; the full NLI matrices are built
once and cached, so each band setting is a pure re-aggregation.

A settled claim "agrees with people" when its band matches the human label:
``supported`` with label 1, ``contradicted`` / ``not_found`` with label 0.

    python -m benchmarks run cascade
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import numpy as np

from .cascade_data import CLAIM_SETS, build_matrices, load_claim_records, report_half
from .harness import DEFAULT_DATA_DIR, REPO, Outcome
from .speed_common import rnd

#: Rows of the report table (besides the chosen default): from cautious to bold.
SHOWN = [(0.99, 0.01), (0.98, 0.02), (0.95, 0.05), (0.9, 0.1), (0.8, 0.2), (0.7, 0.3), (0.5, 0.5)]


def claim_table(scorer, mats: list) -> dict[str, np.ndarray]:
    """Per-claim reductions of every matrix (the verdict rule at the scorer's thresholds)."""
    from nli_faith.scoring.bands import nearest_entailment

    verdicts, pe, pc, near = [], [], [], []
    for m in mats:
        r = scorer.stages.aggregate(m)
        verdicts += [c.verdict for c in r.claims]
        pe += [c.p_entail for c in r.claims]
        pc += [c.p_contradict for c in r.claims]
        near += nearest_entailment(m.probs, m.mask).tolist()
    return {
        "verdict": np.array(verdicts, dtype=object),
        "p_entail": np.array(pe),
        "p_contradict": np.array(pc),
        "p_near": np.array(near),
    }


def band_figures(bands: np.ndarray, labels: np.ndarray, verdicts: np.ndarray) -> dict[str, Any]:
    """Settled share, agreement of settled claims with people, and per-band counts."""
    from nli_faith.scoring.band_calibration import figures_of_bands

    base = figures_of_bands(bands, labels)
    settled = bands != "uncertain"
    nli_agree = (verdicts == "yes").astype(int) == labels
    n = len(bands)
    out: dict[str, Any] = {
        "claims": n,
        "settled": base.settled,
        "settled_share": base.settled_share,
        "settled_agreement": base.settled_agreement,
        "uncertain_nli_agreement": rnd(nli_agree[~settled].mean(), 4) if (~settled).any() else None,
        "all_nli_agreement": rnd(nli_agree.mean(), 4) if n else None,
        "judge_calls_saved_per_1000": rnd(1000 * settled.mean(), 0) if n else None,
        "bands": {},
    }
    for b in ("supported", "contradicted", "not_found", "uncertain"):
        sel = bands == b
        out["bands"][b] = {
            "n": int(sel.sum()),
            "label_1_share": rnd(labels[sel].mean(), 4) if sel.any() else None,
        }
    return out


def study(data_dir: Path, cache: Path | None) -> dict[str, Any]:
    from nli_faith.scorer import FaithfulnessScorer
    from nli_faith.scoring.band_calibration import BAND_GRID, choose_bands
    from nli_faith.scoring.bands import (
        DEFAULT_BAND_HIGH,
        DEFAULT_BAND_LOW,
        TARGET_AGREEMENT,
        BandThresholds,
        assign_bands,
    )

    logging.getLogger("nli_faith").setLevel(logging.ERROR)
    records = load_claim_records(data_dir)
    report = report_half(records)
    scorer = FaithfulnessScorer(device="cpu")
    t0 = time.perf_counter()
    mats = build_matrices(scorer, records, cache)
    matrices_s = time.perf_counter() - t0
    t = claim_table(scorer, mats)
    labels = np.array([y for r in records for y in r.labels])
    sets = np.array([r.set for r in records for _ in r.labels])
    half = np.array([bool(h) for r, h in zip(records, report) for _ in r.labels])

    def figures(hi: float, lo: float, sel: np.ndarray) -> dict[str, Any]:
        bands = assign_bands(
            t["verdict"][sel],
            t["p_entail"][sel],
            t["p_contradict"][sel],
            t["p_near"][sel],
            thresholds=BandThresholds(high=hi, low=lo),
        )
        return band_figures(bands, labels[sel], t["verdict"][sel])

    t1 = time.perf_counter()
    design = {k: figures(*k, ~half) for k in BAND_GRID}
    sweep_s = time.perf_counter() - t1
    chosen, _ = choose_bands(
        {k: (f["settled_share"], f["settled_agreement"]) for k, f in design.items()},
        TARGET_AGREEMENT,
    )
    # the library's defaults, through the real aggregate() path (exact, unrounded)
    lib = (DEFAULT_BAND_HIGH, DEFAULT_BAND_LOW)
    lib_bands = np.array(
        [c.band for m in mats for c in scorer.stages.aggregate(m).claims], dtype=object
    )
    default_report = band_figures(lib_bands[half], labels[half], t["verdict"][half])
    per_set = {
        s: band_figures(
            lib_bands[half & (sets == s)],
            labels[half & (sets == s)],
            t["verdict"][half & (sets == s)],
        )
        for s in CLAIM_SETS
    }
    rows = sorted(set(SHOWN) | {chosen, lib}, key=lambda k: (-k[0], k[1]))
    return {
        "sets": list(CLAIM_SETS),
        "records": {"design": int((~report).sum()), "report": int(report.sum())},
        "claims": {"design": int((~half).sum()), "report": int(half.sum())},
        "label_1_share": {
            "design": rnd(labels[~half].mean(), 4),
            "report": rnd(labels[half].mean(), 4),
        },
        "target_agreement": TARGET_AGREEMENT,
        "chosen_on_design": {"band_high": chosen[0], "band_low": chosen[1]},
        "library_default": {"band_high": lib[0], "band_low": lib[1]},
        "default_matches_choice": lib == chosen,
        "default_design": design.get(lib) or figures(*lib, ~half),
        "default_report": default_report,
        "default_report_per_set": per_set,
        "table": [
            {
                "band_high": hi,
                "band_low": lo,
                "design": design.get((hi, lo)) or figures(hi, lo, ~half),
                "report": figures(hi, lo, half),
            }
            for hi, lo in rows
        ],
        "grid_design": [
            {"band_high": hi, "band_low": lo, **{k: v for k, v in f.items() if k != "bands"}}
            for (hi, lo), f in design.items()
        ],
        "seconds": {"matrices": rnd(matrices_s, 1), "sweep": rnd(sweep_s, 2)},
        "pairs": int(sum(int(m.mask.sum()) for m in mats)),
    }


def _band_note(rep: dict[str, Any]) -> str:
    """Which band carries the agreement, and which does not (default setting, both halves)."""
    parts = []
    for half in ("design", "report"):
        b = rep[f"default_{half}"]["bands"]
        cells = [
            f"{name} {b[name]['n']} claims at "
            f"{_pct(_band_agreement(name, b[name]['label_1_share']))}"
            for name in ("supported", "contradicted", "not_found")
            if b[name]["n"]
        ]
        parts.append(f"{half} half: " + ", ".join(cells))
    return (
        "Per band at the default (" + "; ".join(parts) + "). The `supported` band is where "
        "the NLI model is reliable on this data; a confident contradiction of a summary "
        "sentence agrees with people far less often (few claims, so a noisy figure), and "
        "`not_found` is rare because in a long news article some sentence nearly always "
        "comes close to the claim."
    )


def _band_agreement(band: str, label_1_share: float) -> float:
    return label_1_share if band == "supported" else 1 - label_1_share


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def render(rep: dict[str, Any]) -> str:
    d, lib = rep["default_report"], rep["library_default"]
    lines = [
        "Data: per-sentence human labels of "
        f"{', '.join(rep['sets'])} (label 1 = the summary sentence is supported by the article); "
        f"every gold sentence is one claim, scored by the default `FaithfulnessScorer()` "
        f"(torch, every chunk). Records split by a seeded hash of their id: design half "
        f"{rep['records']['design']} records / {rep['claims']['design']} claims (band defaults "
        f"chosen there), report half {rep['records']['report']} records / "
        f"{rep['claims']['report']} claims (figures below). Share of claims labelled "
        f"supported: design {_pct(rep['label_1_share']['design'])}, report "
        f"{_pct(rep['label_1_share']['report'])}.",
        "",
        f"## Default: `band_high={lib['band_high']}`, `band_low={lib['band_low']}` (report half)",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| claims settled locally | {d['settled']} of {d['claims']} "
        f"({_pct(d['settled_share'])}) |",
        f"| agreement of the settled claims with people | {_pct(d['settled_agreement'])} |",
        f"| judge calls saved per 1,000 claims | {d['judge_calls_saved_per_1000']:.0f} |",
        f"| NLI verdict agreement on the uncertain claims (sent to the judge) | "
        f"{_pct(d['uncertain_nli_agreement'])} |",
        f"| NLI verdict agreement on all claims (no judge) | {_pct(d['all_nli_agreement'])} |",
        "",
        "Per band (report half), claims and their agreement with people: "
        + "; ".join(
            f"{b} {v['n']}"
            + (
                ""
                if v["label_1_share"] is None or b == "uncertain"
                else f" ({_pct(_band_agreement(b, v['label_1_share']))})"
            )
            for b, v in d["bands"].items()
        )
        + ". Human labels are binary (supported or not), so a `contradicted` or `not_found` "
        "claim agrees when people marked it unsupported.",
        "",
        "Per set (report half): "
        + "; ".join(
            f"{s}: {f['settled']}/{f['claims']} settled ({_pct(f['settled_share'])}), "
            f"agreement {_pct(f['settled_agreement'])}"
            for s, f in rep["default_report_per_set"].items()
        )
        + ".",
        "",
        "## Settled share against agreement, several band settings",
        "",
        "| band_high | band_low | report: settled | report: agreement of settled | "
        "report: judge calls saved / 1,000 | design: settled | design: agreement |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rep["table"]:
        r, g = row["report"], row["design"]
        mark = (
            " (default)"
            if (row["band_high"], row["band_low"]) == (lib["band_high"], lib["band_low"])
            else ""
        )
        lines.append(
            f"| {row['band_high']}{mark} | {row['band_low']} | {_pct(r['settled_share'])} | "
            f"{_pct(r['settled_agreement'])} | {r['judge_calls_saved_per_1000']:.0f} | "
            f"{_pct(g['settled_share'])} | {_pct(g['settled_agreement'])} |"
        )
    ch = rep["chosen_on_design"]
    lines += [
        "",
        "## How the default was chosen",
        "",
        f"On the design half only, {len(rep['grid_design'])} settings (`band_high` × "
        f"`band_low`, JSON `grid_design`) were scored; the rule, fixed beforehand: the most "
        f"claims settled while the settled claims agree with people at least "
        f"{_pct(rep['target_agreement'])} of the time. It picked `band_high={ch['band_high']}`, "
        f"`band_low={ch['band_low']}`"
        + (
            ", the library's default."
            if rep["default_matches_choice"]
            else f"; **the library default differs** ({lib})."
        )
        + " A band is a statement about the matrix, not a verdict: the verdict rule is "
        "unchanged. `supported` = `yes` with best entailment ≥ `band_high`; `contradicted` = "
        "`no` with best contradiction ≥ `band_high`; `not_found` = `idk` where no chunk's "
        "entailment (before the number check) or contradiction reaches `band_low`; every other "
        "claim is `uncertain` and goes to the judge.",
        "",
        _band_note(rep),
        "",
        "What it means: with the default, an LLM judge sees only the uncertain claims, "
        f"{1000 - d['judge_calls_saved_per_1000']:.0f} of every 1,000 on this data, instead "
        "of all of them. The agreement of the whole cascade with people then depends on the "
        "judge, which is not measured here (no LLM is reachable from this machine). The "
        "human labels are majority votes of three crowd workers, so 100% is not reachable "
        "by any method.",
        "",
        "## Run",
        "",
        f"- NLI matrices: {rep['pairs']:,} (chunk, claim) pairs, "
        + (
            "read from the cache"
            if rep["seconds"]["matrices"] < 60
            else f"built in {rep['seconds']['matrices']:.0f} s"
        )
        + "; the sweep took "
        f"{rep['seconds']['sweep']:.2f} s.",
    ]
    return "\n".join(lines) + "\n"


TITLE = "The NLI pass in front of an LLM judge: claims settled locally"


def add_arguments(p, name: str) -> None:
    p.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    p.add_argument(
        "--cache", default=str(REPO / "runs" / "cascade_matrices.pkl"), help="'' = no cache"
    )


def run(args, bench) -> Outcome:
    rep = study(Path(args.data_dir), Path(args.cache) if args.cache else None)
    d = rep["default_report"]
    return Outcome(
        body=render(rep),
        figures={
            "claims settled locally (default bands)": d.get("settled_share"),
            "settled claims agreeing with people": d.get("settled_agreement"),
        },
        data=rep,
    )
