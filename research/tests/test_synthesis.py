"""The training-data generators of ``research/`` and ``python -m research.train``, which adds
their pairs to ``nli-faith train``'s rows."""

import json
import random
import subprocess
import sys

import numpy as np

from nli_faith.training.data import NLIExample
from research.tests.conftest import REPO, write_jsonl
from tests.helpers.toy_rows import toy_rows


def test_synthetic_contradictions_and_entailments():
    from research.synthetic import change_number, generate, renotate_number

    rng = random.Random(0)
    changed, kind = change_number("The device is covered for twenty-four months.", rng)
    assert changed != "The device is covered for twenty-four months." and kind == "number_words"
    assert "twenty-four" not in changed
    changed, kind = change_number("Revenue rose 3.5% in 2019.", rng)
    assert changed != "Revenue rose 3.5% in 2019."
    assert renotate_number("Delivery is free over $50.", rng) == (
        "Delivery is free over fifty dollars."
    )
    premises = [
        "Angela Merkel met Emmanuel Macron in Berlin on Monday to discuss trade.",
        "The company, based in Toronto, hired 45 engineers last year.",
        "Barack Obama visited Paris in 2015 for the climate summit.",
        "The river flows north through three countries.",
    ] * 3
    a = generate(premises, seed=3)
    b = generate(premises, seed=3)
    assert a == b  # a seed gives the same set
    kinds = {p.kind for p in a}
    assert {"entity", "number_words"} & kinds
    assert all(p.label in ("contradiction", "entailment") for p in a)
    for p in a:
        if p.label == "contradiction":
            assert p.hypothesis not in p.premise


def test_distractor_copies_keep_their_label():
    from research.synthetic import with_distractors

    rows = [
        NLIExample(f"Fact number {i} is about topic {i}.", f"Topic {i}.", i % 3, "lingnli_train")
        for i in range(50)
    ]
    padded = with_distractors(rows, rate=1.0, seed=1)
    assert len(padded) > 40
    by_hyp = {r.hypothesis: r for r in rows}
    for p in padded:
        orig = by_hyp[p.hypothesis]
        assert p.label == orig.label and orig.premise in p.premise and p.premise != orig.premise


def test_conjunction_label_follows_its_parts():
    import re

    from research.multifact import conjunction_label, conjunction_pairs

    rows = toy_rows()
    pairs = conjunction_pairs(rows, n=300, seed=4)
    assert len(pairs) == 300
    assert pairs == conjunction_pairs(rows, n=300, seed=4)  # seeded
    names = {0: "entailment", 1: "neutral", 2: "contradiction", 3: "not_entailment"}
    for p in pairs:
        clauses = re.split(r", (?:and )?", p.hypothesis.rstrip("."))
        assert len(clauses) == int(p.kind[-1])
        labels = []
        for clause in clauses:  # each part: a row whose premise sits in the context
            (label,) = {
                r.label
                for r in rows
                if r.premise in p.premise and r.hypothesis.rstrip(".").lower() == clause.lower()
            }
            labels.append(label)
        assert p.label == names[conjunction_label(labels)]
        assert sum(lab != 0 for lab in labels) <= 1  # at most one part is not entailed
    share = np.mean([p.label == "entailment" for p in pairs])
    assert 0.25 < share < 0.55  # about positive_share; the rest has one bad part


def test_a_conjunction_with_one_contradicted_part_is_a_contradiction():
    from research.multifact import conjunction_label, join_claims

    assert conjunction_label([0, 0, 0]) == 0
    assert conjunction_label([0, 0, 2]) == 2
    assert conjunction_label([1, 0]) == 1
    assert conjunction_label([3, 0]) == 3
    assert join_claims(["A dog runs.", "The cat sleeps.", "Rain falls."]) == (
        "A dog runs, the cat sleeps, and Rain falls."
    )


def test_summary_pairs_come_with_a_gapped_negative():
    from research.multifact import summary_pairs

    pairs = summary_pairs(toy_rows(), n=40, seed=2)
    assert len(pairs) == 40
    for pos, neg in zip(pairs[::2], pairs[1::2]):
        assert (pos.label, neg.label) == ("entailment", "neutral")
        assert pos.hypothesis == neg.hypothesis
        assert len(neg.premise) < len(pos.premise)
        # the gapped premise lost exactly one fact's source sentence
        dropped = [s for s in pos.premise.split(". ") if s not in neg.premise]
        assert dropped


def test_structured_pairs_restate_swap_or_miss_a_cell():
    from research.structured import structured_pairs

    pairs = structured_pairs(n=400, seed=9)
    assert pairs == structured_pairs(n=400, seed=9)
    kinds = {p.kind.split("_", 2)[1] for p in pairs}
    assert kinds == {"json", "markdown", "kv", "csv"}
    labels = {p.label for p in pairs}
    assert labels == {"entailment", "contradiction", "neutral"}
    for p in pairs:
        year = p.hypothesis.rsplit(" in ", 1)[1].rstrip(".")
        if p.label == "entailment":
            assert year in p.premise
        if p.kind.endswith("absent"):
            assert p.label == "neutral"


def test_research_train_adds_the_made_pairs_to_the_trainingtoy_rows(tmp_path, tiny_model_dir):
    """``python -m research.train`` is ``nli-faith train`` plus the synthesis step: its
    counts are in the summary, with the settings that made them."""
    from research.train import main

    rows = [
        {"premise": r.premise, "hypothesis": r.hypothesis,
         "label": ["entailment", "neutral", "contradiction", "not_entailment"][r.label]}
        for r in toy_rows(30)
    ]  # fmt: skip
    train = write_jsonl(tmp_path / "train.jsonl", rows)
    out = tmp_path / "run"
    argv = [
        "--base-model", str(tiny_model_dir), "--train", str(train), "-o", str(out),
        "--multi-fact", "20", "--structured", "20", "--distractor-rate", "0.5",
        "--synthetic-seed", "5",
        "--batch-size", "16", "--max-steps", "2", "--save-steps", "2", "--device", "cpu",
    ]  # fmt: skip
    assert main(argv) == 0
    summary = json.loads((out / "train_summary.json").read_text())
    by_file = summary["rows_by_file"]
    assert by_file["synthetic multi-fact (conjunctions, summaries)"] == 20
    assert by_file["synthetic structured (tables, JSON, key-value)"] == 20
    padded = by_file["premise padded with an unrelated sentence (copies)"]
    assert 0 < padded < len(rows)
    assert summary["rows_total"] == len(rows) + padded + 40
    assert summary["augment"]["multi_fact"] == 20 and summary["augment"]["seed"] == 5
    assert summary["config"]["unlabelled_seed"] == 5 + 8


def test_research_train_checks_its_own_options(tmp_path, tiny_model_dir, capsys):
    from research.train import main

    train = write_jsonl(
        tmp_path / "t.jsonl", [{"premise": "A.", "hypothesis": "B.", "label": "neutral"}]
    )
    base = ["--base-model", str(tiny_model_dir), "--train", str(train), "-o", str(tmp_path)]
    assert main([*base, "--distractor-rate", "5"]) == 2
    assert "--distractor-rate must be in [0, 1]" in capsys.readouterr().err
    assert main([*base, "--epochs", "0"]) == 2  # nli-faith train's own checks hold too
    assert "--epochs must be above 0" in capsys.readouterr().err


def test_the_runtime_package_imports_no_research_code():
    code = (
        "import sys, nli_faith, nli_faith.cli, nli_faith.cli.train, nli_faith.training.train;"
        "from nli_faith.cli import build_parser; build_parser();"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('research', 'benchmarks')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
