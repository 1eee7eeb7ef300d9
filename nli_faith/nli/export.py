"""Export a checkpoint to ONNX (fp32, or int8 by dynamic quantization) for the ONNX runtime.

``python -m nli_faith.nli.onnx MODEL_DIR`` (or ``build_shipped``) writes
``MODEL_DIR/onnx/model_int8.onnx`` and a ``.json`` record of the weights it was exported
from; :class:`~nli_faith.nli.onnx.OnnxSession` exports into a cache when no file is shipped.

The export uses the TorchScript exporter (``torch.onnx.export(..., dynamo=False)``)
with eager attention, which ONNX Runtime fuses into its ``Attention`` kernel, and
then dynamic int8 quantization of the weights (signed, per channel). sentence-transformers'
own ONNX backend needs Optimum, whose releases pin transformers below 5 (this project needs
5), so the export stays here.

onnxruntime and onnx are optional dependencies: ``pip install "nli-faith[onnx]"``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nli_faith.environment import env_onnx_cache_dir
from nli_faith.errors import (
    E_ONNX_EXPORT,
    E_ONNX_MISSING,
    MissingDependencyError,
    ModelLoadError,
    OnnxBackendError,
)

# Must be set before onnxruntime is first imported: it is imported lazily, in functions only.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

logger = logging.getLogger(__name__)

#: Bump when the export recipe changes, so that cached exports are rebuilt.
EXPORT_VERSION = 1
#: Opset of the exported graph (LayerNormalization is native from 17).
OPSET = 17
SHIPPED_DIR = "onnx"
INT8_NAME = "model_int8.onnx"
FP32_NAME = "model.onnx"
#: Written next to a shipped file: the weights hash it was exported from.
META_SUFFIX = ".json"
_WEIGHT_GLOBS = ("*.safetensors", "pytorch_model*.bin")
_MAX_EXPORT_LOGIT_DIFF = 1e-3


# -- optional dependency ------------------------------------------------------


def import_ort() -> Any:
    """Import onnxruntime with telemetry off, or raise a clear error."""
    try:
        import onnxruntime as ort
    except ImportError as err:
        raise MissingDependencyError(
            E_ONNX_MISSING.format(package="onnxruntime", error=err)
        ) from err
    disable = getattr(ort, "disable_telemetry_events", None)
    if disable is not None:
        disable()
    return ort


def _require(package: str) -> None:
    """Fail early, with the install hint, when an export-time package is missing."""
    import importlib

    try:
        importlib.import_module(package)
    except ImportError as err:
        raise MissingDependencyError(E_ONNX_MISSING.format(package=package, error=err)) from err


# -- model files --------------------------------------------------------------


def local_model_dir(model: str | os.PathLike[str]) -> Path:
    """A local checkpoint folder for a path or a Hugging Face hub id (config + weights only)."""
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    try:
        from huggingface_hub import snapshot_download

        for patterns in (
            ["config.json", "*.safetensors", "*.safetensors.index.json"],
            ["config.json", "pytorch_model*.bin", "pytorch_model.bin.index.json"],
        ):
            local = Path(snapshot_download(str(model), allow_patterns=patterns))
            if weight_files(local, missing_ok=True):
                return local
    except Exception as err:  # any hub failure means "not found"
        raise ModelLoadError(
            f"Cannot find the checkpoint {str(model)!r} to export to ONNX: it is not a local "
            f"directory and could not be fetched from the Hugging Face hub ({err})."
        ) from err
    raise ModelLoadError(f"The checkpoint {str(model)!r} has no weights file to export to ONNX.")


def weight_files(model_dir: Path, *, missing_ok: bool = False) -> list[Path]:
    for pattern in _WEIGHT_GLOBS:
        found = sorted(model_dir.glob(pattern))
        if found:
            return found
    if missing_ok:
        return []
    raise ModelLoadError(
        f"No weights file ({', '.join(_WEIGHT_GLOBS)}) in {str(model_dir)!r}; cannot export it "
        "to ONNX."
    )


def weights_digest(model_dir: str | os.PathLike[str]) -> str:
    """SHA-256 over the checkpoint's weight file(s) and ``config.json``, plus the recipe version."""
    model_dir = Path(model_dir)
    h = hashlib.sha256(f"nli-faith-onnx-export-v{EXPORT_VERSION}\n".encode())
    files = weight_files(model_dir)
    config = model_dir / "config.json"
    if config.is_file():
        files = [*files, config]
    for f in files:
        with open(f, "rb") as fh:
            h.update(f.name.encode() + b"\0")
            h.update(hashlib.file_digest(fh, "sha256").digest())
    return h.hexdigest()


def default_cache_dir() -> Path:
    """``~/.cache/nli-faith/onnx``: where :class:`~nli_faith.nli.onnx.OnnxSession` caches
    exports when not told. The scorer tells it: ``ScorerConfig.onnx_cache_dir``, whose
    default follows ``NLI_FAITH_CACHE`` and ``XDG_CACHE_HOME``
    (:meth:`~nli_faith.config.ScorerConfig.resolved_onnx_cache_dir`)."""
    return Path(env_onnx_cache_dir({}))


def file_name(quantize: bool) -> str:
    return INT8_NAME if quantize else FP32_NAME


# -- export -------------------------------------------------------------------


def _takes_token_type_ids(model: Any) -> bool:
    """Whether segment ids matter: the forward accepts them and there are 2+ segment types."""
    import inspect

    accepts = "token_type_ids" in inspect.signature(model.forward).parameters
    return accepts and int(getattr(model.config, "type_vocab_size", 0) or 0) > 1


def _example_inputs(names: Sequence[str], vocab_size: int, batch: int, seq: int) -> dict:
    """Int64 inputs with padding on all rows but the first, so the mask path is traced."""
    import torch

    gen = torch.Generator().manual_seed(batch * 1000 + seq)
    ids = torch.randint(5, max(6, min(vocab_size, 1000)), (batch, seq), generator=gen)
    mask = torch.ones(batch, seq, dtype=torch.int64)
    for row in range(1, batch):
        mask[row, seq - row * max(1, seq // (2 * batch)) :] = 0
    out = {"input_ids": ids * mask, "attention_mask": mask}
    if "token_type_ids" in names:
        tt = torch.zeros(batch, seq, dtype=torch.int64)
        tt[:, seq // 2 :] = 1
        out["token_type_ids"] = tt * mask
    return out


def _export_fp32(model_dir: Path, out_path: Path) -> tuple[list[str], Any, int]:
    """Trace the checkpoint to ONNX (fp32); returns the input names, the model and vocab size."""
    import torch
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(
        model_dir, dtype=torch.float32, attn_implementation="eager"
    )
    model.eval()
    names = ["input_ids", "attention_mask"]
    if _takes_token_type_ids(model):
        names.append("token_type_ids")

    class _Logits(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(
            self,
            input_ids: torch.Tensor,
            attention_mask: torch.Tensor,
            token_type_ids: torch.Tensor | None = None,
        ) -> torch.Tensor:
            extra = {} if token_type_ids is None else {"token_type_ids": token_type_ids}
            return self.inner(input_ids=input_ids, attention_mask=attention_mask, **extra).logits

    vocab_size = int(getattr(model.config, "vocab_size", 1000) or 1000)
    example = _example_inputs(names, vocab_size, batch=2, seq=16)
    axes = {name: {0: "batch", 1: "sequence"} for name in names}
    axes["logits"] = {0: "batch"}
    wrapper = _Logits(model).eval()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer and deprecation warnings, expected here
        args = tuple(example[n] for n in names)
        try:
            torch.onnx.export(
                wrapper,
                args,
                str(out_path),
                input_names=names,
                output_names=["logits"],
                dynamic_axes=axes,
                opset_version=OPSET,
                do_constant_folding=True,
                dynamo=False,
            )
        except Exception as err:  # e.g. a torch without the TorchScript exporter
            try:
                import onnxscript  # noqa: F401 - the dynamo exporter needs it
            except ImportError:
                raise err from None
            logger.info("TorchScript ONNX export failed (%s); trying the dynamo exporter.", err)
            batch, seq = torch.export.Dim("batch"), torch.export.Dim("sequence")
            onnx_program = torch.onnx.export(
                wrapper,
                args,
                input_names=names,
                output_names=["logits"],
                dynamic_shapes={name: {0: batch, 1: seq} for name in names},
                opset_version=max(OPSET, 18),  # the dynamo exporter's lowest native opset
                dynamo=True,
            )
            onnx_program.save(str(out_path))
            _drop_value_info(out_path)
    return names, model, vocab_size


def _drop_value_info(path: Path) -> None:
    """Remove stored intermediate shapes, which can trip the quantizer's shape inference."""
    import onnx

    model = onnx.load(str(path))
    del model.graph.value_info[:]
    onnx.save(model, str(path))


def _check_export(path: Path, model: Any, names: list[str], vocab_size: int) -> float:
    """Max |logit difference| ONNX vs torch at a shape other than the traced one."""
    import torch

    ort = import_ort()
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    example = _example_inputs(names, vocab_size, batch=3, seq=23)
    declared = {i.name for i in session.get_inputs()}
    got = session.run(None, {k: v.numpy() for k, v in example.items() if k in declared})[0]
    with torch.no_grad():
        want = model(**example).logits.numpy()
    return float(np.abs(got - want).max())


def _quiet_quantizer(record: logging.LogRecord) -> bool:
    """Root-logger filter: drop onnxruntime.quantization's per-tensor INFO chatter."""
    return record.levelno >= logging.WARNING or "onnxruntime" not in record.pathname


def export_onnx(
    model_dir: str | os.PathLike[str],
    out_path: str | os.PathLike[str],
    *,
    quantize: bool = True,
) -> Path:
    """Export a Hugging Face sequence-classification checkpoint to ONNX.

    The graph takes ``input_ids``, ``attention_mask`` and, for models with segment
    embeddings (BERT), ``token_type_ids`` (int64, dynamic batch and sequence axes)
    and returns ``logits`` (float32, ``(batch, num_labels)``). With ``quantize``
    the weights of the matrix products are dynamically quantized to signed int8,
    per output channel (the most accurate int8 variant, and as fast as per-tensor).

    The fp32 graph is checked against torch at an untraced shape before it is
    quantized. The file is written to a temporary name and renamed into place, so a
    reader never sees a partial file.

    Args:
        model_dir: a local checkpoint folder or a hub id.
        out_path: the ``.onnx`` file to write; its folder is created.
        quantize: apply dynamic int8 quantization.

    Returns:
        ``out_path`` as a :class:`~pathlib.Path`.
    """
    _require("onnx")
    local = local_model_dir(model_dir)
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=out_path.parent, prefix=".export-") as tmp:
        fp32 = Path(tmp) / "model.onnx"
        names, model, vocab_size = _export_fp32(local, fp32)
        diff = _check_export(fp32, model, names, vocab_size)
        del model
        if diff > _MAX_EXPORT_LOGIT_DIFF:
            raise OnnxBackendError(E_ONNX_EXPORT.format(model=str(local), diff=diff))
        result = fp32
        if quantize:
            _require("onnxruntime")
            from onnxruntime.quantization import QuantType, quantize_dynamic

            result = Path(tmp) / "model_int8.onnx"
            root = logging.getLogger()
            root.addFilter(_quiet_quantizer)  # it logs every tensor at INFO on the root logger
            try:
                quantize_dynamic(fp32, result, weight_type=QuantType.QInt8, per_channel=True)
            finally:
                root.removeFilter(_quiet_quantizer)
        os.replace(result, out_path)
    logger.info(
        "Exported %s to %s ONNX %s in %.1f s (fp32 max logit diff vs torch %.1e).",
        local,
        "int8" if quantize else "fp32",
        out_path,
        time.perf_counter() - start,
        diff,
    )
    return out_path


def _write_meta(onnx_path: Path, model_dir: Path, quantize: bool) -> None:
    """Record next to a shipped file what it was exported from (atomically)."""
    import torch

    ort = import_ort()
    meta = {
        "weights_sha256": weights_digest(model_dir),
        "export_version": EXPORT_VERSION,
        "quantize": quantize,
        "opset": OPSET,
        "torch": torch.__version__,
        "onnxruntime": ort.__version__,
    }
    target = onnx_path.with_name(onnx_path.name + META_SUFFIX)
    fd, tmp = tempfile.mkstemp(dir=onnx_path.parent, prefix=".meta-")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=2)
        fh.write("\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, target)


def build_shipped(model_dir: str | os.PathLike[str], *, quantize: bool = True) -> Path:
    """Write ``<model_dir>/onnx/model_int8.onnx`` (or ``model.onnx``) and its ``.json`` record."""
    model_dir = Path(model_dir)
    if not model_dir.is_dir():
        raise ModelLoadError(f"{str(model_dir)!r} is not a local checkpoint directory.")
    out = export_onnx(model_dir, model_dir / SHIPPED_DIR / file_name(quantize), quantize=quantize)
    _write_meta(out, model_dir, quantize)
    return out


# -- command line ---------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m nli_faith.nli.onnx MODEL_DIR``: write the shipped ONNX file."""
    parser = argparse.ArgumentParser(
        prog="python -m nli_faith.nli.onnx",
        description="Export a checkpoint to MODEL_DIR/onnx/model_int8.onnx (or model.onnx).",
    )
    parser.add_argument("model_dir", help="local checkpoint directory, or a registry name")
    parser.add_argument(
        "--no-quantize", action="store_true", help="write fp32 onnx/model.onnx instead"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    model_dir = Path(args.model_dir)
    if not model_dir.is_dir():
        from nli_faith.nli.registry import resolve_model

        model_dir = Path(resolve_model(args.model_dir).path)
    out = build_shipped(model_dir, quantize=not args.no_quantize)
    print(out)
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
