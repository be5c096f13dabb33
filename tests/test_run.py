"""`python -m bot` as an operator runs it: HTTP server plus the Telegram channel, stopped by SIGTERM."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import sys

import httpx

from tests.conftest import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_python_m_bot_runs_telegram_by_polling(mini_index, bot_api, tmp_path):
    port = free_port()
    env = {**os.environ, "CORPUS_PATH": str(mini_index.corpus_path), "DATA_DIR": str(mini_index.data_dir),
           "TOPICS_PATH": "", "LLM_PROVIDER": "none", "TELEGRAM_BOT_TOKEN": bot_api.TOKEN,
           "TELEGRAM_API_BASE_URL": bot_api.url, "HTTP_HOST": "127.0.0.1", "HTTP_PORT": str(port),
           "LOG_LEVEL": "INFO"}
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=ROOT, env=env,
                                                   stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    try:
        bot_api.push(bot_api.message(801, "o que diz Salmo 23:2?"))
        answer, sources = await bot_api.wait_for(2, chat_id=801, timeout=90)
        assert "Salmos 23:2" in answer["text"] and "blockquote" in sources["text"]
        async with httpx.AsyncClient() as client:
            assert (await client.get(f"http://127.0.0.1:{port}/healthz")).status_code == 200
            ready = await client.get(f"http://127.0.0.1:{port}/readyz")
            assert ready.status_code == 200 and ready.json()["checks"] == {"index": True, "database": True}
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    log = err.decode()
    assert process.returncode == 0, log
    assert "Telegram por long polling" in log and f"127.0.0.1:{port}" in log
    assert bot_api.TOKEN not in log


async def test_the_port_answers_while_the_index_builds_and_readyz_watches_the_index(mini_config, tmp_path):
    port = free_port()
    env = {**os.environ, "CORPUS_PATH": str(mini_config.corpus_path), "DATA_DIR": str(mini_config.data_dir),
           "TOPICS_PATH": "", "LLM_PROVIDER": "none", "TELEGRAM_BOT_TOKEN": "", "HTTP_HOST": "127.0.0.1",
           "HTTP_PORT": str(port), "LOG_LEVEL": "INFO"}
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=ROOT, env=env,
                                                   stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    seen: list[tuple[int, int, dict]] = []
    try:
        async with httpx.AsyncClient() as client:
            for _ in range(1200):
                try:
                    health = await client.get(f"http://127.0.0.1:{port}/healthz")
                    ready = await client.get(f"http://127.0.0.1:{port}/readyz")
                    seen.append((health.status_code, ready.status_code, ready.json().get("checks", {})))
                    if ready.status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.05)
            building = [checks for h, r, checks in seen if r == 503]
            assert building and all(h == 200 for h, _, _ in seen)  # alive all along, not ready until built
            assert building[-1]["index"] in ("abrindo", "construindo")
            assert seen[-1][1] == 200
            shutil.rmtree(mini_config.chroma_dir)  # the index it serves disappears under it
            gone = await client.get(f"http://127.0.0.1:{port}/readyz")
            assert gone.status_code == 503 and gone.json()["checks"]["index"] is False
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    assert "Traceback" not in err.decode()
