#!/bin/sh
# Pastor Online container start: get the corpus and the topical data on first start, then run the
# command. The bot itself opens the index, or builds it when missing or stale, with its HTTP port
# already answering (/healthz alive, /readyz "construindo"), so the healthcheck never kills a build.
set -e
if [ "$1" = "python" ] && [ "$2" = "-m" ] && [ "$3" = "bot" ] && [ -z "$4" ]; then
    if [ ! -f "$CORPUS_PATH" ]; then
        echo "corpus ausente em $CORPUS_PATH: baixando de $CORPUS_URL" >&2
        python -m corpus fetch
    fi
    if [ -n "$TOPICS_PATH" ] && [ ! -f "$TOPICS_PATH" ]; then
        echo "dados de tópicos ausentes em $TOPICS_PATH: baixando de $TOPICS_URL" >&2
        python -m retrieval fetch-topics
    fi
fi
exec "$@"
