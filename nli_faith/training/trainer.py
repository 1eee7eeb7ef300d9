"""The parts of the transformers ``Trainer`` that ``nli-faith train`` runs: the loss
(binary rows train the 3-way head), the Trainer subclass, the time-budget callback,
layer freezing and the development metric."""

from __future__ import annotations

import time

import numpy as np

from nli_faith.errors import E_TRAIN_OPTION, OptionError

from .data import NOT_ENTAILMENT_ID


def gold_loss(logits, labels):
    """3-way cross-entropy; label 3 (binary not_entailment) scores P(neutral)+P(contradiction)."""
    import torch

    logp = torch.log_softmax(logits.float(), dim=-1)
    three_way = -logp.gather(1, labels.clamp(max=2).unsqueeze(1)).squeeze(1)
    not_entail = -torch.logsumexp(logp[:, 1:], dim=-1)
    return torch.where(labels == NOT_ENTAILMENT_ID, not_entail, three_way).mean()


def trainer_class():
    """The ``Trainer`` subclass with the NLI loss (gold, or distilled when rows carry a
    teacher's probabilities); built on call, so importing this module loads no transformers."""
    from transformers import Trainer

    class NLITrainer(Trainer):
        distill_alpha: float = 0.5

        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            labels = inputs.pop("labels")
            teacher = inputs.pop("teacher", None)
            outputs = model(**inputs)
            if teacher is None:
                loss = gold_loss(outputs.logits, labels)
            else:
                from .distill import distill_loss

                loss = distill_loss(outputs.logits, labels, teacher, alpha=self.distill_alpha)
            return (loss, outputs) if return_outputs else loss

    return NLITrainer


def time_budget_class():
    """The callback that stops training (with a checkpoint) once a time budget is spent."""
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
    total = len(base.encoder.layer)
    if layers > total:  # freezing more layers than there are would train the head alone
        raise OptionError(
            E_TRAIN_OPTION.format(
                flag="--freeze-layers", expected=f"at most the model's {total} layers", value=layers
            )
        )
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
