"""ONNX backend: export, int8 quantization, caching, shipped files and NLIModel(backend="onnx").

Runs on a tiny random BERT built here (a few seconds in all); skipped without onnxruntime.
"""

from __future__ import annotations

import json
import os
import shutil
import string
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from nli_faith.errors import MissingDependencyError  # noqa: E402
from nli_faith.nli import onnx as onnx_backend  # noqa: E402
from nli_faith.nli.onnx import OnnxSession, export_onnx, weights_digest  # noqa: E402

PREMISES = [
    "The cat sat on the mat while the dog slept by the door.",
    "Paris is the capital of France.",
    "In 1969, two astronauts walked on the moon and returned safely to earth "
    "after a journey of eight days.",
    "Water boils at 100 degrees at sea level.",
    "She bought three apples.",
    "The meeting was moved to Tuesday because the manager was ill.",
]
HYPOTHESES = [
    "A dog slept.",
    "Paris is in Germany.",
    "Nobody has been to the moon.",
    "Water boils.",
    "She bought 3 apples and a pear.",
    "The meeting is on Monday.",
]
PAIRS = list(zip(PREMISES, HYPOTHESES, strict=True))
WORDS = sorted({w.strip(".,").lower() for text in PREMISES + HYPOTHESES for w in text.split()})


def _write_tiny_model(path: Path, seed: int = 0) -> Path:
    """A random 2-layer BERT NLI classifier with a small word-piece vocabulary."""
    path.mkdir(parents=True, exist_ok=True)
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    chars = list(string.ascii_lowercase + string.digits + ".,")
    vocab = specials + WORDS + chars + ["##" + c for c in chars]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = transformers.BertTokenizerFast.from_pretrained(path, model_max_length=128)
    tok.save_pretrained(path)
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        num_labels=3,
        id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
        label2id={"entailment": 0, "neutral": 1, "contradiction": 2},
        initializer_range=0.2,  # spread-out logits, so argmax is not a coin toss
    )
    torch.manual_seed(seed)
    model = transformers.BertForSequenceClassification(config).eval()
    model.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="module")
def batch(model_dir: Path) -> dict[str, np.ndarray]:
    tok = transformers.AutoTokenizer.from_pretrained(model_dir)
    enc = tok(PREMISES, HYPOTHESES, padding=True, return_tensors="np")
    lengths = enc["attention_mask"].sum(axis=1)
    assert len(set(lengths.tolist())) > 1  # really a padded batch
    return dict(enc)


@pytest.fixture(scope="module")
def torch_logits(model_dir: Path, batch: dict[str, np.ndarray]) -> np.ndarray:
    model = transformers.AutoModelForSequenceClassification.from_pretrained(model_dir).eval()
    with torch.no_grad():
        return model(**{k: torch.from_numpy(v) for k, v in batch.items()}).logits.numpy()


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_telemetry_env_is_set() -> None:
    assert os.environ.get("ORT_DISABLE_TELEMETRY") is not None


def test_fp32_export_matches_torch(model_dir, tmp_path, batch, torch_logits) -> None:
    cache_dir = tmp_path / "onnx-cache"  # its own: the export happens here, whatever ran before
    session = OnnxSession(model_dir, quantize=False, cache_dir=cache_dir, num_threads=1)
    assert session.source == "exported"
    assert session.path.parent == cache_dir and session.path.is_file()
    assert set(session.input_names) == {"input_ids", "attention_mask", "token_type_ids"}
    logits = session.run(batch)
    assert logits.dtype == np.float32 and logits.shape == (len(PAIRS), 3)
    np.testing.assert_allclose(logits, torch_logits, atol=1e-4, rtol=1e-4)
    # Dynamic axes: a single unpadded row and a sub-batch work too.
    one = {k: v[2:3, : int(batch["attention_mask"][2].sum())] for k, v in batch.items()}
    np.testing.assert_allclose(session.run(one), torch_logits[2:3], atol=1e-4, rtol=1e-4)


def test_int8_export_close_to_torch(model_dir, cache_dir, batch, torch_logits) -> None:
    OnnxSession(model_dir, quantize=False, cache_dir=cache_dir, num_threads=1)  # fp32 beside it
    session = OnnxSession(model_dir, cache_dir=cache_dir, num_threads=1)
    assert session.path.name.endswith("model_int8.onnx")
    probs, want = _softmax(session.run(batch)), _softmax(torch_logits)
    assert np.abs(probs - want).max() < 0.05
    assert (probs.argmax(axis=1) == want.argmax(axis=1)).mean() >= 0.8
    fp32 = cache_dir / session.path.name.replace("model_int8.onnx", "model.onnx")
    assert session.path.stat().st_size < fp32.stat().st_size


def test_cache_is_reused(model_dir, cache_dir, batch, monkeypatch) -> None:
    first = OnnxSession(model_dir, cache_dir=cache_dir, num_threads=1)
    mtime = first.path.stat().st_mtime_ns

    def no_export(*args, **kwargs):
        raise AssertionError("exported again although the cache holds the model")

    monkeypatch.setattr(onnx_backend, "export_onnx", no_export)
    second = OnnxSession(model_dir, cache_dir=cache_dir, num_threads=1)
    assert second.source == "cache" and second.path == first.path
    assert second.path.stat().st_mtime_ns == mtime
    np.testing.assert_array_equal(second.run(batch), first.run(batch))
    assert not [p for p in cache_dir.iterdir() if p.name.startswith(".")]  # no temp leftovers


def test_changed_weights_export_again(model_dir, cache_dir, tmp_path) -> None:
    # the first model's export, whether or not an earlier test of this worker made it
    OnnxSession(model_dir, quantize=False, cache_dir=cache_dir, num_threads=1)
    other = _write_tiny_model(tmp_path / "model", seed=1)
    assert weights_digest(other) != weights_digest(model_dir)
    session = OnnxSession(other, quantize=False, cache_dir=cache_dir, num_threads=1)
    assert session.source == "exported"
    assert len(list(cache_dir.glob("*-model.onnx"))) == 2


def test_run_feeds_only_declared_inputs(model_dir, cache_dir, batch) -> None:
    session = OnnxSession(model_dir, quantize=False, cache_dir=cache_dir, num_threads=1)
    extra = dict(batch, special_tokens_mask=np.zeros_like(batch["input_ids"]))
    np.testing.assert_array_equal(session.run(extra), session.run(batch))
    no_segments = {k: v for k, v in batch.items() if k != "token_type_ids"}
    zeros = dict(batch, token_type_ids=np.zeros_like(batch["input_ids"]))
    np.testing.assert_array_equal(session.run(no_segments), session.run(zeros))
    with pytest.raises(KeyError, match="attention_mask"):
        session.run({"input_ids": batch["input_ids"]})


def test_cli_writes_shipped_file(model_dir, tmp_path, monkeypatch, capsys) -> None:
    shipped_dir = tmp_path / "bundled"
    shutil.copytree(model_dir, shipped_dir)
    assert onnx_backend.main([str(shipped_dir), "--no-quantize"]) == 0
    out = shipped_dir / "onnx" / "model.onnx"
    assert out.is_file() and str(out) in capsys.readouterr().out
    meta = json.loads((shipped_dir / "onnx" / "model.onnx.json").read_text())
    assert meta["weights_sha256"] == weights_digest(shipped_dir)

    monkeypatch.setattr(onnx_backend, "export_onnx", None)  # must not be needed
    empty_cache = tmp_path / "unused-cache"
    session = OnnxSession(shipped_dir, quantize=False, cache_dir=empty_cache, num_threads=1)
    assert session.source == "shipped" and session.path == out
    assert not empty_cache.exists()


def test_stale_shipped_file_is_ignored(model_dir, cache_dir, tmp_path) -> None:
    shipped_dir = tmp_path / "bundled"
    shutil.copytree(model_dir, shipped_dir)
    (shipped_dir / "onnx").mkdir()
    (shipped_dir / "onnx" / "model.onnx").write_bytes(b"not a model")
    (shipped_dir / "onnx" / "model.onnx.json").write_text('{"weights_sha256": "0000"}')
    OnnxSession(model_dir, quantize=False, cache_dir=cache_dir, num_threads=1)  # exported here
    session = OnnxSession(shipped_dir, quantize=False, cache_dir=cache_dir, num_threads=1)
    assert session.source == "cache"  # same weights as model_dir, exported before


def test_export_onnx_returns_path(model_dir, tmp_path) -> None:
    out = export_onnx(model_dir, tmp_path / "sub" / "m.onnx", quantize=False)
    assert out == tmp_path / "sub" / "m.onnx" and out.is_file()
    assert sorted(p.name for p in out.parent.iterdir()) == ["m.onnx"]


def test_nli_model_onnx_backend(model_dir, cache_dir) -> None:
    from nli_faith.nli.model import NLIModel

    nli_cache = cache_dir.parent / "nli-cache"
    onnx_model = NLIModel(str(model_dir), backend="onnx", batch_size=4, cache_dir=nli_cache)
    torch_model = NLIModel(
        str(model_dir), backend="torch", device="cpu", batch_size=4, dtype="float32"
    )
    probs = onnx_model.predict(PAIRS)
    want = torch_model.predict(PAIRS)
    assert probs.shape == (len(PAIRS), 3)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    assert np.abs(probs - want).max() < 0.05
    assert (probs.argmax(axis=1) == want.argmax(axis=1)).mean() >= 0.8
    assert list(nli_cache.glob("*model_int8.onnx"))


def test_missing_onnxruntime_is_explained(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # makes the import fail
    with pytest.raises(MissingDependencyError, match=r'pip install "nli-faith\[onnx\]"'):
        OnnxSession("unused")


def _probs_in_child(model, pairs, conn) -> None:
    conn.send(model.predict(pairs))
    conn.close()


def test_one_pair_runs_are_spread_over_cores(model_dir, cache_dir, monkeypatch) -> None:
    """The int8 graph runs one pair per run; the runs go to one single-threaded worker per
    core, with the probabilities of running them one after the other, bit for bit, and
    still work in a forked child (which inherits the pool but not its threads).

    Side by side is shown without asking the scheduler: each run waits at a barrier for
    two others, which only three runs in flight at once can pass."""
    import multiprocessing
    import threading

    from nli_faith.engine.parallel import fork_available
    from nli_faith.nli import model as model_mod
    from nli_faith.nli.onnx import run_pool

    nli_cache = cache_dir.parent / "nli-cache"
    alone = model_mod.NLIModel(str(model_dir), backend="onnx", threads=1, cache_dir=nli_cache)
    spread = model_mod.NLIModel(str(model_dir), backend="onnx", threads=3, cache_dir=nli_cache)
    assert alone.batch_size == spread.batch_size == 1
    assert (alone._runtime.run_threads, spread._runtime.run_threads) == (1, 3)
    options = spread.onnx_session._session.get_session_options()
    assert options.intra_op_num_threads == 1  # each run on one core, the runs side by side
    assert alone.onnx_session._session.get_session_options().intra_op_num_threads == 1
    assert run_pool(3) is run_pool(3)  # one pool per process and size
    assert run_pool(3)._max_workers == 3
    assert run_pool(1) is None

    threads: list[str] = []
    run = spread.onnx_session.run
    three_at_once: list[threading.Barrier | None] = [threading.Barrier(3, timeout=120)]

    def recording_run(inputs):
        threads.append(threading.current_thread().name)
        if three_at_once[0] is not None:  # BrokenBarrierError unless three are in flight
            three_at_once[0].wait()
        return run(inputs)

    monkeypatch.setattr(spread.onnx_session, "run", recording_run)
    pairs = PAIRS * 4  # distinct pairs are computed once: vary them
    pairs = [(p + f" {k}", h) for k, (p, h) in enumerate(pairs)]
    assert len(pairs) % 3 == 0  # whole rounds of three at the barrier
    want = alone.predict(pairs)
    got = spread.predict(pairs)
    assert np.array_equal(got, want)
    assert len(threads) == len(pairs)  # one run per pair
    assert len(set(threads)) == 3 and all(t.startswith("nli-run") for t in threads)

    three_at_once[0] = None
    spread.predict(pairs[:1])  # a lone pair runs in the caller's thread
    assert threads[-1] == threading.current_thread().name

    if not fork_available():
        return
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_probs_in_child, args=(spread, pairs, send))
    child.start()
    assert receive.poll(60), "the forked child never answered"
    assert np.array_equal(receive.recv(), want)
    child.join(10)
    assert child.exitcode == 0


def _nli(scorer):
    """The NLI model a scorer loaded."""
    return scorer.parts.nli


def test_config_threads_are_the_onnx_run_workers_or_intra_op_threads(model_dir, cache_dir):
    from nli_faith import FaithfulnessScorer, ScorerConfig

    nli_cache = str(cache_dir.parent / "nli-cache")
    config = ScorerConfig(model=str(model_dir), backend="onnx", onnx_cache_dir=nli_cache)
    one_pair = _nli(FaithfulnessScorer.from_config(config.replace(threads=2)))
    assert (one_pair.threads, one_pair._runtime.run_threads) == (2, 2)
    assert one_pair.onnx_session._session.get_session_options().intra_op_num_threads == 1
    batched = _nli(FaithfulnessScorer.from_config(config.replace(threads=2, batch_size=4)))
    assert batched._runtime.run_threads == 1  # batches: one run at a time, on 2 threads
    assert batched.onnx_session._session.get_session_options().intra_op_num_threads == 2


def test_config_follows_the_environment_where_its_fields_are_none(
    model_dir, tmp_path, monkeypatch
) -> None:
    """``threads`` and ``onnx_cache_dir`` left None: ``OMP_NUM_THREADS`` and
    ``NLI_FAITH_CACHE``, read when the scorer loads (a Ray actor's own environment)."""
    from nli_faith import FaithfulnessScorer

    monkeypatch.setenv("NLI_FAITH_CACHE", str(tmp_path))
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    nli = _nli(FaithfulnessScorer(str(model_dir), backend="onnx"))
    assert (nli.threads, nli._runtime.run_threads) == (3, 3)
    assert nli.onnx_session.path.parent == tmp_path / "onnx"
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    nli = _nli(FaithfulnessScorer(str(model_dir), backend="onnx"))
    assert (nli.threads, nli._runtime.run_threads) == (1, 1)
    assert nli.onnx_session._session.get_session_options().intra_op_num_threads == 1
    given = _nli(FaithfulnessScorer(str(model_dir), backend="onnx", threads=2))
    assert given._runtime.run_threads == 2  # the field over the environment


def test_onnx_cache_dir_is_where_the_fp32_export_is_written(model_dir, tmp_path) -> None:
    from nli_faith import FaithfulnessScorer

    target = tmp_path / "exports"
    scorer = FaithfulnessScorer(
        str(model_dir), backend="onnx", onnx_quantize=False, onnx_cache_dir=target, threads=1
    )
    session = _nli(scorer).onnx_session
    assert session.source == "exported"
    assert session.path.parent == target and session.path.name.endswith("-model.onnx")
    assert [p.name for p in target.iterdir()] == [session.path.name]
