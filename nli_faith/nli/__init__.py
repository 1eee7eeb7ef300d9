"""The NLI model: loading (torch or ONNX), label maps and the model registry."""
