"""``scripts/dev_by_kind.py``: binary development accuracy kind by kind."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "dev_by_kind.py"


def _load():
    spec = importlib.util.spec_from_file_location("dev_by_kind", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_kind_gets_the_share_the_model_gets_right(tmp_path, tiny_model_dir, capsys):
    from nli_faith.nli.model import NLIModel

    rows = [
        {"premise": f"The shop opens at {h}.", "hypothesis": f"It opens at {h}.", "label": lab}
        | ({"kind": kind} if kind else {"source": "snli_dev"})
        for h, lab, kind in (
            (9, "entailment", "rag_support"),
            (10, "contradiction", "rag_support"),
            (11, "neutral", "rag_support"),
            (12, "entailment", "rag_added"),
            (1, "not_entailment", "rag_added"),
            (2, "entailment", None),
        )
    ]
    dev = tmp_path / "dev.jsonl"
    dev.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert _load().main([str(tiny_model_dir), "--dev", str(dev), "--min-rows", "2"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0] == f"| kind | rows | {tiny_model_dir} |"
    got = {line.split(" | ")[0][2:]: line for line in table[2:]}
    assert set(got) == {"rag_support", "rag_added"}  # the one snli_dev row is under --min-rows

    p = NLIModel(str(tiny_model_dir), device="cpu", max_length=320).predict(
        [(r["premise"], r["hypothesis"]) for r in rows]
    )[:, 0]
    right = [(pe > 0.5) == (r["label"] == "entailment") for pe, r in zip(p, rows)]
    assert got["rag_support"] == f"| rag_support | 3 | {100 * sum(right[:3]) / 3:.1f} |"
    assert got["rag_added"] == f"| rag_added | 2 | {100 * sum(right[3:5]) / 2:.1f} |"
