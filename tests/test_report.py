"""The HTML report without a browser: content, order, joins, escaping, and the commands."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from nli_faith.cli import main
from nli_faith.errors import RecordError
from nli_faith.report import ReportRecord, read_scored, render_report, summary
from tests.conftest import write_jsonl

EVIL = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def _scored(line, strict, claims, **extra):
    n = {v: sum(c["verdict"] == v for c in claims) for v in ("yes", "no", "idk")}
    return {
        "line": line,
        "strict": strict,
        "lenient": None if strict is None else (len(claims) - n["no"]) / max(len(claims), 1),
        "soft": strict,
        "n_claims": len(claims),
        "n_yes": n["yes"],
        "n_no": n["no"],
        "n_idk": n["idk"],
        "reason": "r",
        "claims": claims,
        **extra,
    }


def _claim(text, start, verdict, doc=0, s=0, e=5, chunk="chunk"):
    return {
        "claim": text,
        "start": start,
        "end": start + len(text),
        "verdict": verdict,
        "p_entail": 0.9 if verdict == "yes" else 0.1,
        "p_contradict": 0.8 if verdict == "no" else 0.0,
        "evidence": {"text": chunk, "doc_index": doc, "start": s, "end": e},
    }


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _records():
    good = ReportRecord.of(
        _scored(1, 1.0, [_claim("A is b.", 0, "yes")], id="good"),
        {"response": "A is b.", "context": ["A is b."]},
    )
    bad = ReportRecord.of(
        _scored(2, 0.0, [_claim("C.", 0, "no"), _claim(EVIL, 3, "idk", s=5, e=10)], id=EVIL),
        {"response": "C. " + EVIL, "context": ["Hello " + EVIL], "question": EVIL},
    )
    failed = ReportRecord.of(
        {"line": 3, "error": "RecordError: no context field", "claims": []}, {"response": "x"}
    )
    empty = ReportRecord.of(_scored(4, None, []), {"response": "Hi!", "context": "c"})
    return [good, bad, failed, empty]


def test_user_text_is_escaped_everywhere():
    html = render_report(_records(), title=EVIL)
    assert "<script>alert" not in html and "<img src=x" not in html
    parser = _Tags()
    parser.feed(html)
    scripts = [a for t, a in parser.tags if t == "script"]
    assert len(scripts) == 2 and not any("src" in a for a in scripts)
    assert not any(t == "img" for t, _ in parser.tags)
    assert not any(k.startswith("on") for _, a in parser.tags for k in a)
    blob = re.search(r'id="report-data">(.*?)</script>', html, re.S).group(1)
    assert "<" not in blob and json.loads(blob)[1]["docs"]["0"] == "Hello " + EVIL
    assert not re.search(r"(src|href)=\"(https?:)?//", html)  # nothing fetched


def test_cards_are_worst_first_with_claims_in_place():
    html = render_report(_records())
    order = re.findall(r'<article class="card" id="card-(\d+)"[^>]*data-strict="([^"]*)"', html)
    assert [s for _, s in order] == ["", "0.0", "1.0", ""]  # failed, 0.0, 1.0, no claims
    assert html.index("RecordError: no context field") < html.index("A is b.")
    claims = re.findall(r'<button type="button" class="claim (\w+)" data-claim="(\d)"', html)
    assert claims == [("no", "0"), ("idk", "1"), ("yes", "0")]
    assert html.count('class="tag no">contradicted<') == 1
    assert html.count('class="tag idk">not found<') == 1


def test_summary_figures():
    s = summary(_records())
    assert (s["n_records"], s["n_scored"], s["n_no_claims"], len(s["failed"])) == (4, 2, 1, 1)
    assert s["means"]["strict"] == pytest.approx(0.5)
    assert {c["key"]: c["count"] for c in s["claims"]} == {"yes": 1, "no": 1, "idk": 1}
    hist = s["histogram"]
    assert len(hist) == 10 and hist[0]["count"] == 1 and hist[-1]["count"] == 1
    assert sum(b["count"] for b in hist) == 2


def test_read_scored_joins_the_input_by_line(tmp_path):
    inputs = write_jsonl(
        tmp_path / "in.jsonl",
        [{"answer": "One.", "contexts": ["One!"]}, "", {"actual_output": "Two.", "input": "q"}],
    )
    scored = write_jsonl(tmp_path / "s.jsonl", [_scored(1, 1.0, []), _scored(3, 0.0, [])])
    recs = read_scored(scored, inputs=inputs)
    assert [(r.response, r.context, r.question) for r in recs] == [
        ("One.", ["One!"], None),
        ("Two.", None, "q"),
    ]
    alone = read_scored(scored)
    assert alone[0].response is None  # the card then shows the claims and chunks alone
    missing = write_jsonl(tmp_path / "m.jsonl", [_scored(9, 1.0, [])])
    with pytest.raises(RecordError, match="input line 9 is not in"):
        read_scored(missing, inputs=inputs)


def test_score_report_and_report_command_write_the_same_cards(tmp_path, tiny_model_dir):
    examples = tmp_path / "in.jsonl"
    write_jsonl(
        examples,
        [
            {"id": "a", "response": "The sky is blue. Grass is red.", "context": "Sky: blue."},
            {"id": "b", "response": None, "context": "x"},
            '{"id": "c", "response": "Sky is \\ud800 blue.", "context": "Sky is blue."}',
        ],
    )
    scored, html1, html2 = tmp_path / "s.jsonl", tmp_path / "1.html", tmp_path / "2.html"
    rc = main(
        ["score", str(examples), "-o", str(scored), "--model", str(tiny_model_dir)]
        + ["--report", str(html1), "--quiet"]
    )
    assert rc == 1  # record b is malformed; it still gets its card
    assert main(["report", str(scored), "--input", str(examples), "-o", str(html2)]) == 0
    one, two = html1.read_text(), html2.read_text()
    assert one == two
    assert "field &#39;response&#39; is null" in one and "Grass is red." in one
    assert "Sky is \ufffd blue." in one  # a lone surrogate of the input, shown as U+FFFD
    assert main(["report", str(tmp_path / "nope.jsonl"), "-o", str(html2)]) == 2


def test_a_bad_scored_line_is_named_and_left_out_the_others_reported(tmp_path, capsys):
    good = _scored(1, 1.0, [{"claim": "Hi there.", "verdict": "yes", "evidence": None}])
    for change, field in [
        ({"strict": "high"}, "field 'strict' must be a number or null"),
        (
            {"claims": [{"claim": "Hi.", "evidence": "x"}]},
            "field 'claims[0].evidence' must be an object",
        ),
        ({"claims": ["Hi."]}, "field 'claims[0]' must be an object"),
        ({"line": [2]}, "field 'line' must be an integer"),
    ]:
        path = write_jsonl(tmp_path / "s.jsonl", [{**good, "line": 2, **change}, good])
        html = tmp_path / "r.html"
        assert main(["report", str(path), "-o", str(html)]) == 1
        err = capsys.readouterr().err
        assert "skipped [E112] " in err and f"s.jsonl:1: {field}" in err
        assert "Traceback" not in err
        assert "(1 records, 1 lines skipped)" in err
        assert "Hi there." in html.read_text()  # the good line still has its card
    path.write_text("not json\n" + json.dumps(good) + "\n")
    assert main(["report", str(path), "-o", str(html)]) == 1
    err = capsys.readouterr().err
    assert "skipped [E126] " in err and "s.jsonl:1: the line is not valid JSON" in err
    # the library raises unless told to skip
    with pytest.raises(RecordError, match="t.jsonl:1: field 'strict'"):
        read_scored(write_jsonl(tmp_path / "t.jsonl", [{**good, "strict": "x"}]))


def test_a_file_that_was_never_scored_is_refused_and_parquet_output_is_read(
    tmp_path, tiny_model_dir, capsys
):
    src = write_jsonl(
        tmp_path / "in.jsonl", [{"response": "Sky is blue.", "context": "Sky: blue."}]
    )
    assert main(["report", str(src), "-o", str(tmp_path / "r.html")]) == 1
    assert "skipped [E080] " in capsys.readouterr().err  # an input line is not a scored line
    fake = tmp_path / "fake.parquet"
    fake.write_text("not parquet")
    assert main(["report", str(fake), "-o", str(tmp_path / "r.html")]) == 2
    assert "[E103]" in capsys.readouterr().err
    scored = tmp_path / "s.parquet"
    argv = ["score", str(src), "-o", str(scored), "--model", str(tiny_model_dir), "--quiet"]
    assert main(argv) == 0
    html = tmp_path / "p.html"
    assert main(["report", str(scored), "--input", str(src), "-o", str(html)]) == 0
    assert "Sky is blue." in html.read_text()


def test_a_scored_line_without_line_number_is_still_reported(tmp_path):
    # a service reply or a Python result written out has no "line": it is still a card
    path = write_jsonl(tmp_path / "s.jsonl", [_scored(1, 1.0, [])])
    line = json.loads(path.read_text())
    del line["line"]
    path.write_text(json.dumps(line) + "\n")
    assert len(read_scored(path)) == 1
