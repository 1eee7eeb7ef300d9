# nli-faith guardrail service: `nli-faith serve --guardrail` (CPU, int8 ONNX, bundled model).
#   docker build -t nli-faith .
#   docker run -p 8080:8080 -e NLI_FAITH_API_KEYS=change-me nli-faith
# Keys are required because the container listens on 0.0.0.0 (the service refuses to
# listen on a non-loopback address without them).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

# CPU-only torch first (the default wheel pulls in CUDA), then the package and its extra.
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch
COPY pyproject.toml README.md ./
COPY nli_faith ./nli_faith
COPY models ./models
RUN pip install ".[serve]"

RUN useradd --create-home --uid 10001 nli
USER nli
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8080/readyz').status != 200)"
# exec form: SIGTERM from `docker stop` reaches uvicorn, which drains in-flight requests
ENTRYPOINT ["nli-faith", "serve", "--guardrail", "--host", "0.0.0.0", "--port", "8080"]
CMD ["--block-on-contradiction"]
