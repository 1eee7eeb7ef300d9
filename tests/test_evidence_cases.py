"""The evidence edge-case suite's own logic (no model): expectations, pass / fail, report."""

from __future__ import annotations

from types import SimpleNamespace

from suites.evidence_cases import (
    CASES,
    MECHANISMS,
    EvidenceCase,
    evaluate,
    render_markdown,
    summarize,
)


def _result(verdicts, citations=None, **extra):
    citations = citations or [None] * len(verdicts)
    claims = [
        SimpleNamespace(claim=f"c{i}.", verdict=v, citation=c, evidence=None)
        for i, (v, c) in enumerate(zip(verdicts, citations))
    ]
    return SimpleNamespace(claims=claims, error=None, **extra)


def test_the_suite_covers_every_mechanism_with_at_least_40_cases():
    assert len(CASES) >= 40
    assert len({c.key for c in CASES}) == len(CASES)
    assert {c.mechanism for c in CASES} == set(MECHANISMS)
    for c in CASES:
        assert all(v in ("yes", "no", "idk", "not-yes", "not-no") for v in c.verdicts)


def test_evaluate_verdicts_citations_and_checks():
    case = EvidenceCase("x", "citations", "t", "r", "c", ("yes", "not-yes"), ("supported", None))
    assert evaluate(case, _result(["yes", "idk"], ["supported", None]), [])[0]
    assert evaluate(case, _result(["yes", "no"], ["supported", None]), [])[0]
    ok, problems = evaluate(case, _result(["yes", "yes"], ["supported", None]), [])
    assert not ok and "verdicts" in problems[0]
    ok, problems = evaluate(case, _result(["yes", "idk"], ["misattributed", None]), [])
    assert not ok and "citations" in problems[0]
    ok, _ = evaluate(case, _result(["yes"]), [])  # a claim missing
    assert not ok
    warned = EvidenceCase(
        "w", "web", "t", "r", "c", ("yes",), check=lambda r, w: not w, criterion="no warning"
    )
    assert evaluate(warned, _result(["yes"]), [])[0]
    assert evaluate(warned, _result(["yes"]), ["a sentence exceeds"])[1] == ["failed: no warning"]
    old = EvidenceCase("o", "citations", "t", "r", "c", ("yes",), check=lambda r, w: r.n_cited == 1)
    ok, problems = evaluate(old, _result(["yes"]), [])  # an old result type without the field
    assert not ok and "raised AttributeError" in problems[0]


def test_summary_and_report():
    rows = [
        {
            "case": "c1",
            "mechanism": "composite",
            "title": "t",
            "expected": ["yes"],
            "expected_citations": None,
            "passed": True,
            "problems": [],
            "verdicts": ["yes"],
            "p_entail": [0.9],
            "p_contradict": [0.0],
            "citations": [None],
        },
        {
            "case": "k1",
            "mechanism": "citations",
            "title": "t",
            "expected": ["yes"],
            "expected_citations": ["supported"],
            "passed": False,
            "problems": ["citations ['misattributed'], expected ['supported']"],
            "verdicts": ["yes"],
            "p_entail": [0.9],
            "p_contradict": [0.0],
            "citations": ["misattributed"],
        },
    ]
    s = summarize(rows)
    assert (s["passed"], s["n"]) == (1, 2)
    assert s["per_mechanism"]["citations"] == {"passed": 0, "n": 1}
    md = render_markdown(rows)
    assert "**1 / 2 passed.**" in md and "**FAIL**: citations" in md
