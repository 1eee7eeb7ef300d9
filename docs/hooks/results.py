"""mkdocs hook: the Benchmarks pages, generated from ``benchmarks/results/`` at build time.

``benchmarks/index.md`` lists every result (title, command, machine, date and headline
figures) and each result gets a page ``benchmarks/NAME.md`` rendered from its
``NAME.json`` by the harness's own renderer (without the commit: the docs name none),
plus the raw ``NAME.json`` beside it. The result pages are added to the nav under
"Benchmarks", so every page stays in the nav.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.harness import RESULTS_DIR, load_results, machine_line, render  # noqa: E402

_ENVS: list[dict] = []


def _index(envs: list[dict]) -> str:
    out = [
        "# Benchmarks",
        "",
        "Generated from `benchmarks/results/` when this site is built: the latest result of",
        "each benchmark, with the command that produced it and the machine it ran on. Run one",
        "with `python -m benchmarks run NAME` (`python -m benchmarks list` shows them); it",
        "rewrites `benchmarks/results/NAME.json` and `NAME.md`, and the next build shows it.",
        "What the figures mean for you: [Performance](../performance.md).",
        "",
    ]
    for env in envs:
        out += [f"## [{env['title']}]({env['name']}.md)", ""]
        out.append(f"- Command: `{env['command']}`")
        out.append(f"- Machine: {machine_line(env.get('machine') or {})}")
        out.append(f"- Run: {env.get('started') or 'not recorded'}")
        figs = env.get("figures") or {}
        if figs:
            shown = "; ".join(f"{k}: **{v}**" for k, v in list(figs.items())[:6])
            out.append(f"- Headline: {shown}")
        out.append(f"- Files: [page]({env['name']}.md), [JSON]({env['name']}.json)")
        out.append("")
    if not envs:
        out.append("No results yet.")
    return "\n".join(out) + "\n"


def on_config(config):
    global _ENVS
    _ENVS = load_results(RESULTS_DIR)
    for item in config["nav"]:
        if isinstance(item, dict) and "Benchmarks" in item:
            item["Benchmarks"] = [{"Overview": "benchmarks/index.md"}] + [
                {env["title"]: f"benchmarks/{env['name']}.md"} for env in _ENVS
            ]
    return config


def on_files(files, config):
    files.append(File.generated(config, "benchmarks/index.md", content=_index(_ENVS)))
    for env in _ENVS:
        name = env["name"]
        files.append(
            File.generated(config, f"benchmarks/{name}.md", content=render(env, with_commit=False))
        )
        js = RESULTS_DIR / f"{name}.json"
        files.append(File.generated(config, f"benchmarks/{name}.json", abs_src_path=str(js)))
    for png in sorted(RESULTS_DIR.glob("*.png")):  # pictures a result page shows
        files.append(File.generated(config, f"benchmarks/{png.name}", abs_src_path=str(png)))
    png = RESULTS_DIR / "report.png"
    if png.exists():
        files.append(File.generated(config, "assets/report.png", abs_src_path=str(png)))
    return files
