"""Agreement with people on real RAG answers: ``python -m benchmarks run rag_dev``.

Development data (``data/rag-dev``, see its README): every figure here is a development
figure, not a held-out one.

* RAGTruth answers (391, training-split sources, QA over three passages and news
  summaries): response-level F1, precision and recall of the hallucinated class
  (``label`` 0), overall and per task, for the decision "flag when any claim is not
  ``yes``" and for the scorer's own decision (``FaithfulnessResult.faithful`` where the
  scorer sets it); the claim verdict counts inside the faithful answers.
* HotpotQA short answers (HaluEval, 1,487): balanced accuracy of the same decision,
  with the answer scored as a claim joined with its question ("question + answer").

NLI outputs go through one cache (:class:`~nli_faith.nli.cache.CachedNLI`), saved to
``--nli-cache`` every few records, so a re-run computes only pairs it has not seen.
``--rows`` writes every record's claims (text as written and as scored, verdict,
probabilities, band, and the features of :mod:`benchmarks.learned_decision`, computed from
the scorer's stages: its NLI matrices and their aggregation) as JSON Lines, the input of
the decision study (``decision_fit``). The scorer is the default one throughout: nothing
in it is switched or hooked.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import metrics
from .harness import DEFAULT_DATA_DIR, Outcome, table

TITLE = "Agreement with people on real RAG answers (rag-dev, development data)"
DEFAULT_CACHE = Path.home() / ".cache" / "nli-faith" / "rag_dev_nli.npz"
TASKS = ("QA", "Summary")


def add_arguments(p, name: str) -> None:
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--nli-cache", type=Path, default=DEFAULT_CACHE, help="NLI outputs (.npz)")
    p.add_argument("--limit", type=int, default=None, help="first N records of each file")
    p.add_argument("--rows", type=Path, default=None, help="write per-claim rows (JSONL)")
    p.add_argument("--skip-hotpot", action="store_true", help="no HotpotQA answers")
    p.add_argument("--skip-ragtruth", action="store_true", help="no RAGTruth answers")
    p.add_argument("--model", default="default")
    p.add_argument("--granularity", default="sentence", choices=["sentence", "clause"])
    p.add_argument(
        "--composite-premise",
        default=None,
        choices=["ranked", "covering"],
        help="default: the scorer's",
    )
    p.add_argument("--entail-threshold", type=float, default=None, help="default: the model's")
    p.add_argument("--contradict-threshold", type=float, default=None, help="default: the model's")
    p.add_argument(
        "--faith-sets",
        nargs="*",
        default=[],
        help="faithfulness/ sets to score too (soft ROC-AUC, balanced accuracy)",
    )
    p.add_argument(
        "--per-set",
        type=int,
        default=200,
        help="records of each faithfulness set (a seeded sample)",
    )


# --- data ---------------------------------------------------------------------------


def _read(path: Path, limit: int | None) -> list[dict[str, Any]]:
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rows.append(json.loads(line))
            if limit is not None and len(rows) >= limit:
                break
    return rows


# --- figures ------------------------------------------------------------------------


def prf(labels: Sequence[int], flags: Sequence[bool]) -> dict[str, float]:
    """Precision, recall and F1 (in %) of the hallucinated class (``label`` 0)."""
    tp = sum(1 for y, f in zip(labels, flags) if f and y == 0)
    fp = sum(1 for y, f in zip(labels, flags) if f and y == 1)
    fn = sum(1 for y, f in zip(labels, flags) if not f and y == 0)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"f1": round(100 * f1, 1), "precision": round(100 * p, 1), "recall": round(100 * r, 1),
            "n": len(labels), "flagged": tp + fp}  # fmt: skip


def balanced_accuracy(labels: Sequence[int], flags: Sequence[bool]) -> float:
    """Balanced accuracy (in %) of judging an answer right when it is not flagged."""
    ba = metrics.balanced_accuracy(list(labels), [0 if f else 1 for f in flags])
    return float("nan") if ba is None else round(100 * ba, 1)


def sample_set(path: Path, n: int, seed: int = 0) -> list[dict[str, Any]]:
    """A seeded sample of ``n`` records of a faithfulness set (all of them if fewer)."""
    import random

    rows = _read(path, None)
    if len(rows) <= n:
        return rows
    return random.Random(seed).sample(rows, n)


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> tuple[float, float]:
    """ROC-AUC in % (label 1 = faithful ranks higher) and its Hanley-McNeil standard error."""
    a = metrics.roc_auc(list(labels), list(scores))
    n1, n0 = sum(labels), len(labels) - sum(labels)
    if a is None:
        return float("nan"), float("nan")
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    se = ((a * (1 - a) + (n1 - 1) * (q1 - a * a) + (n0 - 1) * (q2 - a * a)) / (n1 * n0)) ** 0.5
    return round(100 * a, 1), round(100 * se, 1)


def balanced_accuracy_se(labels: Sequence[int], flags: Sequence[bool]) -> float:
    """Standard error of :func:`balanced_accuracy` (binomial, per class), in points."""
    pos = [not f for y, f in zip(labels, flags) if y == 1]
    neg = [f for y, f in zip(labels, flags) if y == 0]
    if not pos or not neg:
        return float("nan")
    var = sum(p * (1 - p) / len(c) for c in (pos, neg) for p in [sum(c) / len(c)])
    return round(100 * var**0.5 / 2, 1)


def any_not_yes(result: Any) -> bool:
    return any(c.verdict != "yes" for c in result.claims)


def decisions(result: Any) -> dict[str, bool]:
    """Each decision measured: True flags the answer as hallucinated."""
    out = {"any claim not yes": any_not_yes(result),
           "any claim no": any(c.verdict == "no" for c in result.claims)}  # fmt: skip
    faithful = getattr(result, "faithful", None)
    if faithful is not None:
        out["scorer decision"] = not faithful
    return out


def claim_rows(result: Any, features: Any) -> list[dict[str, Any]]:
    """Each claim of ``result``: as written and as scored, its verdict, probabilities and
    the learned decision's features (``features``, rows of
    :data:`benchmarks.learned_decision.FEATURES`; None when not computed)."""
    rows = []
    for k, c in enumerate(result.claims):
        rows.append({
            "claim": c.claim, "scored": c.scored_as or c.claim,
            "features": None if features is None else [round(float(v), 4) for v in features[k]],
            "start": c.start, "end": c.end, "verdict": c.verdict,
            "p_entail": round(c.p_entail, 4), "p_contradict": round(c.p_contradict, 4),
            "band": c.band, "rule": c.rule, "note": c.decision_note,
            "evidence": c.evidence.text if c.evidence is not None else None,
        })  # fmt: skip
    return rows


def features_of(scorer: Any, recs: list[dict[str, Any]], results: list[Any]) -> list[Any]:
    """The features of each result's claims, from the scorer's stages: each record's NLI
    matrix and its aggregation (the pairs come from the NLI cache, so the model reruns
    nothing). The aggregation is ``score_batch``'s: a result whose verdicts differ from
    ``results`` is an error."""
    from .learned_decision import result_features

    out: list[Any] = []
    for i in range(0, len(recs), 25):
        for rec, res, m in zip(recs[i : i + 25], results[i : i + 25],
                               scorer.stages.matrices_of(recs[i : i + 25])):  # fmt: skip
            if isinstance(m, Exception):
                out.append(None)
                continue
            again = scorer.stages.aggregate(m)
            if [c.verdict for c in again.claims] != [c.verdict for c in res.claims]:
                raise RuntimeError(f"stages and score_batch disagree on {rec.get('id')!r}")
            out.append(result_features(m, again))
    return out


# --- the run -------------------------------------------------------------------------


def _score_all(scorer, cache, recs: list[dict[str, Any]], save: Path | None, bench, what: str):
    results = []
    step = 25
    for i in range(0, len(recs), step):
        results += scorer.score_batch(recs[i : i + step])
        if save is not None:
            save.parent.mkdir(parents=True, exist_ok=True)
            cache.save(save)
        bench.log(f"{what}: {min(i + step, len(recs))}/{len(recs)} ({cache.computed:,} computed)")
    return results


def run(args, bench) -> Outcome:
    logging.getLogger("nli_faith").setLevel(logging.ERROR)
    from nli_faith.nli.cache import CachedNLI
    from nli_faith.scorer import FaithfulnessScorer

    data = args.data_dir / "rag-dev"
    rag = [] if args.skip_ragtruth else _read(data / "ragtruth_train_labelled.jsonl", args.limit)
    hot = [] if args.skip_hotpot else _read(data / "halueval_qa.jsonl", args.limit)

    options = {
        name: value
        for name, value in (
            ("composite_premise", args.composite_premise),
            ("entail_threshold", args.entail_threshold),
            ("contradict_threshold", args.contradict_threshold),
        )
        if value is not None
    }
    scorer = FaithfulnessScorer(args.model, device="cpu", granularity=args.granularity, **options)
    cache = CachedNLI(scorer.nli)
    if args.nli_cache.is_file():
        bench.log(f"{cache.load(args.nli_cache):,} NLI outputs read from {args.nli_cache}")
    scorer.nli = cache

    rag_in = [{"id": r["id"], "response": r["response"], "context": r["context"],
               "question": r["question"]} for r in rag]  # fmt: skip
    rag_out = bench.timed(
        "score RAGTruth answers",
        lambda: _score_all(scorer, cache, rag_in, args.nli_cache, bench, "RAGTruth"),
    )
    hot_in = [{"response": h["hypothesis"], "context": [h["premise"]],
               "question": h["question"]} for h in hot]  # fmt: skip
    hot_out = bench.timed(
        "score HotpotQA answers",
        lambda: _score_all(scorer, cache, hot_in, args.nli_cache, bench, "HotpotQA"),
    )

    faith: dict[str, tuple[list[dict[str, Any]], list[Any]]] = {}
    faith_in: dict[str, list[dict[str, Any]]] = {}
    for name in args.faith_sets:
        recs = sample_set(args.data_dir / "faithfulness" / f"{name}.jsonl", args.per_set)
        batch = [{"response": r["response"], "context": r["context"]} for r in recs]
        faith_in[name] = batch
        faith[name] = (recs, bench.timed(
            f"score {name}", lambda b=batch, n=name: _score_all(
                scorer, cache, b, args.nli_cache, bench, n)))  # fmt: skip

    figures: dict[str, Any] = {}
    data_out: dict[str, Any] = {"decisions": {}, "hotpot": {}}
    lines = ["Development data (`rag-dev`): these figures choose decisions; they are not "
             "held-out figures.", ""]  # fmt: skip
    labels = [r["label"] for r in rag]
    flags = [decisions(o) for o in rag_out]
    rows = []
    for name in flags[0] if flags else []:
        f_all = [f[name] for f in flags]
        per = {"all": prf(labels, f_all)}
        for task in TASKS:
            idx = [i for i, r in enumerate(rag) if r["task_type"] == task]
            per[task] = prf([labels[i] for i in idx], [f_all[i] for i in idx])
        data_out["decisions"][name] = per
        rows.append([name, per["all"]["f1"], per["all"]["precision"], per["all"]["recall"],
                     per["QA"]["f1"], per["Summary"]["f1"], per["all"]["flagged"]])  # fmt: skip
    lines += ["### RAGTruth answers: the hallucinated class, response level", ""]
    lines.append(table(["decision", "F1", "precision", "recall", "F1 QA", "F1 summaries",
                        "flagged"], rows))  # fmt: skip
    main = data_out["decisions"].get("scorer decision") or data_out["decisions"].get(
        "any claim not yes"
    )
    if main:
        figures.update({"RAGTruth F1": main["all"]["f1"], "RAGTruth precision":
                        main["all"]["precision"], "RAGTruth recall": main["all"]["recall"],
                        "RAGTruth F1 QA": main["QA"]["f1"],
                        "RAGTruth F1 summaries": main["Summary"]["f1"]})  # fmt: skip
    verdicts = Counter(c.verdict for r, o in zip(rag, rag_out) if r["label"] == 1
                       for c in o.claims)  # fmt: skip
    data_out["faithful_answer_verdicts"] = dict(verdicts)
    counts = ", ".join(f"{v} {verdicts.get(v, 0)}" for v in ("yes", "idk", "no"))
    lines += ["", f"Claim verdicts inside the faithful answers: {counts}", ""]
    figures["no in faithful answers"] = verdicts.get("no", 0)
    figures["idk in faithful answers"] = verdicts.get("idk", 0)
    ceiling = len({r["label"] for r in rag}) == 2
    # the RAGTruth claims' features: for the ceiling and the rows alike, computed once
    rag_feats = features_of(scorer, rag_in, rag_out) if ceiling or args.rows else []
    if ceiling:
        from .decision_ceiling import ceiling_lines, ceilings

        found = ceilings(rag_out, rag, rag_feats)
        data_out["decision_ceilings"] = found
        lines += [*ceiling_lines(found), ""]
        best = found["logistic, all features, in-sample"][0]
        figures["RAGTruth F1 ceiling (logistic, in-sample)"] = best["f1"]

    if hot:
        hl = [1 if h["label"] == "entailment" else 0 for h in hot]
        hflags = [decisions(o) for o in hot_out]
        hrows = []
        for name in hflags[0]:
            ba = balanced_accuracy(hl, [f[name] for f in hflags])
            data_out["hotpot"][name] = ba
            hrows.append([name, ba])
        lines += ["### HotpotQA short answers (question + answer claims): balanced accuracy",
                  "", table(["decision", "balanced accuracy"], hrows)]  # fmt: skip
        key = "scorer decision" if "scorer decision" in data_out["hotpot"] else "any claim not yes"
        figures["HotpotQA balanced accuracy"] = data_out["hotpot"][key]

    if faith:
        frows = []
        data_out["faithfulness"] = {}
        for name, (recs, outs) in faith.items():
            y = [r["label"] for r in recs]
            soft = [o.soft if o.soft is not None else 0.0 for o in outs]
            flag = [any_not_yes(o) for o in outs]
            auc, auc_se = roc_auc(y, soft)
            ba = balanced_accuracy(y, flag)
            ba_se = balanced_accuracy_se(y, flag)
            data_out["faithfulness"][name] = {
                "n": len(recs),
                "soft_auc": auc,
                "soft_auc_se": auc_se,
                "ba": ba,
                "ba_se": ba_se,
            }
            frows.append([name, len(recs), auc, auc_se, ba, ba_se])  # fmt: skip
        lines += ["", f"### faithfulness/ sets ({args.per_set} records each, seeded sample)", "",
                  table(["set", "n", "soft ROC-AUC", "SE", "balanced accuracy (any not yes)",
                         "SE"], frows)]  # fmt: skip

    if args.rows is not None:
        ins = hot_in + [b for batch in faith_in.values() for b in batch]
        outs = list(hot_out) + [o for _, os in faith.values() for o in os]
        feats = iter(rag_feats + features_of(scorer, ins, outs))
        with open(args.rows, "w", encoding="utf-8") as fh:
            for r, o in zip(rag, rag_out):
                row = {"set": "ragtruth", "id": r["id"], "task": r["task_type"],
                       "label": r["label"], "spans": r["spans"],
                       "claims": claim_rows(o, next(feats))}  # fmt: skip
                fh.write(json.dumps(row) + "\n")
            for i, (h, o) in enumerate(zip(hot, hot_out)):
                row = {"set": "hotpot", "id": f"hotpot-{i}", "task": "QA",
                       "label": 1 if h["label"] == "entailment" else 0,
                       "claims": claim_rows(o, next(feats))}  # fmt: skip
                fh.write(json.dumps(row) + "\n")
            for name, (recs, outs) in faith.items():
                for r, o in zip(recs, outs):
                    row = {"set": name, "id": r["id"], "task": name, "label": r["label"],
                           "soft": o.soft, "claims": claim_rows(o, next(feats))}  # fmt: skip
                    fh.write(json.dumps(row) + "\n")
    return Outcome(body="\n".join(lines), figures=figures, data=data_out)
