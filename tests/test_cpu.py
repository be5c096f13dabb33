"""The CPU threads take a backlog's steps oldest message first, whichever channel it came by."""

from __future__ import annotations

import asyncio
import threading

from telegram import Update

from bot import cpu
from bot.channels.whatsapp_intake import inbound_messages
from tests.conftest import started, stopped
from tests.fakes.whatsapp import whatsapp_delivery


async def test_steps_run_in_the_order_their_messages_were_written_and_calls_outside_a_message_first():
    pool, ran, gate = cpu.OrderedPool(1, "test-cpu"), [], threading.Event()
    blocker = asyncio.create_task(pool.run(gate.wait))  # the only thread is busy: everything below queues
    await asyncio.sleep(0.05)

    async def message(name: str, written_at: float, arrival: int):
        cpu.begin(written_at, arrival)
        await pool.run(ran.append, name)

    async def outside():
        await pool.run(ran.append, "store")

    tasks = [asyncio.create_task(message("telegram, 12:00:05", 1796000005.0, 3)),
             asyncio.create_task(message("whatsapp, 12:00:01", 1796000001.0, 9)),
             asyncio.create_task(message("telegram, 12:00:01, arrived first", 1796000001.0, 2)),
             asyncio.create_task(outside())]
    await asyncio.sleep(0.05)
    gate.set()
    await asyncio.gather(blocker, *tasks)
    pool.shutdown()
    assert ran == ["store", "telegram, 12:00:01, arrived first", "whatsapp, 12:00:01", "telegram, 12:00:05"]


async def test_each_channel_tells_when_the_person_wrote(make_channel, bot_api):
    delivery = whatsapp_delivery("5511999990000", "wamid.T1", "oi")
    written = delivery["entry"][0]["changes"][0]["value"]["messages"][0]["timestamp"]
    assert inbound_messages(delivery)[0].meta["sent_at"] == float(written)  # the Cloud API's "timestamp"
    delivery["entry"][0]["changes"][0]["value"]["messages"][0]["timestamp"] = "amanhã"
    assert "sent_at" not in inbound_messages(delivery)[0].meta  # not a time: the inbox's own time is used
    channel = make_channel()
    await started(channel)
    try:
        message = bot_api.message(42, "oi")
        update = Update.de_json(message, channel.bot)
        assert channel.inbound(update).meta["sent_at"] == float(message["message"]["date"])  # Telegram's "date"
    finally:
        await stopped(channel)
