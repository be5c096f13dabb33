"""Load check: 200 chats x 5 messages through a loopback Bot API, with an LLM stand-in taking 1 s.

Every message must be answered exactly once and in order per chat. Reports the total
time and the p95 of the bot's own overhead (handler time minus the LLM's second).
Run after `python -m retrieval build`:  .venv/bin/python bench/telegram_load.py
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.stand_ins import stand_ins
from bot.channels.telegram import TelegramChannel
from bot.conversation import Conversation
from bot.llm.ollama import OllamaProvider
from bot.pastor.pipeline import Pastor, PastorConfig
from bot.ratelimit import ChatRateLimit
from bot.store.memory import Memory

CHATS, MESSAGES, LLM_SECONDS = 200, 5, 1.0


async def slow_ollama(request: web.Request) -> web.StreamResponse:
    """Answers after one second, citing the first source it was given."""
    body = await request.json()
    source = re.search(r"\[FONTE 1\] ([^—]+) —", body["messages"][-1]["content"])
    await asyncio.sleep(LLM_SECONDS)
    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
    await response.prepare(request)
    text = f"Leia com calma {source.group(1).strip()}." if source else "Paz."
    await response.write(json.dumps({"message": {"role": "assistant", "content": text}, "done": False}).encode()
                         + b"\n" + b'{"done": true}\n')
    return response


class NoFloodLimit:
    """Only for the second run: shows the bot's own overhead without Telegram's 30 requests/s cap."""

    async def initialize(self):
        pass

    async def shutdown(self):
        pass

    async def process_request(self, callback, args, kwargs, endpoint, data, rate_limit_args):
        return await callback(*args, **kwargs)


async def run(flood_limiter) -> None:
    runner, llm_url, api, retriever = await stand_ins(slow_ollama)
    overheads: list[float] = []
    llm_seconds: dict[str, float] = {}  # per chat: one message of a chat is handled at a time
    original_process, original_reply = Conversation._process, Pastor.reply

    async def timed_process(self, channel, entry):
        started = time.perf_counter()
        result = await original_process(self, channel, entry)
        llm = llm_seconds.pop(entry.inbound.chat_id, 0.0)
        overheads.append((time.perf_counter() - started - llm) * 1000)
        return result

    async def timed_reply(self, chat_id, text, **options):
        reply = await original_reply(self, chat_id, text, **options)
        llm_seconds[chat_id] = reply.timings.get("llm", 0.0)
        return reply

    Conversation._process, Pastor.reply = timed_process, timed_reply
    with tempfile.TemporaryDirectory() as tmp:
        async with httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=200)) as client:
            pastor = Pastor(retriever, Memory.open(Path(tmp) / "load.db"),
                            OllamaProvider(client, llm_url, "stand-in"), PastorConfig())

            async def status(full):
                return "ok"

            core = Conversation(pastor, pastor.memory, status, rate_limit=ChatRateLimit(per_minute=60))
            channel = TelegramChannel(api.TOKEN, core, api.url, rate_limiter=flood_limiter)
            await channel.start(poll_timeout=0.3)
            core.start()
            started = time.perf_counter()
            for n in range(1, MESSAGES + 1):
                for chat in range(CHATS):
                    api.push(api.message(10_000 + chat, f"o que diz Salmo 119:{n}?"))
            expected = CHATS * MESSAGES * 2  # the answer and its sources message
            await api.wait_for_delivered(expected, timeout=600)
            total = time.perf_counter() - started
            await asyncio.sleep(1.0)
            await channel.stop_intake()
            await core.stop()
            await channel.stop()
    lost = duplicated = disordered = 0
    for chat in range(CHATS):
        answers = [m["text"] for m in api.delivered(10_000 + chat) if "blockquote" not in m["text"]]
        verses = [int(v) for v in re.findall(r"Salmos 119:(\d+)", " ".join(answers))]
        lost += MESSAGES - len(set(verses))
        duplicated += len(answers) - MESSAGES if len(answers) > MESSAGES else 0
        disordered += verses != sorted(verses)
    await api.stop()
    await runner.cleanup()
    Conversation._process, Pastor.reply = original_process, original_reply
    overheads.sort()
    limiter = "AIORateLimiter (Telegram's 30 requests/s)" if flood_limiter is None else "no flood limiter"
    total_sent = len(api.delivered())
    print(f"-- {CHATS} chats x {MESSAGES} messages, LLM stand-in {LLM_SECONDS:.0f} s per answer, {limiter}")
    print(f"total: {total:.1f} s; lost {lost}, duplicated {duplicated}, chats out of order {disordered} "
          f"({total_sent} messages delivered)")
    print(f"bot overhead per message (handler time minus the LLM): p50 {statistics.median(overheads):.0f} ms, "
          f"p95 {overheads[int(len(overheads) * 0.95)]:.0f} ms")


async def main() -> None:
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    await run(None)
    await run(NoFloodLimit())


if __name__ == "__main__":
    asyncio.run(main())
