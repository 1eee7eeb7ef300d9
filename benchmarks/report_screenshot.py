"""The HTML report's screenshot (the README's and the docs' picture): not a measurement.

``python -m benchmarks run report_screenshot`` scores ``examples/answers.jsonl`` with the
bundled model, writes its report, opens it in headless Chromium, clicks the contradicted
claim and saves ``results/report.png`` (the same browser helpers the tests use).
"""

from __future__ import annotations

from benchmarks.harness import Outcome

TITLE = "Screenshot of the HTML report of examples/answers.jsonl"


def add_arguments(p, name: str) -> None:
    pass


def run(args, bench) -> Outcome:
    from tests.helpers.browser import take_screenshot, write_example_report

    html = args.out_dir / "report.html"
    png = args.out_dir / "report.png"
    bench.timed("score and write the report", lambda: write_example_report(html))
    bench.timed("open in Chromium and screenshot", lambda: take_screenshot(html, png))
    html.unlink()
    return Outcome(
        body=f"![The HTML report, the contradicted claim opened]({png.name})",
        figures={"screenshot bytes": png.stat().st_size},
    )
