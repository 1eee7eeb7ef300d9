"""The torch runtime: sentence-transformers' ``CrossEncoder`` loads the checkpoint and runs it.

The checkpoint is read once, by the ``CrossEncoder``; :class:`~nli_faith.nli.model.NLIModel`
takes its config and tokenizer from it. The pairs come in as token ids, each text
tokenized once (:mod:`nli_faith.nli.tokens`), and go to the ``CrossEncoder``'s forward
grouped by padded width (:func:`~nli_faith.nli.batching.batch_plan`), each group padded to
its width rounded up to :data:`~nli_faith.nli.batching.PAD_MULTIPLE`, so a pair's
probabilities never depend on the pairs scored with it; they are those of
``CrossEncoder.predict(..., apply_softmax=True)`` on the same groups, bit for bit, without
tokenizing each pair again. Here too: the choice of dtype and CPU threads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from nli_faith.environment import usable_cores
from nli_faith.errors import E_DEVICE_UNAVAILABLE, E_DTYPE, ModelLoadError, OptionError
from nli_faith.nli.batching import batch_plan, pad_batch

if TYPE_CHECKING:  # pragma: no cover
    import torch

DTYPES = ("float32", "bfloat16", "float16")


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def cpu_has_native_bf16() -> bool:
    """Whether this CPU computes in bfloat16 natively (AVX512-BF16 or AMX; Linux only).

    There, bf16 weights ran the bundled model 2.5x faster than fp32 with the same verdicts
    (``benchmarks/results/speed.md``); elsewhere bf16 is emulated and slower.
    """
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return bool(flags & {"avx512_bf16", "amx_bf16"})
    except OSError:
        pass
    return False


def pick_dtype(dtype: str | None, device: str) -> torch.dtype:
    """``dtype`` checked, or the default: bf16 (fp16) on CUDA, bf16 on a CPU that has it, fp32."""
    import torch

    if dtype is not None:
        if dtype not in DTYPES:
            raise OptionError(E_DTYPE.format(allowed=", ".join(map(repr, DTYPES)), dtype=dtype))
        return getattr(torch, dtype)
    if device.startswith("cuda"):
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.bfloat16 if device == "cpu" and cpu_has_native_bf16() else torch.float32


def check_device(device: str) -> None:
    """Raise :class:`~nli_faith.errors.ModelLoadError` naming ``device`` when torch cannot
    use it (no such device name, no CUDA build or GPU, no such GPU index).

    Example:
        >>> check_device("cpu")
        >>> check_device("gpu")
        Traceback (most recent call last):
        ...
        nli_faith.exceptions.ModelLoadError: device 'gpu' cannot be used here: ...
    """
    import torch

    try:
        dev = torch.device(device)
    except RuntimeError as err:
        raise ModelLoadError(E_DEVICE_UNAVAILABLE.format(device=device, why=err)) from None
    why = None
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            why = "torch finds no CUDA GPU (or this torch build has no CUDA)"
        elif dev.index is not None and dev.index >= torch.cuda.device_count():
            why = f"there are {torch.cuda.device_count()} CUDA GPU(s)"
    elif dev.type == "mps" and not torch.backends.mps.is_available():
        why = "torch finds no Apple MPS device"
    elif dev.type == "meta":
        why = "'meta' tensors hold no data to compute on"
    if why is not None:
        raise ModelLoadError(E_DEVICE_UNAVAILABLE.format(device=device, why=why))


class TorchRuntime:
    """A ``CrossEncoder`` over a local checkpoint (or a hub id in the local cache).

    Args:
        path: the checkpoint folder or hub id.
        device: ``"cpu"``, ``"cuda"``...; default: CUDA if available.
        dtype: ``"float32"``, ``"bfloat16"``, ``"float16"`` or ``None`` (see :func:`pick_dtype`).
        threads: on the CPU, torch's threads (``torch.set_num_threads``, for the whole
            process); default: the cores this process may use, not the machine's.
    """

    def __init__(
        self, path: str, *, device: str | None, dtype: str | None, threads: int | None = None
    ) -> None:
        from sentence_transformers import CrossEncoder

        self.device = device or default_device()
        check_device(self.device)
        torch_dtype = pick_dtype(dtype, self.device)
        if self.device == "cpu":
            import torch

            torch.set_num_threads(usable_cores() if threads is None else int(threads))
        self.encoder = CrossEncoder(path, device=self.device, model_kwargs={"dtype": torch_dtype})
        self.encoder.eval()
        self.pad_id = self.tokenizer.pad_token_id or 0

    @property
    def tokenizer(self):
        return self.encoder.tokenizer

    @property
    def model(self) -> torch.nn.Module:
        """The transformers model inside the ``CrossEncoder``."""
        return self.encoder.model

    @property
    def config(self):
        """The transformers config of :attr:`model`."""
        return self.encoder.model.config

    def predict(
        self,
        ids: list[list[int]],
        types: list[list[int]] | None,
        lengths: np.ndarray,
        *,
        batch_size: int,
        max_length: int,
        show_progress_bar: bool = False,
    ) -> np.ndarray:
        """Probabilities in the model's label order, one row per pair of ``ids`` (token ids
        with the special tokens, ``types`` their segment ids; ``lengths`` their lengths)."""
        out = np.empty((len(ids), self.encoder.num_labels), dtype=np.float32)
        # padded widths are multiples of PAD_MULTIPLE even for batch_size 1 (as a tokenizer's
        # pad_to_multiple_of pads one pair), so the two may share a width
        plan = batch_plan(lengths, batch_size=max(batch_size, 2), max_length=max_length)
        if show_progress_bar:
            from tqdm.auto import tqdm

            plan = tqdm(plan, desc="NLI", unit="batch")
        on_gpu = self.device.startswith("cuda")
        queued = []  # on a GPU: (rows, their probabilities, still on the device)
        for rows, width in plan:
            for start in range(0, len(rows), batch_size):
                sel = rows[start : start + batch_size]
                probs = self._probabilities(
                    pad_batch(ids, types, sel, max_length, self.pad_id, width=width), on_gpu
                )
                if on_gpu:  # no wait: the next batch is padded and queued while this one runs
                    queued.append((sel, probs))
                else:
                    out[sel] = probs.numpy()
        if queued:
            import torch

            out[np.concatenate([sel for sel, _ in queued])] = (
                torch.cat([probs for _, probs in queued]).cpu().numpy()
            )
        return out

    def _probabilities(self, batch: dict[str, np.ndarray], on_gpu: bool = False) -> torch.Tensor:
        """What ``CrossEncoder.predict(..., apply_softmax=True)`` computes from the features
        it tokenized: its forward, logits in at least fp32, its activation, a softmax. On a
        GPU the batch is copied from pinned memory without waiting for the batches before
        it, and the probabilities are left on the device (the caller copies them back)."""
        import torch

        with torch.inference_mode():
            if on_gpu:
                features = {
                    k: torch.from_numpy(v).pin_memory().to(self.device, non_blocking=True)
                    for k, v in batch.items()
                }
            else:
                features = {k: torch.from_numpy(v).to(self.device) for k, v in batch.items()}
            scores = self.encoder(features)["scores"]
            if torch.is_floating_point(scores) and torch.finfo(scores.dtype).bits < 32:
                scores = scores.float()
            if self.encoder.activation_fn is not None:
                scores = self.encoder.activation_fn(scores)
            probs = torch.softmax(scores, dim=1)
            return probs if on_gpu else probs.cpu()
