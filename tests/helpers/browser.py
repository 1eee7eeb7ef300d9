"""Headless Chromium for the browser tests: Debian's ``chromium`` driven by Playwright.

Used by the HTML report's and the documentation site's browser tests, and by
``python -m benchmarks run report_screenshot`` (the picture of the README and the docs).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "answers.jsonl"
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


@contextmanager
def open_page(html: Path, *, width: int = 1180, height: int = 1000) -> Iterator:
    """A Playwright page showing the local file ``html`` in headless Chromium.

    Requests to the network are aborted: a page under test must need nothing outside
    its own folder."""
    from playwright.sync_api import sync_playwright

    exe = chromium_path()
    if exe is None:
        raise FileNotFoundError("chromium is not installed (apt-get install -y chromium)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.route("http*://**", lambda route: route.abort())
            page.goto(html.resolve().as_uri())
            yield page
        finally:
            browser.close()


open_report = open_page


def write_example_report(path: Path, *, scorer=None) -> Path:
    """Score ``examples/answers.jsonl`` (bundled model, fp32 unless ``scorer`` is given)
    and write its report to ``path``."""
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


def take_screenshot(html: Path, png: Path) -> None:
    """Click the first contradicted claim and screenshot the top of the report."""
    with open_page(html) as page:
        page.locator(".claim.no").first.click()
        page.wait_for_selector(".evidence:not([hidden]) mark")
        page.screenshot(path=str(png), full_page=False)
