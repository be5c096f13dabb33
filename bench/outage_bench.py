"""Benchmark: PostgreSQL stopped under steady traffic (WhatsApp and Telegram) while `python -m bot` serves.

    python bench/outage_bench.py --outage 60

Starts a throwaway PostgreSQL (tests/servers.py), the loopback Bot API, Graph API and Ollama, and the real
bot on the index of `.env`. One message per channel every second; the database is stopped for ``--outage``
seconds (WhatsApp gets 503 and redelivers, as Meta does). Reports /healthz latency during the run, how long
after the database returns every message is answered, and whether anything was lost or doubled.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import signal
import statistics
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fakes.llm import FakeLLMServer
from tests.fakes.telegram import FakeBotAPI
from tests.fakes.whatsapp import FakeGraphAPI, whatsapp_delivery
from tests.servers import PostgresServer, free_port
from tests.test_crash_recovery import start_bot
from tests.test_whatsapp import SECRET, VERIFY, signed

WATCH = """
import signal, sys, time, httpx
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
with httpx.Client() as client:
    while True:
        began = time.monotonic()
        client.get(f"http://127.0.0.1:{sys.argv[1]}/healthz", timeout=120)
        print(began, time.monotonic() - began, flush=True)
        time.sleep(0.1)
"""  # /healthz every 0.1 s: (when, seconds) per line; time.monotonic is the same clock in every process


async def run(outage: float, log_path: str = "") -> None:
    server = PostgresServer().start()
    async with FakeBotAPI() as bot_api, FakeGraphAPI() as graph_api, FakeLLMServer() as llm:
        port = free_port()
        env = {**os.environ, "LLM_PROVIDER": "ollama", "OLLAMA_BASE_URL": llm.url,
               "TELEGRAM_BOT_TOKEN": bot_api.TOKEN, "TELEGRAM_API_BASE_URL": bot_api.url,
               "WHATSAPP_ACCESS_TOKEN": FakeGraphAPI.TOKEN, "WHATSAPP_APP_SECRET": SECRET,
               "WHATSAPP_VERIFY_TOKEN": VERIFY, "WHATSAPP_PHONE_NUMBER_ID": FakeGraphAPI.PHONE_ID,
               "WHATSAPP_API_BASE_URL": graph_api.url, "HTTP_HOST": "127.0.0.1", "HTTP_PORT": str(port),
               "LOG_LEVEL": "WARNING", "DATABASE_URL": server.create_database("outage")}
        llm.answer({"chunks": ["A formiga ensina o cuidado (Provérbios 6:6)."]})
        process = await start_bot(env, port)
        sent: dict[int, dict] = {}
        async with httpx.AsyncClient() as client:  # one client: a new one per post costs an SSL context
            async def post_whatsapp(_port: int, payload: dict) -> int:
                body, headers = signed(payload)
                return (await client.post(f"http://127.0.0.1:{port}/whatsapp/webhook", content=body,
                                          headers=headers)).status_code

            async def message(n: int) -> int:
                sent[n] = whatsapp_delivery(f"55119{n:06d}", f"wamid.{n}", f"a formiga e o preguiçoso {n}")
                bot_api.push(bot_api.message(9000 + n, f"a formiga e o preguiçoso {n}"))
                return await post_whatsapp(port, sent[n])

            watcher = await asyncio.create_subprocess_exec(  # its own process: the bench's pauses are not the bot's
                sys.executable, "-c", WATCH, str(port), stdout=asyncio.subprocess.PIPE)
            refused: list[int] = []
            for n in range(1, 4):  # steady traffic before the outage
                if await message(n) != 200:
                    refused.append(n)
                await asyncio.sleep(1)
            server.halt()
            began = time.monotonic()
            n = 3
            while time.monotonic() - began < outage:
                n += 1
                if await message(n) != 200:
                    refused.append(n)
                await asyncio.sleep(1)
            server.resume()
            back = time.monotonic()
            for k in refused:  # what Meta delivers again
                while await post_whatsapp(port, sent[k]) != 200:  # noqa: ASYNC110 (a peer, not an event)
                    await asyncio.sleep(0.5)
            while time.monotonic() - back < 300 and (len(bot_api.sent()) < 2 * n or len(graph_api.sent()) < 2 * n):  # noqa: ASYNC110
                await asyncio.sleep(0.05)
            resumed = time.monotonic() - back
            burst = (back, time.monotonic())
            await asyncio.sleep(3)
            watcher.send_signal(signal.SIGTERM)
            out, _ = await watcher.communicate()
            health = [(float(began), float(seconds)) for began, seconds in
                      (line.split() for line in out.decode().splitlines())]
        process.send_signal(signal.SIGTERM)
        _, err = await process.communicate()
        if log_path:
            await asyncio.to_thread(Path(log_path).write_bytes, err)
    server.stop()
    chats = {m["chat_id"] for m in bot_api.sent()}
    numbers = [m["to"] for m in graph_api.sent()]
    print(f"máquina: {platform.machine()}, {os.cpu_count()} núcleos, Python {platform.python_version()}")
    print(f"banco parado {outage:.0f} s; {n} mensagens por canal ({len(refused)} recusadas com 503 e reenviadas)")
    seconds = sorted(s for _, s in health)
    down = [s for t, s in health if began <= t < burst[0]]
    after = [s for t, s in health if burst[0] <= t <= burst[1]]
    print(f"/healthz: mediana {1000 * statistics.median(seconds):.1f} ms, p99 "
          f"{1000 * seconds[int(0.99 * (len(seconds) - 1))]:.1f} ms, máximo {1000 * seconds[-1]:.1f} ms "
          f"({len(seconds)} chamadas)")
    print(f"/healthz com o banco parado: {spread(down)}; enquanto o atraso é respondido: {spread(after)}")
    print(f"tudo respondido {resumed:.2f} s depois de o banco voltar")
    print(f"Telegram: {len(bot_api.sent())} envios para {len(chats)} conversas (esperado {2 * n} para {n}); "
          f"WhatsApp: {len(numbers)} envios para {len(set(numbers))} números (esperado {2 * n} para {n})")


def spread(seconds: list[float]) -> str:
    """Median, p99 and maximum of some /healthz latencies, in ms."""
    if not seconds:
        return "nenhuma chamada"
    ordered = sorted(seconds)
    p99 = ordered[int(0.99 * (len(ordered) - 1))]
    return (f"mediana {1000 * statistics.median(ordered):.1f} ms, p99 {1000 * p99:.1f} ms, "
            f"máximo {1000 * ordered[-1]:.1f} ms ({len(ordered)} chamadas)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outage", type=float, default=60.0, help="seconds the database stays stopped")
    parser.add_argument("--log", default="", help="write the bot's log (stderr) to this file")
    args = parser.parse_args()
    asyncio.run(run(args.outage, args.log))


if __name__ == "__main__":
    main()
