"""Scoring at scale on one machine: planning processes, streaming CLI, Parquet,
--resume."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO, write_jsonl

from nli_faith.io import ResumePoint, resume_point
from nli_faith.rows import json_row

EXAMPLES = REPO / "examples" / "answers.jsonl"


def cli(*args: str) -> int:
    from nli_faith.cli import main

    return main(["score", *args, "--no-progress", "--quiet"])


def records(n: int) -> list[dict]:
    """``n`` varied plain records from the example file's texts, every 11th one bad."""
    from nli_faith.records import parse_record

    base = [parse_record(json.loads(x)) for x in EXAMPLES.read_text().splitlines()]
    out = []
    for k in range(n):
        r = base[k % len(base)]
        ctx = base[(k + k // len(base)) % len(base)].context  # other contexts: other verdicts
        out.append({"id": f"r{k}", "response": 42 if k % 11 == 5 else r.response, "context": ctx})
    return out


# -- planning in worker processes, streaming -------------------------------------------------


def test_n_process_and_stream_give_the_same_results(tiny_scorer):
    recs = records(40)
    want = tiny_scorer.score_batch(recs)
    assert sum(r.error is not None for r in want) == 4  # the records with a number response
    assert tiny_scorer.score_batch(recs, n_process=2) == want
    assert list(tiny_scorer.score_stream(iter(recs), block_size=40, n_process=2)) == want
    from nli_faith.engine.runner import check_n_process, usable_cpus

    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match=f"n_process must be a whole number.*got {bad!r}"):
            tiny_scorer.score_batch(recs, n_process=bad)
    assert check_n_process(10**6) == usable_cpus()  # never more workers than CPUs
    assert check_n_process(np.int64(1)) == 1
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match=f"block_size must be a whole number.*got {bad!r}"):
            list(tiny_scorer.score_stream(recs, block_size=bad))


def test_score_batch_with_workers_scores_blocks_planned_ahead(tiny_scorer):
    """With workers, score_batch plans blocks ahead while the model scores (several blocks
    here); the results are those of one process planning everything first."""
    from nli_faith.engine.runner import check_n_process, overlap_block, usable_cpus

    recs = records(300)
    want = tiny_scorer.score_batch(recs)
    assert overlap_block(len(recs), 2) < len(recs)  # more than one block
    assert tiny_scorer.score_batch(recs, n_process=2) == want
    assert tiny_scorer.score_batch(recs, n_process="auto") == want
    assert check_n_process("auto") == max(1, usable_cpus() - 1)
    for bad in ("all", "2", None):
        with pytest.raises(ValueError, match=f"n_process must be .* or 'auto', got {bad!r}"):
            tiny_scorer.score_batch(recs[:4], n_process=bad)


def test_with_workers_the_models_process_only_runs_the_model(tiny_model_dir, monkeypatch):
    """With workers, the records' pairs are tokenized and their results decided in the
    workers: the model's process tokenizes no text and decides no record, and the results
    are those of one process (which does both itself)."""
    from nli_faith.engine import runner as runner_mod
    from nli_faith.engine.runner import usable_cpus
    from nli_faith.scorer import FaithfulnessScorer

    if usable_cpus() < 2:
        pytest.skip("planning workers need at least 2 usable CPUs")
    recs = records(40)
    scorer = FaithfulnessScorer(str(tiny_model_dir), device="cpu")
    want = scorer.score_batch(recs)
    decided_here = []
    real = runner_mod.decide_outcome

    def counted(*a, **kw):
        decided_here.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(runner_mod, "decide_outcome", counted)
    cache = scorer.nli._tokens.cache
    cache.clear()
    scorer.close()  # the workers fork now, with what this process holds
    assert scorer.score_batch(recs, n_process=2) == want
    assert list(scorer.score_stream(iter(recs), block_size=10, n_process=2)) == want
    assert cache == {} and decided_here == []
    assert scorer.score_batch(recs) == want and len(decided_here) == 36  # in-process: here
    scorer.entail_threshold = 0.01  # read by the decision only: workers decide with it too
    assert scorer.score_batch(recs, n_process=2) == scorer.score_batch(recs) != want
    scorer.close()


def test_workers_score_blocks_without_a_pair_as_one_process_does(tiny_scorer):
    """Records that give the model no pair (an empty context, an empty answer), whole
    blocks of them, are scored with workers as without."""
    recs = [
        {"response": "Paris is in France.", "context": ""},
        {"response": "", "context": "Paris is the capital of France."},
    ] * 4
    want = tiny_scorer.score_batch(recs)
    assert all(r.error is None for r in want)
    assert tiny_scorer.score_batch(recs, n_process=2) == want
    assert list(tiny_scorer.score_stream(iter(recs), block_size=3, n_process=2)) == want


def test_ids_encoded_for_another_model_or_length_are_refused(tiny_scorer, tiny_model_dir):
    from nli_faith.nli.model import NLIModel

    pairs = [("The sky is blue.", "It is blue.")]
    other = NLIModel(str(tiny_model_dir), device="cpu")
    encoded = other.encode(pairs)
    with pytest.raises(ValueError, match="encoded for another model's tokenizer") as err:
        tiny_scorer.nli.predict_encoded(encoded)
    assert getattr(err.value, "code", None) == "E333"
    np.testing.assert_allclose(
        other.predict_encoded(encoded), tiny_scorer.nli.predict(pairs), rtol=1e-5, atol=1e-6
    )
    key = other.encoding_key
    other.max_length = other.max_length - 32
    assert other.encoding_key != key  # a length changed in place: ids made before are not its


@pytest.mark.parametrize("n_process", [1, 2])
def test_planned_blocks_read_at_most_the_blocks_queued_ahead(tiny_scorer, n_process):
    """The queue between planning and the model is bounded: while the caller holds a
    block, only ``ahead`` more have been taken from the input (with workers or not)."""
    recs = records(40)
    taken = []

    def source():
        for k, rec in enumerate(recs):
            taken.append(k)
            yield rec, f"record {k}"

    blocks = tiny_scorer.runner.planned_blocks(source(), 4, n_process, ahead=2)
    first = next(blocks)
    assert len(first) == 4 and len(taken) == 12  # this block and two ahead
    second = next(blocks)
    assert len(taken) == 16
    rest = list(blocks)
    assert len(taken) == 40 and [len(b) for b in rest] == [4] * 8
    plans = [p for b in (first, second, *rest) for p in b]
    assert [type(p).__name__ for p in plans] == [
        type(tiny_scorer.runner.plan((r, "x"))).__name__ for r in recs
    ]


def test_workers_see_a_planning_setting_changed_after_they_started(tiny_model_dir):
    """Workers forked before a setting changed must plan with the new one, as one process
    does (they used to keep the settings of the moment they were forked)."""
    from nli_faith.engine.runner import usable_cpus
    from nli_faith.records import Limits
    from nli_faith.scorer import FaithfulnessScorer

    if usable_cpus() < 2:
        pytest.skip("planning workers need at least 2 usable CPUs")
    recs = records(24)
    tiny_scorer = FaithfulnessScorer(str(tiny_model_dir), device="cpu")  # its own: changed
    before = tiny_scorer.score_batch(recs)
    assert tiny_scorer.score_batch(recs, n_process=2) == before  # the workers are forked
    changes = [
        ("chunk_tokens", 16),
        ("sentence_chunks", False),
        ("entail_threshold", 0.01),  # not read by planning: the same workers
        ("limits", Limits(max_claims=1)),
    ]
    for name, value in changes:
        setattr(tiny_scorer, name, value)
        want = tiny_scorer.score_batch(recs)
        assert want != before, name  # the setting changes the plans
        assert tiny_scorer.score_batch(recs, n_process=2) == want, name
        stream = tiny_scorer.score_stream(iter(recs), block_size=len(recs), n_process=2)
        assert list(stream) == want, name
        before = want
    tiny_scorer.close()


def test_a_setting_changed_during_a_stream_reaches_its_workers(tiny_model_dir):
    """Changed while a stream runs, a planning setting applies from the next block planned:
    when a block's first result comes, the next block was planned (in one process) or
    scored, and the one after it planned (with workers). A stream still running when
    another call forks new workers finishes on its own."""
    from nli_faith.engine.runner import usable_cpus
    from nli_faith.scorer import FaithfulnessScorer

    if usable_cpus() < 2:
        pytest.skip("planning workers need at least 2 usable CPUs")
    recs = records(32)
    got = {}
    for n in (1, 2):
        scorer = FaithfulnessScorer(str(tiny_model_dir), device="cpu")
        stream = scorer.score_stream(iter(recs), block_size=8, n_process=n)
        out = [next(stream)]
        scorer.chunk_tokens = 16
        assert len(scorer.score_batch(recs, n_process=n)) == len(recs)  # new workers
        got[n] = out + list(stream)
        scorer.close()
    plain = FaithfulnessScorer(str(tiny_model_dir), device="cpu")
    old = [plain.score_batch(recs[k : k + 8]) for k in (0, 8, 16)]
    plain.chunk_tokens = 16
    new = [plain.score_batch(recs[k : k + 8]) for k in (16, 24)]
    assert got[1] == old[0] + old[1] + new[0] + new[1]
    assert got[2] == old[0] + old[1] + old[2] + new[1]
    default = FaithfulnessScorer(str(tiny_model_dir), device="cpu")
    assert new[1] != default.score_batch(recs[24:])  # the change did reach the last block


def test_a_blocks_reference_pass_uses_the_settings_it_was_decided_with(tiny_model_dir):
    """A decision setting changed while a stream runs leaves the blocks already started
    whole: their verdicts and their reference labels both with the settings of before."""
    from nli_faith.engine.runner import usable_cpus
    from nli_faith.scorer import FaithfulnessScorer

    if usable_cpus() < 2:
        pytest.skip("planning workers need at least 2 usable CPUs")
    recs = [dict(r, reference="The tower was completed in 1889.") for r in records(24)]
    for n in (1, 2):
        scorer = FaithfulnessScorer(str(tiny_model_dir), device="cpu")
        stream = scorer.score_stream(iter(recs), block_size=8, n_process=n)
        got = [next(stream)]
        scorer.entail_threshold = 0.01
        got += list(stream)
        scorer.close()
        plain = FaithfulnessScorer(str(tiny_model_dir), device="cpu")
        before = plain.score_batch(recs[:16])
        plain.entail_threshold = 0.01
        after = plain.score_batch(recs[8:])
        assert plain.score_batch(recs[:16]) != before  # the setting matters here
        started_before = 8 if n == 1 else 16  # blocks started before the change
        assert got[:started_before] == before[:started_before], n
        assert got[started_before:] == after[started_before - 8 :], n


def test_a_stream_goes_on_after_its_scorer_was_closed(tiny_model_dir):
    """``close()`` while a stream with workers is open stops the workers; the stream then
    finishes with new ones (and decides what the old ones left), with the same results."""
    from nli_faith.engine.runner import usable_cpus
    from nli_faith.scorer import FaithfulnessScorer

    if usable_cpus() < 2:
        pytest.skip("planning workers need at least 2 usable CPUs")
    recs = records(40)
    scorer = FaithfulnessScorer(str(tiny_model_dir), device="cpu")
    want = scorer.score_batch(recs)
    stream = scorer.score_stream(iter(recs), block_size=8, n_process=2)
    got = [next(stream)]
    scorer.close()
    got += list(stream)
    scorer.close()
    assert got == want


def test_an_input_error_keeps_the_blocks_already_scored(tiny_scorer):
    """When reading the records fails, the stream has given every block whose next block
    was read: in one process, the blocks before the one read ahead when it failed."""
    recs = records(40)

    def failing():
        for k, r in enumerate(recs):
            if k == 30:
                raise OSError("the input broke off")
            yield r

    got = []
    with pytest.raises(OSError, match="broke off"):
        for r in tiny_scorer.score_stream(failing(), block_size=8):
            got.append(r)
    assert got == tiny_scorer.score_batch(recs[:16])


def test_stream_blocks_equal_score_batch_per_block(tiny_scorer):
    recs = records(25)
    got = list(tiny_scorer.score_stream(recs, block_size=8))
    want = [r for k in range(0, 25, 8) for r in tiny_scorer.score_batch(recs[k : k + 8])]
    assert got == want


# -- CLI: Parquet in and out, --resume --------------------------------------------------------


def read_rows(path: Path) -> list[dict]:
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return [json_row(r) for r in pq.read_table(path).to_pylist()]
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_parquet_in_and_out_equal_jsonl(tmp_path, tiny_model_dir):
    import pyarrow as pa
    import pyarrow.parquet as pq

    recs = records(20)
    for r in recs:  # Parquet needs one type per column: no response for the bad records
        r["response"] = r["response"] if isinstance(r["response"], str) else None
    src_j = write_jsonl(tmp_path / "in.jsonl", recs)
    src_p = tmp_path / "in.parquet"
    pq.write_table(pa.Table.from_pylist(recs), src_p, row_group_size=6)
    model = ("--model", str(tiny_model_dir))
    outs = {}
    for src in (src_j, src_p):
        for ext in ("jsonl", "parquet"):
            out = tmp_path / f"out-{src.suffix[1:]}.{ext}"
            assert cli(str(src), "-o", str(out), *model) == 1  # the records without a response
            outs[(src.suffix, ext)] = read_rows(out)
    first = outs[(".jsonl", "jsonl")]
    assert [r["line"] for r in first] == list(range(1, 21))
    assert all(v == first for v in outs.values())
    assert not list(tmp_path.glob("*.part"))  # Parquet files were moved into place


@pytest.mark.parametrize("ext", ["jsonl", "parquet"])
def test_resume_after_an_interruption(tmp_path, tiny_model_dir, ext):
    src = write_jsonl(tmp_path / "in.jsonl", records(150))
    model = ("--model", str(tiny_model_dir))
    full = tmp_path / f"full.{ext}"
    assert cli(str(src), "-o", str(full), *model) == 1
    want = read_rows(full)
    part = tmp_path / f"part.{ext}"
    if ext == "jsonl":  # an interrupted run: 100 lines written, the 101st cut short
        lines = full.read_text().splitlines(keepends=True)
        part.write_text("".join(lines[:100]) + lines[100][:37])
        probe = tmp_path / "probe.jsonl"
        probe.write_text(part.read_text())
        # back to whole blocks of 8 rows: the cut line and the unfinished block are dropped
        assert resume_point(str(probe), block=8) == ResumePoint(line=96, rows=96)
        assert probe.read_text() == "".join(lines[:96])
    else:  # what Ctrl-C leaves: the first 70 rows, closed properly
        import pyarrow.parquet as pq

        pq.write_table(pq.read_table(full).slice(0, 70), part)
    # the CLI keeps 64 rows (one block) and scores the rest with the same block mates
    assert cli(str(src), "-o", str(part), *model, "--resume") == 1
    assert read_rows(part) == want
    # resuming a finished output re-scores its last, unfinished block: the same rows
    cli(str(src), "-o", str(part), *model, "--resume")
    assert read_rows(part) == want


def test_resume_refuses_a_file_that_is_not_an_output(tmp_path, tiny_model_dir, capsys):
    src = write_jsonl(tmp_path / "in.jsonl", records(3))
    other = write_jsonl(tmp_path / "notes.jsonl", [{"a": 1}, {"b": 2}])
    assert cli(str(src), "-o", str(other), "--model", str(tiny_model_dir), "--resume") == 2
    assert "is it the output of 'nli-faith score'" in capsys.readouterr().err.lower()
    assert other.read_text() == '{"a": 1}\n{"b": 2}\n'  # untouched


def test_cli_streams_with_a_summary_and_pairs_in_the_bar(tmp_path, tiny_model_dir, capsys):
    """Running totals: the same summary as adding up the written rows."""
    from nli_faith.cli import main

    src = write_jsonl(tmp_path / "in.jsonl", records(70))
    out = tmp_path / "out.jsonl"
    args = ["score", str(src), "-o", str(out), "--model", str(tiny_model_dir), "--no-progress"]
    assert main([*args, "--n-process", "2"]) == 1
    err = capsys.readouterr().err
    rows = read_rows(out)
    table = dict(line.rsplit(None, 1) for line in err.splitlines() if "  " in line)
    assert int(table["records"]) == len(rows) == 70
    assert int(table["failed"]) == sum("error" in r for r in rows) > 0
    assert int(table["claims not found (idk)"]) == sum(r["n_idk"] for r in rows)
    scored = [r for r in rows if "error" not in r and r["n_claims"]]
    assert table["mean soft"] == f"{sum(r['soft'] for r in scored) / len(scored):.3f}"


def test_cli_n_process_auto_writes_the_rows_of_one_process(tmp_path, tiny_model_dir, capsys):
    src = write_jsonl(tmp_path / "in.jsonl", records(30))
    rows = {}
    for n in ("1", "auto"):
        out = tmp_path / f"out{n}.jsonl"
        assert cli(str(src), "-o", str(out), "--model", str(tiny_model_dir), "--n-process", n) == 1
        rows[n] = read_rows(out)
    assert rows["auto"] == rows["1"] and len(rows["1"]) == 30
    capsys.readouterr()
    with pytest.raises(SystemExit):
        cli(str(src), "-o", str(tmp_path / "x.jsonl"), "--n-process", "many")
    assert "--n-process: must be a whole number or 'auto', got 'many'" in capsys.readouterr().err


def test_plan_pool_closes_even_when_the_parent_catches_sigterm(tmp_path):
    """A SIGTERM handler in the parent (a server, Ray, a harness) is not inherited by the
    workers, even by one that has not started yet, so ``close()`` (``Pool.terminate``)
    returns instead of waiting forever."""
    import subprocess
    import sys

    script = tmp_path / "pool.py"
    script.write_text(
        "import signal, time\n"
        "from nli_faith.engine.parallel import PlanPool\n"
        "signal.signal(signal.SIGTERM, lambda *a: None)  # swallow SIGTERM, as some hosts do\n"
        "worst = 0.0\n"
        "for k in range(20):  # the hang was a race: without the fix it came within ~10 rounds\n"
        "    pool = PlanPool(lambda item: item, 3)\n"
        "    if k % 2:  # else close at once: SIGTERM may reach a worker still starting up\n"
        "        assert pool.plan(list(range(50))) == list(range(50))\n"
        "    t = time.perf_counter(); pool.close(); worst = max(worst, time.perf_counter() - t)\n"
        "print(round(worst, 2))\n"
    )
    # on time-out subprocess.run kills with SIGKILL (the script swallows SIGTERM)
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert out.returncode == 0, out.stderr
    assert float(out.stdout.strip()) < 10


def test_the_pool_waits_on_results_without_going_round(monkeypatch):
    """The worker-handling thread of the pool sleeps while results are read: Python's
    ``Pool`` woke it for every result waiting on the pipe, and it went round until the
    result thread had read it (hundreds of turns for one large result)."""
    import multiprocessing.pool as mpp

    from nli_faith.engine.parallel import PlanPool

    turns = []
    wait = mpp.Pool._wait_for_updates
    monkeypatch.setattr(
        mpp.Pool,
        "_wait_for_updates",
        staticmethod(lambda *a, **k: (turns.append(1), wait(*a, **k))),
    )
    pool = PlanPool(lambda n: bytes(n), 2)
    try:
        before = len(turns)
        sizes = pool.plan([40_000_000] * 6)  # each result takes a while to read
        assert [len(b) for b in sizes] == [40_000_000] * 6
        assert len(turns) - before < 12  # a turn when the task cache empties, not per read
    finally:
        pool.close()


def test_forking_workers_freezes_the_heap_for_the_collector():
    """What is alive when the workers are forked (the model above all) is left out of the
    cyclic collector's full passes (``gc.freeze``), which would walk it on every pass, and
    given back when the pool closes; garbage of the moment is collected first, not held."""
    import gc
    import weakref

    from nli_faith.engine import heap
    from nli_faith.engine.parallel import PlanPool

    class Node:
        pass

    garbage = Node()
    garbage.me = garbage  # a cycle: only the collector frees it
    gone = weakref.ref(garbage)
    del garbage
    model = [object() for _ in range(1000)]  # stands in for what the scorer loaded
    held = heap.holders()
    pool = PlanPool(lambda item: item, 2)
    try:
        assert gone() is None  # collected before the freeze
        assert gc.get_freeze_count() >= len(model) and heap.holders() == held + 1
        assert pool.plan([1, 2, 3]) == [1, 2, 3]
    finally:
        pool.close()
    assert heap.holders() == held
    if held == 0:
        assert gc.get_freeze_count() == 0  # the last holder gone: collected as before


def test_a_holder_done_does_not_thaw_another_holders_freeze():
    import gc

    from nli_faith.engine import heap

    held = heap.holders()
    heap.freeze()  # e.g. the server
    heap.freeze()  # e.g. planning workers forked while it runs
    heap.thaw()
    assert gc.get_freeze_count() > 0 and heap.holders() == held + 1
    heap.thaw()
    assert heap.holders() == held
    if held == 0:
        assert gc.get_freeze_count() == 0


def test_a_scorer_whose_pool_was_closed_from_outside_forks_a_new_one(tiny_scorer):
    recs = records(12)
    want = tiny_scorer.score_batch(recs)
    assert tiny_scorer.score_batch(recs, n_process=2) == want
    for pool in list(tiny_scorer.runner._pools.values()):
        pool.close()
    assert tiny_scorer.score_batch(recs, n_process=2) == want


def test_token_ids_cross_to_the_model_process_as_arrays(tiny_scorer):
    """A worker's encoding pickles as buffers (no Python int per token) and scores the same
    after the trip."""
    import pickle

    from nli_faith.nli.batching import TokenRows

    warranty = ("The warranty lasts 24 months from the date of purchase.", "It lasts two years.")
    pairs = [warranty, ("Refunds are paid within 14 days.", "Refunds take two weeks."), warranty]
    nli = tiny_scorer.nli
    encoded = nli.encode(pairs).packed()  # as a planning worker sends it
    assert isinstance(encoded.ids, TokenRows) and len(encoded.ids) == 2  # distinct pairs
    blob = pickle.dumps(encoded, protocol=pickle.HIGHEST_PROTOCOL)
    assert encoded.ids.values.tobytes() in blob  # the ids as one buffer
    assert encoded.ids.values.nbytes == 4 * int(encoded.lengths.sum())
    back = pickle.loads(blob)
    np.testing.assert_array_equal(nli.predict_encoded(back), nli.predict(pairs))


def test_the_cli_plans_in_workers_by_default_when_the_model_is_on_a_gpu(tmp_path, monkeypatch):
    """Without ``--n-process``, ``nli-faith score`` asks for ``auto`` workers when the model
    is on a GPU (which waits on the host) and plans in its own process on the CPU."""
    from nli_faith.cli import score
    from nli_faith.scorer import FaithfulnessScorer

    asked = []
    stream = FaithfulnessScorer.score_stream

    def spy(self, records, **kw):
        asked.append(kw["n_process"])
        return stream(self, records, **kw)

    monkeypatch.setattr(FaithfulnessScorer, "score_stream", spy)
    rows = {}
    for device in ("cpu", "cuda:0"):
        made = score.scorer_from_args

        def on(args, device=device, made=made):
            scorer = made(args)
            scorer.nli.device = device  # only the default reads it: the model stays here
            return scorer

        monkeypatch.setattr(score, "scorer_from_args", on)
        out = tmp_path / f"{device}.jsonl"
        assert cli(str(EXAMPLES), "-o", str(out)) == 0
        rows[device] = [
            [c["verdict"] for c in json.loads(x)["claims"]] for x in out.read_text().splitlines()
        ]
        monkeypatch.setattr(score, "scorer_from_args", made)
    assert asked == [1, "auto"]
    assert rows["cpu"] == rows["cuda:0"] and len(rows["cpu"]) == 5
    assert cli(str(EXAMPLES), "-o", str(tmp_path / "n.jsonl"), "--n-process", "2") == 0
    assert asked[-1] == 2
