"""The process killed with -9 while a slow model answers: after a restart every message is answered once."""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import httpx
import pytest

from tests.conftest import ROOT
from tests.fakes.whatsapp import FakeGraphAPI, whatsapp_delivery
from tests.servers import free_port
from tests.test_whatsapp import SECRET, VERIFY, signed

pytestmark = pytest.mark.usefixtures("crisis_cache")  # `python -m bot` finds its crisis model trained


def bot_env(mini_index, bot_api, graph_api, llm_server, port: int) -> dict:
    telegram = {"TELEGRAM_BOT_TOKEN": bot_api.TOKEN, "TELEGRAM_API_BASE_URL": bot_api.url} if bot_api else {}
    return {**os.environ, "CORPUS_PATH": str(mini_index.corpus_path), "DATA_DIR": str(mini_index.data_dir),
            "TOPICS_PATH": "", "LLM_PROVIDER": "ollama", "OLLAMA_BASE_URL": llm_server.url, **telegram,
            "WHATSAPP_ACCESS_TOKEN": FakeGraphAPI.TOKEN, "WHATSAPP_APP_SECRET": SECRET,
            "WHATSAPP_VERIFY_TOKEN": VERIFY, "WHATSAPP_PHONE_NUMBER_ID": FakeGraphAPI.PHONE_ID,
            "WHATSAPP_API_BASE_URL": graph_api.url, "HTTP_HOST": "127.0.0.1", "HTTP_PORT": str(port),
            "LOG_LEVEL": "INFO", "SHUTDOWN_GRACE_SECONDS": "30"}


async def start_bot(env: dict, port: int) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=ROOT, env=env,
                                                   stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL,
                                                   start_new_session=True)  # its workers go with it
    deadline = asyncio.get_running_loop().time() + 150  # a loaded 2-core CI machine starts slowly
    async with httpx.AsyncClient() as client:
        while asyncio.get_running_loop().time() < deadline and process.returncode is None:
            try:
                if (await client.get(f"http://127.0.0.1:{port}/readyz")).status_code == 200:
                    return process
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.1)
    if process.returncode is None:
        os.killpg(process.pid, signal.SIGKILL)  # and any worker still holding its stderr open
    _, err = await asyncio.wait_for(process.communicate(), timeout=30)
    raise AssertionError(f"o bot não ficou pronto:\n{err.decode()[-3000:]}")


async def until(condition, timeout: float = 60) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "tempo esgotado"
        await asyncio.sleep(0.05)


async def until_or_log(process: asyncio.subprocess.Process, condition, timeout: float = 60, seen=lambda: "") -> None:
    """`until`, and when time runs out the bot is stopped and its log (and ``seen()``) shown with the failure."""
    try:
        await until(condition, timeout)
    except AssertionError:
        if process.returncode is None:
            os.killpg(process.pid, signal.SIGKILL)
        _, err = await asyncio.wait_for(process.communicate(), timeout=30)
        raise AssertionError(f"tempo esgotado; visto: {seen()}\nlog do bot:\n{err.decode()[-4000:]}") from None


def chats(llm_server) -> int:
    """Answers the model was asked for (the warm-up's empty /api/generate is not one)."""
    return sum(1 for request in llm_server.requests if request["path"] == "/api/chat")


async def post_whatsapp(port: int, payload: dict) -> int:
    body, headers = signed(payload)
    async with httpx.AsyncClient() as client:
        response = await client.post(f"http://127.0.0.1:{port}/whatsapp/webhook", content=body, headers=headers)
    return response.status_code


async def test_kill_9_mid_answer_then_restart_answers_each_message_once(mini_index, bot_api, graph_api, llm_server):
    port = free_port()
    env = bot_env(mini_index, bot_api, graph_api, llm_server, port)
    llm_server.answer({"chunks": ["Nunca chega."], "delay": 120})  # a slow model: still thinking at the kill
    process = await start_bot(env, port)
    update = bot_api.message(901, "a formiga e o preguiçoso")
    bot_api.push(update)
    delivery = whatsapp_delivery("5511900001111", "wamid.K1", "a formiga e o preguiçoso")
    assert await post_whatsapp(port, delivery) == 200
    await until(lambda: chats(llm_server) >= 2)  # both answers are being written
    await until(lambda: any(m == "getUpdates" and int(p.get("offset") or 0) > update["update_id"]
                            for m, p in bot_api.calls))  # Telegram was told the update arrived
    process.kill()
    await process.wait()
    assert bot_api.sent(chat_id=901) == [] and graph_api.sent() == []

    llm_server.answer({"chunks": ["O trabalho da formiga ensina o cuidado (Provérbios 6:6)."]})
    process = await start_bot(env, port)  # no redelivery: the messages come back from the inbox
    try:
        answer, sources = await bot_api.wait_for(2, chat_id=901, timeout=60)
        assert "formiga" in answer["text"] and "blockquote" in sources["text"]
        await until(lambda: len(graph_api.sent()) >= 2)
        text, button = graph_api.sent()
        assert "formiga" in text["text"]["body"] and button["type"] == "interactive"

        bot_api.push(update)  # a late redelivery of both is not answered again
        assert await post_whatsapp(port, delivery) == 200
        await asyncio.sleep(1.5)
        assert len(bot_api.sent(chat_id=901)) == 2 and len(graph_api.sent()) == 2
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    log = err.decode()
    assert process.returncode == 0, log
    assert "retomadas 2 conversa(s)" in log
    assert "concessão(ões) de uma execução anterior desta máquina liberada(s)" in log  # resumed without waiting
    assert bot_api.TOKEN not in log and FakeGraphAPI.TOKEN not in log


async def test_sigterm_lets_the_answer_in_flight_finish(mini_index, bot_api, graph_api, llm_server):
    port = free_port()
    env = bot_env(mini_index, bot_api, graph_api, llm_server, port)
    llm_server.answer({"chunks": ["A formiga ensina o cuidado (Provérbios 6:6)."], "delay": 2})
    process = await start_bot(env, port)
    bot_api.push(bot_api.message(902, "a formiga e o preguiçoso"))
    await until(lambda: chats(llm_server) >= 1)
    process.send_signal(signal.SIGTERM)  # the model is still writing
    _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    answer, sources = bot_api.delivered(902)
    assert "formiga" in answer["text"] and "blockquote" in sources["text"]
