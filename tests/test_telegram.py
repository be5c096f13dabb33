"""The real python-telegram-bot Application against a loopback Bot API."""

from __future__ import annotations

import asyncio
import json

import httpx

from bot import commands, messages, texts
from bot.channels.telegram import TelegramWebhook
from bot.delivery import DeliveryPolicy
from bot.llm.ollama import OllamaProvider
from bot.ratelimit import ChatRateLimit
from bot.server import build_server
from bot.store.memory import Memory
from tests.conftest import started, stopped


async def test_answer_then_one_collapsed_sources_message(make_channel, bot_api):
    channel = await started(make_channel())
    try:
        bot_api.push(bot_api.message(501, "o que diz Salmo 23:1?"))
        answer, sources = await bot_api.wait_for(2, chat_id=501)
        assert answer["parse_mode"] == "HTML" and answer["text"].startswith(texts.EXTRACTIVE_REFERENCE_INTRO)
        assert "<blockquote expandable><b>Salmos 23:1</b> O Senhor cuida de mim" in sources["text"]
        assert bot_api.sent("sendMessageDraft", 501)[0]["text"] == ""  # "Pensando…" while it forms
        assert [c["command"] for c in json.loads(bot_api.sent("setMyCommands")[0]["commands"])] == [
            "start", "ajuda", "fontes", "status", "nova", "versiculo", "diario", "parar", "imagem", "pastor", "apagar"]
        assert json.loads(sources["reply_markup"])["inline_keyboard"][0][0]["callback_data"] == "imagem:PSA.23.1"
    finally:
        await stopped(channel)


async def test_start_and_nova(make_channel, bot_api, tmp_path):
    channel = await started(make_channel())
    try:
        bot_api.push(bot_api.message(514, "a formiga e o preguiçoso"))
        await bot_api.wait_for(2, chat_id=514)
        bot_api.push(bot_api.message(514, "/nova"))
        bot_api.push(bot_api.message(514, "/start"))
        replies = await bot_api.wait_for(4, chat_id=514)
        assert replies[2]["text"] == messages.NEW_CONVERSATION
        assert "Bíblia de teste" in replies[3]["text"] and "/apagar" in replies[3]["text"]
        assert channel.conversation.memory.window("514") == []
        assert channel.conversation.memory.last_sources("514")[1]  # /nova forgets the window, not the sources
    finally:
        await stopped(channel)


async def test_no_sources_message_without_sources(make_channel, bot_api):
    channel = await started(make_channel())
    try:
        bot_api.push(bot_api.message(502, "qual a cotação do dólar hoje?"))
        bot_api.push(bot_api.message(502, "/ajuda"))
        first, second = await bot_api.wait_for(2, chat_id=502)
        assert first["text"] == texts.NO_EVIDENCE and second["text"] == commands.HELP_TELEGRAM
    finally:
        await stopped(channel)


async def test_fontes_after_a_restart_status_and_erase(make_channel, bot_api, tmp_path, state_url):
    channel = await started(make_channel())
    bot_api.push(bot_api.message(503, "a formiga e o preguiçoso"))
    await bot_api.wait_for(2, chat_id=503)
    await stopped(channel)
    memory = Memory.connect(state_url, tmp_path)  # a new process, the same database
    channel = await started(make_channel(memory=memory))
    try:
        bot_api.push(bot_api.message(503, "/fontes"))
        bot_api.push(bot_api.message(503, "/status"))
        replies = await bot_api.wait_for(4, chat_id=503)
        assert "<b>Provérbios 6:1</b>" in replies[2]["text"] and replies[3]["text"].startswith("índice: pronto")
        bot_api.push(bot_api.message(503, "/apagar"))
        confirm = (await bot_api.wait_for(5, chat_id=503))[4]
        buttons = json.loads(confirm["reply_markup"])["inline_keyboard"][0]
        assert [b["callback_data"] for b in buttons] == ["apagar:sim", "apagar:nao"]
        bot_api.push(bot_api.callback(503, "apagar:sim"))
        edited = await bot_api.wait_for(1, "editMessageText")
        assert edited[0]["text"] == messages.ERASED
        assert memory.window("503") == [] and memory.last_sources("503") == ("", [])
        assert bot_api.sent("answerCallbackQuery")
    finally:
        await stopped(channel)


async def test_long_answers_are_split_and_escaped(make_channel, bot_api, llm_server):
    paragraph = "Deus <b>cuida</b> de você & de todos (Salmos 23:1). " * 40
    llm_server.answer({"chunks": [paragraph.strip() + "\n\n"] * 4})
    async with httpx.AsyncClient(timeout=5) as client:
        channel = await started(make_channel(OllamaProvider(client, llm_server.url, "qwen2.5:1.5b")))
        try:
            bot_api.push(bot_api.message(504, "o que diz Salmo 23:1?"))
            await asyncio.sleep(0.5)
            sent = await bot_api.wait_for(3, chat_id=504)
            parts = [m["text"] for m in sent if "blockquote" not in m["text"]]
            assert len(parts) >= 2 and all(len(p) <= 4096 for p in parts)
            assert "&lt;b&gt;cuida&lt;/b&gt;" in parts[0] and "&amp;" in parts[0] and "<b>cuida" not in parts[0]
        finally:
            await stopped(channel)


async def test_non_text_groups_edits_and_channels(make_channel, bot_api):
    channel = await started(make_channel())
    try:
        bot_api.push(bot_api.message(505, sticker={"file_id": "s", "file_unique_id": "u", "type": "regular",
                                                   "width": 1, "height": 1, "is_animated": False,
                                                   "is_video": False}))
        bot_api.push(bot_api.message(505, voice={"file_id": "v", "file_unique_id": "w", "duration": 3}))
        bot_api.push({"update_id": bot_api.update_id(), "edited_message": bot_api.message(505, "editada")["message"]})
        bot_api.push(bot_api.message(-600, "a formiga e o preguiçoso", chat_type="supergroup", user_id=7))
        bot_api.push(bot_api.message(-600, "@pastor_online_bot a formiga e o preguiçoso", chat_type="supergroup",
                                     user_id=7))
        bot_api.push(bot_api.message(-601, "a formiga e o preguiçoso", chat_type="group", user_id=8,
                                     reply_to_bot=True))
        bot_api.push({"update_id": bot_api.update_id(), "channel_post": {
            "message_id": 9, "date": 1796000000, "chat": {"id": -700, "type": "channel", "title": "Canal"},
            "text": "a formiga"}})
        assert [m["text"] for m in await bot_api.wait_for(2, chat_id=505)] == [messages.ONLY_TEXT] * 2
        await bot_api.wait_for(2, chat_id=-600)
        await bot_api.wait_for(2, chat_id=-601)
        await asyncio.sleep(0.5)
        assert len(bot_api.sent(chat_id=505)) == 2  # the edit got no reply
        assert len(bot_api.sent(chat_id=-600)) == 2  # only the message that mentioned the bot
        assert bot_api.sent(chat_id=-700) == []
    finally:
        await stopped(channel)


async def test_duplicate_update_is_processed_once(make_channel, bot_api):
    channel = make_channel()
    update = bot_api.message(506, "a formiga e o preguiçoso")
    bot_api.push(update)
    bot_api.push(json.loads(json.dumps(update)))
    await started(channel)
    try:
        await bot_api.wait_for(2, chat_id=506)
        await asyncio.sleep(0.5)
        assert len(bot_api.sent(chat_id=506)) == 2
    finally:
        await stopped(channel)


async def test_429_from_the_bot_api_is_retried(make_channel, bot_api):
    bot_api.failures["sendMessage"] = [{"error_code": 429, "description": "Too Many Requests: retry after 1",
                                        "parameters": {"retry_after": 1}}]
    channel = await started(make_channel())
    try:
        bot_api.push(bot_api.message(507, "/ajuda"))
        sent = await bot_api.wait_for(2, chat_id=507)  # the refused attempt and the delivered one
        assert sent[-1]["text"] == commands.HELP_TELEGRAM
    finally:
        await stopped(channel)


async def test_a_storm_of_429s_delays_the_answer_and_its_sources_but_loses_and_doubles_nothing(make_channel,
                                                                                               bot_api):
    channel = make_channel(sleep=asyncio.sleep, policy=DeliveryPolicy(attempts=3, later=2.0))
    await started(channel)
    try:
        storm = 6.0  # longer than the attempts made at once (about 2 s): the answer is postponed and retried later
        bot_api.storm_until = asyncio.get_running_loop().time() + storm
        bot_api.push(bot_api.message(515, "a formiga e o preguiçoso"))
        await asyncio.sleep(1.0)
        inbox = channel.conversation.inbox
        assert bot_api.delivered(515) == [] and inbox.backlog()[0] == 1  # pending, not dropped
        answer, sources = await bot_api.wait_for_delivered(2, chat_id=515, timeout=40)
        assert bot_api.call_times[-1] >= bot_api.storm_until
        assert "Provérbios" in answer["text"] and "blockquote" in sources["text"]  # the answer first
        await asyncio.sleep(1.0)
        assert len(bot_api.delivered(515)) == 2 and inbox.backlog()[0] == 0
        metrics = channel.conversation.metrics.render().decode()
        assert 'pastor_deliveries_total{channel="telegram",result="postponed"}' in metrics
        assert 'pastor_deliveries_total{channel="telegram",result="delivered"} 1.0' in metrics
    finally:
        await stopped(channel)


async def test_a_refused_message_is_not_retried_and_its_sources_never_go_alone(make_channel, bot_api):
    bot_api.failures["sendMessage"] = [{"error_code": 400, "description": "Bad Request: chat not found"}]
    channel = await started(make_channel())
    try:
        bot_api.push(bot_api.message(516, "a formiga e o preguiçoso"))
        bot_api.push(bot_api.message(516, "/ajuda"))
        await bot_api.wait_for_delivered(1, chat_id=516)
        await asyncio.sleep(0.5)
        assert len(bot_api.sent(chat_id=516)) == 2  # the refused answer once (no retry), then the help
        assert [m["text"] for m in bot_api.delivered(516)] == [commands.HELP_TELEGRAM]  # no sources without the answer
    finally:
        await stopped(channel)


async def test_rate_limit_waits_politely_and_loses_nothing(make_channel, bot_api):
    channel = await started(make_channel(rate_limit=ChatRateLimit(per_minute=2)))
    try:
        for n in range(3):
            bot_api.push(bot_api.message(508, f"/ajuda {n}"))
        for text in ("a formiga e o preguiçoso", "Salmo 23:1", "o que diz Salmo 23:2?"):
            bot_api.push(bot_api.message(509, text))
        texts_509 = [m["text"] for m in await bot_api.wait_for(6, chat_id=509)]
        notes = [t for t in texts_509 if t.startswith("Recebi sua mensagem")]
        answers = [t for t in texts_509 if t.startswith(texts.EXTRACTIVE_INTRO) or t.startswith("Eis")]
        assert len(notes) == 1 and len(answers) == 3
        assert "Salmos 23:2" in answers[-1]  # in order: the last message answered last
    finally:
        await stopped(channel)


async def test_chats_run_concurrently_but_each_in_order(make_channel, bot_api):
    channel = await started(make_channel())
    try:
        for n in (1, 2, 3):
            bot_api.push(bot_api.message(510, f"o que diz Salmo 23:{n}?"))
            bot_api.push(bot_api.message(511, f"o que diz Salmo 23:{n}?"))
        for chat in (510, 511):
            answers = [m["text"] for m in await bot_api.wait_for(6, chat_id=chat) if "blockquote" not in m["text"]]
            assert [a.rsplit("(", 1)[1] for a in answers] == ["Salmos 23:1)", "Salmos 23:2)", "Salmos 23:3)"]
    finally:
        await stopped(channel)


async def test_a_handler_error_gets_an_apology_and_the_bot_goes_on(make_channel, bot_api):
    channel = make_channel()
    original = channel.conversation.pastor.reply

    async def flaky(chat_id, text, **kwargs):
        if "explode" in text:
            raise RuntimeError("falha de teste")
        return await original(chat_id, text, **kwargs)

    channel.conversation.pastor.reply = flaky
    await started(channel)
    try:
        bot_api.push(bot_api.message(512, "explode"))
        bot_api.push(bot_api.message(512, "/ajuda"))
        sent = await bot_api.wait_for(2, chat_id=512)
        assert [m["text"] for m in sent] == [messages.SORRY, commands.HELP_TELEGRAM]
    finally:
        await stopped(channel)


async def test_webhook_secret_and_delivery(make_channel, bot_api, aiohttp_client_factory):
    channel = make_channel()
    await channel.start(webhook_url="https://exemplo.org/telegram/webhook", secret="s3gr3do")
    try:
        assert bot_api.sent("setWebhook")[0]["secret_token"] == "s3gr3do"
        channel.conversation.start()
        server = build_server(lambda: {"index": True}, [TelegramWebhook(channel, "s3gr3do")])
        client = await aiohttp_client_factory(server)
        update = bot_api.message(513, "/ajuda")
        assert (await client.post("/telegram/webhook", json=update)).status == 403
        assert (await client.post("/telegram/webhook", json=update,
                                  headers={"X-Telegram-Bot-Api-Secret-Token": "errado"})).status == 403
        assert (await client.post("/telegram/webhook", data=b"{nao e json",
                                  headers={"X-Telegram-Bot-Api-Secret-Token": "s3gr3do"})).status == 400
        ok = await client.post("/telegram/webhook", json=update, headers={"X-Telegram-Bot-Api-Secret-Token": "s3gr3do"})
        assert ok.status == 200
        assert (await bot_api.wait_for(1, chat_id=513))[0]["text"] == commands.HELP_TELEGRAM
        health = await client.get("/healthz")
        assert health.status == 200 and (await client.get("/readyz")).status == 200
    finally:
        await stopped(channel)


async def test_hostile_webhook_bodies_get_a_4xx_never_a_500(make_channel, bot_api, aiohttp_client_factory):
    channel = make_channel()
    await channel.start(webhook_url="https://exemplo.org/telegram/webhook", secret="s3gr3do")
    channel.conversation.start()
    try:
        client = await aiohttp_client_factory(build_server(lambda: {"index": True}, [TelegramWebhook(channel,
                                                                                                     "s3gr3do")]))
        ok = {"X-Telegram-Bot-Api-Secret-Token": "s3gr3do"}
        for body in ({"update_id": 1, "message": "uma string"}, {"update_id": "1"}, [1], {"update_id": 2,
                     "message": {"message_id": 1, "date": 1, "chat": "x"}},
                     {"update_id": 3, "callback_query": {"id": 1, "from": []}}):
            response = await client.post("/telegram/webhook", json=body, headers=ok)
            assert 400 <= response.status < 500 and "Traceback" not in await response.text(), body
        odd = await client.post("/telegram/webhook", json={"update_id": 4},
                                headers={"X-Telegram-Bot-Api-Secret-Token": "s3gr3do-é".encode().decode("latin-1")})
        assert odd.status == 403
        assert channel.conversation.inbox.backlog()[0] == 0
    finally:
        await stopped(channel)


async def test_full_status_only_for_admins(make_channel, bot_api):
    channel = await started(make_channel(admins=frozenset({"518"})))
    try:
        bot_api.push(bot_api.message(517, "/status"))
        bot_api.push(bot_api.message(518, "/status"))
        (someone,) = await bot_api.wait_for_delivered(1, chat_id=517)
        (admin,) = await bot_api.wait_for_delivered(1, chat_id=518)
        assert someone["text"] == "resumo" and admin["text"].startswith("índice: pronto")
    finally:
        await stopped(channel)


async def test_per_chat_state_is_released_when_chats_go_quiet(make_channel, bot_api):
    channel = await started(make_channel())
    try:
        for chat in range(600, 640):
            bot_api.push(bot_api.message(chat, "/ajuda"))
        await bot_api.wait_for_delivered(40)
        await channel.conversation.drain()
        assert channel.conversation._workers == {}  # no lock or task kept per chat ever seen
    finally:
        await stopped(channel)
