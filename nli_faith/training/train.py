"""``nli-faith train``: fine-tune a 3-way NLI cross-encoder with the transformers Trainer.

Binary rows (``entailment`` / ``not_entailment``) train the same 3-way head:
their loss is the binary cross-entropy of P(entailment) against
P(neutral) + P(contradiction).

Checkpoints are written every ``save_steps``; running the same command again
resumes from the last one. At the end the model is saved to
``OUTPUT/model`` and evaluated on every eval file (``OUTPUT/eval.json``,
``OUTPUT/eval.md``).

The options are :class:`~nli_faith.training.options.TrainConfig`; the rows come from
:mod:`nli_faith.training.rows` (with an optional augment step: synthetic pairs, made by
``python -m research.train``), the loss, Trainer subclass and callbacks from
:mod:`nli_faith.training.trainer`.
"""

from __future__ import annotations

import inspect
import json
import logging
import sys
import time
from collections import Counter
from dataclasses import asdict, is_dataclass
from pathlib import Path

import numpy as np

from nli_faith.errors import E_DATA_EMPTY, DataError

from .data import NLIExample, expand_paths
from .options import TrainConfig
from .rows import Augment, load_training_rows, teacher_table
from .trainer import dev_accuracy, freeze, time_budget_class, trainer_class

logger = logging.getLogger(__name__)

LABELS3 = ("entailment", "neutral", "contradiction")


def train(cfg: TrainConfig, augment: Augment | None = None) -> dict:
    """Train, save to ``OUTPUT/model`` and evaluate.

    ``augment`` adds made rows to the training rows (:data:`~nli_faith.training.rows.Augment`;
    ``python -m research.train`` passes the synthesis step). Returns the summary that is also
    written to ``OUTPUT/train_summary.json``.
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
    rows, counts, held_path, dev_rows = load_training_rows(cfg, augment)
    logger.info("training rows: %d (%s)", len(rows), dict(Counter(r.label for r in rows)))
    distilling = bool(cfg.teacher or cfg.teacher_probs)
    if not distilling:
        unlabelled = sum(r.label < 0 for r in rows)
        rows = [r for r in rows if r.label >= 0]
        if unlabelled:
            logger.warning("no teacher: %d unlabelled pairs dropped", unlabelled)
    teacher = None
    if distilling:
        teacher = teacher_table(cfg, rows).lookup([(r.premise, r.hypothesis) for r in rows])
        missing = int(np.isnan(teacher[:, 0]).sum())
        counts["rows without a teacher probability"] = missing
        if missing:
            logger.warning("%d of %d rows have no teacher probability", missing, len(rows))

    from nli_faith.nli.model import check_max_length
    from nli_faith.nli.registry import resolve_model

    base = resolve_model(cfg.base_model).path  # a registry name, a local folder or a hub id
    tokenizer = AutoTokenizer.from_pretrained(base)
    check_max_length(base, tokenizer, cfg.max_length)
    rows, teacher, dropped = _fitting(rows, teacher, tokenizer, cfg.max_length)
    if not rows:
        raise DataError(E_DATA_EMPTY.format(files=", ".join(map(str, cfg.train_files))))
    dev_rows, _, dev_dropped = _fitting(dev_rows, None, tokenizer, cfg.max_length)
    for part, name, n, total in (
        ("training", "rows", dropped, len(rows)),
        ("dev", "dev rows", dev_dropped, len(dev_rows)),
    ):
        if n:
            counts[f"{name} whose hypothesis alone exceeds max_length (dropped)"] = n
            logger.warning(
                "%d of %d %s rows dropped: the hypothesis alone exceeds max_length %d",
                n, total + n, part, cfg.max_length,
            )  # fmt: skip

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
    callbacks_budget = [time_budget_class()(cfg.time_budget_s)] if cfg.time_budget_s else []
    trainer_cls = trainer_class()
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
        "augment": _described(augment),
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


def _described(augment: Augment | None) -> dict | str | None:
    """The augment step's settings for the summary (a dataclass's fields, else its repr)."""
    if augment is None:
        return None
    return asdict(augment) if is_dataclass(augment) else repr(augment)


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


def _fitting(rows: list, teacher, tokenizer, max_length: int) -> tuple[list, object, int]:
    """Rows whose hypothesis leaves room for some premise within ``max_length`` tokens.

    The premise is what truncation cuts; a hypothesis that fills the whole window on its own
    cannot be paired with any premise, so its row is dropped (and counted) rather than failing
    the run. ``teacher`` (an array aligned with ``rows``, or None) is filtered alike.
    """
    if not rows:
        return rows, teacher, 0
    special = tokenizer.num_special_tokens_to_add(pair=True)
    lengths = tokenizer([r.hypothesis for r in rows], add_special_tokens=False)["input_ids"]
    keep = [i for i, ids in enumerate(lengths) if len(ids) + special < max_length]
    if len(keep) == len(rows):
        return rows, teacher, 0
    kept_teacher = None if teacher is None else teacher[keep]
    return [rows[i] for i in keep], kept_teacher, len(rows) - len(keep)
