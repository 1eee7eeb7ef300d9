"""The NLI cross-encoder: (premise, hypothesis) pairs in, canonical probabilities out.

This is the expensive stage. Its product is a plain array whose last axis is
``(entailment, neutral, contradiction)``; everything downstream (verdicts,
scores) works only on that array.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from nli_faith.errors import E_BACKEND, E_BATCH_SIZE, E_DTYPE, E_MODEL_NOT_FOUND, ModelLoadError
from nli_faith.nli.labels import LabelMap
from nli_faith.nli.registry import resolve_model
from nli_faith.nli.threads import cpu_threads, usable_cores  # noqa: F401 - re-exported

if TYPE_CHECKING:  # pragma: no cover
    import torch

logger = logging.getLogger(__name__)

#: Pairs per forward pass, except for the int8 ONNX graph (see ``NLIModel``).
DEFAULT_BATCH_SIZE = 32
_DTYPES = ("float32", "bfloat16", "float16")
#: Distinct texts whose tokenization ``NLIModel`` keeps (the cache is emptied when full).
_TOKEN_CACHE_SIZE = 50_000
#: In batches of several pairs, each pair is padded to its own length rounded up to a
#: multiple of this, never to its batch's longest pair: the padded width changes a pair's
#: probabilities (by up to ~1e-2 in bfloat16, ~1e-6 in fp32), so a width that depends on
#: the batch mates would make a record's verdicts depend on the records scored with it.
PAD_MULTIPLE = 32


def _default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _set_cpu_threads() -> None:
    """Use the physical cores we are allowed, unless the user set a count."""
    import torch

    if "OMP_NUM_THREADS" not in os.environ:
        torch.set_num_threads(usable_cores())


class NLIModel:
    """A sequence-classification NLI model, loaded by registry name, local path or hub id.

    Args:
        model: a name from ``models/registry.json`` (``"default"`` is the bundled
            model), a local checkpoint directory, or a Hugging Face hub id.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``...; default: CUDA if available.
        backend: ``"torch"`` or ``"onnx"`` (ONNX Runtime on the CPU).
        onnx_quantize: with ``backend="onnx"``, use the dynamically int8-quantized graph
            (default; fastest, top label agrees with fp32 on ~95% of pairs) or, if False,
            the fp32 graph (exported once into the cache; matches torch in float32).
        label_map: override of the output indices, e.g. ``{"entailment": 0, "contradiction": 2}``.
        max_length: token limit of one pair; default: the registry's or tokenizer's.
        batch_size: pairs per forward pass; default 32, or 1 for the int8 ONNX graph:
            dynamic int8 quantization scales activations over the whole batch (padding
            included), so a pair's probabilities would shift with its batch mates. One
            pair per run keeps them fixed and is the fastest for one request; for CPU
            batch throughput ``batch_size=32`` measured ~1.3x faster, at that price.
            With one pair per run, the runs go to one single-threaded worker per core
            (faster than splitting each short run over the cores); ``OMP_NUM_THREADS``,
            when set, is the number of workers (or of ONNX Runtime's threads otherwise).
        dtype: torch weights, ``"float32"``, ``"float16"`` or ``"bfloat16"``; default:
            bf16 (or fp16) on CUDA; on CPU bf16 where the CPU has native bf16 (AVX512-BF16,
            AMX; see :func:`cpu_has_native_bf16`), else fp32. ``"float32"`` for exact fp32.
            Torch backend only: the ONNX graphs are int8 or fp32 (``onnx_quantize``).
        prefetch: pad (and, on CUDA, copy to pinned memory and to the device) the next batch
            in a background thread while the model runs the current one. Default: on for
            CUDA, off on the CPU, where the model already uses every core (the results are
            the same either way; only the timing differs).

    Example:
        >>> nli = NLIModel("default", device="cpu")
        >>> probs = nli.predict([("The sky is blue.", "The sky has a colour.")])
        >>> probs.shape
        (1, 3)
    """

    def __init__(
        self,
        model: str = "default",
        *,
        device: str | None = None,
        backend: str = "torch",
        label_map: Mapping[str, int] | None = None,
        max_length: int | None = None,
        batch_size: int | None = None,
        dtype: str | None = None,
        onnx_quantize: bool = True,
        prefetch: bool | None = None,
    ) -> None:
        if backend not in ("torch", "onnx"):
            raise ValueError(E_BACKEND.format(backend=backend))
        spec = resolve_model(model)
        self.name = spec.name
        self.path = spec.path
        self.backend = backend
        if batch_size is None:
            batch_size = 1 if backend == "onnx" and onnx_quantize else DEFAULT_BATCH_SIZE
        if batch_size < 1:
            raise ValueError(E_BATCH_SIZE.format(batch_size=batch_size))
        self.batch_size = batch_size
        from transformers import AutoConfig, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # no "Loading weights" bar for each model load

        try:
            self.tokenizer = AutoTokenizer.from_pretrained(spec.path)
            config = AutoConfig.from_pretrained(spec.path)
        except OSError as err:
            from nli_faith.nli.registry import known_names

            raise ModelLoadError(
                E_MODEL_NOT_FOUND.format(model=model, known=", ".join(known_names()), error=err)
            ) from err
        if label_map is None and spec.label_map is not None:
            label_map = spec.label_map
        self.label_map = (
            LabelMap.from_mapping(label_map, num_labels=config.num_labels)
            if label_map is not None
            else LabelMap.from_id2label(config.id2label, model=spec.name)
        )
        self._token_cache: dict[str, list[int]] = {}
        self._template = _PairTemplate.of(self.tokenizer)
        self._uses_token_types = "token_type_ids" in getattr(
            self.tokenizer, "model_input_names", ["token_type_ids"]
        )
        limit = max_length or spec.max_length or getattr(self.tokenizer, "model_max_length", 512)
        self.max_length = int(min(limit, 4096))
        if backend == "onnx":
            from nli_faith.nli.onnx import OnnxSession

            self.device = "cpu"
            # One pair per run (the int8 graph): ONNX Runtime's intra-op threads share
            # little work on one short sequence, so the runs go to one thread per core
            # instead, each run single-threaded (same probabilities, bit for bit).
            self._run_threads = cpu_threads() if batch_size == 1 else 1
            self._session = OnnxSession(
                spec.path,
                quantize=onnx_quantize,
                num_threads=1 if self._run_threads > 1 else None,
            )
            self._model = None
        else:
            from transformers import AutoModelForSequenceClassification

            self.device = device or _default_device()
            if self.device == "cpu":
                _set_cpu_threads()
            torch_dtype = _pick_dtype(dtype, self.device)
            self._model = AutoModelForSequenceClassification.from_pretrained(
                spec.path, dtype=torch_dtype
            ).to(self.device)
            self._model.eval()
            self._session = None
            self._run_threads = 1
        self.prefetch = self.device.startswith("cuda") if prefetch is None else bool(prefetch)
        #: (premise, hypothesis) pairs asked of :meth:`predict` so far, duplicates included.
        self.pairs_predicted = 0

    # -- tokens -------------------------------------------------------------

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token counts without special tokens, for sizing chunks."""
        ids = self._text_ids(texts)
        if ids is not None:
            return [len(x) for x in ids]
        enc = self.tokenizer(list(texts), add_special_tokens=False, verbose=False)
        enc = enc["input_ids"]
        return [len(x) for x in enc]

    def _text_ids(self, texts: Sequence[str]) -> list[list[int]] | None:
        """Token ids (no special tokens) of ``texts``, from a bounded cache.

        A chunk is paired with every claim, and sized before that: each distinct text is
        tokenized once. ``None`` when the tokenizer is not a fast (Rust) one.
        """
        if self._template is None:
            return None
        backend = self.tokenizer._tokenizer
        cache = self._token_cache
        wanted = list(dict.fromkeys(texts))
        if len(cache) + len(wanted) > _TOKEN_CACHE_SIZE:
            cache.clear()  # before listing what is missing, so nothing asked for is lost
        new = [t for t in wanted if t not in cache]
        if new:
            backend.no_truncation()
            backend.no_padding()
            # encode_batch_fast (tokenizers >= 0.20) skips the offsets: ~2x faster here
            encode = getattr(backend, "encode_batch_fast", backend.encode_batch)
            cache.update((t, e.ids) for t, e in zip(new, encode(new, add_special_tokens=False)))
        return [cache[t] for t in texts]

    def _encode_pairs(self, pairs: Sequence[tuple[str, str]]) -> tuple[list, list | None]:
        """Input ids (and token type ids) of each pair, with the model's special tokens."""
        premises = self._text_ids([p for p, _ in pairs])
        if premises is None:
            enc = self.tokenizer(
                [p for p, _ in pairs],
                [h for _, h in pairs],
                truncation=False,
                add_special_tokens=True,
                verbose=False,
            )
            return enc["input_ids"], enc.get("token_type_ids")
        hypotheses = self._text_ids([h for _, h in pairs])
        t = self._template
        ids = [[*t.prefix, *a, *t.middle, *b, *t.suffix] for a, b in zip(premises, hypotheses)]
        types = None
        if self._uses_token_types:
            types = [
                [
                    *t.prefix_types,
                    *[t.a_type] * len(a),
                    *t.middle_types,
                    *[t.b_type] * len(b),
                    *t.suffix_types,
                ]  # fmt: skip
                for a, b in zip(premises, hypotheses)
            ]
        return ids, types

    @property
    def num_special_tokens(self) -> int:
        return self.tokenizer.num_special_tokens_to_add(pair=True)

    # -- inference ----------------------------------------------------------

    def predict(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        batch_size: int | None = None,
        show_progress_bar: bool = False,
    ) -> np.ndarray:
        """Probabilities for ``(premise, hypothesis)`` pairs, shape ``(n, 3)``.

        Columns are ``(entailment, neutral, contradiction)`` whatever the
        model's own label order. Identical pairs are computed once; pairs are
        sorted by length so that batches carry little padding.
        """
        if not pairs:
            return np.zeros((0, 3), dtype=np.float32)
        self.pairs_predicted += len(pairs)
        unique: dict[tuple[str, str], int] = {}
        index = np.array([unique.setdefault(tuple(p), len(unique)) for p in pairs])
        uniq_pairs = list(unique)
        raw = self._predict_unique(uniq_pairs, batch_size or self.batch_size, show_progress_bar)
        return self.label_map.to_canonical(raw)[index]

    def _predict_unique(
        self, pairs: list[tuple[str, str]], batch_size: int, show_progress_bar: bool
    ) -> np.ndarray:
        # Each distinct premise and hypothesis is tokenized once (cached), the pairs are
        # assembled by the tokenizer's own post-processor, and length-sorted batches are
        # padded with numpy: measured 2x faster than tokenizing every pair.
        ids, types = self._encode_pairs(pairs)
        lengths = np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids))
        too_long = np.flatnonzero(lengths > self.max_length)
        if len(too_long):
            logger.warning(
                "%d pair(s) exceed the model's %d tokens; their premises are truncated. Chunk "
                "the context (FaithfulnessScorer does) to avoid this.",
                len(too_long),
                self.max_length,
            )
            cut = self.tokenizer(
                [pairs[i][0] for i in too_long],
                [pairs[i][1] for i in too_long],
                truncation="only_first",
                max_length=self.max_length,
            )
            for k, i in enumerate(too_long):
                ids[i] = cut["input_ids"][k]
                if types is not None:
                    types[i] = cut["token_type_ids"][k]
                lengths[i] = len(ids[i])
        out = np.empty((len(pairs), self.label_map.num_labels), dtype=np.float32)
        # Each pair is padded to its own length rounded up to PAD_MULTIPLE (batch_plan), so
        # its result never depends on its batch mates; the next batch is padded and copied
        # in a background thread while the current one runs (prefetch, on CUDA by default).
        batches = batch_plan(lengths, batch_size=batch_size, max_length=self.max_length)
        pad_id = self.tokenizer.pad_token_id or 0

        def prepare(batch: tuple[np.ndarray, int]):
            sel, width = batch
            return self._to_device(
                _pad_batch(ids, types, sel, self.max_length, pad_id, width=width)
            )

        steps = None
        pool = run_pool(self._run_threads) if len(batches) > 1 else None
        if pool is not None:
            # RuntimeError: "cannot schedule new futures after interpreter shutdown"
            with contextlib.suppress(RuntimeError):
                steps = pool.map(lambda b: self._launch(prepare(b)), batches)
        if steps is None:
            steps = _prefetched(prepare, batches) if self.prefetch else map(prepare, batches)
            steps = map(self._launch, steps)
        if show_progress_bar:
            from tqdm.auto import tqdm

            steps = tqdm(steps, desc="NLI", unit="batch", total=len(batches))
        launched = list(steps)
        if launched:
            out[np.concatenate([sel for sel, _ in batches])] = self._gather(launched)
        return out

    # The three steps of a forward pass, split so that the host prepares the next batch
    # while the device runs this one, and results come back in one copy at the end.

    def _to_device(self, padded: dict[str, np.ndarray]):
        """Host arrays -> model inputs: torch tensors on the device (pinned, non-blocking
        copies on CUDA), or the arrays themselves for ONNX Runtime."""
        if self._session is not None:
            return padded
        import torch

        tensors = {k: torch.from_numpy(v) for k, v in padded.items()}
        if not self.device.startswith("cuda"):
            return tensors
        return {k: v.pin_memory().to(self.device, non_blocking=True) for k, v in tensors.items()}

    def _launch(self, inputs):
        """Run one batch; on CUDA the returned probabilities stay on the device (no sync)."""
        if self._session is not None:
            logits = self._session.run(inputs)
            logits = logits - logits.max(axis=-1, keepdims=True)
            e = np.exp(logits)
            return e / e.sum(axis=-1, keepdims=True)
        import torch

        with torch.inference_mode():
            return torch.softmax(self._model(**inputs).logits.float(), dim=-1)

    def _gather(self, launched: list) -> np.ndarray:
        """The probabilities of every launched batch, in launch order, as one array."""
        if isinstance(launched[0], np.ndarray):
            return np.concatenate(launched)
        import torch

        return torch.cat(launched).cpu().numpy()

    def _forward(self, padded: dict[str, np.ndarray]) -> np.ndarray:
        """Probabilities of one padded batch (the three steps above, in step)."""
        return self._gather([self._launch(self._to_device(padded))])

    @property
    def torch_model(self) -> torch.nn.Module | None:
        return self._model


_RUN_POOLS: dict[tuple[int, int], ThreadPoolExecutor] = {}
_RUN_POOLS_LOCK = threading.Lock()


def run_pool(workers: int) -> ThreadPoolExecutor | None:
    """The process-wide threads that run one-pair ONNX calls side by side, shared by every
    model that asks for as many workers; ``None`` for a single worker, or once the
    interpreter is shutting down (run the calls in the caller's thread then).

    A forked child gets pools of its own: it inherits the parent's, but not their threads.
    """
    if workers < 2 or sys.is_finalizing():
        return None
    key = (os.getpid(), workers)
    with _RUN_POOLS_LOCK:
        pool = _RUN_POOLS.get(key)
        if pool is None:
            pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nli-run")
            _RUN_POOLS[key] = pool
    return pool


def _prefetched(prepare, items: list) -> Iterator:
    """``map(prepare, items)``, with ``prepare`` of the next item running in a background
    thread while the caller works on the current one (tokenizer, numpy and torch copies
    release the GIL for most of their work)."""
    if len(items) < 2:
        yield from map(prepare, items)
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="nli-prefetch") as pool:
        ahead = pool.submit(prepare, items[0])
        for nxt in items[1:]:
            current = ahead.result()
            ahead = pool.submit(prepare, nxt)
            yield current
        yield ahead.result()


def batch_plan(
    lengths: np.ndarray, *, batch_size: int, max_length: int
) -> list[tuple[np.ndarray, int]]:
    """(rows, padded width) of each forward pass over pairs of token ``lengths``.

    Longest first. With ``batch_size`` 1 a pair is its own width; otherwise every pair is
    padded to its length rounded up to :data:`PAD_MULTIPLE` (at most ``max_length``), and
    a batch holds pairs of one width only, so no pair's width depends on the others.

    Example:
        >>> [(rows.tolist(), w) for rows, w in batch_plan(np.array([10, 40, 30, 33]),
        ...                                              batch_size=2, max_length=512)]
        [([1, 3], 64), ([2, 0], 32)]
    """
    order = np.argsort(-lengths, kind="stable")
    capped = np.minimum(lengths[order], max_length)
    if batch_size == 1:
        return [(order[k : k + 1], int(capped[k])) for k in range(len(order))]
    widths = np.minimum(-(-capped // PAD_MULTIPLE) * PAD_MULTIPLE, max_length)
    plan = []
    start = 0
    while start < len(order):
        end = start + 1
        while end < len(order) and end - start < batch_size and widths[end] == widths[start]:
            end += 1
        plan.append((order[start:end], int(widths[start])))
        start = end
    return plan


def _pad_batch(
    ids: list[list[int]],
    types: list[list[int]] | None,
    sel: np.ndarray,
    max_length: int,
    pad_id: int,
    *,
    width: int | None = None,
) -> dict[str, np.ndarray]:
    """Right-padded int64 arrays for the rows ``sel`` (faster than ``tokenizer.pad``).

    A pair longer than ``max_length`` keeps its first ``max_length`` tokens. ``width``:
    the padded width (default: the longest row's).
    """
    lengths = np.array([min(len(ids[i]), max_length) for i in sel])
    width = max(int(lengths.max()), width or 0)
    input_ids = np.full((len(sel), width), pad_id, dtype=np.int64)
    type_ids = np.zeros((len(sel), width), dtype=np.int64) if types is not None else None
    for row, i in enumerate(sel):
        n = lengths[row]
        input_ids[row, :n] = ids[i][:n]
        if type_ids is not None:
            type_ids[row, :n] = types[i][:n]
    batch = {
        "input_ids": input_ids,
        "attention_mask": (np.arange(width)[None, :] < lengths[:, None]).astype(np.int64),
    }
    if type_ids is not None:
        batch["token_type_ids"] = type_ids
    return batch


def _pick_dtype(dtype: str | None, device: str):
    import torch

    if dtype is not None:
        if dtype not in _DTYPES:
            raise ValueError(E_DTYPE.format(allowed=", ".join(map(repr, _DTYPES)), dtype=dtype))
        return getattr(torch, dtype)
    if device.startswith("cuda"):
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.bfloat16 if device == "cpu" and cpu_has_native_bf16() else torch.float32


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


@dataclass(frozen=True)
class _PairTemplate:
    """Where a fast tokenizer puts its special tokens around a (premise, hypothesis) pair.

    With it, a pair's ids are assembled from the two texts' cached ids, exactly as the
    tokenizer's post-processor would (``[CLS] a [SEP] b [SEP]``, ``<s> a </s></s> b </s>``).
    """

    prefix: tuple[int, ...]
    middle: tuple[int, ...]
    suffix: tuple[int, ...]
    prefix_types: tuple[int, ...]
    middle_types: tuple[int, ...]
    suffix_types: tuple[int, ...]
    a_type: int
    b_type: int

    @classmethod
    def of(cls, tokenizer) -> _PairTemplate | None:
        """The template of ``tokenizer``, or ``None`` if it has no Rust post-processor or
        does not follow a fixed template (then pairs are tokenized the ordinary way)."""
        backend = getattr(tokenizer, "_tokenizer", None)
        process = getattr(getattr(backend, "post_processor", None), "process", None)
        if process is None:
            return None
        try:
            a = backend.encode("premise", add_special_tokens=False)
            b = backend.encode("hypothesis", add_special_tokens=False)
            m = process(a, b, True)
        except Exception:  # noqa: BLE001 - any failure: use the tokenizer as is
            return None
        ids, types, la, lb = m.ids, m.type_ids, len(a.ids), len(b.ids)
        for i in range(len(ids) - la + 1):
            if ids[i : i + la] != a.ids:
                continue
            for j in range(i + la, len(ids) - lb + 1):
                if ids[j : j + lb] == b.ids:
                    t = cls(
                        tuple(ids[:i]),
                        tuple(ids[i + la : j]),
                        tuple(ids[j + lb :]),
                        tuple(types[:i]),
                        tuple(types[i + la : j]),
                        tuple(types[j + lb :]),
                        types[i],
                        types[j],
                    )
                    return t if t._check(backend, process) else None
        return None

    def _check(self, backend, process) -> bool:
        a = backend.encode("The cat sat, said O'Neil.", add_special_tokens=False)
        b = backend.encode("A cat, 42 times.", add_special_tokens=False)
        m = process(a, b, True)
        ids = [*self.prefix, *a.ids, *self.middle, *b.ids, *self.suffix]
        types = [
            *self.prefix_types, *[self.a_type] * len(a.ids), *self.middle_types,
            *[self.b_type] * len(b.ids), *self.suffix_types,
        ]  # fmt: skip
        return m.ids == ids and m.type_ids == types
