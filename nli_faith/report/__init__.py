"""The HTML report: one self-contained static page of scored records (``nli-faith report``).

Example:
    >>> from nli_faith.report import ReportRecord, render_report
    >>> html = render_report([ReportRecord.of({"line": 1, "strict": None, "claims": [],
    ...                                         "reason": "no claims"}, {"response": "Hi!"})])
    >>> html.startswith("<!DOCTYPE html>")
    True
"""

from nli_faith.report.records import ReportRecord, read_scored
from nli_faith.report.render import render_report, summary, write_report

__all__ = ["ReportRecord", "read_scored", "render_report", "summary", "write_report"]
