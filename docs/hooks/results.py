"""mkdocs hook: the Benchmarks and Studies pages, generated from the results at build time.

``benchmarks/index.md`` lists every result of ``benchmarks/results/`` (title, command,
machine, date and headline figures) and each result gets a page ``benchmarks/NAME.md``
rendered from its ``NAME.json`` by the harness's own renderer (without the commit: the docs
name none), plus the raw ``NAME.json`` beside it. The one-off studies of
``research/studies/results/`` get the same under ``studies/``. The result pages are added
to the nav under "Benchmarks" and "Studies", so every page stays in the nav.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.harness import (  # noqa: E402
    BENCHMARKS,
    RESULTS_DIR,
    load_results,
    machine_line,
    render,
)
from research.studies import RESULTS_DIR as STUDIES_DIR  # noqa: E402
from research.studies import STUDIES  # noqa: E402

_INTROS = {
    "Benchmarks": [
        "# Benchmarks",
        "",
        "Generated from `benchmarks/results/` when this site is built: the latest result of",
        "each benchmark, with the command that produced it and the machine it ran on. Run one",
        "with `python -m benchmarks run NAME` (`python -m benchmarks list` shows them); it",
        "rewrites `benchmarks/results/NAME.json` and `NAME.md`, and the next build shows it.",
        "What the figures mean for you: [Performance](../performance.md). Measurements made",
        "once, to choose a model, a recipe or a setting: [Studies](../studies/index.md).",
        "",
    ],
    "Studies": [
        "# Studies",
        "",
        "One-off measurements, each made to choose a model, a training recipe or a setting,",
        "generated from `research/studies/results/` when this site is built, with the command",
        "that produced each and the machine it ran on. They run from a clone of the repository",
        "(`python -m research.studies list`, `python -m research.studies run NAME`); the",
        "standing measurements are the [Benchmarks](../benchmarks/index.md).",
        "",
    ],
}
#: nav section -> (folder of the pages, results folder, order of the names)
_SECTIONS = {
    "Benchmarks": ("benchmarks", RESULTS_DIR, list(BENCHMARKS)),
    "Studies": ("studies", STUDIES_DIR, list(STUDIES)),
}
_ENVS: dict[str, list[dict]] = {}


def _index(section: str, envs: list[dict]) -> str:
    out = list(_INTROS[section])
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
    for section, (_, results, order) in _SECTIONS.items():
        _ENVS[section] = load_results(results, order)
    for item in config["nav"]:
        for section, (folder, _, _) in _SECTIONS.items():
            if isinstance(item, dict) and section in item:
                item[section] = [{"Overview": f"{folder}/index.md"}] + [
                    {env["title"]: f"{folder}/{env['name']}.md"} for env in _ENVS[section]
                ]
    return config


def on_files(files, config):
    for section, (folder, results, _) in _SECTIONS.items():
        envs = _ENVS[section]
        files.append(File.generated(config, f"{folder}/index.md", content=_index(section, envs)))
        for env in envs:
            name, page = env["name"], render(env, with_commit=False)
            files.append(File.generated(config, f"{folder}/{name}.md", content=page))
            js = results / f"{name}.json"
            files.append(File.generated(config, f"{folder}/{name}.json", abs_src_path=str(js)))
        for png in sorted(results.glob("*.png")):  # pictures a result page shows
            files.append(File.generated(config, f"{folder}/{png.name}", abs_src_path=str(png)))
    png = RESULTS_DIR / "report.png"
    if png.exists():
        files.append(File.generated(config, "assets/report.png", abs_src_path=str(png)))
    return files
