"""Benchmark: the answer pipeline's own overhead per message, excluding the LLM's time.

Runs `Pastor.reply` over the dev questions against the real index, with an Ollama
stand-in on loopback that answers instantly; reports the median and p95 of
(total time - time spent waiting for the LLM). Run after `python -m retrieval build`:
    .venv/bin/python bench/pipeline_bench.py
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

import httpx
from aiohttp import web

from bot.llm.ollama import OllamaProvider
from bot.pastor.pipeline import Pastor, PastorConfig
from bot.settings import Settings
from bot.store.memory import Memory
from retrieval.index.config import IndexConfig
from retrieval.startup import open_retriever

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.fakes.loopback import start_loopback

DEV = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "dev.jsonl"


async def ollama_stand_in(request: web.Request) -> web.StreamResponse:
    await request.json()
    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
    await response.prepare(request)
    for piece in ("Deus cuida de você ", "(Salmos 23:1; Mateus 29:3)."):
        await response.write(json.dumps({"message": {"role": "assistant", "content": piece}, "done": False}).encode()
                             + b"\n")
    await response.write(b'{"done": true, "prompt_eval_count": 10, "eval_count": 5}\n')
    return response


async def main() -> None:
    app = web.Application()
    app.router.add_post("/api/chat", ollama_stand_in)
    runner, url = await start_loopback(app)
    retriever = open_retriever(IndexConfig.from_settings(Settings()))
    questions = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [q.get("q") or " ".join(q["turns"]) for q in questions]
    overheads = []
    with tempfile.TemporaryDirectory() as tmp:
        async with httpx.AsyncClient() as client:
            pastor = Pastor(retriever, Memory.open(Path(tmp) / "b.db"), OllamaProvider(client, url, "m"),
                            PastorConfig())
            for round_ in range(4):
                for n, question in enumerate(questions):
                    retriever.result_cache.clear()
                    retriever.embedding_cache.clear()
                    reply = await pastor.reply(f"chat{n}", question)
                    if round_:  # the first round warms up
                        timings = reply.timings
                        overheads.append((timings["total"] - timings.get("llm", 0.0)) * 1000)
    await runner.cleanup()
    overheads.sort()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"pipeline overhead without the LLM: p50 {statistics.median(overheads):.1f} ms, "
          f"p95 {overheads[int(len(overheads) * 0.95)]:.1f} ms over {len(overheads)} replies (target p50 <= 50 ms)")


if __name__ == "__main__":
    asyncio.run(main())
