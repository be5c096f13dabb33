"""Poison input: an update or payload that cannot be read is counted, logged once without its text, and skipped;
the rest is served. The real python-telegram-bot Application polls a loopback Bot API; webhooks run on our server."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging

import pytest

from bot import commands
from bot.channels.malformed import Malformed, MalformedUpdate
from bot.channels.telegram import TelegramWebhook
from bot.logs import configure
from bot.metrics import Metrics
from bot.server import build_server
from tests.conftest import started, stopped
from tests.fakes.whatsapp import APP_SECRET, whatsapp_delivery

SECRET_WORDS = "meu segredo de confissão"
DEEP = b"[" * 100_000 + b"]" * 100_000


def _voice_without_duration(bot_api, chat_id: int) -> dict:
    """A voice update python-telegram-bot cannot parse (Voice needs ``duration``), with a caption."""
    return bot_api.message(chat_id, voice={"file_id": "v", "file_unique_id": "w"}, caption=SECRET_WORDS)


def _malformed_records(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if "malformad" in r.getMessage()]


@pytest.fixture()
def debug_logs(capsys):
    """The bot's own logging set-up at DEBUG, written to the captured stderr."""
    configure("DEBUG")
    yield capsys
    configure("WARNING")


async def test_an_unparseable_update_is_skipped_and_polling_goes_on(make_channel, bot_api, debug_logs):
    channel = make_channel()
    first, bad, other_bad, last = (bot_api.message(801, "/ajuda"), _voice_without_duration(bot_api, 802),
                                   _voice_without_duration(bot_api, 803), bot_api.message(804, "/ajuda"))
    for update in (first, bad, other_bad, last):  # one getUpdates batch: good, two poisoned, good
        bot_api.push(update)
    await started(channel)
    try:
        assert (await bot_api.wait_for(1, chat_id=801, timeout=10))[0]["text"] == commands.HELP_TELEGRAM
        assert (await bot_api.wait_for(1, chat_id=804, timeout=10))[0]["text"] == commands.HELP_TELEGRAM
        bot_api.push(bot_api.message(805, "/ajuda"))  # and later chats are still answered
        assert (await bot_api.wait_for(1, chat_id=805, timeout=10))[0]["text"] == commands.HELP_TELEGRAM
        assert bot_api.sent(chat_id=802) == [] and bot_api.sent(chat_id=803) == []
    finally:
        await stopped(channel)
    err = debug_logs.readouterr().err
    assert SECRET_WORDS not in err and "CRITICAL" not in err
    (line,) = [x for x in err.splitlines() if "malformad" in x]  # the same reason twice: logged once
    assert str(bad["update_id"]) in line and "TypeError (duration)" in line
    metrics = channel.conversation.metrics.render().decode()
    assert 'pastor_malformed_updates_total{channel="telegram",reason="TypeError"} 2.0' in metrics
    offsets = [int(p.get("offset") or 0) for p in bot_api.sent("getUpdates")]
    assert max(offsets) > last["update_id"]


async def test_a_poisoned_update_at_the_end_of_a_batch_is_confirmed_too(make_channel, bot_api):
    channel = make_channel()
    bot_api.push(bot_api.message(811, "/ajuda"))
    bad = bot_api.push(_voice_without_duration(bot_api, 812))
    await started(channel)
    try:
        await bot_api.wait_for(1, chat_id=811, timeout=10)
        await bot_api.wait_for(len(bot_api.sent("getUpdates")) + 1, "getUpdates", timeout=10)
        assert int(bot_api.sent("getUpdates")[-1]["offset"]) == bad["update_id"] + 1
    finally:
        await stopped(channel)


async def test_a_non_numeric_chat_id_is_skipped_as_malformed(make_channel, bot_api, caplog):
    channel = make_channel()
    odd = bot_api.message(821, "oi pastor")
    odd["message"]["chat"]["id"] = "abc"
    bot_api.push(odd)
    no_text = bot_api.message(823, "x")
    no_text["message"]["text"] = 316  # parses (python-telegram-bot keeps JSON types), but is no text
    bot_api.push(no_text)
    bot_api.push(bot_api.message(822, "/ajuda"))
    with caplog.at_level(logging.INFO):
        await started(channel)
        try:
            assert (await bot_api.wait_for(1, chat_id=822, timeout=10))[0]["text"] == commands.HELP_TELEGRAM
            await channel.conversation.drain()
        finally:
            await stopped(channel)
    assert [m for m in bot_api.sent() if str(m.get("chat_id")) != "822"] == []  # no reply to a nonsense chat
    assert channel.conversation.inbox.backlog()[0] == 0
    chat_id, no_text = _malformed_records(caplog)
    assert str(odd["update_id"]) in chat_id.getMessage() and "oi pastor" not in caplog.text
    assert "AttributeError" in no_text.getMessage()
    metrics = channel.conversation.metrics.render().decode()
    assert 'reason="chat_id"} 1.0' in metrics and 'reason="AttributeError"} 1.0' in metrics


async def test_a_deeply_nested_telegram_webhook_body_gets_a_400(make_channel, bot_api, aiohttp_client_factory, caplog):
    channel = make_channel()
    await channel.start(webhook_url="https://exemplo.org/telegram/webhook", secret="s3gr3do")
    channel.conversation.start()
    try:
        client = await aiohttp_client_factory(build_server(lambda: {"index": True},
                                                           [TelegramWebhook(channel, "s3gr3do")]))
        ok = {"X-Telegram-Bot-Api-Secret-Token": "s3gr3do", "Content-Type": "application/json"}
        with caplog.at_level(logging.INFO):
            for body in (DEEP, b'{"update_id": 5, "message": ' + b"[" * 100_000 + b"}"):
                response = await client.post("/telegram/webhook", data=body, headers=ok)
                assert response.status == 400 and "Traceback" not in await response.text()
            odd = bot_api.message(831, SECRET_WORDS)
            odd["message"]["chat"]["id"] = "abc"
            assert (await client.post("/telegram/webhook", json=odd, headers=ok)).status == 400
        assert "Traceback" not in caplog.text and SECRET_WORDS not in caplog.text
        assert channel.conversation.inbox.backlog()[0] == 0
        assert 'channel="telegram",reason="json"} 2.0' in channel.conversation.metrics.render().decode()
    finally:
        await stopped(channel)


def _signed(body: bytes) -> dict:
    return {"X-Hub-Signature-256": "sha256=" + hmac.new(APP_SECRET.encode(), body, hashlib.sha256).hexdigest()}


async def test_a_deeply_nested_whatsapp_body_gets_a_400(make_whatsapp, graph_api, caplog):
    channel, client = await make_whatsapp()
    with caplog.at_level(logging.INFO):
        for body in (DEEP, b'{"entry": ' + b"[" * 100_000 + b"}"):
            response = await client.post("/whatsapp/webhook", data=body, headers=_signed(body))
            assert response.status == 400 and "Traceback" not in await response.text()
    assert "Traceback" not in caplog.text and graph_api.posts == []
    assert 'channel="whatsapp",reason="json"} 2.0' in channel.conversation.metrics.render().decode()


async def test_odd_whatsapp_message_shapes_never_get_a_500(make_whatsapp, graph_api, caplog):
    channel, client = await make_whatsapp()
    odd = [whatsapp_delivery("5511977776666", "wamid.P1", type="interactive",
                             interactive={"type": "button_reply", "button_reply": {"id": [[[SECRET_WORDS]]]}}),
           whatsapp_delivery("5511977776666", "wamid.P2", type="interactive",
                             interactive={"type": "button_reply", "button_reply": {"id": {"x": SECRET_WORDS}}}),
           whatsapp_delivery("55119777\x0066", "wamid.P3", SECRET_WORDS)]
    with caplog.at_level(logging.INFO):
        for payload in odd:
            body = json.dumps(payload).encode()
            response = await client.post("/whatsapp/webhook", data=body, headers=_signed(body))
            assert 400 <= response.status < 500 and "Traceback" not in await response.text(), payload
    await channel.conversation.drain()
    assert graph_api.sent() == [] and channel.conversation.inbox.backlog()[0] == 0
    assert "Traceback" not in caplog.text and SECRET_WORDS not in caplog.text
    assert 'channel="whatsapp",reason="shape"} 3.0' in channel.conversation.metrics.render().decode()


def test_the_log_of_skipped_updates_is_rate_limited_per_reason(caplog):
    now = [0.0]
    malformed = Malformed("telegram", Metrics(), logging.getLogger("pastor.test"), every=60, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="pastor.test"):
        for update_id in (1, 2, 3):
            malformed.skip(update_id, MalformedUpdate("chat_id"))
        malformed.skip(4, KeyError("file_id"))  # another reason: its own record
        now[0] = 61.0
        malformed.skip(5, MalformedUpdate("chat_id"))
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 3 and "id 1," in lines[0] and "KeyError" in lines[1]
    assert "id 5," in lines[2] and "mais 2 com o mesmo motivo" in lines[2]
    assert 'reason="chat_id"} 4.0' in malformed.metrics.render().decode()
