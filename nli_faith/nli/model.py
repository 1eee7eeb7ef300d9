"""The NLI cross-encoder: (premise, hypothesis) pairs in, canonical probabilities out.

This is the expensive stage. Its product is a plain array whose last axis is
``(entailment, neutral, contradiction)``; everything downstream (verdicts,
scores) works only on that array. The torch runtime is sentence-transformers'
``CrossEncoder`` (:mod:`nli_faith.nli.cross_encoder`); the int8 guardrail runs on
ONNX Runtime (:mod:`nli_faith.nli.onnx`).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nli_faith.checks import check_batch_size as check_batch_size
from nli_faith.checks import whole_number
from nli_faith.environment import usable_cores
from nli_faith.errors import (
    E_BACKEND,
    E_ENCODED_ELSEWHERE,
    E_MAX_LENGTH_OVER,
    E_MODEL_HUB_UNREACHABLE,
    E_MODEL_NOT_FOUND,
    E_OPTION_TYPE,
    ModelLoadError,
    NliFaithError,
    OptionError,
)
from nli_faith.nli.batching import PAD_MULTIPLE, TokenRows
from nli_faith.nli.cross_encoder import cpu_has_native_bf16  # noqa: F401 - re-exported
from nli_faith.nli.labels import LabelMap
from nli_faith.nli.registry import known_names, resolve_model
from nli_faith.nli.tokens import PairEncoder

if TYPE_CHECKING:  # pragma: no cover
    import torch

logger = logging.getLogger(__name__)

#: Pairs per forward pass, except for the int8 ONNX graph (see ``NLIModel``).
DEFAULT_BATCH_SIZE = 32


@dataclass(frozen=True)
class Encoded:
    """Pairs as token ids (:meth:`NLIModel.encode`): the distinct pairs' ``ids`` (and
    ``types``), their ``lengths``, and for each pair asked for, the row of its distinct
    pair (``index``). The ids are lists of ints, or packed (:meth:`packed`) to cross
    processes."""

    index: np.ndarray
    ids: list[list[int]] | TokenRows
    types: list[list[int]] | TokenRows | None
    lengths: np.ndarray
    #: The :attr:`NLIModel.encoding_key` of the model that encoded them (a forked worker's
    #: copy has its parent's): ids are for that model's tokenizer and length only.
    key: str = ""

    def packed(self) -> Encoded:
        """The same encoding with its ids in :class:`TokenRows`: a planning worker's, sent
        to the model's process as two buffers instead of a Python int per token."""
        if isinstance(self.ids, TokenRows):
            return self
        types = None if self.types is None else TokenRows.pack(self.types)
        return dataclasses.replace(self, ids=TokenRows.pack(self.ids), types=types)

    @staticmethod
    def join(parts: Sequence[Encoded]) -> Encoded:
        """One encoding of the pairs of ``parts``, in order (scored in one pass)."""
        keys = {e.key for e in parts}
        parts = [e for e in parts if len(e.index)]
        offsets = np.cumsum([0, *(len(e.ids) for e in parts)])
        return Encoded(
            np.concatenate([e.index + o for e, o in zip(parts, offsets)] or [np.zeros(0, int)]),
            _join_rows([e.ids for e in parts]),
            None if any(e.types is None for e in parts) else _join_rows([e.types for e in parts]),
            np.concatenate([e.lengths for e in parts] or [np.zeros(0, np.int64)]),
            keys.pop() if len(keys) == 1 else "",
        )


def _join_rows(parts: list) -> list[list[int]] | TokenRows:
    """Rows of ``parts`` in order: packed if all of them are, else as a list."""
    if all(isinstance(p, TokenRows) for p in parts):
        return TokenRows.join(parts)
    return [row for p in parts for row in p]


class NLIModel:
    """A sequence-classification NLI model, loaded by registry name, local path or hub id.

    Args:
        model: a name from ``models/registry.json`` (``"default"`` is the bundled
            model), a local checkpoint directory, or a Hugging Face hub id.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``...; default: CUDA if available.
        backend: ``"torch"`` (sentence-transformers' ``CrossEncoder``) or ``"onnx"``
            (ONNX Runtime on the CPU).
        onnx_quantize: with ``backend="onnx"``, use the dynamically int8-quantized graph
            (default; fastest, top label agrees with fp32 on ~95% of pairs) or, if False,
            the fp32 graph (exported once into the cache; matches torch in float32).
        label_map: override of the output indices, e.g. ``{"entailment": 0, "contradiction": 2}``.
        max_length: token limit of one pair (at least 32; rounded down to a multiple of 32,
            the padding block); default: the registry's or tokenizer's.
        batch_size: pairs per forward pass; default 32, or 1 for the int8 ONNX graph:
            dynamic int8 quantization scales activations over the whole batch (padding
            included), so a pair's probabilities would shift with its batch mates. One
            pair per run keeps them fixed and is the fastest for one request; for CPU
            batch throughput ``batch_size=32`` measured ~1.3x faster, at that price.
            With one pair per run, the runs go to one single-threaded worker per core
            (faster than splitting each short run over the cores); ``threads`` is the
            number of workers (or of ONNX Runtime's threads otherwise).
        dtype: torch weights, ``"float32"``, ``"float16"`` or ``"bfloat16"``; default:
            bf16 (or fp16) on CUDA; on CPU bf16 where the CPU has native bf16 (AVX512-BF16,
            AMX; see :func:`cpu_has_native_bf16`), else fp32. ``"float32"`` for exact fp32.
            Torch backend only: the ONNX graphs are int8 or fp32 (``onnx_quantize``).
        threads: CPU threads to compute with: torch's (``torch.set_num_threads``, which is
            process-wide) on the CPU, or with ONNX the one-pair workers (else ONNX Runtime's
            threads); default: the cores this process may use (its affinity mask). The
            environment is not read here: ``ScorerConfig.threads``, whose default follows
            ``OMP_NUM_THREADS``, is what the scorer passes.
        cache_dir: with ``backend="onnx"``, where an export of a model that ships none is
            cached; default ``~/.cache/nli-faith/onnx`` (the scorer passes
            ``ScorerConfig.onnx_cache_dir``, whose default follows ``NLI_FAITH_CACHE``).

    Whatever the batch size, each pair is padded to its own length rounded up to
    :data:`PAD_MULTIPLE` and scored only with pairs of that width, so its probabilities
    do not depend on the pairs scored with it (:mod:`nli_faith.nli.batching`).

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
        threads: int | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        if backend not in ("torch", "onnx"):
            raise OptionError(E_BACKEND.format(backend=backend))
        threads = usable_cores() if threads is None else whole_number("threads", threads, least=1)
        #: CPU threads the model computes with (see ``threads`` above).
        self.threads = threads
        model = os.fspath(model) if isinstance(model, os.PathLike) else model
        spec = resolve_model(model)
        self.name = spec.name
        self.path = spec.path
        self.backend = backend
        if batch_size is None:
            batch_size = 1 if backend == "onnx" and onnx_quantize else DEFAULT_BATCH_SIZE
        self.batch_size = check_batch_size(batch_size)
        from transformers import AutoConfig
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # no "Loading weights" bar for each model load
        # the config is read here, before any weights, to check the options against it and to
        # name a missing model clearly; the tokenizer is read once, by the runtime
        try:
            config = AutoConfig.from_pretrained(spec.path)
        except (OSError, ValueError) as err:  # ValueError: a folder that holds no model
            raise _not_loaded(model, spec, err) from err
        label_map = label_map if label_map is not None else spec.label_map
        self.label_map = (
            LabelMap.from_mapping(label_map, num_labels=config.num_labels)
            if label_map is not None
            else LabelMap.from_id2label(config.id2label, model=spec.name)
        )
        most = _positions(config)
        if max_length is not None:
            whole_number("max_length", max_length, least=PAD_MULTIPLE)
            _check_positions(max_length, most, spec.name)
        try:
            runtime, tokenizer = self._load(
                spec.path, config, device, dtype, onnx_quantize, cache_dir
            )
        except NliFaithError:  # a device or dtype that cannot be used: said as it is
            raise
        except (OSError, ValueError) as err:  # e.g. a folder without tokenizer files
            raise _not_loaded(model, spec, err) from err
        self._runtime = runtime
        self.device = runtime.device
        self.tokenizer = tokenizer
        self._encoding_id = uuid.uuid4().hex  # a forked worker's copy has it too
        told = getattr(tokenizer, "model_max_length", None)
        if not isinstance(told, int) or told >= 1_000_000:  # unset: the trained length, or 512
            told = getattr(config, "max_position_embeddings", None) or 512
        limit = max_length or spec.max_length or told
        if most is not None:
            limit = min(limit, most)
        # a whole number of padding blocks: pairs are padded to multiples of PAD_MULTIPLE (so a
        # pair's probabilities do not depend on its batch mates), which truncation must meet
        self.max_length = max(PAD_MULTIPLE, int(min(limit, 4096)) // PAD_MULTIPLE * PAD_MULTIPLE)
        self._tokens = PairEncoder(tokenizer)
        #: (premise, hypothesis) pairs asked of :meth:`predict` so far, duplicates included.
        self.pairs_predicted = 0

    def _load(self, path: str, config: Any, device, dtype, onnx_quantize: bool, cache_dir):
        """The runtime and the tokenizer, each read from ``path`` once: the torch runtime's
        ``CrossEncoder`` reads the tokenizer it holds; for ONNX it is read here."""
        if self.backend == "torch":
            from nli_faith.nli.cross_encoder import TorchRuntime

            runtime = TorchRuntime(path, device=device, dtype=dtype, threads=self.threads)
            return runtime, runtime.tokenizer
        from transformers import AutoTokenizer

        from nli_faith.nli.onnx import OnnxRuntime

        tokenizer = AutoTokenizer.from_pretrained(path, config=config)  # config: read once
        pad_id = tokenizer.pad_token_id or 0
        runtime = OnnxRuntime(
            path,
            quantize=onnx_quantize,
            batch_size=self.batch_size,
            pad_id=pad_id,
            threads=self.threads,
            cache_dir=cache_dir,
        )
        return runtime, tokenizer

    # -- tokens -------------------------------------------------------------

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token counts without special tokens, for sizing chunks (each text tokenized once)."""
        if isinstance(texts, str):
            raise OptionError(
                E_OPTION_TYPE.format(name="texts", expected="a list of strings", value=texts)
            )
        return self._tokens.count(texts)

    @property
    def encoding_key(self) -> str:
        """Names the encodings (:class:`Encoded`) this model makes with its present
        settings: its own (a forked worker's copy shares it) and its ``max_length``."""
        return f"{self._encoding_id}/{self.max_length}"

    @property
    def num_special_tokens(self) -> int:
        return self.tokenizer.num_special_tokens_to_add(pair=True)

    @property
    def torch_model(self) -> torch.nn.Module | None:
        """The transformers model (torch backend), else ``None``."""
        return getattr(self._runtime, "model", None)

    @property
    def onnx_session(self):
        """The :class:`~nli_faith.nli.onnx.OnnxSession` (ONNX backend), else ``None``."""
        return getattr(self._runtime, "session", None)

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
        model's own label order. Identical pairs are computed once.
        """
        return self.predict_encoded(
            self.encode(pairs), batch_size=batch_size, show_progress_bar=show_progress_bar
        )

    def encode(self, pairs: Sequence[tuple[str, str]]) -> Encoded:
        """The token ids :meth:`predict_encoded` scores ``pairs`` from: the host-side half of
        :meth:`predict`, which planning workers do beside the model's process."""
        if isinstance(pairs, str) or not isinstance(pairs, Sequence):
            raise OptionError(
                E_OPTION_TYPE.format(
                    name="pairs", expected="a list of (premise, hypothesis) strings", value=pairs
                )
            )
        if not pairs:
            empty = np.zeros(0, dtype=np.int64)
            return Encoded(empty, [], None, empty, self.encoding_key)
        try:  # a pair that is not two strings fails here; it is looked for only then
            unique: dict[tuple[str, str], int] = {}
            index = np.array([unique.setdefault(tuple(p), len(unique)) for p in pairs])
            uniq = list(unique)
            ids, types = self._tokens.pair_ids(uniq)  # each distinct text tokenized once
        except (TypeError, ValueError) as err:
            _name_bad_pair(pairs, err)
            raise
        lengths = np.array([len(x) for x in ids], dtype=np.int64)
        too_long = np.flatnonzero(lengths > self.max_length)
        if len(too_long):
            logger.warning(
                "%d pair(s) exceed the model's %d tokens; their premises are truncated. Chunk "
                "the context (FaithfulnessScorer does) to avoid this.",
                len(too_long),
                self.max_length,
            )
            self._truncate(uniq, too_long, ids, types, lengths)
        return Encoded(index, ids, types, lengths, self.encoding_key)

    def predict_encoded(
        self, encoded: Encoded, *, batch_size: int | None = None, show_progress_bar: bool = False
    ) -> np.ndarray:
        """Probabilities of the pairs :meth:`encode` gave ``encoded`` for, shape ``(n, 3)``."""
        if not len(encoded.index):
            return np.zeros((0, 3), dtype=np.float32)
        if encoded.key != self.encoding_key:
            raise OptionError(E_ENCODED_ELSEWHERE)
        batch_size = self.batch_size if batch_size is None else check_batch_size(batch_size)
        self.pairs_predicted += len(encoded.index)
        kwargs = {"batch_size": batch_size, "max_length": self.max_length}
        if self.backend == "torch":
            kwargs["show_progress_bar"] = show_progress_bar
        raw = self._runtime.predict(encoded.ids, encoded.types, encoded.lengths, **kwargs)
        return self.label_map.to_canonical(raw)[encoded.index]

    def _truncate(self, pairs, rows, ids, types, lengths) -> None:
        """Cut the premises of the pairs ``rows`` so that each fits ``max_length`` (in place),
        as the tokenizer cuts them (these pairs alone are tokenized whole)."""
        cut = self.tokenizer(
            [pairs[i][0] for i in rows],
            [pairs[i][1] for i in rows],
            truncation="only_first",
            max_length=self.max_length,
        )
        for k, i in enumerate(rows):
            ids[i] = cut["input_ids"][k]
            if types is not None:
                types[i] = cut["token_type_ids"][k]
            lengths[i] = len(ids[i])


def _positions(config: Any) -> int | None:
    """The most tokens the model can read: its absolute position embeddings, less the
    offset some models keep (RoBERTa's 514 positions hold 512 tokens); ``None`` when it
    has none to run out of (relative positions, as DeBERTa-v3's)."""
    if getattr(config, "position_biased_input", True) is False:  # DeBERTa: relative only
        return None
    positions = getattr(config, "max_position_embeddings", None)
    if isinstance(positions, int) and positions > 0:
        offset = 2 if getattr(config, "model_type", "") in ("roberta", "xlm-roberta") else 0
        return positions - offset
    return None


def _not_loaded(model: str, spec: Any, err: Exception) -> ModelLoadError:
    """The error for a model that could not be read: a registered hub id out of reach, or
    a name, folder or hub id that holds no model."""
    if model in known_names() and not spec.bundled:
        return ModelLoadError(
            E_MODEL_HUB_UNREACHABLE.format(model=model, hub_id=spec.path, error=err)
        )
    return ModelLoadError(
        E_MODEL_NOT_FOUND.format(model=model, known=", ".join(known_names()), error=err)
    )


def _check_positions(max_length: int, most: int | None, name: str) -> None:
    if most is not None and max_length > most:
        raise OptionError(E_MAX_LENGTH_OVER.format(value=max_length, model=name, most=most))


def check_max_length(path: str, tokenizer: Any, max_length: int) -> None:
    """``OptionError`` when ``max_length`` is over what the model at ``path`` can read."""
    from transformers import AutoConfig

    _check_positions(max_length, _positions(AutoConfig.from_pretrained(path)), path)


def _name_bad_pair(pairs: Sequence[Any], err: Exception) -> None:
    """Raise ``OptionError`` naming the first of ``pairs`` that is not two strings (the
    cause of ``err``); return if every pair is."""
    for k, pair in enumerate(pairs):
        two_strings = (
            isinstance(pair, (tuple, list))
            and len(pair) == 2
            and all(isinstance(t, str) for t in pair)
        )
        if not two_strings:
            raise OptionError(
                E_OPTION_TYPE.format(
                    name=f"pairs[{k}]",
                    expected="a (premise, hypothesis) pair of strings",
                    value=pair,
                )
            ) from err
