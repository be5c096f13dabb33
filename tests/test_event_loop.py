"""The event loop never waits on the database: commands, buttons, the care team, the verse of the day, leases,
retention, /status, /metrics and the Telegram webhook make their store calls in the database's threads; a SQLite
file held locked by another connection leaves /healthz fast, and what arrived meanwhile is answered, once."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from types import SimpleNamespace

import pytest

from bot import messages
from bot.care.cases import mentioned_case
from bot.care.team import Team
from bot.channels.telegram import TelegramWebhook
from bot.devotional.round import DailyRound
from bot.run import retention
from bot.server import build_server
from bot.status import status_text
from bot.store.leases import Leader
from bot.store.memory import Memory
from bot.supervisor import Supervisor
from tests.conftest import started, stopped
from tests.test_devotional import Clock, at
from tests.test_outages import statements_in_the_loop

TEAM = -902
PERSON = 640
SECRET = {"X-Telegram-Bot-Api-Secret-Token": "s3gr3do"}


async def _said(bot_api, chat_id: int, text: str | None = None, callback: str | None = None, count: int = 1,
                method: str = "sendMessage", chat_type: str = "private") -> dict:
    """Push a message (or a button press) and wait for the ``count``-th call of ``method`` to that chat."""
    before = len(bot_api.sent(method, chat_id=chat_id))
    bot_api.push(bot_api.callback(chat_id, callback) if callback else
                 bot_api.message(chat_id, text, chat_type=chat_type, user_id=77 if chat_type != "private" else None))
    return (await bot_api.wait_for(before + count, method, chat_id=chat_id))[-1]


async def test_every_command_button_and_background_step_makes_no_store_call_in_the_event_loop(
        make_channel, bot_api, aiohttp_client_factory):
    clock = Clock(at(7, 0))
    channel = await started(make_channel(daily_clock=clock, care_team=Team(telegram_chat=str(TEAM))))
    core = channel.conversation
    in_loop = statements_in_the_loop(core.memory.db)
    try:
        await _said(bot_api, PERSON, "a formiga e o preguiçoso", count=2)  # the answer and its sources
        assert (await _said(bot_api, PERSON, "/fontes"))["text"] != messages.NO_SOURCES
        await _said(bot_api, PERSON, "/imagem", method="sendPhoto")  # the last answer's passage
        await _said(bot_api, PERSON, callback="imagem:JHN.14.1", method="sendPhoto")
        assert (await _said(bot_api, PERSON, "/versiculo"))["text"].startswith("☀️ Versículo do dia")
        assert "07:30" in (await _said(bot_api, PERSON, "/diario 7:30"))["text"]
        assert "07:30" in (await _said(bot_api, PERSON, "/diario"))["text"]
        assert (await _said(bot_api, PERSON, "/parar"))["text"].startswith("Pronto: você não recebe mais")
        assert (await _said(bot_api, PERSON, "/nova"))["text"] == messages.NEW_CONVERSATION
        await _said(bot_api, PERSON, "/status")
        await _said(bot_api, PERSON, "/pastor")  # the team is alerted
        code = mentioned_case((await bot_api.wait_for(1, chat_id=TEAM))[0]["text"])
        await _said(bot_api, TEAM, "/casos", chat_type="supergroup")
        heard = len(bot_api.sent(chat_id=PERSON))
        await _said(bot_api, TEAM, f"/responder {code} Estou aqui.", chat_type="supergroup")
        await _said(bot_api, TEAM, f"/encerrar {code}", chat_type="supergroup")
        relayed = await bot_api.wait_for(heard + 2, chat_id=PERSON)  # the team's reply, then the case closed
        assert "Estou aqui." in relayed[heard]["text"]
        await _said(bot_api, PERSON, "/apagar")
        await _said(bot_api, PERSON, callback="apagar:sim", method="editMessageText")

        await _said(bot_api, PERSON, "/diario 7:30")
        clock.now = at(7, 30)
        daily = DailyRound(core.memory.subscriptions, core.devotional.words, core.accept, lambda: {"telegram"})
        before = len(bot_api.sent(chat_id=PERSON))
        assert await daily.round() == 1  # the word queued from the database's threads is delivered
        assert (await bot_api.wait_for(before + 1, chat_id=PERSON))[-1]["text"].startswith("☀️ Versículo do dia")

        supervisor = Supervisor()
        events: list[str] = []

        async def lead():
            events.append("lidera")

        async def step_down():
            events.append("sai")

        leader = Leader(core.memory.leases, "teste", core.replica, lead, step_down, supervisor=supervisor)
        await leader.start()
        await supervisor.stop()
        await leader.stop()
        assert events == ["lidera", "sai"]
        await core.memory.db.call(retention(core.memory, 30))

        core.metrics.watch_outbox(core.inbox)
        client = await aiohttp_client_factory(build_server(lambda: {"index": True},
                                                           [TelegramWebhook(channel, "s3gr3do")], core.metrics))
        assert b"pastor_outbox_pending" in await (await client.get("/metrics")).read()
        posted = await client.post("/telegram/webhook", json=bot_api.message(PERSON + 1, "/ajuda"), headers=SECRET)
        assert posted.status == 200
        await bot_api.wait_for(1, chat_id=PERSON + 1)
    finally:
        await stopped(channel)
    assert in_loop == []


async def test_status_reads_the_database_off_the_loop_and_says_when_it_is_away(tmp_path, mini_index, mini_retriever):
    memory = Memory.open(tmp_path / "m.db")
    in_loop = statements_in_the_loop(memory.db)
    app = SimpleNamespace(index_config=mini_index, retriever=mini_retriever,
                          pastor=SimpleNamespace(llm=None, screener=SimpleNamespace(semantic=False)),
                          started_at=time.time(), errors=SimpleNamespace(recent=lambda: []), memory=memory,
                          ready=lambda: {"index": True, "database": memory.writable()}, replica="maquina:1:abc")
    up = await status_text(app)
    assert "aguardando entrega: 0" in up and "inscrições: nenhuma" in up
    assert (await status_text(app, full=False)).splitlines()[2] == "texto bíblico: pronto"
    assert in_loop == []
    other = sqlite3.connect(tmp_path / "m.db", timeout=0)
    other.execute("begin exclusive")
    try:
        memory.db.outage.failed(sqlite3.OperationalError("database is locked"))
        began = time.monotonic()
        away = await status_text(app)
        assert time.monotonic() - began < 1.0
        assert "INDISPONÍVEL (banco de dados indisponível: OperationalError: database is locked)" in away
        assert "aguardando entrega: desconhecido" in away and "inscrições: desconhecidas" in away
    finally:
        other.rollback()


class Health:
    """/healthz asked every 20 ms through the real server while the test goes on; the slowest answer."""

    def __init__(self, client):
        self.client, self.times, self._stop = client, [], asyncio.Event()

    async def __aenter__(self):
        self._task = asyncio.create_task(self._watch())
        return self

    async def __aexit__(self, *_):
        self._stop.set()
        await self._task

    async def _watch(self):
        while not self._stop.is_set():
            began = time.monotonic()
            assert (await self.client.get("/healthz")).status == 200
            self.times.append(time.monotonic() - began)
            await asyncio.sleep(0.02)


@pytest.mark.parametrize("busy_ms, held", [(3000, 1.5), (300, 1.5)], ids=["waits", "fails-fast"])
async def test_a_locked_sqlite_file_never_freezes_the_loop_and_loses_nothing(
        make_channel, bot_api, aiohttp_client_factory, tmp_path, monkeypatch, busy_ms, held):
    """Another process holds the write lock for ``held`` s. With a busy timeout longer than that (``waits``) the
    webhook's store call waits in its thread and then succeeds; shorter (``fails-fast``), it fails, the breaker
    answers 503 at once and Telegram delivers again. /healthz answers fast all along; every command is answered
    exactly once."""
    monkeypatch.setattr("bot.store.database.BUSY_TIMEOUT_MS", busy_ms)  # injected: the wait a locked write may take
    memory = Memory.open(tmp_path / "locked.db")
    channel = await started(make_channel(memory=memory, daily_clock=Clock(at(7, 0))))
    client = await aiohttp_client_factory(build_server(lambda: {"index": True}, [TelegramWebhook(channel, "s3gr3do")]))
    commands = ["/diario 7:30", "/nova", "/fontes", "/versiculo", "/parar", "a formiga e o preguiçoso"]
    updates = {650 + n: bot_api.message(650 + n, text) for n, text in enumerate(commands)}
    other = sqlite3.connect(tmp_path / "locked.db", timeout=0, check_same_thread=False)
    other.execute("begin immediate")  # the write lock, held as another process would
    release = threading.Timer(held, other.rollback)
    assert (await client.get("/healthz")).status == 200  # the connection opened before the clock starts
    try:
        async with Health(client) as health:
            release.start()
            began = time.monotonic()
            statuses = await asyncio.gather(*(client.post("/telegram/webhook", json=u, headers=SECRET)
                                              for u in updates.values()))
            statuses = [response.status for response in statuses]
            accepted_after = time.monotonic() - began
            for chat, update in updates.items():  # Telegram delivers again what got a 503
                while statuses[chat - 650] == 503:
                    await asyncio.sleep(0.2)
                    statuses[chat - 650] = (await client.post("/telegram/webhook", json=update, headers=SECRET)).status
            for chat in updates:
                await bot_api.wait_for(2 if chat == 655 else 1, chat_id=chat, timeout=30)
            await asyncio.sleep(0.3)  # nothing more arrives: nothing doubled
        assert set(statuses) == {200}
        if busy_ms > held * 1000:
            assert accepted_after >= held * 0.8  # they waited for the lock rather than failing
        assert max(health.times) < 0.5, max(health.times)  # a store call in the loop would stall it ~``held`` s
        assert [len(bot_api.sent(chat_id=chat)) for chat in updates] == [1, 1, 1, 1, 1, 2]
        assert await memory.db.call(memory.subscriptions.get, "telegram", "650") is not None
        assert bot_api.sent(chat_id=651)[0]["text"] == messages.NEW_CONVERSATION
    finally:
        release.cancel()
        other.close()
        await stopped(channel)
