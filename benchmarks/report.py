"""Markdown rendering of the quality benchmark's results (``quality.md``)."""

from __future__ import annotations

from pathlib import Path

from nli_faith.training.evaluate import to_markdown

_REPO = Path(__file__).resolve().parents[1]

#: (key in the results, column header), in table order.
METHODS = [
    ("strict", "nli-faith strict"),
    ("lenient", "nli-faith lenient"),
    ("soft", "nli-faith soft"),
    ("summac_zs", "SummaC-ZS (same model)"),
    ("single_pass", "single pass P(e)"),
    ("token_overlap", "token overlap"),
]
_NLI_FAITH = ("strict", "soft")
_BASELINES = (("token_overlap", "token overlap"), ("single_pass", "single pass"))


def _rel(path: str) -> str:
    """``path`` relative to the repository root when it lies inside it."""
    try:
        return str(Path(path).resolve().relative_to(_REPO))
    except ValueError:
        return path


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _verdict(values: dict[str, float | None]) -> str:
    """Does nli-faith strict or soft beat both token overlap and single pass?"""
    ours = [values[k] for k in _NLI_FAITH if values[k] is not None]
    if not ours:
        return "–"
    best = round(100 * max(ours), 1)
    losers = [
        name
        for key, name in _BASELINES
        if values[key] is not None and round(100 * values[key], 1) >= best
    ]
    if not losers:
        return "yes"
    return "**NO**: not above " + " and ".join(losers)


def std_error(metric: str, value: float | None, d: dict) -> float | None:
    """Rough one-standard-error of a row's figure, from its class counts.

    Balanced accuracy: binomial error of the two recalls on the test half (its class
    counts approximated from the whole set's positive share). ROC-AUC: Hanley & McNeil (1982).
    """
    if value is None or d["positive_share"] is None:
        return None
    share = d["positive_share"]
    if metric == "balanced_accuracy":
        n_pos, n_neg = share * d["n_test"], (1 - share) * d["n_test"]
        if n_pos < 1 or n_neg < 1:
            return None
        var = value * (1 - value)
        return 0.5 * (var / n_pos + var / n_neg) ** 0.5
    n_pos, n_neg = share * d["n"], (1 - share) * d["n"]
    if n_pos < 1 or n_neg < 1:
        return None
    a = value
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    var = (a * (1 - a) + (n_pos - 1) * (q1 - a * a) + (n_neg - 1) * (q2 - a * a)) / (n_pos * n_neg)
    return max(var, 0.0) ** 0.5


def _metric_table(result: dict, metric: str) -> str:
    head = (
        ["dataset", "n"]
        + [h for _, h in METHODS]
        + ["≈ 1 SE", "strict/soft beat overlap & single pass?"]
    )
    lines = ["| " + " | ".join(head) + " |", "|---|---:|" + "---:|" * (len(METHODS) + 1) + "---|"]
    sums: dict[str, list[float]] = {k: [] for k, _ in METHODS}
    for name, d in result["datasets"].items():
        values = {k: d["methods"][k][metric] for k, _ in METHODS}
        for k, v in values.items():
            if v is not None:
                sums[k].append(v)
        known = [v for v in values.values() if v is not None]
        se = std_error(metric, max(known), d) if known else None
        lines.append(_row(name, f"{d['n']:,}", values, "–" if se is None else f"{100 * se:.1f}"))
    if len(result["datasets"]) > 1:
        means = {k: (sum(v) / len(v) if v else None) for k, v in sums.items()}
        lines.append(_row("*mean of the rows*", "", means, ""))
    return "\n".join(lines) + "\n"


def _row(name: str, n: str, values: dict[str, float | None], se: str) -> str:
    shown = {k: _pct(v) for k, v in values.items()}
    numeric = [round(100 * v, 1) for v in values.values() if v is not None]
    top = max(numeric) if numeric else None
    cells = []
    for k, _ in METHODS:
        v = values[k]
        cell = shown[k]
        if v is not None and round(100 * v, 1) == top:
            cell = f"**{cell}**"
        cells.append(cell)
    return f"| {name} | {n} | " + " | ".join(cells) + f" | {se} | {_verdict(values)} |"


def _dataset_table(result: dict) -> str:
    lines = [
        "| dataset | rows | positive share | calibration / test rows | mean claims | "
        "mean chunks | mean scorer pairs | mean SummaC pairs | no-claim rows | "
        "single pass truncated | seconds |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, d in result["datasets"].items():
        lines.append(
            f"| {name} | {d['n']:,} | {_pct(d['positive_share'])}% | "
            f"{d['n_calibration']:,} / {d['n_test']:,} | {d['mean_claims']:.2f} | "
            f"{d['mean_chunks']:.1f} | {d['mean_pairs']:.1f} | {d['mean_summac_pairs']:.1f} | "
            f"{d['no_claim_rows']:,} | {_pct(d['single_pass_truncated_share'])}% | "
            f"{d['seconds']:.0f} |"
        )
    return "\n".join(lines) + "\n"


def _edge_table(rows: list[dict]) -> str:
    lines = [
        "| case | criterion | result | lenient | strict | soft | yes / no / idk | "
        "per-claim verdict (P(e), P(c)) | reason |",
        "|---|---|---|---:|---:|---:|---|---|---|",
    ]
    for r in rows:
        claims = ", ".join(
            f"{v} ({e:.2f}, {c:.2f})"
            for v, e, c in zip(r["verdicts"], r["p_entail"], r["p_contradict"])
        )
        if len(r["verdicts"]) > 6:
            counts = {v: r["verdicts"].count(v) for v in ("yes", "no", "idk")}
            claims = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
            claims += f"; max P(e) {max(r['p_entail']):.2f}, max P(c) {max(r['p_contradict']):.2f}"
        fmt = lambda x: "–" if x is None else f"{x:.2f}"  # noqa: E731
        reason = r["reason"].replace("|", "\\|")
        lines.append(
            f"| {r['case']}. {r['title']} | {r['criterion']} | "
            f"{'**pass**' if r['passed'] else '**FAIL**'} | {fmt(r['lenient'])} | "
            f"{fmt(r['strict'])} | {fmt(r['soft'])} | {r['n_yes']} / {r['n_no']} / {r['n_idk']} | "
            f"{claims} | {reason} |"
        )
    return "\n".join(lines) + "\n"


def _drift_section(check: dict, onnx_edge: list[dict]) -> str:
    p = check["pairs"]
    lines = ["## int8 ONNX vs the fp32 torch model\n"]
    if p["n"]:
        lines.append(
            f"A deterministic sample of {p['n']:,} of the run's distinct pairs (chosen by "
            'digest), re-scored with `backend="torch"`: argmax agreement '
            f"{_pct(p['argmax_agreement'])}%, same side of 0.5 for P(entail) "
            f"{_pct(p['entail_decision_agreement'])}% and for P(contradict) "
            f"{_pct(p['contradict_decision_agreement'])}%; mean |ΔP(entail)| "
            f"{p['mean_abs_diff_entail']:.3f} (99th percentile {p['p99_abs_diff_entail']:.3f}), "
            f"mean |ΔP(contradict)| {p['mean_abs_diff_contradict']:.3f} "
            f"(99th percentile {p['p99_abs_diff_contradict']:.3f}).\n"
        )
    lines.append("Mission edge cases on both backends:\n")
    lines.append("| case | int8 ONNX | fp32 torch |")
    lines.append("|---|---|---|")
    for o, t in zip(onnx_edge, check["edge_cases"]):
        lines.append(f"| {o['case']}. {o['title']} | {_edge_brief(o)} | {_edge_brief(t)} |")
    return "\n".join(lines) + "\n"


def _edge_brief(r: dict) -> str:
    state = "pass" if r["passed"] else "FAIL"
    if r["n_claims"] == 0:
        return f"{state}: no verifiable claim"
    if r["n_claims"] == 1:
        return (
            f"{state}: {r['verdicts'][0]} (P(e) {r['p_entail'][0]:.2f}, "
            f"P(c) {r['p_contradict'][0]:.2f})"
        )
    return (
        f"{state}: {r['n_yes']} yes / {r['n_no']} no / {r['n_idk']} idk, "
        f"lenient {r['lenient']:.2f}, strict {r['strict']:.2f}"
    )


def _losses(result: dict) -> str:
    out = []
    for metric, label in (("balanced_accuracy", "balanced accuracy"), ("roc_auc", "ROC-AUC")):
        bad = []
        for name, d in result["datasets"].items():
            v = _verdict({k: d["methods"][k][metric] for k, _ in METHODS})
            if v.startswith("**NO**"):
                bad.append(f"{name} ({v.removeprefix('**NO**: ')})")
        out.append(
            f"- {label}: nli-faith strict/soft does **not** beat both baselines on "
            + (", ".join(bad) if bad else "no dataset")
            + "."
        )
    return "\n".join(out) + "\n"


def render_markdown(result: dict) -> str:
    m = result["model"]
    limited = result["limit"] is not None
    parts = [
        (
            f"> **Quick run (`--limit {result['limit']}`): a seeded sample of "
            f"{result['limit']} rows per dataset and the first {result['limit']} rows per NLI "
            "file. Not the reported figures.**\n"
            if limited
            else ""
        ),
        "All methods run on the same bundled NLI model "
        f"(`{m['name']}`, backend `{m['backend']}`"
        + (
            "; the int8 ONNX file is the same bundled model, dynamically quantized, shipped with it"
            if m["backend"] == "onnx"
            else "; the bundled model exported to fp32 ONNX: the same probabilities as torch"
            if m["backend"] == "onnx-fp32"
            else ""
        )
        + "). Figures are ×100.\n",
        "## Balanced accuracy (test half; threshold chosen on the calibration half)\n",
        _metric_table(result, "balanced_accuracy"),
        "## ROC-AUC (whole set)\n",
        _metric_table(result, "roc_auc"),
        "Where nli-faith loses:\n",
        _losses(result),
        "## How to read this\n",
        "Each row is one human-labelled set (label 1 = faithful); each method gives every "
        "record one score, higher = more faithful. **ROC-AUC** (whole set) is the chance "
        "that a random faithful record scores above a random unfaithful one — no threshold "
        "needed. **Balanced accuracy** is the mean of the recall on faithful and on "
        "unfaithful records at one threshold; the threshold is chosen to maximise it on a "
        f"fixed half of the set (seeded, stratified by label, seed {result['split_seed']}; "
        "the rules of `nli-faith calibrate`) and reported on the other half only, so 50 is "
        "chance whatever the class balance. "
        "Best per row in bold. The last column says whether nli-faith strict or soft beats "
        "*both* token overlap and single pass (ties count as not beating); '≈ 1 SE' is a "
        "rough standard error of the row's best figure (binomial for balanced accuracy, "
        "Hanley-McNeil for ROC-AUC), a guide to the sampling noise of one figure (the methods "
        "score the same records, so a gap between two of them is somewhat less noisy). "
        "Methods: *strict* = supported claims / claims, *lenient* = (claims − contradicted) "
        "/ claims (DeepEval's formula), *soft* = mean best P(entail) per claim, all with the "
        "default `FaithfulnessScorer()` settings; *SummaC-ZS* = mean over response sentences "
        "of (max P(entail) − max P(contradict)) over context sentences, re-implemented here "
        "from the published formula on this model (not the SummaC checkpoint); *single pass* "
        "= P(entail) of the whole response against the whole context as one pair, the "
        'context cut to the 512-token window (`truncation="only_first"`; P(entail) − '
        "P(contradict) is kept in the JSON as `single_pass_e_minus_c`); *token overlap* "
        "= share of the response's lower-cased `\\w+` tokens found in the context. "
        "A response with no verifiable claim has no nli-faith score; it counts in the "
        "'no-claim rows' column and is given 0.5 for the metrics (a baseline that cannot "
        "score a record gets the middle of its range the same way: 0.5, or 0 for SummaC). "
        "frank_xsum re-annotates the xsumfaith summaries, so the mean row counts that "
        "material twice.\n",
        "## Datasets and cost\n",
        _dataset_table(result),
        "*mean scorer pairs* = claims × chunks per record (the scorer's NLI matrix; chunks are "
        "every context sentence plus windows of several sentences). Over the run, "
        f"{result['nli_pairs']['requested']:,} pairs were asked for by all methods and "
        f"{result['nli_pairs']['distinct_run']:,} distinct pairs went through the model "
        "(benchmark-local cache: the scorer's sentence chunks are SummaC's pairs, and "
        "frank_xsum repeats xsumfaith).\n",
        "## Mission edge cases (`FaithfulnessScorer()` defaults)\n",
        _edge_table(result["edge_cases"]),
    ]
    if result.get("evidence_cases"):
        from tests.suites.evidence_cases import render_markdown as evidence_markdown

        parts += [
            evidence_markdown(
                result["evidence_cases"]["cases"],
                title="Evidence edge cases (`tests/suites/evidence_cases.py`)",
            )
        ]
    if result.get("torch_check"):
        parts += [_drift_section(result["torch_check"], result["edge_cases"])]
    if result["nli_eval"]:
        parts += [
            "## NLI accuracy of the bundled model (`nli/eval`)\n",
            to_markdown(result["nli_eval"]),
            "3-way files: argmax over entailment / neutral / contradiction. Binary files: "
            "entailment iff it is the argmax. F1 ×100.\n",
        ]
    parts += [
        "## Run\n",
        f"- model: `{m['name']}` (`{_rel(m['path'])}`), max length {m['max_length']}",
        f"- weights: `{_rel(m['weights_file'])}` sha256 `{m['weights_sha256']}`",
    ]
    if "onnx_file" in m:
        parts.append(f"- ONNX file used: `{_rel(m['onnx_file'])}` sha256 `{m['onnx_sha256']}`")
    parts += [
        f"- backend: `{m['backend']}`",
        f"- wall time: {result['wall_seconds']:.0f} s "
        f"({result['wall_seconds'] / 60:.1f} min; edge cases "
        f"{result['seconds']['edge_cases']:.0f} s, NLI eval {result['seconds']['nli_eval']:.0f} s, "
        f"torch check {result['seconds'].get('torch_check', 0):.0f} s)",
        f"- data: `{result['data_dir']}`",
    ]
    return "\n".join(p for p in parts if p) + "\n"
