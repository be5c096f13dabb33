"""Benchmark: what crisis screening adds to a message, through the real pipeline with no LLM.

The same messages (dev questions, life situations, crisis-dev) answered by `Pastor.reply` with the
precise layer alone and with both layers, alternating series on a cold result cache; reports the
medians per series and the difference of the medians (the screening's added cost). The message's
embedding is shared with retrieval (the retriever's cache), so what screening adds is the model itself.
Run after `python -m retrieval build`:
    .venv/bin/python bench/crisis_bench.py --runs 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from bot.pastor.pipeline import Pastor, PastorConfig
from bot.safety.screening import Screener, semantic_screener
from bot.settings import Settings
from bot.store.memory import Memory
from retrieval.index.config import IndexConfig
from retrieval.startup import open_retriever

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "eval"


def messages() -> list[str]:
    out = []
    for name, field in (("dev.jsonl", "q"), ("situations-dev.jsonl", "q"), ("crisis-dev.jsonl", "text")):
        for line in (SHARED / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get(field):
                out.append(row[field])
    return out


async def series(pastor: Pastor, texts: list[str]) -> list[float]:
    pastor.retriever.result_cache.clear()
    pastor.retriever.embedding_cache.clear()
    times = []
    for n, text in enumerate(texts):
        started = time.perf_counter()
        await pastor.reply(f"bench-{n}", text)
        times.append(time.perf_counter() - started)
        pastor.memory.delete_chat(f"bench-{n}")
    return times


async def main(runs: int) -> None:
    settings = Settings()
    retriever = open_retriever(IndexConfig.from_settings(settings))
    both = semantic_screener(retriever, Path(settings.data_dir) / "crisis")
    with tempfile.TemporaryDirectory() as tmp:
        pastor = Pastor(retriever, Memory.open(Path(tmp) / "bench.db"), None, PastorConfig())
        texts = messages()
        await series(pastor, texts[:20])  # warm up
        medians = {"padrões": [], "padrões + modelo": []}
        for _ in range(runs):
            for name, screener in (("padrões", Screener()), ("padrões + modelo", both)):
                pastor.screener = screener
                medians[name].append(statistics.median(await series(pastor, texts)) * 1000)
    print(f"máquina: {platform.machine()}, {os.cpu_count()} núcleos, Python {platform.python_version()}; "
          f"{len(texts)} mensagens por série, {runs} séries de cada")
    for name, values in medians.items():
        print(f"  {name}: p50 por série {', '.join(f'{v:.1f}' for v in values)} ms")
    added = statistics.median(medians["padrões + modelo"]) - statistics.median(medians["padrões"])
    print(f"  custo da triagem semântica (diferença das medianas): {added:+.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    asyncio.run(main(parser.parse_args().runs))
