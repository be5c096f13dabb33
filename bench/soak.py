"""Soak: steady traffic for a long time through a loopback Bot API into a real `python -m bot` process.

LLM_PROVIDER=none, so what is measured is the bot itself. Every few seconds a message
goes to one of the chats; the bench records each message's latency (pushed -> answered),
samples the bot process's RSS, and at the end checks that no message was lost.
Run after `python -m retrieval build`:
    .venv/bin/python bench/soak.py [--minutes 30] [--rate 2.0]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import signal
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.telegram import FakeBotAPI  # noqa: E402

QUESTIONS = ["estou com medo do futuro", "o que diz Salmo 23:1?", "como perdoar quem me magoou?",
             "to mto ansioso c/ a prova amanha", "qual a cotação do dólar hoje?", "perdi minha mãe",
             "o que Jesus ensinou sobre o amor?", "Filipenses 4:6-7", "nos Salmos, o que fala de confiança?",
             "como ter paciência?"]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def main(minutes: float, rate: float, chats: int) -> None:
    api = FakeBotAPI()
    await api.start()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = {**os.environ, "LLM_PROVIDER": "none", "TELEGRAM_BOT_TOKEN": api.TOKEN,
               "TELEGRAM_API_BASE_URL": api.url, "HTTP_HOST": "127.0.0.1", "HTTP_PORT": str(port),
               "LOG_LEVEL": "WARNING"}
        env["DATA_DIR"] = os.environ.get("DATA_DIR", "data")  # the built index (and its conversation database)
        process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=ROOT, env=env,
                                                       stdout=asyncio.subprocess.DEVNULL,
                                                       stderr=open(Path(tmp) / "bot.log", "wb"))
        await _ready(port)
        pushed: dict[tuple[int, int], float] = {}  # (chat, n) -> time pushed
        answered: dict[tuple[int, int], float] = {}
        samples: list[tuple[float, float]] = []  # (elapsed s, RSS MB)
        counts = {chat: 0 for chat in range(chats)}
        start = time.monotonic()
        deadline = start + minutes * 60
        n = 0
        next_sample = start
        while time.monotonic() < deadline:
            chat = n % chats
            counts[chat] += 1
            pushed[(chat, counts[chat])] = asyncio.get_running_loop().time()
            api.push(api.message(20_000 + chat, QUESTIONS[n % len(QUESTIONS)]))
            n += 1
            now = time.monotonic()
            if now >= next_sample:
                samples.append((now - start, rss_mb(process.pid)))
                next_sample = now + 30
            _collect(api, pushed, answered, chats)
            await asyncio.sleep(1.0 / rate)
        grace = time.monotonic() + 60
        while len(answered) < len(pushed) and time.monotonic() < grace:
            _collect(api, pushed, answered, chats)
            await asyncio.sleep(0.2)
        samples.append((time.monotonic() - start, rss_mb(process.pid)))
        process.send_signal(signal.SIGTERM)
        await process.wait()
    await api.stop()
    loop_start = min(pushed.values())
    latencies = [(pushed[k], answered[k] - pushed[k]) for k in answered]
    first = [lat for t, lat in latencies if t - loop_start < 300]
    last = [lat for t, lat in latencies if t - loop_start > minutes * 60 - 300]
    warm = [rss for t, rss in samples if t >= 120] or [samples[-1][1]]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{minutes:.0f} min at {rate} msg/s over {chats} chats: {len(pushed)} sent, {len(answered)} answered, "
          f"{len(pushed) - len(answered)} lost")
    print(f"RSS: {samples[0][1]:.0f} MB at start, {warm[0]:.0f} MB after warm-up, {samples[-1][1]:.0f} MB at the end "
          f"(growth after warm-up {samples[-1][1] - warm[0]:+.0f} MB)")
    print(f"latency p50: first 5 min {statistics.median(first) * 1000:.0f} ms, last 5 min "
          f"{statistics.median(last) * 1000:.0f} ms; p95 overall "
          f"{sorted(lat for _, lat in latencies)[int(len(latencies) * 0.95)] * 1000:.0f} ms")


async def _ready(port: int, timeout: float = 300) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline:
            try:
                if (await client.get(f"http://127.0.0.1:{port}/readyz")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.5)
    raise SystemExit("the bot did not become ready")


_seen = {"calls": 0, "per_chat": {}}


def _collect(api, pushed, answered, chats) -> None:
    """Match replies to messages in order per chat (a sources message is not a reply), timed on arrival."""
    per_chat = _seen["per_chat"]
    for index in range(_seen["calls"], len(api.calls)):
        method, params = api.calls[index]
        if method != "sendMessage" or "blockquote" in params.get("text", ""):
            continue
        chat = int(params["chat_id"]) - 20_000
        per_chat[chat] = per_chat.get(chat, 0) + 1
        key = (chat, per_chat[chat])
        if key in pushed and key not in answered:
            answered[key] = api.call_times[index]
    _seen["calls"] = len(api.calls)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--rate", type=float, default=2.0)
    parser.add_argument("--chats", type=int, default=50)
    args = parser.parse_args()
    asyncio.run(main(args.minutes, args.rate, args.chats))
