"""One bad record never takes its batch down (issue 15): isolation, long claims, limits."""

import json
import logging

import pytest
from conftest import write_jsonl

from nli_faith.engine.failures import describe
from nli_faith.engine.infer import run_isolated
from nli_faith.engine.plan import claim_tokens
from nli_faith.errors import RecordError
from nli_faith.records import Limits, parse_record

GOOD_A = {
    "id": "a",
    "response": "The Eiffel Tower is in Paris.",
    "context": ["The Eiffel Tower is located in Paris."],
}
GOOD_C = {
    "id": "c",
    "response": "The tower was completed in 1889.",
    "context": ["The tower was completed in 1889."],
}
_WORDS = (
    "the server logs every request and the client retries the call while the proxy "
    "waits for a reply from the backend"
).split()
#: An 800-word run-on sentence with no full stop (LLM output, a pasted log).
RUN_ON = " ".join(_WORDS[i % len(_WORDS)] for i in range(800))
LONG_B = {
    "id": "b",
    "response": RUN_ON,
    "context": ["The server logs every request. The client retries the call."],
}


def test_run_isolated_bisects_to_the_failing_items():
    calls = []

    def halve(xs):
        calls.append(len(xs))
        if 0 in xs:
            raise ZeroDivisionError("zero in the batch")
        return [10 // x for x in xs]

    out = run_isolated(halve, [1, 2, 0, 5, 10, 1, 2, 5])
    assert [describe(x) if isinstance(x, Exception) else x for x in out] == [
        10,
        5,
        "ZeroDivisionError: zero in the batch",
        2,
        1,
        10,
        5,
        2,
    ]
    assert len(calls) < 8 + 1  # bisection, not one call per item after a full retry


def test_null_fields_and_empty_context_say_so(bundled_scorer):
    with pytest.raises(RecordError, match=r"field 'response' is null"):
        parse_record({"response": None, "context": "x"})
    with pytest.raises(RecordError, match=r"field 'retrieval_context' is null"):
        parse_record({"actual_output": "x", "retrieval_context": None})
    with pytest.raises(RecordError, match="no response field"):
        parse_record({"context": "x"})
    # another alias with a value wins over a null one
    assert parse_record({"answer": "x", "response": None, "context": "y"}).response == "x"
    for context in (["", "  \n"], "", []):
        r = bundled_scorer.score("Paris is the capital of France.", context)
        assert r.error is None and r.claims[0].verdict == "idk"
        assert r.reason.startswith("The context is empty")
    r = bundled_scorer.score("Paris is the capital of France.", ["Paris is the capital of France."])
    assert "context is empty" not in r.reason


def test_lone_surrogates_are_scored_not_fatal(bundled_scorer):
    rec = {"response": "Paris is in France \ud83d.", "context": "Paris is in France \udc00."}
    r = bundled_scorer.score_batch([rec])[0]
    assert r.error is None and r.n_claims == 1


def test_long_run_on_claim_is_split_with_spans_and_one_warning(bundled_scorer, caplog):
    caplog.set_level(logging.WARNING)
    out = bundled_scorer.score_batch([GOOD_A, LONG_B, GOOD_C])
    assert [r.error for r in out] == [None, None, None]
    long = out[1]
    assert long.n_claims >= 4  # ~1,000 tokens in pieces of at most 254
    limit = claim_tokens(bundled_scorer.parts)
    assert all(n <= limit for n in bundled_scorer.nli.count_tokens([c.claim for c in long.claims]))
    for c in long.claims:
        assert 0 <= c.start < c.end <= len(RUN_ON)
        assert RUN_ON[c.start : c.end] == c.claim  # the run-on needs no cleaning
    assert [c.start for c in long.claims] == sorted(c.start for c in long.claims)
    messages = [r.getMessage() for r in caplog.records]
    split = [m for m in messages if "were split into" in m]
    assert len(split) == 1 and split[0].startswith("record 1:")
    assert not any("exceed the model's" in m for m in messages)  # no premise truncated
    assert not any("Token indices sequence length" in m for m in messages)
    # same verdicts as each good record alone
    alone = bundled_scorer.score_batch([GOOD_A])[0]
    assert [c.verdict for c in out[0].claims] == [c.verdict for c in alone.claims]


def test_long_claim_with_markdown_spans_follow_the_cleaning(bundled_scorer):
    response = "Intro: **" + ", ".join(f"item number {i} is `blue`" for i in range(150)) + "**"
    claims = bundled_scorer.stages.claims(response)
    assert len(claims) > 1
    for c in claims:
        assert 0 <= c.start < c.end <= len(response)
        first, last = c.text.split()[0], c.text.split()[-1]
        assert first.strip("`*") in response[c.start : c.end]
        assert last.strip("`*,") in response[c.start : c.end]


def test_a_failing_model_batch_loses_only_its_record(bundled_scorer, monkeypatch):
    """Fault injection: the model raises on one record's pairs; the batch is bisected."""
    predict = bundled_scorer.nli.predict

    def flaky(pairs, **kw):
        if any("POISON" in h for _, h in pairs):
            raise RuntimeError("CUDA error: device-side assert triggered")
        return predict(pairs, **kw)

    monkeypatch.setattr(bundled_scorer.nli, "predict", flaky)
    poison = {"response": "POISON is a claim.", "context": "Some context."}
    out = bundled_scorer.score_batch([GOOD_A, poison, GOOD_C, GOOD_A])
    assert out[1].error == "RuntimeError: CUDA error: device-side assert triggered"
    assert out[1].strict is None and out[1].reason.startswith("Not scored:")
    assert [r.error for r in (out[0], out[2], out[3])] == [None, None, None]
    assert out[0].claims[0].verdict == out[3].claims[0].verdict == "yes"


def test_limits_refuse_only_the_record_past_them(tiny_model_dir):
    from nli_faith.scorer import FaithfulnessScorer

    scorer = FaithfulnessScorer(
        str(tiny_model_dir),
        device="cpu",
        limits=Limits(max_response_chars=100, max_documents=2, max_claims=3),
    )
    records = [
        {"response": "x " * 60, "context": "c"},
        {"response": "A is B.", "context": ["1", "2", "3"]},
        {
            "response": "Rome is in Italy. Oslo is in Norway. Lima is in Peru. Cairo is in Egypt.",
            "context": "c",
        },
        {"response": "Rome is in Italy.", "context": "Rome is in Italy."},
    ]
    out = scorer.score_batch(records)
    assert out[0].error == (
        "RecordError: field 'response' is too long: 120 characters, over the limit of 100 "
        "(max_response_chars)."
    )
    assert "3 documents, over the limit of 2 (max_documents)" in out[1].error
    assert "4, over the limit of 3 (max_claims)" in out[2].error
    assert out[3].error is None and out[3].n_claims == 1
    with pytest.raises(RecordError, match="max_claims"):
        scorer.score(
            "Rome is in Italy. Oslo is in Norway. Lima is in Peru. Cairo is in Egypt.", "c"
        )
    unlimited = FaithfulnessScorer(
        str(tiny_model_dir),
        device="cpu",
        limits=Limits(None, None, None, None),
    )
    assert unlimited.score_batch(records[:3])[2].n_claims == 4


def test_cli_three_records_with_a_run_on_answer(tmp_path):
    from test_cli import run_cli

    src = write_jsonl(tmp_path / "long.jsonl", [GOOD_A, LONG_B, GOOD_C])
    out = tmp_path / "out.jsonl"
    proc = run_cli("score", str(src), "-o", str(out), "--no-progress")
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == ["a", "b", "c"]
    assert lines[0]["claims"][0]["verdict"] == "yes"
    assert lines[2]["claims"][0]["verdict"] == "yes"
    assert "error" not in lines[1] and lines[1]["n_claims"] >= 4
    assert proc.returncode == 0, proc.stderr  # exit 1 only if the long record had failed
    assert "line 2: 1 claim(s) longer than" in proc.stderr
    assert "Truncation error" not in proc.stderr and "Traceback" not in proc.stderr


def test_cli_limit_flags_and_exit_code(tmp_path, tiny_model_dir, capsys):
    from nli_faith.cli import main

    src = write_jsonl(tmp_path / "in.jsonl", [GOOD_A, {"response": None, "context": "x"}, GOOD_C])
    out = tmp_path / "out.jsonl"
    argv = ["score", str(src), "-o", str(out), "--model", str(tiny_model_dir), "--no-progress"]
    assert main([*argv, "--max-response-chars", "30", "--max-claims", "0"]) == 1
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 3
    assert "error" not in lines[0]
    assert lines[1]["error"] == "RecordError: field 'response' is null; expected a string."
    assert "over the limit of 30 (max_response_chars)" in lines[2]["error"]
    err = capsys.readouterr().err
    assert "line 2: RecordError: field 'response' is null" in err
    assert "line 3: RecordError: field 'response' is too long" in err  # stderr names the flag
    assert "over the limit of 30 (--max-response-chars)." in err
    assert main(argv) == 1  # default limits: only the null record fails
    assert [("error" in json.loads(x)) for x in out.read_text().splitlines()] == [0, 1, 0]
    with pytest.raises(SystemExit):
        main([*argv, "--max-documents", "-1"])
    assert "must be 0 (no limit) or more" in capsys.readouterr().err


def _words(text):
    import re

    return [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def _fit(claims, max_tokens, response):
    from nli_faith.text.fit import fit_claims

    return fit_claims(
        claims,
        max_tokens=max_tokens,
        token_offsets=_words,
        count_tokens=lambda texts: [len(_words(t)) for t in texts],
        response=response,
    )


def test_fit_prefers_clause_then_comma_then_word_boundaries():
    from nli_faith.text.claims import Claim

    text = "one two three four, five six seven; eight nine ten eleven twelve"
    fitted = _fit([Claim(text, 0, len(text))], 8, text)
    assert [c.text for c in fitted.claims] == [
        "one two three four, five six seven",  # the ';' beats the ',' inside the window
        "eight nine ten eleven twelve",
    ]
    text = "a b c d e f g h i j"  # no punctuation: word boundaries, pieces near the limit
    pieces = _fit([Claim(text, 0, len(text))], 4, text).claims
    assert [c.text for c in pieces] == ["a b c d", "e f g h", "i j"]
    short = Claim("fits as it is", 3, 16)
    assert _fit([short], 8, "-> fits as it is").claims == [short]


def test_fit_spans_follow_a_cleaned_claim_into_the_response():
    from nli_faith.text.claims import ClaimSplitter

    response = "Intro.\n- **Alpha  beta** gamma, delta `epsilon` zeta; eta theta iota kappa [1]"
    claims = ClaimSplitter().split(response)
    long = [c for c in claims if "Alpha" in c.text]
    fitted = _fit(long, 4, response)
    assert fitted.n_split == 1 and len(fitted.claims) >= 3
    for c in fitted.claims:
        span = response[c.start : c.end]
        assert c.text.split()[0] in span and c.text.split()[-1].strip("`") in span
    assert response[fitted.claims[0].start :].startswith("Alpha")


def test_fit_splits_a_rewritten_claim_as_written():
    """A too-long claim scored with a restored subject ("Wayne left ...") is split as its
    words as written, so every piece's span and words are the response's."""
    from nli_faith.text.claims import Claim

    response = "Wayne sold it and left the firm, moved west; founded a farm there in spring"
    at = response.index("left")
    written = response[at:]
    claim = Claim("Wayne " + written, at, len(response), written=written)
    fitted = _fit([claim], 6, response)
    assert fitted.n_split == 1
    assert [c.text for c in fitted.claims] == [
        "left the firm, moved west",
        "founded a farm there in spring",
    ]
    assert [response[c.start : c.end] for c in fitted.claims] == [c.text for c in fitted.claims]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_pairs_probabilities_do_not_depend_on_its_batch_mates(dtype):
    """Padded to its own bucket, not to its batch's longest pair: bf16 moved ~1e-2 before."""
    import numpy as np

    from nli_faith.nli.model import NLIModel

    nli = NLIModel("default", device="cpu", dtype=dtype, batch_size=4)
    pairs = [
        (" ".join((_WORDS * 5)[: 3 + 9 * k]) + ".", "The client retries the call.")
        for k in range(10)
    ]
    together = nli.predict(pairs)
    alone = np.concatenate([nli.predict([p]) for p in pairs])
    reversed_ = nli.predict(pairs[::-1])[::-1]
    assert np.abs(together - alone).max() <= 1e-5
    assert np.abs(together - reversed_).max() <= 1e-5


#: Lines the JSON reader refuses, each with the reason its error gives.
BAD_JSON_LINES = [
    (
        '{"id": ' + "1" * 5000 + ', "response": "a", "context": "b"}',
        "an integer has more than 4,300 digits",
    ),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"id": NaN, "response": "a", "context": "b"}', "NaN is not a JSON number"),
    ('{"id": 1e400, "response": "a", "context": "b"}', "the number 1e400 is out of range"),
]


def test_cli_lines_python_cannot_read_as_json_fail_alone(tmp_path, tiny_model_dir):
    from nli_faith.cli import main

    rows = [GOOD_A]
    for line, _ in BAD_JSON_LINES:
        rows += [line, GOOD_C]
    src = write_jsonl(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    argv = ["score", str(src), "-o", str(out), "--model", str(tiny_model_dir), "--no-progress"]
    assert main(argv) == 1
    from nli_faith.records import load_json  # strict: no NaN or Infinity in the output

    lines = [load_json(x) for x in out.read_text().splitlines()]
    assert [x["line"] for x in lines] == list(range(1, len(rows) + 1))
    for k, (_, reason) in enumerate(BAD_JSON_LINES):
        bad, good = lines[1 + 2 * k], lines[2 + 2 * k]
        assert bad["error"] == f"RecordError: the line is not valid JSON: {reason}."
        assert good["id"] == "c" and "error" not in good


def test_parquet_cells_that_are_not_json_are_echoed_as_text(tmp_path, tiny_model_dir):
    import datetime
    import decimal

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from nli_faith.cli import main

    ids = [datetime.datetime(2024, 1, 2, 3, 4), datetime.datetime(2024, 5, 6)]
    table = pa.table(
        {
            "id": ids,
            "amount": [decimal.Decimal("1.50"), None],
            "blob": [b"\xffok", b"x"],
            "response": [GOOD_A["response"], GOOD_C["response"]],
            "context": [GOOD_A["context"], GOOD_C["context"]],
        }
    )
    pq.write_table(table, tmp_path / "in.parquet")
    out = tmp_path / "out.jsonl"
    argv = ["score", str(tmp_path / "in.parquet"), "-o", str(out), "--model", str(tiny_model_dir)]
    assert main([*argv, "--no-progress"]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == ["2024-01-02T03:04:00", "2024-05-06T00:00:00"]
    assert all(x["n_claims"] == 1 for x in lines)


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("in.csv", "response,context\na,b\n", "is named as CSV"),
        ("in.parquet", '{"response": "a", "context": "b"}\n', "is not a Parquet file"),
    ],
)
def test_cli_input_files_it_cannot_read_are_named(tmp_path, capsys, name, content, reason):
    from nli_faith.cli import main

    src = tmp_path / name
    src.write_text(content)
    assert main(["score", str(src), "-o", str(tmp_path / "out.jsonl"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert str(src) in err and reason in err
    assert not (tmp_path / "out.jsonl").exists()


def test_labels_must_name_every_record(tiny_scorer):
    recs = [GOOD_A, GOOD_C, GOOD_A]
    with pytest.raises(ValueError, match="labels names 1 records, but there are 3"):
        tiny_scorer.score_batch(recs, labels=["a"])
    with pytest.raises(ValueError, match="labels names"):
        list(tiny_scorer.score_stream(iter(recs), labels=iter(["a"]), block_size=2))
    endless = (f"record {k}" for k in range(10**9))  # a stream may take an endless naming
    assert len(list(tiny_scorer.score_stream(iter(recs), labels=endless, block_size=2))) == 3


def test_record_objects_are_checked_like_json_objects(tiny_scorer):
    from nli_faith.records import Record

    limits = Limits(max_response_chars=20, max_documents=1)
    with pytest.raises(RecordError, match="over the limit of 20"):
        parse_record(Record("x" * 30, ["a"]), limits=limits)
    with pytest.raises(RecordError, match="over the limit of 1"):
        parse_record(Record("short", ["a", "b"]), limits=limits)
    (bad, good) = tiny_scorer.score_batch([Record(5, ["x"]), Record("It is.", "It is.")])
    assert bad.error == "RecordError: field 'response' must be a string, got int."
    assert good.error is None and good.n_claims == 1


def test_parquet_output_holds_lone_surrogates_of_echoed_fields(tmp_path, tiny_model_dir):
    pq = pytest.importorskip("pyarrow.parquet")
    from nli_faith.cli import main
    from nli_faith.rows import json_row

    lines = [
        '{"id": "\\ud83d", "question": "Why \\ud83d?", "response": "It is.", "context": "It is."}',
        '{"id": null, "response": "It is.", "context": "It is."}',
        '{"id": ["東京", 1], "response": "It is.", "context": "It is."}',
    ]
    src = write_jsonl(tmp_path / "in.jsonl", lines)
    argv = ["score", str(src), "--model", str(tiny_model_dir), "--no-progress", "--quiet"]
    assert main([*argv, "-o", str(tmp_path / "out.parquet")]) == 0
    assert main([*argv, "-o", str(tmp_path / "out.jsonl")]) == 0
    rows = [json_row(r) for r in pq.read_table(tmp_path / "out.parquet").to_pylist()]
    assert rows[0]["id"] == "\ufffd" and rows[0]["question"] == "Why \ufffd?"
    assert "id" not in rows[1]  # a null id is no id, in Parquet as in JSONL
    assert rows[2]["id"] == '["東京", 1]'
    jsonl = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert jsonl[0]["question"] == "Why \ufffd?" and "id" not in jsonl[1]
    for a, b in zip(rows, jsonl):
        assert {k: v for k, v in a.items() if k != "id"} == {
            k: v for k, v in b.items() if k != "id"
        }
