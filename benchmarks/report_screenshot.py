"""Screenshot of the HTML report of ``examples/answers.jsonl``, for the README.

    python -m benchmarks.report_screenshot [--out benchmarks/results/report.png]

Scores the example file with the bundled model, writes the report
(``benchmarks/results/report.html``), opens it in headless Chromium (Debian's
``/usr/bin/chromium``, driven by Playwright), clicks the contradicted claim of the
number-swap record and saves a screenshot. ``tests/test_report_browser.py`` runs the
same :func:`open_report` and checks the page through the DOM.
"""

from __future__ import annotations

import argparse
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "answers.jsonl"
RESULTS = REPO / "benchmarks" / "results"
#: Chromium flags: headless, no sandbox (root in CI), nothing that reaches the network.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str | None:
    """Debian's Chromium (or ``$NLI_FAITH_CHROMIUM``), if installed."""
    for cand in (os.environ.get("NLI_FAITH_CHROMIUM"), "/usr/bin/chromium", "chromium"):
        if cand and (found := shutil.which(cand)):
            return found
    return None


def write_example_report(path: Path, *, scorer=None) -> Path:
    """Score ``examples/answers.jsonl`` (bundled model, fp32 unless ``scorer`` is given)
    and write its report to ``path``."""
    import json

    from nli_faith.report import ReportRecord, write_report
    from nli_faith.scorer import FaithfulnessScorer

    raws = [json.loads(line) for line in EXAMPLES.read_text(encoding="utf-8").splitlines()]
    scorer = scorer or FaithfulnessScorer(device="cpu", dtype="float32")
    results = scorer.score_batch(raws)
    records = [
        ReportRecord.of({"line": n, "id": raw.get("id"), **res.to_dict()}, raw)
        for n, (raw, res) in enumerate(zip(raws, results), start=1)
    ]
    write_report(records, path, title="nli-faith report: examples/answers.jsonl")
    return path


@contextmanager
def open_report(html: Path, *, width: int = 1180, height: int = 1000) -> Iterator:
    """A Playwright page showing ``html`` in headless Chromium (no network: file URL only)."""
    from playwright.sync_api import sync_playwright

    exe = chromium_path()
    if exe is None:
        raise FileNotFoundError("chromium is not installed (apt-get install -y chromium)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.route("http*://**", lambda route: route.abort())  # the report needs nothing
            page.goto(html.resolve().as_uri())
            yield page
        finally:
            browser.close()


def take_screenshot(html: Path, png: Path) -> None:
    """Click the first contradicted claim and screenshot the top of the page."""
    with open_report(html) as page:
        page.locator(".claim.no").first.click()
        page.wait_for_selector(".evidence:not([hidden]) mark")
        page.screenshot(path=str(png), full_page=False)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(RESULTS / "report.png"))
    args = p.parse_args()
    html = write_example_report(RESULTS / "report.html")
    take_screenshot(html, Path(args.out))
    print(f"wrote {html} and {args.out}")


if __name__ == "__main__":
    main()
