"""The documentation site: built with ``mkdocs build --strict`` and opened in Chromium.

The build fails on any broken link or anchor, a page missing from the nav or a warning of
mkdocstrings, so building it here is the check; Chromium then shows the start page and a
guide as a reader gets them. The built text must name no commit and no issue number.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys

import pytest
from conftest import REPO
from helpers.browser import chromium_path, open_page

pytest.importorskip("mkdocs", reason="mkdocs is not installed (docs extra)")
pytest.importorskip("mkdocstrings", reason="mkdocstrings is not installed (docs extra)")

#: a commit hash (7-12 or 40 hex digits with a digit and a letter), "issue 10", "#12"
COMMIT_OR_ISSUE = re.compile(
    r"(?<![\w/.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)(?:[0-9a-f]{7,12}|[0-9a-f]{40})(?![\w-])"
    r"|\bissues? #?\d+|(?<![\w&])#\d{1,5}\b",
    re.IGNORECASE,
)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


def _text(page_html: str) -> str:
    page_html = re.sub(r"<(script|style)\b.*?</\1>", " ", page_html, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page_html))


def test_every_guide_and_generated_page_is_built(site):
    for page in (
        "getting-started",
        "concepts",
        "guides/batch",
        "guides/service",
        "guides/judge",
        "guides/integrations",
        "guides/calibrate",
        "guides/report",
        "guides/training",
        "reference/scorer",
        "performance",
        "changelog",
        "benchmarks/index",
        "benchmarks/speed",
        "benchmarks/quality",
    ):
        assert (site / f"{page}.html").is_file(), page
    # the API reference is generated from the docstrings
    ref = _text((site / "reference/scorer.html").read_text())
    assert "FaithfulnessScorer" in ref and "score_batch" in ref and "Score one response" in ref
    # the benchmarks pages come from benchmarks/results/*.json, with command and machine
    bench = _text((site / "benchmarks/speed.html").read_text())
    assert "python -m benchmarks run speed" in bench and "Machine:" in bench


def test_the_docs_name_no_commits_or_issues(site):
    found = []
    for path in site.rglob("*.html"):
        text = _text(path.read_text(encoding="utf-8"))
        found += [
            f"{path.relative_to(site)}: {m.group(0)!r}" for m in COMMIT_OR_ISSUE.finditer(text)
        ]
    # the pattern itself must catch what it is meant to catch
    assert COMMIT_OR_ISSUE.search("measured at commit 400c8b7 for issue 10")
    assert not COMMIT_OR_ISSUE.search("COVID-19, iPhone 15, 2026-11-23, sha256 " + "ab12" * 16)
    allowed = {"'#1234'"}  # an identifier in the numbers example of Concepts
    assert [f for f in found if f.split(": ", 1)[1] not in allowed] == []


def h1(page) -> str:
    return page.locator("article h1").first.inner_text().rstrip("¶").strip()


@pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed")
def test_start_page_and_a_guide_in_chromium(site):
    pytest.importorskip("playwright.sync_api", reason="playwright is not installed (dev extra)")
    with open_page(site / "index.html") as page:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        assert h1(page) == "nli-faith"
        body = page.locator("article").inner_text()
        assert "Claim-level faithfulness scoring" in body and "lenient" in body
        # the picture of the report is there and loaded
        img = page.locator("article img").first
        assert page.evaluate("(i) => i.complete && i.naturalWidth > 0", img.element_handle())
        # every front door's guide is one click away from the start page
        links = page.locator("article table a").evaluate_all("(as) => as.map(a => a.href)")
        for guide in ("batch", "service", "judge", "integrations", "calibrate", "report"):
            assert any(h.endswith(f"guides/{guide}.html") for h in links), guide
        page.locator("article table a", has_text="The service and its operation").click()
        page.wait_for_load_state()
        assert h1(page) == "The service and its operation"
        guide = page.locator("article").inner_text()
        assert "nli-faith serve --guardrail" in guide and "/v1/score" in guide
        assert "SIGTERM" in guide  # the operation part: shutdown, systemd
        assert not errors
