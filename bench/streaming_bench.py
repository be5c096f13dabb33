"""Answers that appear as they form: a model streaming at a CPU-like rate through the real Telegram channel.

A loopback Ollama writes a four-paragraph answer (citing and quoting the verses it was given) at about
12 tokens per second, as a 1.5B model does on a 2-core server. Measured from the moment the update is
available to the bot: the first validated text visible in the draft, and the final message. Medians of
several runs. Run after `python -m retrieval build`:  .venv/bin/python bench/streaming_bench.py [runs]
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
from pathlib import Path

import httpx
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.stand_ins import stand_ins
from bot.channels.telegram import TelegramChannel
from bot.conversation import Conversation
from bot.llm.ollama import OllamaProvider
from bot.pastor.pipeline import Pastor, PastorConfig
from bot.store.memory import Memory

TOKENS_PER_SECOND = 12.0
CHARS_PER_TOKEN = 4  # Portuguese text in a Qwen-sized vocabulary, roughly
QUESTION = "perdi meu emprego e estou com muito medo do futuro, como confiar em Deus?"


def answer_for(prompt: str) -> str:
    """Four paragraphs in the shape a small model writes them, citing and quoting the first sources."""
    sources = re.findall(r"\[FONTE \d+\] ([^—]+) — (.+)", prompt)
    (ref1, _), (ref2, text2) = sources[0], sources[1 if len(sources) > 1 else 0]
    return "\n\n".join([
        "Sinto muito pelo que você está vivendo. Perder o trabalho abala a segurança e traz medo do amanhã, "
        f"e é natural sentir isso. Você não está sozinho nessa hora difícil ({ref1.strip()}).",
        f"Como diz {ref2.strip()}: “{text2.strip().rstrip('.')}”. Essa palavra nos lembra que Deus conhece "
        "as nossas necessidades e não nos abandona quando o chão parece faltar.",
        "Procure dar um passo de cada vez: converse com pessoas de confiança, peça ajuda à sua comunidade e "
        "organize o que for possível hoje, sem carregar sozinho o peso de todos os dias que ainda virão.",
        "Que o Senhor renove suas forças, abra portas e guarde o seu coração em paz. Estou orando por você "
        "e por sua família neste tempo de espera.",
    ])


async def cpu_like_ollama(request: web.Request) -> web.StreamResponse:
    body = await request.json()
    text = answer_for(body["messages"][-1]["content"])
    response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
    await response.prepare(request)
    for token in re.findall(rf".{{1,{CHARS_PER_TOKEN}}}", text, re.S):
        await asyncio.sleep(1 / TOKENS_PER_SECOND)
        await response.write(json.dumps({"message": {"role": "assistant", "content": token},
                                         "done": False}).encode() + b"\n")
    await response.write(b'{"done": true, "prompt_eval_count": 600, "eval_count": 280}\n')
    return response


async def main(runs: int) -> None:
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"model stand-in at {TOKENS_PER_SECOND:g} tokens/s")
    runner, llm_url, api, retriever = await stand_ins(cpu_like_ollama)
    first, final = [], []
    with tempfile.TemporaryDirectory() as tmp:
        async with httpx.AsyncClient(timeout=120) as client:
            pastor = Pastor(retriever, Memory.open(Path(tmp) / "stream.db"),
                            OllamaProvider(client, llm_url, "stand-in"), PastorConfig())

            async def status(full):
                return "ok"

            core = Conversation(pastor, pastor.memory, status)
            channel = TelegramChannel(api.TOKEN, core, api.url)
            await channel.start(poll_timeout=0.3)
            core.start()
            loop = asyncio.get_running_loop()
            for run in range(runs):
                chat = 20_000 + run
                asked = loop.time()
                api.push(api.message(chat, QUESTION))
                await api.wait_for_delivered(2, chat_id=chat, timeout=180)
                drafts = [t for t, text in api.drafts(chat) if text]
                first.append(drafts[0] - asked)
                final.append(api.times("sendMessage", chat)[0] - asked)
                print(f"run {run + 1}: first validated text {first[-1]:.1f} s, final message {final[-1]:.1f} s, "
                      f"{len(drafts)} draft updates")
            await channel.stop_intake()
            await core.stop()
            await channel.stop()
    await api.stop()
    await runner.cleanup()
    last = re.sub(r"<[^>]+>", "", api.delivered(20_000 + runs - 1)[0]["text"])
    print(f"last answer as delivered:\n{last}\n")
    f, t = statistics.median(first), statistics.median(final)
    print(f"median of {runs}: first validated text {f:.1f} s, final message {t:.1f} s ({f / t:.0%} of it)")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5))
