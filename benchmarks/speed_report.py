"""Markdown body of the speed benchmark's result page (the harness writes the header)."""

from __future__ import annotations

from typing import Any

from .harness import data_markdown, table

SECTION_TITLES = {
    "overhead": "1. Overhead against the model's own limit",
    "naive": "2. Against the naive way",
    "latency": "3. Guardrail latency",
    "claim_splitting": "4. Claim splitting",
    "long_context": "5. Long contexts",
    "gpu": "6. GPU",
    "backend_agreement": "7. Backend agreement (ONNX int8 / fp32, torch bf16) vs torch float32",
    "scale": "8. Scoring at scale",
}


def _table(header: list[str], rows: list[list[Any]]) -> str:
    return table(header, rows)


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _met(value: float | None, target: float, higher: bool = True) -> str:
    if value is None:
        return "-"
    ok = value >= target if higher else value <= target
    return "yes" if ok else "**no**"


def summary_rows(rep: dict[str, Any]) -> list[tuple[str, Any]]:
    """The headline figures: (metric, value) of the summary table."""
    return [(str(r[0]), r[1]) for r in _summary_rows(rep)]


def summary(rep: dict[str, Any]) -> str:
    return _table(["section / metric", "value", "target", "met"], _summary_rows(rep))


def _summary_rows(rep: dict[str, Any]) -> list[list[Any]]:
    t = rep["targets"]
    s = rep["sections"]
    rows = []
    ov = s.get("overhead", {}).get("backends", {})
    for be, r in ov.items():
        rows.append(
            [
                f"1 overhead ratio ({be}): score_batch / bare forwards",
                r["ratio"],
                f">= {t['overhead_ratio']}",
                _met(r["ratio"], t["overhead_ratio"]),
            ]
        )
    nv = s.get("naive", {})
    for key, way in (
        ("speedup", f"torch, default dtype {nv.get('torch_default_dtype', '?')}"),
        ("onnx_speedup", "onnx int8"),
        ("fp32_speedup", "torch, dtype='float32'"),
    ):
        if nv.get(key) is not None:
            rows.append(
                [
                    f"2 score_batch ({way}) speed-up over one-pair pipeline (torch fp32)",
                    f"{nv[key]}x",
                    f">= {t['naive_speedup']}x",
                    _met(nv[key], t["naive_speedup"]),
                ]
            )
    for r in s.get("latency", {}).get("rows", []):
        rows.append(
            [
                f"3 latency p50 / p95, {r['config']}",
                f"{r['p50_ms']} / {r['p95_ms']} ms (verdicts = torch default: "
                f"{r['agreement_vs_torch_default']['agreement']})",
                f"<= {t['p50_ms']:g} / {t['p95_ms']:g} ms",
                "yes" if r["meets_target"] else "**no**",
            ]
        )
    sp = s.get("claim_splitting", {})
    if "rule_split" in sp:
        v = sp["rule_split"]["sentences_per_cpu_s"]
        rows.append(
            [
                "4 rule-based splitting, sentences/s per core",
                v,
                f">= {t['rule_sentences_per_s_per_core']:g}",
                _met(v, t["rule_sentences_per_s_per_core"]),
            ]
        )
    lc = s.get("long_context", {})
    for cfg, v in lc.get("speedup_prefilter", {}).items():
        rows.append([f"5 long context: speed-up over full scan, {cfg}", f"{v}x", "-", "-"])
    for name, r in lc.get("agreement", {}).get("results", {}).items():
        v = r["report"]["agreement"]
        rows.append(
            [
                f"5 {name} vs full scan verdict agreement (per claim, report half)",
                v,
                f">= {t['prefilter_agreement']}",
                _met(v, t["prefilter_agreement"]),
            ]
        )
    ba = s.get("backend_agreement", {})
    for key, label in (
        ("onnx_int8", "ONNX int8"),
        ("onnx_fp32", "ONNX fp32"),
        ("torch_bf16", "torch bf16"),
    ):
        if ba.get(key, {}).get("agreement") is not None:
            x = ba[key]
            rows.append(
                [
                    f"7 {label} vs torch fp32 verdict agreement (per claim); max abs dp_entail",
                    f"{x['agreement']}; {x['max_abs_claim_p_entail_diff']}",
                    "-",
                    "-",
                ]
            )
    sc = s.get("scale", {})
    g = sc.get("gpu_end_to_end", {})
    target = t.get("gpu_end_to_end_ratio", 0.8)
    if g.get("measured"):
        for r in g["rows"]:
            rows.append(
                [
                    f"8 GPU score_batch / bare forwards, batch {r['batch_size']}",
                    r["ratio"],
                    f">= {target}",
                    _met(r["ratio"], target),
                ]
            )
    elif g:
        rows.append(["8 GPU score_batch / bare forwards", g.get("note"), f">= {target}", "-"])
    st = sc.get("streaming_cli", {})
    for r in st.get("runs", []):
        rows.append(
            [
                f"8 streaming CLI, {r['records']:,} records, {r['model']}",
                f"{r['records_per_s']} rec/s, peak RSS {r['peak_rss_mib']} MiB",
                "-",
                "-",
            ]
        )
    ray = sc.get("ray", {})
    if "score_batch" in ray:
        parts = [f"score_batch {ray['score_batch']['records_per_s']}"]
        parts += [
            f"{k} actor(s) {ray[f'ray_{k}_actor']['records_per_s']}"
            for k in (1, 2)
            if f"ray_{k}_actor" in ray
        ]
        rows.append(["8 Ray Data vs score_batch, records/s", "; ".join(parts), "-", "-"])
    return rows


def render(rep: dict[str, Any]) -> str:
    m = rep["machine"]
    cpu = m["cpu"]
    out = []
    if rep.get("quick"):
        out.append("**QUICK smoke run (small workloads): figures are not representative.**\n")
    out.append(
        "Every comparison below is measured within one run; ratios compare interleaved "
        "measurements.\n"
    )
    for u in rep.get("updates", []):
        out.append(
            f"Sections {', '.join(u['sections'])} re-measured later ({u['started']} to "
            f"{u['finished']}{_update_cpu(u)}), because: {u['why']}\n"
        )
    out.append("## Machine\n")
    out.append(
        _table(
            ["item", "value"],
            [
                [
                    "CPU",
                    f"{cpu.get('model_name')} (family {cpu.get('cpu_family')}, model "
                    f"{cpu.get('model')}, stepping {cpu.get('stepping')}), "
                    f"{cpu.get('cpu_MHz')} MHz",
                ],
                ["SIMD", ", ".join(cpu.get("simd", []))],
                ["hypervisor", cpu.get("hypervisor")],
                [
                    "threads",
                    f"torch {m['torch_threads']} (interop {m['torch_interop_threads']}), "
                    f"onnxruntime {_onnx_threads(m)}",
                ],
                ["versions", ", ".join(f"{k} {val}" for k, val in m["versions"].items())],
            ],
        )
    )
    lb, la = rep.get("load_before", {}), rep.get("load_after", {})
    whole = rep.get("cpu_whole_run", {})
    out.append(
        "\n**Shared machine.** Load before the run: other processes used "
        f"{_pct(lb.get('foreign_share'))} of the CPUs (3 s sample, load average "
        f"{lb.get('loadavg_start')}); after: {_pct(la.get('foreign_share'))} (load average "
        f"{la.get('loadavg_start')}). Over the whole run other processes took "
        f"{_pct(whole.get('foreign_share'))} of the CPU time. A share well above 0% means the "
        "absolute figures are depressed; the ratios, measured interleaved, much less so.\n"
    )
    out.append("## Summary\n")
    out.append(summary(rep))
    for key, title in SECTION_TITLES.items():
        if key in rep["sections"]:
            out.append(f"\n## {title}\n\n{data_markdown(rep['sections'][key])}")
    return "\n".join(out)


def _onnx_threads(m: dict[str, Any]) -> str:
    """How ONNX Runtime ran (older results recorded only the intra-op thread count)."""
    return m.get("onnxruntime_threads") or f"intra-op {m['onnxruntime_intra_op_threads']}"


def _update_cpu(u: dict[str, Any]) -> str:
    """The CPU an update ran on, where it was recorded."""
    cpu = u.get("cpu")
    if not cpu:
        return ""
    return f", CPU family {cpu.get('cpu_family')} model {cpu.get('model')}"
