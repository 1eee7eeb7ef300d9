"""Markdown body of the speed benchmark's result page (the harness writes the header)."""

from __future__ import annotations

from typing import Any


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "**no**"
    if isinstance(x, float):
        if abs(x) >= 100:
            return f"{x:,.0f}"
        return f"{x:g}"
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def _table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _cpu_line(cpu: dict | None) -> str:
    if not cpu:
        return ""
    return (
        f"_Load while measured: other processes took {_pct(cpu.get('foreign_share'))} of the "
        f"CPUs (steal {_pct(cpu.get('steal_share'))}); load average {cpu.get('loadavg_start')}"
        f" -> {cpu.get('loadavg_end')}; {cpu.get('wall_s')} s._\n"
    )


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
                _fmt(r["meets_target"]),
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
    s = rep["sections"]

    _section(out, s, "overhead", "1. Overhead against the model's own limit", _md_overhead)

    _section(out, s, "naive", "2. Against the naive way", _md_naive)

    _section(out, s, "latency", "3. Guardrail latency", _md_latency)

    _section(out, s, "claim_splitting", "4. Claim splitting", _md_splitting)

    _section(out, s, "long_context", "5. Long contexts", _md_long_context)

    out.append("\n## 6. GPU\n")
    g = s.get("gpu")
    if not g or not g.get("available"):
        out.append("no GPU was available in this run\n")
    else:
        d = g["results"]
        gm = d.get("machine", {})
        out.append(
            f"From `{g['source']}` (`python -m benchmarks run speed_gpu`), device "
            f"{d.get('device')}, GPU {gm.get('gpu')}, versions {gm.get('versions')}; "
            f"{d['workload']['n_pairs']} synthetic pairs ({d['workload']['source']}); "
            f"{d['workload']['timing']}. Tokenizing all pairs once: "
            f"{d['workload'].get('tokenize_all_pairs_s')} s. spaCy imported: "
            f"{d.get('spacy_imported')}.\n\n"
        )
        rows = [
            [
                r["batch_size"],
                r["bare_bf16_weights_pairs_per_s"],
                r["predict_bf16_weights_pairs_per_s"],
                r["ratio_predict_vs_bare_bf16"],
                r["bare_fp32_autocast_bf16_pairs_per_s"],
                r["predict_fp32_autocast_bf16_pairs_per_s"],
                r["ratio_predict_vs_bare_autocast"],
                r.get("bare_fp32_pairs_per_s"),
            ]
            for r in d["rows"]
        ]
        out.append(
            _table(
                [
                    "batch",
                    "bare bf16 pairs/s",
                    "predict bf16 pairs/s",
                    "ratio",
                    "bare fp32+autocast",
                    "predict fp32+autocast",
                    "ratio",
                    "bare fp32",
                ],
                rows,
            )
        )

    hp = (g or {}).get("host_prep")
    if hp:
        out.append(
            "\n**Host-side preparation** (this CPU, "
            f"{hp['cores']} cores): `NLIModel.predict` with a no-op model, i.e. everything "
            "a GPU waits for (dedup, tokenize, sort, pad), on the full-scan pairs of "
            f"{hp.get('records')} records of the section 5 sets ({hp['pairs']:,} pairs, "
            f"{hp['distinct_premises']:,} distinct "
            f"chunks, {hp['distinct_hypotheses']:,} distinct claims, batch {hp['batch_size']}): "
            f"**{hp['predict_noop_pairs_per_s']:,.0f} pairs/s**, against "
            f"{hp['tokenize_every_pair_pairs_per_s']:,.0f} pairs/s when every pair is "
            f"tokenized whole (as before the per-text token cache): {hp['speedup']}x. "
            "The GPU figures above were measured before the cache; there GPU `predict` was "
            "bound by this host-side work.\n"
        )

    _section(
        out,
        s,
        "backend_agreement",
        "7. Backend agreement (ONNX int8 / fp32, torch bf16) vs torch float32",
        _md_backends,
    )

    _section(out, s, "scale", "8. Scoring at scale", _md_scale)
    return "\n".join(out)


def _section(out: list[str], s: dict[str, Any], key: str, title: str, body) -> None:
    """Append section ``key`` of the results: its title, then its error or ``body(x)``."""
    if key not in s:
        return
    x = s[key]
    out.append(f"\n## {title}\n")
    out.extend([f"Error: {x['error']}\n"] if "error" in x else body(x))


def _md_overhead(x: dict[str, Any]) -> list[str]:
    out: list[str] = []
    w = x["workload"]
    out.append(
        f"Workload: {w['selection']}: {w['records_per_set']} x "
        f"{', '.join(w['sets'])} = {w['records']} records. Bare = the same unique "
        "(chunk, claim) pairs, tokenized as `NLIModel` does, length-sorted, padded "
        "once, same batch size, timed forwards only. "
        f"{x['method']}; {x['rounds']} rounds.\n\n"
    )
    rows = []
    for be, r in x["backends"].items():
        rows.append(
            [
                be,
                r["unique_pairs"],
                r["mean_pair_tokens"],
                r["batch_size"],
                r["bare_pairs_per_s"],
                r["score_batch_pairs_per_s"],
                r["ratio"],
                ", ".join(map(str, r["ratio_per_round"])),
            ]
        )
    out.append(
        _table(
            [
                "backend",
                "pairs",
                "mean tokens/pair",
                "batch",
                "bare pairs/s",
                "score_batch pairs/s",
                "ratio",
                "per round",
            ],
            rows,
        )
    )
    for be, r in x["backends"].items():
        out.append(
            f"\n{be}: where the extra time goes (measured separately, seconds): "
            + "; ".join(f"{k} {val}" for k, val in r["breakdown_s"].items())
            + ".\n\n"
            + _cpu_line(r.get("cpu"))
        )
    return out


def _md_naive(x: dict[str, Any]) -> list[str]:
    out: list[str] = []
    out.append(
        f"Naive: {x['naive']}. Workload: {x['workload']}. Subsample: {x['subsample']}. "
        f"{x['rounds']} interleaved rounds.\n\n"
    )
    ways = [
        ("naive pipeline, float32", x["naive_pairs_per_s"], x["naive_ms_per_pair"]),
        (
            f"naive pipeline, default dtype ({x['naive_default_dtype']['dtype']})",
            x["naive_default_dtype"]["pairs_per_s"],
        ),
        (
            f"score_batch (torch, default dtype {x.get('torch_default_dtype', '?')})",
            x["score_batch_pairs_per_s"],
        ),
        ("score_batch (onnx int8)", x.get("onnx_score_batch_pairs_per_s")),
        ("score_batch (torch, dtype='float32')", x.get("fp32_score_batch_pairs_per_s")),
    ]
    out.append(
        _table(
            ["way", "pairs/s", "ms/pair"],
            [[w[0], w[1], w[2] if len(w) > 2 else round(1000 / w[1], 1)] for w in ways if w[1]],
        )
    )
    out.append(
        f"\nSpeed-up of score_batch over the float32 naive way: **{x['speedup']}x** "
        f"(per round {x['speedup_per_round']}); with backend='onnx': "
        f"{x.get('onnx_speedup')}x; with dtype='float32': {x.get('fp32_speedup')}x. "
        "Max |prob difference| naive vs "
        f"`NLIModel.predict` on the subsample: {x['max_abs_prob_diff_naive_vs_predict']} "
        f"(same model, same pairs). Default-dtype note: {x['naive_default_dtype']['note']}."
        "\n\n" + _cpu_line(x.get("cpu"))
    )
    return out


def _md_latency(x: dict[str, Any]) -> list[str]:
    out: list[str] = []
    out.append(
        f"{x['requests']} requests after {x['warmup_requests']} warm-up ones. Request: "
        f"{x['request']}. Mean passage {x['mean_passage_words']} words, "
        f"{x['mean_claims']} claims, {x['mean_chunks_default']} chunks with the "
        f"defaults. {x['method']}.\n\n"
    )
    rows = []
    for r in x["rows"]:
        a = r["agreement_vs_torch_default"]
        b = r.get("agreement_vs_onnx_default") or {}
        rows.append(
            [
                r["config"],
                r["p50_ms"],
                r["p95_ms"],
                f"{r.get('quiet_p50_ms')} / {r.get('quiet_p95_ms')}",
                r["mean_ms"],
                r["mean_pairs_per_request"],
                f"{a['agreement']} ({a['equal']}/{a['claims']})",
                b.get("agreement"),
                r["meets_target"],
            ]
        )
    out.append(
        _table(
            [
                "config",
                "p50 ms",
                "p95 ms",
                "quiet p50 / p95 ms",
                "mean ms",
                "pairs/request",
                "verdicts = torch default",
                "= onnx default",
                "meets target",
            ],
            rows,
        )
    )
    out.append(
        f"\nQuiet = the {x.get('quiet_rounds')} {x.get('quiet_definition')} (median "
        f"share over all rounds {x.get('round_foreign_share_median')}).\n"
    )
    out.append("\n" + x.get("note", "") + ".\n\n" + _cpu_line(x.get("cpu")))
    out.append(
        "\nVerdicts by answer sentence (yes/no/idk counts; agreement with torch "
        "default). The expected verdict is what the request was built to be; the "
        "NLI model does not always agree, so this only shows *where* configs differ."
        "\n\n"
    )
    roles = x["rows"][0]["by_role"]
    header = ["config"] + [f"{r['role']} (exp. {r['expected'] or '?'})" for r in roles]
    rows = []
    for r in x["rows"]:
        rows.append(
            [r["config"]]
            + [
                "{yes}/{no}/{idk}".format(**br["verdicts"])
                + f" ({br['agreement_vs_torch_default']})"
                for br in r["by_role"]
            ]
        )
    out.append(_table(header, rows))
    return out


def _md_splitting(x: dict[str, Any]) -> list[str]:
    out: list[str] = []
    out.append(
        f"Answers: {x['answers']}; {x['rule_answers']} answers, {x['rule_sentences']} "
        f"sentences ({x['sentences']}), {x['rule_claims']} claims. Per core = "
        "sentences per CPU-second of this process and its workers.\n\n"
    )
    rows = [
        [
            "rule-based, ClaimSplitter().split per answer",
            x["rule_split"]["sentences_per_s"],
            x["rule_split"]["sentences_per_cpu_s"],
        ],
        [
            "rule-based, split_many (nlp.pipe)",
            x["rule_split_many"]["sentences_per_s"],
            x["rule_split_many"]["sentences_per_cpu_s"],
        ],
    ]
    p = x.get("parser", {})
    if "error" in p:
        out.append(f"Parser mode unavailable: {p['error']}\n")
    elif p:
        for k in ("n_process_1", "n_process_2"):
            rows.append(
                [
                    f"clause (parser {p['model']}), split_many n_process="
                    f"{k[-1]} ({p['answers']} answers, {p['sentences']} sentences)",
                    p[k]["sentences_per_s"],
                    p[k]["sentences_per_cpu_s"],
                ]
            )
    out.append(_table(["mode", "sentences/s (wall)", "sentences per CPU-s"], rows))
    if p.get("note"):
        out.append(f"\n{p['note']}.\n")
    out.append("\n" + _cpu_line(x.get("cpu")))
    return out


def _md_long_context(x: dict[str, Any]) -> list[str]:
    out: list[str] = []
    out.append(f'Context: {x["context"]}. Answer: "{x["answer"]}"\n\n')
    rows = [
        [
            r["config"],
            r["median_s"],
            ", ".join(map(str, r["seconds"])),
            r["claims"],
            r["chunks"],
            r["pairs_scored"],
            r["chunks_kept_per_claim"],
            " ".join(r["verdicts"]),
        ]
        for r in x["rows"]
    ]
    out.append(
        _table(
            [
                "config",
                "median s",
                "runs s",
                "claims",
                "chunks",
                "pairs",
                "chunks/claim",
                "verdicts",
            ],
            rows,
        )
    )
    out.append(
        "\nSpeed-up over the full scan (same backend): "
        + ", ".join(f"{k} {val}x" for k, val in x["speedup_prefilter"].items())
        + ".\n\n"
        + _cpu_line(x.get("cpu"))
    )
    a = x.get("agreement")
    if a:
        out.append(
            "\n**Pre-filter agreement** with the full scan: share of claims whose "
            "verdict is the full scan's, each pre-filter's mask applied to the full-scan "
            f"matrix of every record ({a['backend']}; full scan {a['full_scan_s']} s). "
            f"Sample: {a['sample']}; a fixed seeded half ({a['n_design']} records) is "
            "where the library's settings were chosen (`python -m "
            "benchmarks.prefilter_study`), the other half "
            f"({a['n_report']} records) is reported. Pairs = share of the full "
            "scan's pairs still scored.\n\n"
        )
        rows = []
        for name, r in a["results"].items():
            rows.append(
                [
                    name,
                    r["report"]["agreement"],
                    f"{r['report']['equal']}/{r['report']['claims']}",
                    r["report"]["pairs_share"],
                    r["design"]["agreement"],
                    r["select_ms_per_record"],
                    ", ".join(f"{k} {v}" for k, v in sorted(r["flips_full_to_prefiltered"].items()))
                    or "-",
                ]
            )
        out.append(
            _table(
                [
                    "pre-filter",
                    "agreement (report half)",
                    "claims",
                    "pairs",
                    "agreement (design half)",
                    "select ms/record",
                    "verdict changes, both halves",
                ],
                rows,
            )
        )
        sets = list(next(iter(a["results"].values()))["report_per_set"])
        out.append("\nReport half, per set:\n\n")
        out.append(
            _table(
                ["pre-filter", *sets],
                [[n, *(r["report_per_set"].get(k) for k in sets)] for n, r in a["results"].items()],
            )
        )
    return out


def _md_backends(x: dict[str, Any]) -> list[str]:
    out: list[str] = []
    out.append(f"Sample: {x['sample']}; full scans; reference {x['reference']}.\n\n")
    rows = []
    for key, label in (
        ("onnx_int8", "ONNX int8"),
        ("onnx_fp32", "ONNX fp32"),
        ("torch_bf16", "torch bf16*"),
    ):
        y = x.get(key)
        if not y:
            continue
        rows.append(
            [
                label,
                f"{y['equal_verdicts']}/{y['claims']}",
                y["agreement"],
                y["max_abs_claim_p_entail_diff"],
                y["pairs"],
                y["max_abs_pair_p_entail_diff"],
                y["mean_abs_pair_p_entail_diff"],
                y["p99_abs_pair_p_entail_diff"],
                f"{y['seconds']} vs {y['seconds_reference']}",
            ]
        )
    out.append(
        _table(
            [
                "variant",
                "equal verdicts",
                "agreement",
                "max abs dp_entail (claim)",
                "pairs",
                "max abs dp_entail (pair)",
                "mean",
                "p99",
                "sample pass s (vs fp32; not interleaved)",
            ],
            rows,
        )
    )
    out.append("\n\\* NLIModel(dtype='bfloat16') on this CPU.\n")
    for key, label in (
        ("onnx_int8", "ONNX int8"),
        ("onnx_fp32", "ONNX fp32"),
        ("torch_bf16", "torch bf16"),
    ):
        y = x.get(key) or {}
        if y.get("flips"):
            out.append(
                f"\n{label} verdict flips (verdict, p_entail, p_contradict): "
                + "; ".join(
                    f"{f['set']}: fp32 {f['reference']} vs {f['other']}" for f in y["flips"]
                )
                + ".\n"
            )
    return out


def _md_scale(x: dict[str, Any]) -> list[str]:
    out: list[str] = []

    def part(key: str, title: str, body) -> None:
        p = x.get(key)
        if p is None:
            return
        cpu = p.get("cpu", {})
        out.append(
            f"\n**{title}** ({p.get('part_wall_s')} s; other processes took "
            f"{_pct(cpu.get('foreign_share'))} of the CPUs meanwhile)\n\n"
        )
        out.extend([f"Error: {p['error']}\n"] if "error" in p else body(p))

    def gpu(p: dict[str, Any]) -> list[str]:
        if not p.get("measured"):
            return [f"{p.get('note', 'not measured')}.\n"]
        rows = [
            [r["batch_size"], r["pairs"], r["bare_pairs_per_s"], r["score_batch_pairs_per_s"],
             r["ratio"]]
            for r in p["rows"]
        ]  # fmt: skip
        return [
            f"Device {p['device']}.\n\n",
            _table(["batch", "pairs", "bare pairs/s", "score_batch pairs/s", "ratio"], rows),
        ]

    def prefetch(p: dict[str, Any]) -> list[str]:
        return [
            f"`NLIModel.predict` on {p['pairs']} pairs (torch {p['dtype']}, CPU), "
            f"{p['rounds']} interleaved rounds, medians: prefetch off "
            f"{p['off_pairs_per_s']} pairs/s, on {p['on_pairs_per_s']} pairs/s "
            f"(on/off speed {p['ratio_on_over_off']}); identical probabilities: "
            f"{p['identical_probabilities']}. Prefetch is off by default on the CPU.\n"
        ]

    def streaming(p: dict[str, Any]) -> list[str]:
        rows = [
            [r["model"], f"{r['records']:,}", r["wall_s"], r["records_per_s"], r["peak_rss_mib"],
             _pct(r.get("cpu", {}).get("foreign_share"))]
            for r in p["runs"]
        ]  # fmt: skip
        return [
            "`nli-faith score FILE -o OUT.jsonl` in a subprocess on synthetic short records "
            "(one-sentence answer, two-sentence context); peak RSS from `wait4`. The cheap "
            "model ran with one torch thread (`OMP_NUM_THREADS=1`), the bundled one with "
            "the default (all cores).\n\n",
            _table(
                ["model", "records", "wall s", "records/s", "peak RSS MiB", "others' CPU"], rows
            ),
            f"\nPeak RSS grew by {p['rss_growth_mib']} MiB for {p['records_ratio']}x the "
            "records (cheap model rows).\n",
        ]

    def ray(p: dict[str, Any]) -> list[str]:
        if p.get("measured") is False:
            return [f"{p.get('note')}.\n"]
        sb = p["score_batch"]
        rows = [["score_batch (one process, model loaded)", sb["wall_s"], sb["records_per_s"]]]
        for k in (1, 2):
            r = p.get(f"ray_{k}_actor")
            if r:
                rows.append([f"Ray Data, {k} CPU actor(s), local ray.init(num_cpus=2)",
                             r["wall_s"], r["records_per_s"]])  # fmt: skip
        return [
            f"{p['source']} ({p['records']} records), bundled model, torch default dtype. "
            "Ray times include starting the actors and loading a model in each (the scorer "
            f"alone loaded in {sb['model_load_s']} s here); torch used {sb['threads']} "
            "threads in-process, 1 per actor.\n\n",
            _table(["path", "wall s", "records/s"], rows),
        ]

    part("gpu_end_to_end", "GPU: score_batch over bare forwards", gpu)
    part("prefetch_cpu", "Prefetch on the CPU", prefetch)
    part("streaming_cli", "Streaming CLI", streaming)
    part("ray", "Ray Data", ray)
    return out


def _onnx_threads(m: dict[str, Any]) -> str:
    """How ONNX Runtime ran (older results recorded only the intra-op thread count)."""
    return m.get("onnxruntime_threads") or f"intra-op {m['onnxruntime_intra_op_threads']}"


def _update_cpu(u: dict[str, Any]) -> str:
    """The CPU an update ran on, where it was recorded (not before 2026-11-23 noon)."""
    cpu = u.get("cpu")
    if not cpu:
        return ""
    return f", CPU family {cpu.get('cpu_family')} model {cpu.get('model')}"
