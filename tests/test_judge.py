"""The cascade: bands, escalation, merge, and the judge client against a real local server."""

from __future__ import annotations

import asyncio
import doctest
import json
import logging
import os
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import REPO, write_jsonl
from fake_judge import FakeJudgeServer

from nli_faith.judge import (
    Cascade,
    JudgeItem,
    JudgeSummary,
    OpenAIJudge,
    judge_items,
    merge_scored,
    read_judged,
)
from nli_faith.scoring.bands import BandThresholds, assign_bands, nearest_entailment

KEY = "sk-test-SECRET-4711"
#: One supported claim, one about nothing in the context, one half-way (uncertain).
RESPONSE = "The warranty lasts two years. Our founder likes jazz. We were founded in Paris."
CONTEXT = ["The warranty lasts two years. Our office is in France."]
QUESTION = "Tell me about the company."
UNCERTAIN = "We were founded in Paris."


@pytest.fixture(scope="module")
def server():
    with FakeJudgeServer() as srv:
        yield srv


@pytest.fixture()
def script(server):
    server.script.reset()
    return server.script


def judge_for(server, **kw) -> OpenAIJudge:
    return OpenAIJudge(base_url=server.base_url, model="fake-judge", api_key=KEY, **kw)


def items(*claims: str) -> list[JudgeItem]:
    return [
        JudgeItem(line=k, claim_index=0, claim=c, question="Q?", evidence=[])
        for k, c in enumerate(claims)
    ]


# -- bands ----------------------------------------------------------------------------


def test_band_functions_and_doctests():
    import nli_faith.judge.cascade as cascade_mod
    import nli_faith.scoring.bands as bands_mod
    import nli_faith.scoring.candidates as cand_mod

    for mod in (bands_mod, cand_mod):
        assert doctest.testmod(mod).failed == 0
    assert cascade_mod.Cascade.__doc__  # its doctest needs the model: run in test_cascade_*
    v = np.array(["yes", "no", "no", "idk", "idk", "idk"], dtype=object)
    pe = np.array([0.95, 0.0, 0.1, 0.05, 0.05, 0.3])
    pc = np.array([0.0, 0.93, 0.6, 0.02, 0.2, 0.0])
    near = np.array([0.95, 0.0, 0.1, 0.05, 0.05, 0.3])
    near_number = near.copy()
    near_number[3] = 0.97  # a chunk would entail it but for a number: close, not "not found"
    t = BandThresholds(high=0.9, low=0.1)
    assert assign_bands(v, pe, pc, near, thresholds=t).tolist() == [
        "supported",
        "contradicted",
        "uncertain",
        "not_found",
        "uncertain",
        "uncertain",
    ]
    assert assign_bands(v, pe, pc, near_number, thresholds=t)[3] == "uncertain"
    with pytest.raises(ValueError, match="band_low"):
        BandThresholds(high=0.2, low=0.5)
    with pytest.raises(ValueError, match="band_high"):
        BandThresholds(high=1.5)
    probs = np.array([[[0.2, 0.7, 0.1], [0.9, 0.05, 0.05]]])
    assert nearest_entailment(probs, np.array([[True, False]]))[0] == pytest.approx(0.2)


def test_scorer_gives_bands_without_changing_verdicts(bundled_scorer):
    r = bundled_scorer.score(RESPONSE, CONTEXT)
    assert [c.band for c in r.claims] == ["supported", "not_found", "uncertain"]
    assert [c.settled for c in r.claims] == [True, True, False]
    assert r.n_uncertain == 1 and r.n_judged == 0
    assert [bool(c.candidates) for c in r.claims] == [False, False, True]
    assert all(c.source == "nli" for c in r.claims)
    m = bundled_scorer.matrix(RESPONSE, CONTEXT)
    wide = bundled_scorer.aggregate(m, band_high=0.5, band_low=0.5)
    narrow = bundled_scorer.aggregate(m, band_high=1.0, band_low=0.0)
    assert wide.n_uncertain == 0 and narrow.n_uncertain == 3
    assert [c.verdict for c in wide.claims] == [c.verdict for c in narrow.claims]
    assert [c.verdict for c in narrow.claims] == [c.verdict for c in r.claims]
    assert (wide.strict, wide.lenient) == (r.strict, r.lenient)


# -- cascade against the local chat-completions server --------------------------------


def test_cascade_sends_only_uncertain_claims_and_recomputes(bundled_scorer, server, script):
    script.reset(default="no")
    cascade = Cascade(bundled_scorer, judge=judge_for(server))
    before = bundled_scorer.score(RESPONSE, CONTEXT)
    r = cascade.score(RESPONSE, CONTEXT, question=QUESTION)
    assert script.claims_sent() == [UNCERTAIN]
    sent = script.requests[0]
    assert sent["authorization"] == f"Bearer {KEY}"
    prompt = sent["body"]["messages"][1]["content"]
    assert QUESTION in prompt and "Our office is in France." in prompt
    assert "founder likes jazz" not in prompt  # only the claim, its evidence and the question
    assert sent["body"]["model"] == "fake-judge"
    assert [(c.verdict, c.source) for c in r.claims] == [
        ("yes", "nli"),
        ("idk", "nli"),
        ("no", "judge"),
    ]
    assert r.claims[2].judge_reason == "judged no"
    assert (r.n_yes, r.n_no, r.n_idk, r.n_judged, r.n_uncertain) == (1, 1, 1, 1, 1)
    assert r.lenient == pytest.approx(2 / 3) and r.strict == pytest.approx(1 / 3)
    assert r.soft == before.soft  # soft stays the NLI one
    assert "1 contradicted" in r.reason and UNCERTAIN in r.reason
    s = cascade.summary
    assert (s.claims, s.settled, s.sent, s.answered, s.failed) == (3, 2, 1, 1, 0)
    assert s.latency(50) is not None and "settled locally" in str(s)


def test_judge_failure_keeps_the_nli_verdict_and_is_never_yes(
    bundled_scorer, server, script, caplog
):
    caplog.set_level(logging.DEBUG)
    script.reset(default="malformed")
    cascade = Cascade(bundled_scorer, judge=judge_for(server), max_attempts=2, backoff=0.01)
    r = cascade.score(RESPONSE, CONTEXT, question=QUESTION)
    claim = r.claims[2]
    assert claim.verdict == "idk" and claim.source == "nli"
    assert "2 attempts" in claim.judge_error and "JSON" in claim.judge_error
    assert (r.n_yes, r.n_judged, r.n_judge_errors) == (1, 0, 1)
    assert len(script.requests) == 2
    assert cascade.summary.failed == 1 and cascade.summary.retries == 1
    assert KEY not in caplog.text and "retrying" in caplog.text


def test_retries_then_errors_by_kind(server, script, caplog):
    caplog.set_level(logging.DEBUG)
    script.reset(
        per_claim={
            "A flaky 500.": ["500", "yes"],
            "Rate limited once.": ["429", "fenced:no"],
            "Always 500.": ["500"],
            "Always 429.": ["429"],
            "Bad verdict.": ["badverdict"],
            "No choices.": ["empty"],
            "Too slow.": ["sleep:1.5:yes"],
            "Wrong key.": ["401"],
            "Plain idk.": ["idk"],
        }
    )
    claims = list(script.per_claim)
    summary = JudgeSummary()
    out = judge_items(
        items(*claims),
        judge_for(server, timeout=0.5),
        max_attempts=3,
        backoff=0.01,
        concurrency=4,
        summary=summary,
    )
    got = dict(zip(claims, out))
    assert got["A flaky 500."].verdict == "yes"
    assert got["Rate limited once."].verdict == "no"
    assert got["Plain idk."].verdict == "idk"
    for failed in ("Always 500.", "Always 429.", "Bad verdict.", "No choices.", "Too slow."):
        assert got[failed].verdict is None, failed
        assert "3 attempts" in got[failed].error
    assert "HTTP 500" in got["Always 500."].error and "HTTP 429" in got["Always 429."].error
    assert "'maybe'" in got["Bad verdict."].error and "time-out" in got["Too slow."].error
    assert got["Wrong key."].verdict is None and "HTTP 401" in got["Wrong key."].error
    sent = script.claims_sent()
    assert sent.count("Always 500.") == 3 and sent.count("Wrong key.") == 1  # 401: no retry
    assert (summary.sent, summary.answered, summary.failed) == (9, 3, 6)
    assert all(r["authorization"] == f"Bearer {KEY}" for r in script.requests)
    assert KEY not in caplog.text and all(KEY not in (o.error or "") for o in out)
    assert KEY not in repr(judge_for(server))


def test_concurrency_is_bounded(server, script):
    script.reset(default="sleep:0.15:yes")
    t0 = time.perf_counter()
    out = judge_items(items(*[f"Claim {k}." for k in range(12)]), judge_for(server), concurrency=3)
    wall = time.perf_counter() - t0
    assert [o.verdict for o in out] == ["yes"] * 12
    assert script.max_in_flight == 3
    assert wall >= 4 * 0.15  # 12 claims, 3 at a time


def test_callable_judges_sync_and_async(bundled_scorer):
    seen = []

    async def async_judge(claim, evidence, question):
        await asyncio.sleep(0)
        seen.append((claim, tuple(evidence), question))
        return {"verdict": "YES", "reason": "async"}

    r = Cascade(bundled_scorer, judge=async_judge).score(RESPONSE, CONTEXT, QUESTION)
    assert seen and seen[0][0] == UNCERTAIN and seen[0][2] == QUESTION
    assert r.claims[2].verdict == "yes" and r.claims[2].judge_reason == "async"
    assert r.strict == pytest.approx(2 / 3)

    calls = []

    def broken(claim, evidence, question):
        calls.append(claim)
        return "probably"  # outside the vocabulary: an error, never a verdict

    cascade = Cascade(bundled_scorer, judge=broken, max_attempts=3, backoff=0.0)
    r = cascade.score(RESPONSE, CONTEXT)
    assert len(calls) == 3 and r.claims[2].verdict == "idk" and r.claims[2].judge_error
    with pytest.raises(TypeError, match="callable"):
        Cascade(bundled_scorer, judge="gpt-4").score(RESPONSE, CONTEXT)


# -- CLI: score --escalate, merge, judge --------------------------------------------------


def run_cli(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "nli_faith.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    d = tmp_path_factory.mktemp("cascade-cli")
    src = write_jsonl(
        d / "in.jsonl",
        [
            {
                "id": "r1",
                "input": QUESTION,
                "actual_output": RESPONSE,
                "retrieval_context": CONTEXT,
            },
            "{not json",
            {"id": "r3", "response": "The warranty lasts two years.", "context": CONTEXT},
        ],
    )
    out = run_cli(
        "score", str(src), "-o", str(d / "scored.jsonl"), "--escalate", str(d / "esc.jsonl")
    )
    assert out.returncode == 1, out.stderr  # the bad line
    return d


def test_escalate_writes_only_uncertain_claims(scored):
    esc = [json.loads(x) for x in (scored / "esc.jsonl").read_text().splitlines()]
    assert len(esc) == 1
    e = esc[0]
    assert (e["line"], e["id"], e["claim_index"], e["claim"]) == (1, "r1", 2, UNCERTAIN)
    assert e["question"] == QUESTION and e["nli"]["band"] == "uncertain"
    assert e["retrieval_context"] == [x["text"] for x in e["evidence"]]
    assert {"text", "doc_index", "start", "end"} <= set(e["evidence"][0])
    lines = [json.loads(x) for x in (scored / "scored.jsonl").read_text().splitlines()]
    assert lines[0]["n_uncertain"] == 1 and lines[0]["question"] == QUESTION
    assert lines[2]["n_uncertain"] == 0


def test_merge_cli_recomputes_and_names_bad_lines(scored):
    esc = json.loads((scored / "esc.jsonl").read_text())
    judged = write_jsonl(
        scored / "judged.jsonl",
        [
            {**esc, "verdict": "no", "reason": "Founded in Lyon."},
            {**esc, "claim_index": 7, "verdict": "yes"},  # unknown claim
            {"line": 3, "claim_index": 0, "verdict": "supported"},  # outside the vocabulary
            {"line": 99, "claim_index": 0, "verdict": "yes"},  # unknown record
        ],
    )
    out = run_cli("merge", str(scored / "scored.jsonl"), str(judged), "-o", str(scored / "m.jsonl"))
    assert out.returncode == 1
    assert f"{judged}:2: no claim 7 in record line 1" in out.stderr
    assert f"{judged}:3: verdict 'supported'" in out.stderr
    assert f"{judged}:4: no claim 0 in record line 99" in out.stderr
    merged = [json.loads(x) for x in (scored / "m.jsonl").read_text().splitlines()]
    r1, bad, r3 = merged
    assert r1["claims"][2]["verdict"] == "no" and r1["claims"][2]["source"] == "judge"
    assert r1["claims"][2]["judge_reason"] == "Founded in Lyon."
    assert (r1["n_no"], r1["n_judged"], r1["lenient"]) == (1, 1, pytest.approx(2 / 3))
    assert "Contradicted" in r1["reason"] and r1["id"] == "r1" and r1["line"] == 1
    assert "error" in bad
    assert r3["claims"][0]["source"] == "nli" and r3["strict"] == 1.0  # not touched


def test_merge_functions_reject_a_changed_claim_and_duplicates(scored):
    scored_lines = [json.loads(x) for x in (scored / "scored.jsonl").read_text().splitlines()]
    esc = json.loads((scored / "esc.jsonl").read_text())
    judged, errors = read_judged(
        [
            json.dumps({**esc, "claim": "Something else.", "verdict": "yes"}),
            json.dumps({**esc, "verdict": "idk"}),
            json.dumps({**esc, "verdict": "yes"}),
            "not json",
            json.dumps({"claim_index": 0, "verdict": "yes"}),
        ],
        path="j",
    )
    assert errors == [
        "j:4: not valid JSON: Expecting value.",
        "j:5: field 'line' is missing or not an integer.",
    ]
    merged, more = merge_scored(scored_lines, judged, path="j")
    assert "j:1: the claim text differs" in more[0] and "j:3:" in more[1] and "twice" in more[1]
    assert merged[0]["claims"][2]["verdict"] == "idk" and merged[0]["n_judged"] == 1


def test_judge_cli_one_step(scored, server, script):
    script.reset(default="sleep:0.05:yes")
    out = run_cli(
        "judge",
        str(scored / "scored.jsonl"),
        "--base-url",
        server.base_url,
        "--model",
        "m",
        "--api-key-env",
        "FAKE_JUDGE_KEY",
        "--concurrency",
        "2",
        "-o",
        str(scored / "final.jsonl"),
        env={"FAKE_JUDGE_KEY": KEY},
    )
    assert out.returncode == 0, out.stderr
    assert script.claims_sent() == [UNCERTAIN]
    assert script.requests[0]["authorization"] == f"Bearer {KEY}"
    final = [json.loads(x) for x in (scored / "final.jsonl").read_text().splitlines()]
    assert final[0]["claims"][2]["source"] == "judge" and final[0]["strict"] == pytest.approx(2 / 3)
    assert "settled locally" in out.stderr and "3 (75%)" in out.stderr
    assert KEY not in out.stderr + out.stdout
    script.reset(default="500")
    out = run_cli(
        "judge",
        str(scored / "scored.jsonl"),
        "--base-url",
        server.base_url,
        "--model",
        "m",
        "--max-attempts",
        "1",
        "-o",
        str(scored / "final2.jsonl"),
    )
    assert out.returncode == 1
    final = [json.loads(x) for x in (scored / "final2.jsonl").read_text().splitlines()]
    assert (
        final[0]["claims"][2]["verdict"] == "idk"
        and "HTTP 500" in final[0]["claims"][2]["judge_error"]
    )
    assert script.requests[0]["authorization"] is None  # no key given, none sent
    missing = run_cli(
        "judge",
        str(scored / "scored.jsonl"),
        "--base-url",
        server.base_url,
        "--model",
        "m",
        "--api-key-env",
        "NO_SUCH_VAR_FOR_NLI_FAITH",
    )
    assert missing.returncode == 2 and "NO_SUCH_VAR_FOR_NLI_FAITH" in missing.stderr
