"""`python -m bot` as an operator runs it: HTTP server plus the Telegram channel, stopped by SIGTERM."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sys

import httpx
import pytest

from tests.conftest import ROOT
from tests.servers import free_port

pytestmark = pytest.mark.usefixtures("crisis_cache")  # `python -m bot` finds its crisis model trained


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
            assert ready.status_code == 200
            assert ready.json()["checks"] == {"index": True, "database": True, "tasks": True, "conversations": True}
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    log = err.decode()
    assert process.returncode == 0, log
    assert "Telegram por long polling" in log and f"127.0.0.1:{port}" in log
    assert bot_api.TOKEN not in log


async def test_readyz_waits_until_the_conversations_run(mini_index, bot_api, tmp_path):
    """Telegram slow to answer at start-up: the index is open, the port answers, but /readyz stays 503 (naming
    the conversations) until their workers run; then 200."""
    bot_api.slow["setMyCommands"] = 3.0
    port = free_port()
    env = {**os.environ, "CORPUS_PATH": str(mini_index.corpus_path), "DATA_DIR": str(tmp_path / "data"),
           "TOPICS_PATH": "", "LLM_PROVIDER": "none", "TELEGRAM_BOT_TOKEN": bot_api.TOKEN,
           "TELEGRAM_API_BASE_URL": bot_api.url, "HTTP_HOST": "127.0.0.1", "HTTP_PORT": str(port)}
    shutil.copytree(mini_index.data_dir, tmp_path / "data")
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=ROOT, env=env,
                                                   stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    seen: list[tuple[int, dict]] = []
    try:
        async with httpx.AsyncClient() as client:
            for _ in range(1800):
                try:
                    ready = await client.get(f"http://127.0.0.1:{port}/readyz")
                    seen.append((ready.status_code, ready.json().get("checks", {})))
                    if ready.status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.05)
        starting = [checks for status, checks in seen if status == 503 and checks.get("index") is True]
        assert starting and all(checks["conversations"] is False for checks in starting), seen[-5:]
        assert seen[-1] == (200, {"index": True, "database": True, "tasks": True, "conversations": True})
        assert bot_api.sent("setMyCommands")  # ready only after the slow start-up call was answered
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()


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
            assert [c["index"] for c in building if c.get("index") is not True][-1] in ("abrindo", "construindo")
            assert seen[-1][1] == 200
            shutil.rmtree(mini_config.chroma_dir)  # the index it serves disappears under it
            gone = await client.get(f"http://127.0.0.1:{port}/readyz")
            assert gone.status_code == 503 and gone.json()["checks"]["index"] is False
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    assert "Traceback" not in err.decode()


async def test_the_local_model_is_loaded_at_start_and_kept_loaded(mini_index, bot_api, llm_server, tmp_path):
    llm_server.load_seconds = 0.4
    llm_server.answer({"chunks": ["Ele te guia junto às águas (Salmos 23:2).\n\n", "Descanse nele."], "pace": 0.05})
    port = free_port()
    env = {**os.environ, "CORPUS_PATH": str(mini_index.corpus_path), "DATA_DIR": str(mini_index.data_dir),
           "TOPICS_PATH": "", "LLM_PROVIDER": "ollama", "OLLAMA_BASE_URL": llm_server.url,
           "OLLAMA_KEEP_ALIVE": "-1", "TELEGRAM_BOT_TOKEN": bot_api.TOKEN, "TELEGRAM_API_BASE_URL": bot_api.url,
           "HTTP_HOST": "127.0.0.1", "HTTP_PORT": str(port), "ADMIN_CHAT_IDS": "802", "LOG_LEVEL": "INFO"}
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=ROOT, env=env,
                                                   stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    try:
        bot_api.push(bot_api.message(802, "o que diz Salmo 23:2?"))  # may arrive while the model loads
        answer, _ = await bot_api.wait_for(2, chat_id=802, timeout=90)
        bot_api.push(bot_api.message(802, "/status"))
        status = (await bot_api.wait_for(3, chat_id=802, timeout=30))[2]
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    load = llm_server.requests[0]
    assert load["path"] == "/api/generate" and load["json"]["keep_alive"] == -1  # forever, as configured
    chat = [r for r in llm_server.requests if r["path"] == "/api/chat"]
    assert chat and chat[0]["json"]["keep_alive"] == -1
    assert "modelo na memória: sim (aquecido em 0," in status["text"], err.decode()[-3000:]
    assert "Descanse nele." in answer["text"]
    assert [text for _, text in bot_api.drafts(802) if text][0].startswith("Ele te guia")
    assert "carregado na memória" in err.decode()



async def test_voice_notes_end_to_end_on_both_channels(mini_index, bot_api, graph_api, tmp_path):
    from tests.fakes.audio import ogg_opus
    from tests.fakes.transcription import FakeTranscriptionServer
    from tests.fakes.whatsapp import APP_SECRET, VERIFY_TOKEN, signed, whatsapp_audio

    port = free_port()
    async with FakeTranscriptionServer() as stt:
        stt.answer({"text": "Estou com medo, em quem confiar?"})
        graph_api.media["m-run"] = (ogg_opus(5), "audio/ogg; codecs=opus")
        env = {**os.environ, "CORPUS_PATH": str(mini_index.corpus_path), "DATA_DIR": str(mini_index.data_dir),
               "TOPICS_PATH": "", "LLM_PROVIDER": "none", "TELEGRAM_BOT_TOKEN": bot_api.TOKEN,
               "TELEGRAM_API_BASE_URL": bot_api.url, "WHATSAPP_ACCESS_TOKEN": graph_api.TOKEN,
               "WHATSAPP_APP_SECRET": APP_SECRET, "WHATSAPP_VERIFY_TOKEN": VERIFY_TOKEN,
               "WHATSAPP_PHONE_NUMBER_ID": graph_api.PHONE_ID, "WHATSAPP_API_BASE_URL": graph_api.url,
               "TRANSCRIPTION_PROVIDER": "openai", "TRANSCRIPTION_BASE_URL": f"{stt.url}/v1",
               "TRANSCRIPTION_API_KEY": stt.KEY, "VOICE_MAX_SECONDS": "60",
               "HTTP_HOST": "127.0.0.1", "HTTP_PORT": str(port), "LOG_LEVEL": "DEBUG"}
        process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=ROOT, env=env,
                                                       stderr=asyncio.subprocess.PIPE,
                                                       stdout=asyncio.subprocess.PIPE)
        try:
            bot_api.push(bot_api.voice(803, "v-run", ogg_opus(5), seconds=5))
            heard, answer, sources = await bot_api.wait_for(3, chat_id=803, timeout=90)
            bot_api.push(bot_api.voice(803, "v-long", ogg_opus(90), seconds=90))
            too_long = (await bot_api.wait_for(4, chat_id=803, timeout=30))[3]
            body, headers = signed(whatsapp_audio("5511944443333", "wamid.RUN1", "m-run"))
            async with httpx.AsyncClient() as client:
                response = await client.post(f"http://127.0.0.1:{port}/whatsapp/webhook", content=body,
                                             headers=headers)
            assert response.status_code == 200
            for _ in range(300):
                if len(graph_api.sent("text")) >= 2:
                    break
                await asyncio.sleep(0.1)
        finally:
            process.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    log = err.decode()
    assert process.returncode == 0, log
    assert heard["text"] == "🎙️ “Estou com medo, em quem confiar?”"
    assert "Salmos 56" in answer["text"] and "blockquote" in sources["text"]
    assert "60 segundos" in too_long["text"] and len(stt.requests) == 2  # the long note never reached it
    wa_heard, wa_answer = [m["text"]["body"] for m in graph_api.sent("text")[:2]]
    assert wa_heard == heard["text"] and "Salmos 56" in wa_answer
    for secret in (stt.KEY, bot_api.TOKEN, graph_api.TOKEN, APP_SECRET):
        assert secret not in log


@pytest.mark.waits
async def test_the_daily_word_fires_once_at_its_time_across_restarts(mini_index, bot_api, tmp_path):
    """Subscribe for the coming minute, restart before it (the 7:29 restart), get the word once at the time,
    restart again (no second word); /versiculo, /imagem and inline mode through the same process."""
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    port = free_port()
    env = {**os.environ, "CORPUS_PATH": str(mini_index.corpus_path), "DATA_DIR": str(tmp_path / "data"),
           "TOPICS_PATH": "", "LLM_PROVIDER": "none", "TELEGRAM_BOT_TOKEN": bot_api.TOKEN,
           "TELEGRAM_API_BASE_URL": bot_api.url, "HTTP_HOST": "127.0.0.1", "HTTP_PORT": str(port),
           "TIMEZONE": "America/Sao_Paulo"}
    shutil.copytree(mini_index.data_dir, tmp_path / "data")

    async def start():
        return await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=ROOT, env=env,
                                                    stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)

    async def stop(process) -> str:
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), timeout=60)
        assert process.returncode == 0, err.decode()
        return err.decode()

    def words() -> list[dict]:
        return [m for m in bot_api.delivered(811) if m["text"].startswith("☀️ Versículo do dia")]

    process = await start()
    try:
        bot_api.push(bot_api.message(811, "/versiculo"))
        asked = (await bot_api.wait_for_delivered(1, chat_id=811, timeout=90))[0]
        assert asked["text"].startswith("☀️ Versículo do dia")
        now = datetime.now(ZoneInfo("America/Sao_Paulo"))
        when = now + timedelta(minutes=1 if now.second < 45 else 2)
        bot_api.push(bot_api.message(811, f"/diario {when:%H:%M}"))
        assert f"{when:%H:%M}" in (await bot_api.wait_for_delivered(2, chat_id=811))[1]["text"]
    finally:
        await stop(process)
    assert datetime.now(ZoneInfo("America/Sao_Paulo")) < when.replace(second=0)  # restarted before the time
    process = await start()
    try:
        deadline = asyncio.get_running_loop().time() + 200
        while len(words()) < 2:
            assert asyncio.get_running_loop().time() < deadline, bot_api.delivered(811)
            await asyncio.sleep(0.2)
        assert "/parar" in words()[1]["text"]
        assert words()[1]["text"].split("\n\n")[1] == asked["text"].split("\n\n")[1]  # the same verse
        bot_api.push(bot_api.message(811, "/imagem Salmos 23:1"))
        photo = (await bot_api.wait_for(1, "sendPhoto", chat_id=811, timeout=30))[0]
        assert photo["caption"].startswith("“O Senhor cuida de mim") and photo["photo"][:4] == b"\x89PNG"
        bot_api.push(bot_api.inline_query(811, "Salmos 23:2"))
        inline = (await bot_api.wait_for(1, "answerInlineQuery", timeout=30))[0]
        assert "Ele me leva a descansar" in inline["results"]
        log = await stop(process)
    except BaseException:
        await stop(process)
        raise
    assert "versículo do dia: 1 envio(s) na fila" in log
    process = await start()  # restarted the same day, after the time: the start round sends nothing
    try:
        before = len(bot_api.sent(chat_id=811))
        bot_api.push(bot_api.message(811, "/diario"))
        current = (await bot_api.wait_for(before + 1, chat_id=811, timeout=90))[-1]
        assert current["text"].startswith("Você recebe o versículo do dia")
        await asyncio.sleep(1)
    finally:
        log = await stop(process)
    assert len(words()) == 2 and "envio(s) na fila" not in log


async def test_a_whatsapp_delivery_that_arrives_while_the_index_builds_is_stored_and_answered_once_ready(
        mini_config, graph_api):
    from tests.fakes.whatsapp import FakeGraphAPI, whatsapp_delivery
    from tests.test_crash_recovery import post_whatsapp
    from tests.test_whatsapp import SECRET, VERIFY

    port = free_port()
    env = {**os.environ, "CORPUS_PATH": str(mini_config.corpus_path), "DATA_DIR": str(mini_config.data_dir),
           "TOPICS_PATH": "", "LLM_PROVIDER": "none", "TELEGRAM_BOT_TOKEN": "", "HTTP_HOST": "127.0.0.1",
           "HTTP_PORT": str(port), "LOG_LEVEL": "INFO", "WHATSAPP_ACCESS_TOKEN": FakeGraphAPI.TOKEN,
           "WHATSAPP_APP_SECRET": SECRET, "WHATSAPP_VERIFY_TOKEN": VERIFY,
           "WHATSAPP_PHONE_NUMBER_ID": FakeGraphAPI.PHONE_ID, "WHATSAPP_API_BASE_URL": graph_api.url}
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=ROOT, env=env,
                                                   stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL)
    try:
        async with httpx.AsyncClient() as client:
            for _ in range(1200):  # the port answers first, while the index is still being built
                try:
                    if (await client.get(f"http://127.0.0.1:{port}/healthz")).status_code == 200:
                        break
                except httpx.TransportError:
                    await asyncio.sleep(0.05)
            before = await client.get(f"http://127.0.0.1:{port}/readyz")
            assert before.status_code == 503 and before.json()["checks"]["index"] in ("abrindo", "construindo")
            delivery = whatsapp_delivery("5511900003333", "wamid.EARLY", "a formiga e o preguiçoso")
            assert await post_whatsapp(port, delivery) == 200  # stored, not a 503 retried for hours
            assert (await client.get(f"http://127.0.0.1:{port}/readyz")).status_code == 503
            for _ in range(3000):
                if graph_api.sent():
                    break
                await asyncio.sleep(0.1)
            await asyncio.sleep(1.0)
            assert [m["to"] for m in graph_api.sent()] == ["5511900003333"] * 2  # the answer and its sources
            assert "formiga" in graph_api.sent()[0]["text"]["body"]
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()[-3000:]
