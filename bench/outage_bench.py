"""Benchmark: PostgreSQL stopped under steady traffic (WhatsApp and Telegram) while `python -m bot` serves.

    python bench/outage_bench.py --outage 60

Starts a throwaway PostgreSQL (tests/servers.py), the loopback Bot API, Graph API and Ollama, and the real
bot on the index of `.env`. One message per channel every second; the database is stopped for ``--outage``
seconds (WhatsApp gets 503 and redelivers, as Meta does, each refused message on its own). When it returns, one
more person writes on each channel. Reports /healthz latency (its own process), when each waiting message and the
new one got their whole answer after the database returned (first, median, last), and whether anything was lost
or doubled. The database is stopped and started in a thread: the loopback peers keep answering meanwhile.
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


class Answers:
    """When each chat got its whole answer (both parts), stamped by a 10-ms watch of the loopback peers."""

    def __init__(self, bot_api: FakeBotAPI, graph_api: FakeGraphAPI):
        self.bot_api, self.graph_api = bot_api, graph_api
        self.done: dict[str, float] = {}  # "te:<chat>" / "wa:<number>" -> monotonic time of the second part

    async def watch(self) -> None:
        while True:
            now, parts = time.monotonic(), {}
            for key in [f"te:{m['chat_id']}" for m in self.bot_api.sent()] + [f"wa:{m['to']}" for m in
                                                                           self.graph_api.sent()]:
                parts[key] = parts.get(key, 0) + 1
                if parts[key] == 2 and key not in self.done:
                    self.done[key] = now
            await asyncio.sleep(0.01)


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
        answers = Answers(bot_api, graph_api)
        watching = asyncio.create_task(answers.watch())
        async with httpx.AsyncClient() as client:  # one client: a new one per post costs an SSL context
            async def post_whatsapp(_port: int, payload: dict) -> int:
                body, headers = signed(payload)
                return (await client.post(f"http://127.0.0.1:{port}/whatsapp/webhook", content=body,
                                          headers=headers)).status_code

            async def message(n: int) -> int:
                sent[n] = whatsapp_delivery(f"55119{n:06d}", f"wamid.{n}", f"a formiga e o preguiçoso {n}")
                bot_api.push(bot_api.message(9000 + n, f"a formiga e o preguiçoso {n}"))
                return await post_whatsapp(port, sent[n])

            async def redeliver(k: int) -> None:  # Meta delivers each refused message again, on its own
                while await post_whatsapp(port, sent[k]) != 200:  # noqa: ASYNC110 (a peer, not an event)
                    await asyncio.sleep(0.5)

            watcher = await asyncio.create_subprocess_exec(  # its own process: the bench's pauses are not the bot's
                sys.executable, "-c", WATCH, str(port), stdout=asyncio.subprocess.PIPE)
            refused: list[int] = []
            for n in range(1, 4):  # steady traffic before the outage
                if await message(n) != 200:
                    refused.append(n)
                await asyncio.sleep(1)
            await asyncio.to_thread(server.halt)  # the loopback peers keep answering meanwhile
            began = time.monotonic()
            n = 3
            while time.monotonic() - began < outage:
                n += 1
                if await message(n) != 200:
                    refused.append(n)
                await asyncio.sleep(1)
            await asyncio.to_thread(server.resume)  # returns once PostgreSQL accepts connections
            back = time.monotonic()
            n += 1  # one person writes right after the return, on each channel: is the bot serving again?
            fresh = asyncio.create_task(message(n))
            await asyncio.gather(*(redeliver(k) for k in refused))
            if await fresh != 200:
                await redeliver(n)
            while time.monotonic() - back < 300 and (len(bot_api.sent()) < 2 * n or len(graph_api.sent()) < 2 * n):  # noqa: ASYNC110
                await asyncio.sleep(0.05)
            resumed = time.monotonic() - back
            burst = (back, time.monotonic())
            await asyncio.sleep(3)
            watching.cancel()
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
    waiting = list(range(4, n))  # written while the database was stopped
    print(f"máquina: {platform.machine()}, {os.cpu_count()} núcleos, Python {platform.python_version()}")
    print(f"banco parado {outage:.0f} s; {n} mensagens por canal ({len(refused)} recusadas com 503 e reenviadas)")
    seconds = sorted(s for _, s in health)
    down = [s for t, s in health if began <= t < burst[0]]
    after = [s for t, s in health if burst[0] <= t <= burst[1]]
    print(f"/healthz: mediana {1000 * statistics.median(seconds):.1f} ms, p99 "
          f"{1000 * seconds[int(0.99 * (len(seconds) - 1))]:.1f} ms, máximo {1000 * seconds[-1]:.1f} ms "
          f"({len(seconds)} chamadas)")
    print(f"/healthz com o banco parado: {spread(down)}; enquanto o atraso é respondido: {spread(after)}")
    for name, key in (("Telegram", lambda k: f"te:{9000 + k}"), ("WhatsApp", lambda k: f"wa:55119{k:06d}")):
        late = sorted(answers.done.get(key(k), float("inf")) - back for k in waiting)
        new = answers.done.get(key(n), float("inf")) - back
        print(f"{name}: as {len(late)} mensagens que esperavam respondidas de {late[0]:.2f} s a {late[-1]:.2f} s "
              f"depois de o banco voltar (mediana {statistics.median(late):.2f} s); uma mensagem nova, escrita "
              f"quando ele volta, respondida em {new:.2f} s")
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
