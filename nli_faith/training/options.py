"""The options of ``nli-faith train`` (:class:`TrainConfig`); the CLI flags have the same names.

Training-data synthesis (synthetic swaps, multi-fact and structured pairs, distractors) is not
an option here: it lives in ``research/`` and plugs in as an augment step (``python -m
research.train``)."""

from __future__ import annotations

from dataclasses import dataclass, field


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
    save_steps: int = 500
    logging_steps: int = 50
    eval_limit: int | None = None
    save_fp16: bool = False
    device: str | None = None
    num_workers: int = 0
    #: Share of training premises held out as the development split (model selection,
    #: early stopping); 0 = none. Evaluation files are never used for selection.
    dev_fraction: float = 0.0
    dev_seed: int = 7
    #: Stop when the development accuracy has not improved for this many evaluations.
    early_stopping_patience: int = 0
    #: Distillation: a teacher model to score every training pair (several: their
    #: probabilities averaged, an ensemble), or a file of its probabilities
    #: (``TeacherProbs.save``); ``distill_alpha`` weighs the gold loss.
    teacher: str | tuple[str, ...] | None = None
    teacher_probs: str | None = None
    distill_alpha: float = 0.5
    #: Unlabelled pairs made from the training premises, labelled by the teacher only.
    unlabelled: int = 0
    #: Seed of the unlabelled pairs' draw.
    unlabelled_seed: int = 21
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
