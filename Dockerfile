# Pastor Online — imagem de produção (CPU).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    DATA_DIR=/data \
    CORPUS_PATH=/data/corpus/porbr2018_usfx.xml \
    TOPICS_PATH=/data/topics/openbible-topic-votes.tsv \
    HTTP_HOST=0.0.0.0 \
    HTTP_PORT=8080

WORKDIR /app

# torch first, from the CPU-only index: the PyPI build for Linux pulls several GB of CUDA.
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0

COPY pyproject.toml README.md ./
COPY bot ./bot
COPY retrieval ./retrieval
COPY corpus ./corpus
RUN pip install '.[qdrant]'
COPY docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh

RUN useradd --create-home --uid 10001 pastor \
    && mkdir -p /data \
    && chown pastor:pastor /data
USER pastor

# Index, manifest, SQLite database, downloaded corpus and topical data live here.
VOLUME ["/data"]
EXPOSE 8080

HEALTHCHECK --interval=30s --timeout=5s --start-period=180s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ.get(\"HTTP_PORT\", \"8080\")}/healthz', timeout=4)"

ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["python", "-m", "bot"]
