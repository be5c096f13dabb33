# Pastor Online — imagem de produção (CPU).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    DATA_DIR=/data \
    CORPUS_PATH=/data/corpus/porbr2018_usfx.xml \
    TOPICS_PATH=/data/topics/openbible-topic-votes.tsv

WORKDIR /app

# torch first, from the CPU-only index: the PyPI build for Linux pulls several GB of CUDA.
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0

COPY pyproject.toml README.md ./
COPY bot ./bot
COPY retrieval ./retrieval
COPY corpus ./corpus
RUN pip install .

RUN useradd --create-home --uid 10001 pastor \
    && mkdir -p /data \
    && chown pastor:pastor /data
USER pastor

# Index, manifest, SQLite database and the downloaded corpus live here.
VOLUME ["/data"]
EXPOSE 8080

CMD ["python", "-m", "bot"]
