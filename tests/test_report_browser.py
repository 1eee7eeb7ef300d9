"""The HTML report in a real browser: Debian's headless Chromium driven by Playwright.

Renders the report of ``examples/answers.jsonl``, checks the highlights, the evidence
panel and the filters through the DOM, and takes a screenshot (into the test's temporary
folder; with ``NLI_FAITH_UPDATE_SCREENSHOT=1`` into ``benchmarks/results/report.png``, the
README's picture, which ``python -m benchmarks run report_screenshot`` also writes).
Skips only when Chromium or Playwright is missing; ``.ci/run`` installs both.
"""

from __future__ import annotations

import json
import os

import pytest
from helpers.browser import REPO, chromium_path, open_report, write_example_report

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (dev extra)")
pytestmark = pytest.mark.skipif(
    chromium_path() is None, reason="chromium is not installed (apt-get install -y chromium)"
)


@pytest.fixture(scope="module")
def report(tmp_path_factory, bundled_scorer):
    return write_example_report(
        tmp_path_factory.mktemp("report") / "report.html", scorer=bundled_scorer
    )


def test_claims_evidence_and_filters_in_chromium(report, tmp_path):
    with open_report(report) as page:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        assert page.locator(".card").count() == 5
        assert page.locator("#n-records").inner_text() == "5"
        # worst first: the two strict-0 records, the no-claims record last
        ids = page.locator(".card .rid").all_inner_texts()
        assert ids[-1] == "no-claims" and set(ids[:2]) == {
            "warranty-number-swap",
            "table-of-contents-only",
        }
        # every claim is highlighted with its verdict, as colour and as text
        claims = page.locator(".claim")
        assert claims.count() == 11
        assert page.locator(".claim.idk").count() >= 5
        no = page.locator(".claim.no")
        assert no.count() == 1  # "thirty-six months" against "twenty-four months"
        assert no.first.locator(".tag").inner_text().lower() == "contradicted"
        # inside it, only the wrong words are marked, with the evidence on hover
        wrong = no.first.locator("mark.wrong")
        assert wrong.count() == 1 and wrong.inner_text() == "thirty-six months"
        assert "contradicted" in wrong.get_attribute("class")
        assert "twenty-four months" in wrong.get_attribute("title")
        wrong.hover()
        assert wrong.evaluate("e => e.matches(':hover')")
        # an invented sentence, none of whose words its closest evidence holds: all of it
        # is marked (less its full stop); a supported claim has no mark
        gold = page.locator(".claim.idk", has_text="painted gold")
        assert gold.locator("mark.wrong.unsupported").all_inner_texts() == [
            "The tower is painted gold every year"
        ]
        assert page.locator(".claim.yes mark.wrong").count() == 0
        # clicking a claim shows its evidence inside its document, with the probabilities
        panel = page.locator("#card-0 .evidence")
        assert panel.is_hidden()
        no.first.click()
        assert panel.is_visible()
        assert no.first.get_attribute("aria-pressed") == "true"
        mark = panel.locator("pre.doc mark")
        assert "twenty-four months" in mark.inner_text()
        doc = panel.locator("pre.doc").inner_text()
        assert doc.startswith("Warranty.") and "accidental damage" in doc  # the whole document
        assert "p_entail" in panel.inner_text() and "p_contradict" in panel.inner_text()
        # the panel lists the words to blame beside the evidence they were compared with
        blamed = panel.locator(".wrongs li")
        assert blamed.count() == 1
        assert blamed.locator("mark.contradicted").inner_text() == "thirty-six months"
        assert "twenty-four months" in blamed.locator("q").inner_text()
        results = REPO / "benchmarks" / "results"
        shot_dir = results if os.environ.get("NLI_FAITH_UPDATE_SCREENSHOT") == "1" else tmp_path
        shot_dir.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot_dir / "report.png"))
        assert (shot_dir / "report.png").stat().st_size > 10_000  # a real rendered page
        no.first.click()  # a second click closes it
        assert panel.is_hidden()
        # filters: text search, verdicts and score range
        page.fill("#search", "eiffel")
        assert page.locator(".card:visible").count() == 1
        assert page.locator("#shown-count").inner_text() == "1 of 5 records"
        page.fill("#search", "")
        page.uncheck("input[name=verdict][value=none]")
        page.fill("#min-score", "0.5")
        page.dispatch_event("#min-score", "input")
        visible = page.locator(".card:visible .rid").all_inner_texts()
        assert "no-claims" not in visible and "warranty-number-swap" not in visible
        assert len(visible) == 2
        assert not errors


def test_hostile_text_stays_text_in_chromium(tmp_path):
    from nli_faith.report import ReportRecord, write_report

    evil = '<img src=x onerror="document.title=\'pwned\'"><script>document.title="pwned"</script>'
    rec = ReportRecord.of(
        {
            "line": 1,
            "id": evil,
            "strict": 0.0,
            "lenient": 1.0,
            "soft": 0.1,
            "reason": evil,
            "claims": [
                {
                    "claim": evil,
                    "start": 0,
                    "end": len(evil),
                    "verdict": "idk",
                    "p_entail": 0.1,
                    "p_contradict": 0.0,
                    "evidence": {"text": evil, "doc_index": 0, "start": 0, "end": len(evil)},
                }
            ],
        },
        {"response": evil, "context": [evil + "</script>" + json.dumps(evil)]},
    )
    path = tmp_path / "evil.html"
    write_report([rec], path, title="safe")
    with open_report(path) as page:
        page.locator(".claim").first.click()
        assert page.title() == "safe"
        assert page.locator(".evidence mark").inner_text() == evil
        assert page.locator("img").count() == 0
