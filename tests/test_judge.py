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
#: Claims: supported (settled), about nothing in the context (settled), and two the model
#: is unsure of: a "yes" at P(entail) ~0.8 and a "no" at P(contradict) ~0.72 (a paraphrase
#: the small model misreads: the kind of claim worth a judge).
RESPONSE = (
    "Our office is in France. Our founder likes jazz. The company is based in Europe. "
    "Repairs are done in-house."
)
CONTEXT = [
    "Our office is in France. The company sells bicycles and repairs them in its own workshop."
]
QUESTION = "Tell me about the company."
EUROPE, REPAIRS = "The company is based in Europe.", "Repairs are done in-house."


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
    import nli_faith.scoring.bands as bands_mod
    import nli_faith.scoring.candidates as cand_mod

    for mod in (bands_mod, cand_mod):
        assert doctest.testmod(mod).failed == 0
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


def test_the_cascade_docstring_runs_on_the_bundled_model():
    import nli_faith.judge.cascade as cascade_mod

    finder = doctest.DocTestFinder()
    tests = [t for t in finder.find(cascade_mod.Cascade) if t.examples]
    assert tests  # the example is there, and it runs as written
    runner = doctest.DocTestRunner()
    for t in tests:
        runner.run(t)
    assert runner.summarize(verbose=False).failed == 0


def test_scorer_gives_bands_without_changing_verdicts(bundled_scorer):
    r = bundled_scorer.score(RESPONSE, CONTEXT)
    assert [c.verdict for c in r.claims] == ["yes", "idk", "yes", "no"]
    assert [c.band for c in r.claims] == ["supported", "not_found", "uncertain", "uncertain"]
    assert [c.settled for c in r.claims] == [True, True, False, False]
    assert r.n_uncertain == 2 and r.n_judged == 0
    assert [bool(c.candidates) for c in r.claims] == [False, False, True, True]
    assert all(c.source == "nli" for c in r.claims)
    m = bundled_scorer.stages.matrices([bundled_scorer.stages.plan(RESPONSE, CONTEXT)])[0]
    wide = bundled_scorer.stages.aggregate(m, band_high=0.5, band_low=0.5)
    narrow = bundled_scorer.stages.aggregate(m, band_high=1.0, band_low=0.0)
    assert wide.n_uncertain == 0 and narrow.n_uncertain == 4
    assert [c.verdict for c in wide.claims] == [c.verdict for c in narrow.claims]
    assert [c.verdict for c in narrow.claims] == [c.verdict for c in r.claims]
    assert (wide.strict, wide.lenient) == (r.strict, r.lenient)


# -- cascade against the local chat-completions server --------------------------------


def test_cascade_sends_only_uncertain_claims_and_recomputes(bundled_scorer, server, script):
    script.reset(default="yes", per_claim={EUROPE: ["no"]})
    cascade = Cascade(bundled_scorer, judge=judge_for(server))
    before = bundled_scorer.score(RESPONSE, CONTEXT)
    r = cascade.score(RESPONSE, CONTEXT, question=QUESTION)
    assert sorted(script.claims_sent()) == sorted([EUROPE, REPAIRS])
    sent = next(x for x in script.requests if x["claim"] == REPAIRS)
    assert sent["authorization"] == f"Bearer {KEY}"
    prompt = sent["body"]["messages"][1]["content"]
    assert QUESTION in prompt and "repairs them in its own workshop" in prompt
    assert "founder likes jazz" not in prompt  # only the claim, its evidence and the question
    assert sent["body"]["model"] == "fake-judge"
    assert [(c.verdict, c.source) for c in r.claims] == [
        ("yes", "nli"),
        ("idk", "nli"),
        ("no", "judge"),
        ("yes", "judge"),
    ]
    assert r.claims[2].judge_reason == "judged no"
    assert (r.n_yes, r.n_no, r.n_idk, r.n_judged, r.n_uncertain) == (2, 1, 1, 2, 2)
    assert (before.n_yes, before.n_no, before.strict, before.lenient) == (2, 1, 0.5, 0.75)
    assert r.lenient == 0.75 and r.strict == 0.5
    assert r.soft == before.soft  # soft stays the NLI one
    assert "Contradicted" in r.reason and EUROPE in r.reason and REPAIRS not in r.reason
    s = cascade.summary
    assert (s.claims, s.settled, s.sent, s.answered, s.failed) == (4, 2, 2, 2, 0)
    assert s.latency(50) is not None and "settled locally" in str(s)


def test_judge_failure_keeps_the_nli_verdict_and_is_never_yes(
    bundled_scorer, server, script, caplog
):
    caplog.set_level(logging.DEBUG)
    script.reset(default="malformed")
    cascade = Cascade(bundled_scorer, judge=judge_for(server), max_attempts=2, backoff=0.01)
    r = cascade.score(RESPONSE, CONTEXT, question=QUESTION)
    # each failed claim keeps its NLI verdict: the "no" does not become "yes"
    assert [(c.verdict, c.source) for c in r.claims[2:]] == [("yes", "nli"), ("no", "nli")]
    for claim in r.claims[2:]:
        assert "2 attempts" in claim.judge_error and "JSON" in claim.judge_error
    assert (r.n_yes, r.n_no, r.n_judged, r.n_judge_errors) == (2, 1, 0, 2)
    assert (r.strict, r.lenient) == (0.5, 0.75)
    assert len(script.requests) == 4
    assert cascade.summary.failed == 2 and cascade.summary.retries == 2
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


def test_replies_are_read_within_limits(server, script):
    script.reset(
        per_claim={
            "Drip.": ["drip:0.05"],
            "Huge.": ["huge"],
            "Braces.": ["braces"],
            "Surrogate.": ["surrogate"],
        }
    )
    claims = list(script.per_claim)
    out = judge_items(items(*claims), judge_for(server, timeout=1.0), max_attempts=1)
    got = dict(zip(claims, out))
    assert got["Drip."].verdict is None and "time-out after 1 s" in got["Drip."].error
    assert got["Huge."].verdict is None and "more than 1,048,576 bytes" in got["Huge."].error
    assert (got["Braces."].verdict, got["Braces."].reason) == ("no", "r")
    assert got["Surrogate."].verdict == "no" and got["Surrogate."].reason == "a \ud800"


def test_a_reply_of_braces_is_no_verdict():
    from nli_faith.judge.prompt import JudgeReplyError, parse_reply

    for text in ("{" * 99_000, "{a" * 49_000, '{"a":' * 19_000, "x" * 100_001):
        with pytest.raises(JudgeReplyError):
            parse_reply(text)
    assert parse_reply('Sure. {"note": 1} and {"verdict": "IDK"} {x}').verdict == "idk"


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf")])
def test_a_timeout_must_be_positive_seconds(server, timeout):
    with pytest.raises(ValueError, match="timeout must be a number of seconds above 0"):
        judge_for(server, timeout=timeout)


def test_a_plain_function_judge_runs_as_many_at_once_as_asked():
    """Sixteen calls wait at a barrier for each other, which only sixteen calls in flight
    at once can pass (its own threads, not the event loop's default few); no clock."""
    import threading

    all_at_once = threading.Barrier(16, timeout=120)

    def waiting(claim, evidence, question):
        all_at_once.wait()  # BrokenBarrierError (a failed call) unless all 16 are here
        return "yes"

    out = judge_items(items(*[f"Claim {k}." for k in range(16)]), waiting, concurrency=16)
    assert [o.verdict for o in out] == ["yes"] * 16, [o.error for o in out]
    assert not all_at_once.broken


def test_concurrency_is_bounded(server, script):
    script.reset(default="sleep:0.15:yes")
    t0 = time.perf_counter()
    out = judge_items(items(*[f"Claim {k}." for k in range(12)]), judge_for(server), concurrency=3)
    wall = time.perf_counter() - t0
    assert [o.verdict for o in out] == ["yes"] * 12
    assert script.max_in_flight == 3
    assert wall >= 4 * 0.15  # 12 claims, 3 at a time
    for bad in ({"concurrency": 0}, {"max_attempts": 0}):
        with pytest.raises(ValueError, match="a whole number from 1 to"):
            judge_items(items("x"), judge_for(server), **bad)
        with pytest.raises(ValueError, match="a whole number from 1 to"):  # before any scoring
            Cascade(None, judge_for(server), **bad)


def test_callable_judges_sync_and_async(bundled_scorer):
    seen = []

    async def async_judge(claim, evidence, question):
        await asyncio.sleep(0)
        seen.append((claim, tuple(evidence), question))
        return {"verdict": "YES", "reason": "async"}

    r = Cascade(bundled_scorer, judge=async_judge).score(RESPONSE, CONTEXT, QUESTION)
    assert sorted(x[0] for x in seen) == sorted([EUROPE, REPAIRS]) and seen[0][2] == QUESTION
    assert r.claims[3].verdict == "yes" and r.claims[3].judge_reason == "async"
    assert r.strict == 0.75

    calls = []

    def broken(claim, evidence, question):
        calls.append(claim)
        return "probably"  # outside the vocabulary: an error, never a verdict

    cascade = Cascade(bundled_scorer, judge=broken, max_attempts=3, backoff=0.0)
    r = cascade.score(RESPONSE, CONTEXT)
    assert len(calls) == 6 and r.claims[3].verdict == "no" and r.claims[3].judge_error
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
            {"id": "r3", "response": "Our office is in France.", "context": CONTEXT},
        ],
    )
    from nli_faith.cli import main  # in-process: the model is not loaded in a second interpreter

    argv = ["score", str(src), "-o", str(d / "scored.jsonl"), "--escalate", str(d / "esc.jsonl")]
    assert main([*argv, "--device", "cpu", "--quiet"]) == 1  # the bad line
    return d


def test_escalate_writes_only_uncertain_claims(scored):
    esc = [json.loads(x) for x in (scored / "esc.jsonl").read_text().splitlines()]
    assert [(e["line"], e["id"], e["claim_index"], e["claim"]) for e in esc] == [
        (1, "r1", 2, EUROPE),
        (1, "r1", 3, REPAIRS),
    ]
    e = esc[1]
    assert e["nli"]["verdict"] == "no" and e["nli"]["p_contradict"] > 0.5
    assert e["question"] == QUESTION and e["nli"]["band"] == "uncertain"
    assert e["retrieval_context"] == [x["text"] for x in e["evidence"]]
    assert {"text", "doc_index", "start", "end"} <= set(e["evidence"][0])
    lines = [json.loads(x) for x in (scored / "scored.jsonl").read_text().splitlines()]
    assert lines[0]["n_uncertain"] == 2 and lines[0]["question"] == QUESTION
    assert lines[2]["n_uncertain"] == 0


def test_merge_cli_recomputes_and_names_bad_lines(scored):
    esc = json.loads((scored / "esc.jsonl").read_text().splitlines()[0])
    judged = write_jsonl(
        scored / "judged.jsonl",
        [
            {**esc, "verdict": "no", "reason": "Founded in Lyon."},
            {**esc, "claim_index": 7, "verdict": "yes"},  # unknown claim
            {"line": 3, "claim_index": 0, "verdict": "supported"},  # outside the vocabulary
            {"line": 99, "claim_index": 0, "verdict": "yes"},  # unknown record
            {**esc, "verdict": "yes", "reason": 5},  # a reason that is not text
        ],
    )
    out = run_cli("merge", str(scored / "scored.jsonl"), str(judged), "-o", str(scored / "m.jsonl"))
    assert out.returncode == 1
    assert f"{judged}:2: no claim 7 in record line 1" in out.stderr
    assert f"[E032] {judged}:3: verdict 'supported'" in out.stderr  # with its code
    assert f"{judged}:4: no claim 0 in record line 99" in out.stderr
    assert f"{judged}:5: field 'reason'" in out.stderr
    merged = [json.loads(x) for x in (scored / "m.jsonl").read_text().splitlines()]
    r1, bad, r3 = merged
    assert r1["claims"][2]["verdict"] == "no" and r1["claims"][2]["source"] == "judge"
    assert r1["claims"][2]["judge_reason"] == "Founded in Lyon."
    assert r1["claims"][3]["verdict"] == "no" and r1["claims"][3]["source"] == "nli"
    assert (r1["n_yes"], r1["n_no"], r1["n_judged"], r1["lenient"], r1["strict"]) == (
        1,
        2,
        1,
        0.5,
        0.25,
    )
    assert "Contradicted" in r1["reason"] and r1["id"] == "r1" and r1["line"] == 1
    assert "error" in bad
    assert "hallucination_rate" not in r1 and "reference_label" not in r1["claims"][2]
    assert r3["claims"][0]["source"] == "nli" and r3["strict"] == 1.0  # not touched


def test_merge_and_judge_decide_faithful_again_or_drop_it(scored, server, script):
    from nli_faith.scoring.thresholds import Decision, ModelId, Thresholds

    lines = [json.loads(x) for x in (scored / "scored.jsonl").read_text().splitlines()]
    assert lines[0]["strict"] == 0.5  # two of four claims yes before the judge
    gated = write_jsonl(scored / "gated.jsonl", [{**r, "faithful": True} for r in lines])
    th = scored / "th.json"
    Thresholds(ModelId("m", "m", None), {}, Decision("strict", 0.5)).save(th)
    esc = json.loads((scored / "esc.jsonl").read_text().splitlines()[0])
    judged = write_jsonl(scored / "judged-f.jsonl", [{**esc, "verdict": "no"}])
    out = run_cli(
        "merge", str(gated), str(judged), "--thresholds", str(th), "-o", str(scored / "f.jsonl")
    )
    assert out.returncode == 0, out.stderr
    r1, _, r3 = [json.loads(x) for x in (scored / "f.jsonl").read_text().splitlines()]
    assert r1["strict"] == 0.25 and r1["faithful"] is False  # re-decided on the new score
    assert r3["faithful"] is True  # not judged: kept
    out = run_cli("merge", str(gated), str(judged), "-o", str(scored / "g.jsonl"))
    assert out.returncode == 0 and "1 record(s) had a 'faithful' decision" in out.stderr
    r1, _, r3 = [json.loads(x) for x in (scored / "g.jsonl").read_text().splitlines()]
    assert "faithful" not in r1 and r3["faithful"] is True
    # the judge command: the fake judge says "no" to everything it is asked
    script.reset(default="no")
    out = run_cli(
        "judge",
        str(gated),
        "--base-url",
        server.base_url,
        "--model",
        "fake-judge",
        "--thresholds",
        str(th),
        "-o",
        str(scored / "j.jsonl"),
        "--no-progress",
    )
    assert out.returncode == 0, out.stderr
    r1 = json.loads((scored / "j.jsonl").read_text().splitlines()[0])
    assert r1["n_judged"] == 2 and r1["strict"] == 0.25 and r1["faithful"] is False
    # a file scored without --thresholds: every line gets its decision, judged or not
    out = run_cli(
        "merge",
        str(scored / "scored.jsonl"),
        str(judged),
        "--thresholds",
        str(th),
        "-o",
        str(scored / "h.jsonl"),
    )
    assert out.returncode == 0, out.stderr
    rows = [json.loads(x) for x in (scored / "h.jsonl").read_text().splitlines()]
    assert [r["faithful"] for r in rows] == [False, None, True]  # the middle line is an error
    out = run_cli("merge", str(gated), str(judged), "--thresholds", str(scored / "none.json"))
    assert out.returncode == 2 and "none.json" in out.stderr


def test_merge_functions_reject_a_changed_claim_and_duplicates(scored):
    scored_lines = [json.loads(x) for x in (scored / "scored.jsonl").read_text().splitlines()]
    esc = json.loads((scored / "esc.jsonl").read_text().splitlines()[0])
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
    assert merged[0]["strict"] == 0.25 and merged[0]["lenient"] == 0.75


def test_judge_cli_one_step(scored, server, script):
    script.reset(default="sleep:0.05:yes", per_claim={EUROPE: ["no"]})
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
    assert sorted(script.claims_sent()) == sorted([EUROPE, REPAIRS])
    assert script.requests[0]["authorization"] == f"Bearer {KEY}"
    final = [json.loads(x) for x in (scored / "final.jsonl").read_text().splitlines()]
    assert [c["source"] for c in final[0]["claims"]] == ["nli", "nli", "judge", "judge"]
    assert [c["verdict"] for c in final[0]["claims"]] == ["yes", "idk", "no", "yes"]
    assert (final[0]["strict"], final[0]["lenient"], final[2]["strict"]) == (0.5, 0.75, 1.0)
    assert "settled locally" in out.stderr and "3 (60%)" in out.stderr
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
    assert final[0]["claims"][3]["verdict"] == "no"
    assert "HTTP 500" in final[0]["claims"][3]["judge_error"]
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


def test_merge_recomputes_reference_rates():
    from nli_faith.judge import JudgeOutcome, apply_outcomes
    from nli_faith.results import ClaimVerdict, FaithfulnessResult

    claims = [
        ClaimVerdict("A.", 0, 2, "yes", 0.99, 0.0, None, band="supported", settled=True),
        ClaimVerdict("B.", 3, 5, "idk", 0.4, 0.0, None, reference_label="hallucination"),
        ClaimVerdict("C.", 6, 8, "idk", 0.2, 0.0, None, reference_label="self_knowledge"),
    ]
    r = FaithfulnessResult(
        1.0, 1 / 3, 0.53, 3, 1, 0, 2, "...", claims, n_uncertain=2,
        hallucination_rate=1 / 3, self_knowledge_rate=1 / 3,
    )  # fmt: skip
    m = apply_outcomes(r, {1: JudgeOutcome("yes")})
    assert [c.reference_label for c in m.claims] == [None, None, "self_knowledge"]
    assert (m.hallucination_rate, m.self_knowledge_rate) == (0.0, 1 / 3)
    assert m.strict == 2 / 3 and "1 is self-knowledge" in m.reason


def test_a_judged_line_with_a_judge_error_is_never_its_verdict():
    """A line that carries both a verdict and a judge_error is a failed judgement: the claim
    keeps its NLI verdict and is marked, never taken as the judge's 'yes'."""
    from nli_faith.judge.merge import read_judged

    good, errors = read_judged(
        [
            '{"line": 1, "claim_index": 0, "verdict": "yes", "judge_error": "timeout after 3"}',
            '{"line": 1, "claim_index": 1, "verdict": "no"}',
            "[1, 2]",
        ]
    )
    assert [(j.outcome.verdict, j.outcome.error) for j in good] == [
        (None, "timeout after 3"),
        ("no", None),
    ]
    assert errors == ["judged:3: the line is not a JSON object."]


def test_reference_rates_are_withheld_when_the_judge_unsupports_an_unchecked_claim():
    from nli_faith.judge.merge import JudgeOutcome, apply_outcomes
    from nli_faith.results import ClaimVerdict, FaithfulnessResult

    claims = [
        ClaimVerdict("A.", 0, 2, "yes", 0.9, 0.0, None),
        ClaimVerdict("B.", 3, 5, "idk", 0.2, 0.0, None, reference_label="hallucination"),
    ]
    r = FaithfulnessResult(
        1.0, 0.5, 0.55, 2, 1, 0, 1, "...", claims,
        hallucination_rate=0.5, self_knowledge_rate=0.0,
    )  # fmt: skip
    m = apply_outcomes(r, {0: JudgeOutcome("no")})  # the judge says A is contradicted
    assert m.n_no == 1 and m.hallucination_rate is None and m.self_knowledge_rate is None
    assert "check_reference" in m.reason
    # the judge supporting B instead leaves every unsupported claim labelled: rates given
    m = apply_outcomes(r, {1: JudgeOutcome("yes")})
    assert m.n_yes == 2 and m.hallucination_rate == 0.0


def test_merge_reads_verdicts_as_a_judges_reply_is_read():
    from nli_faith.judge.merge import read_judged

    lines = [
        json.dumps({"line": 1, "claim_index": 0, "verdict": " Borderline "}),
        json.dumps({"line": 1, "claim_index": 1, "verdict": "YES", "reason": "r"}),
        json.dumps({"line": 1, "claim_index": 2, "verdict": "maybe"}),
    ]
    good, errors = read_judged(lines, path="j.jsonl")
    assert [(j.claim_index, j.outcome.verdict) for j in good] == [(0, "idk"), (1, "yes")]
    (error,) = errors
    assert error.startswith("j.jsonl:3: verdict 'maybe' is not one of 'yes', 'no', 'idk'")


def test_merge_and_judge_refuse_a_scored_file_they_cannot_join(scored, tmp_path):
    good = (scored / "scored.jsonl").read_text().splitlines()
    esc = json.loads((scored / "esc.jsonl").read_text().splitlines()[0])
    judged = write_jsonl(tmp_path / "judged.jsonl", [{**esc, "verdict": "no"}])
    cases = {
        "list": ([good[0], "[1, 2]"], "2: the line is not a JSON object"),
        "no-line": ([good[0], json.dumps({"id": "x"})], "2: field 'line' is missing"),
        "twice": ([good[0], good[1], good[0]], "3: record line 1 is also at line 1"),
    }
    for name, (lines, needle) in cases.items():
        bad = write_jsonl(tmp_path / f"{name}.jsonl", lines)
        for args in (
            ("merge", str(bad), str(judged)),
            ("judge", str(bad), "--base-url", "http://127.0.0.1:9/v1", "--model", "m"),
        ):
            proc = run_cli(*args)
            assert proc.returncode == 2, (name, args[0], proc.stderr)
            assert needle in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_merge_keeps_a_lone_surrogate_of_a_reason(scored, tmp_path):
    esc = json.loads((scored / "esc.jsonl").read_text().splitlines()[0])
    line = json.dumps({**esc, "verdict": "no", "reason": "bad \ud800 char"})
    judged = write_jsonl(tmp_path / "judged.jsonl", [line])
    out = tmp_path / "merged.jsonl"
    proc = run_cli("merge", str(scored / "scored.jsonl"), str(judged), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    merged = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(merged) == len((scored / "scored.jsonl").read_text().splitlines())
    claim = merged[0]["claims"][esc["claim_index"]]
    assert claim["judge_reason"] == "bad \ud800 char" and claim["source"] == "judge"


def test_judge_cli_refuses_a_timeout_that_is_not_positive(scored):
    args = ("judge", str(scored / "scored.jsonl"), "--base-url", "http://127.0.0.1:9/v1")
    proc = run_cli(*args, "--model", "m", "--timeout", "0")
    assert proc.returncode == 2
    assert "[E107]" in proc.stderr or "timeout must be a number of seconds above 0" in proc.stderr


def test_judge_cli_names_each_bad_endpoint_option_with_its_flag(scored):
    scored_file = str(scored / "scored.jsonl")
    url = ("--base-url", "http://127.0.0.1:9/v1")
    for argv, needle in [
        (("--base-url", "notaurl", "--model", "m"), "[E120] --base-url must be an http://"),
        ((*url, "--model", ""), "[E120] --model must be a model name"),
        ((*url, "--model", "m", "--max-attempts", "1000000"), "[E042] --max-attempts must be"),
        ((*url, "--model", "m", "--concurrency", "0"), "[E041] --concurrency must be"),
    ]:
        proc = run_cli("judge", scored_file, *argv)
        assert proc.returncode == 2 and needle in proc.stderr, proc.stderr
