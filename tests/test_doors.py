"""The doors agree: one input file gives the same rows through ``nli-faith score``, ``score
--engine ray``, ``POST /v1/score/batch`` (a real server on a loopback port), the DeepEval
metric and the RAGAS metric, with and without calibrated thresholds (``faithful``, bands
and reference labels included).

Every door is built from one :class:`~nli_faith.config.ScorerConfig` (the int8 ONNX
graph, whose per-pair results do not depend on their batch mates: each door batches its
own way). Rows are compared without the keys that only say where a row came from
(``line``, ``id``, ``question``; the server's ``index``, ``decision``, ``time_ms``).
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import REPO, write_jsonl

pytest.importorskip("onnxruntime")
pytest.importorskip("fastapi")
os.environ["RAGAS_DO_NOT_TRACK"] = "true"  # before ragas is imported
os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")

#: Besides the example file: reference answers (hallucination / self-knowledge labels).
WITH_REFERENCE = [
    {
        "question": "How long is the warranty?",
        "response": "The warranty lasts 24 months. The device was made in Norway.",
        "context": ["The warranty lasts 24 months from the date of purchase."],
        "reference": "It is covered for 24 months; it is made in Norway.",
    },
    {
        "question": "Is shipping free?",
        "response": "Shipping is free over fifty dollars. Returns cost ten dollars.",
        "context": ["We provide complimentary delivery on purchases over $50."],
        "reference": "Delivery is free on orders over $50.",
    },
]
WHERE = ("line", "id", "question", "index", "decision", "time_ms")
OPTS = ("--backend", "onnx", "--device", "cpu")


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray instance for the module (``score --engine ray`` joins it)."""
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    lines = (REPO / "examples" / "answers.jsonl").read_text().splitlines()
    raws = [json.loads(x) for x in lines if x.strip()] + WITH_REFERENCE
    path = write_jsonl(tmp_path_factory.mktemp("doors") / "in.jsonl", raws)
    return path, raws


def _bare(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in WHERE}


def _cli(path, out, *args) -> list[dict]:
    from nli_faith.cli import main

    code = main(["score", str(path), "-o", str(out), *OPTS, *args, "--no-progress", "--quiet"])
    assert code == 0
    return [_bare(json.loads(x)) for x in out.read_text().splitlines()]


def _server(config, raws) -> list[dict]:
    import httpx
    from serve_helpers import ThreadServer, wait_until

    from nli_faith.serve.app import create_app
    from nli_faith.serve.settings import ServeSettings

    app = create_app(ServeSettings(scorer=config, max_batch_records=len(raws)))
    with ThreadServer(app) as srv:
        batcher = app.state.service.batcher
        wait_until(lambda: batcher.ready, timeout=300, what="the model")
        reply = httpx.post(srv.url + "/v1/score/batch", json={"records": raws}, timeout=300)
    assert reply.status_code == 200, reply.text
    return [_bare(item) for item in reply.json()["results"]]


def _metric_rows(results, scorer) -> list[dict]:
    from nli_faith.rows import scored_row

    return [_bare(scored_row(scorer, None, None, r)) for r in results]


def _deepeval(config, raws) -> list[dict]:
    from deepeval.test_case import LLMTestCase

    from nli_faith.integrations.deepeval import NLIFaithfulnessMetric
    from nli_faith.records import parse_record

    results = []
    metric = NLIFaithfulnessMetric(config=config, async_mode=False)
    for raw in raws:
        rec = parse_record(raw)
        case = LLMTestCase(
            input=rec.question or "",
            actual_output=rec.response,
            retrieval_context=rec.context,
            expected_output=rec.reference,
        )
        metric.measure(case, _show_indicator=False)
        results.append(metric.result)
    return _metric_rows(results, metric.scorer)


def _ragas(config, raws) -> list[dict]:
    from ragas import SingleTurnSample

    from nli_faith.integrations.ragas import NLIFaithfulness
    from nli_faith.records import parse_record

    samples = []
    for raw in raws:
        rec = parse_record(raw)
        samples.append(
            SingleTurnSample(
                user_input=rec.question,
                response=rec.response,
                retrieved_contexts=rec.context,
                reference=rec.reference,
            )
        )
    metric = NLIFaithfulness(config=config)
    return _metric_rows(metric.score_dataset(samples), metric.scorer)


@pytest.mark.parametrize("calibrated", [False, True], ids=["defaults", "thresholds"])
def test_every_door_gives_the_same_rows(records, tmp_path, calibrated, bundled_thresholds):
    from nli_faith.config import ScorerConfig

    path, raws = records
    config = ScorerConfig(backend="onnx", device="cpu")
    args: tuple[str, ...] = ()
    if calibrated:
        config = config.replace(thresholds=str(bundled_thresholds))
        args = ("--thresholds", str(bundled_thresholds))
    local = _cli(path, tmp_path / "local.jsonl", *args)
    # what the rows must show for the comparison to mean something
    claims = [c for r in local for c in r["claims"]]
    assert {c["band"] for c in claims} >= {"supported", "uncertain"}
    assert {c.get("reference_label") for c in claims} >= {"hallucination", "self_knowledge"}
    assert ("faithful" in local[0]) is calibrated
    if calibrated:
        assert {r["faithful"] for r in local} >= {True, False}
    doors = {
        "ray": _cli(path, tmp_path / "ray.jsonl", *args, "--engine", "ray"),
        "server": _server(config, raws),
        "deepeval": _deepeval(config, raws),
        "ragas": _ragas(config, raws),
    }
    for name, rows in doors.items():
        assert rows == local, name
