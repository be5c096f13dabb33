"""Replicas sharing one database: leases elect one Telegram poller and split chats, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import concurrent.futures
import signal
import time
from dataclasses import replace

import psycopg
import pytest

from bot.store.leases import Leader
from bot.store.memory import Memory
from retrieval.index.builder import build_index
from retrieval.index.config import IndexConfig
from retrieval.startup import IndexNotReady, open_retriever
from tests.conftest import MINI_VERSES
from tests.fakes.whatsapp import whatsapp_delivery
from tests.servers import ChromaServer, free_port
from tests.test_crash_recovery import bot_env, post_whatsapp, start_bot, until

pytestmark = pytest.mark.usefixtures("crisis_cache")  # `python -m bot` finds its crisis model trained


async def test_one_leader_at_a_time_and_a_successor_when_it_dies(database_url, tmp_path):
    events: list[str] = []

    def leader(name: str) -> Leader:
        memory = Memory.connect(database_url, tmp_path)

        async def lead():
            events.append(f"{name} lidera")

        async def step_down():
            events.append(f"{name} sai")

        return Leader(memory.leases, "telegram-poller", name, lead, step_down, seconds=0.6)

    first, second = leader("a"), leader("b")
    await first.start()
    await second.start()
    await asyncio.sleep(0.5)
    assert events == ["a lidera"] and first.leading and not second.leading
    await first.supervisor.stop()  # "a" freezes or dies: it neither renews nor releases
    await asyncio.sleep(1.2)
    assert events == ["a lidera", "b lidera"] and second.leading
    first.supervisor.periodic("renovar", first._round, 0.2, now=False)  # "a" comes back, finds "b" leading
    await asyncio.sleep(0.5)
    assert events == ["a lidera", "b lidera", "a sai"] and not first.leading
    await second.stop()  # a clean stop releases at once
    await asyncio.sleep(0.5)
    assert events[-2:] == ["b sai", "a lidera"]
    await first.stop()


# ---- a shared index: joined, not rebuilt ------------------------------------------------------

@pytest.fixture(scope="module")
def vector_server(tmp_path_factory):
    server = ChromaServer(tmp_path_factory.mktemp("chroma-shared")).start()
    yield server.url
    server.stop()


def replica_config(mini_config, data_dir, chroma_url, database_url) -> IndexConfig:
    return replace(mini_config, data_dir=data_dir, chroma_url=chroma_url, database_url=database_url)


def test_a_replica_joins_the_shared_index_without_encoding_a_verse(mini_config, use_embedder, postgres,
                                                                    vector_server, tmp_path):
    database = postgres.create_database("shared_join").replace("postgres@", "postgres:senha-do-banco@")
    first = replica_config(mini_config, tmp_path / "a", vector_server, database)
    assert first.shared and "senha-do-banco" not in repr(first)
    report = build_index(first, embedder=use_embedder)
    assert report.vectors_upserted == MINI_VERSES
    second = replica_config(mini_config, tmp_path / "b", vector_server, database)  # its own, empty DATA_DIR
    with pytest.raises(IndexNotReady, match="BM25 ausente"):
        open_retriever(second, embedder=use_embedder)
    joined = build_index(second, embedder=CountingEmbedder(use_embedder))
    assert joined.lexical_built and joined.vectors_upserted == 0 and joined.texts_embedded == 0
    assert joined.seconds < 10
    retriever = open_retriever(second, embedder=use_embedder)
    assert retriever.search("o preguiçoso e a formiga", k=1).hits[0].id == "PRO.6.1"
    assert build_index(second, embedder=use_embedder).skipped  # and a restart does nothing at all


def test_two_replicas_building_at_once_build_once(mini_config, use_embedder, postgres, vector_server, tmp_path):
    database = postgres.create_database("shared_race")
    configs = [replica_config(mini_config, tmp_path / name, vector_server, database) for name in "ab"]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        reports = list(pool.map(lambda c: build_index(c, embedder=use_embedder), configs))
    assert sorted(r.vectors_upserted for r in reports) == [0, MINI_VERSES]  # one built, the other waited and joined
    for config in configs:
        assert open_retriever(config, embedder=use_embedder).store.count() == MINI_VERSES


class CountingEmbedder:
    """The real embedder, refusing to encode: a replica that joins must not encode the corpus."""

    def __init__(self, inner):
        self.inner, self.identity = inner, inner.identity

    def embed(self, texts):
        raise AssertionError(f"a replica re-encoded {len(texts)} texts")


# ---- two `python -m bot` replicas, one PostgreSQL, one Chroma server, one killed -9 ------------

def ask(turn: int, chat: int) -> str:
    return f"a formiga e o preguiçoso, pedido {turn + 1} da conversa {chat}"


async def test_two_replicas_answer_every_message_once_in_order_when_one_is_killed(
        mini_index, use_embedder, postgres, vector_server, graph_api, llm_server, tmp_path):
    database = postgres.create_database("replicas")
    built = build_index(replica_config(mini_index, tmp_path / "a", vector_server, database), embedder=use_embedder)
    assert built.vectors_upserted == MINI_VERSES
    ports = [free_port(), free_port()]
    envs = [{**bot_env(mini_index, None, graph_api, llm_server, port), "DATA_DIR": str(tmp_path / name),
             "DATABASE_URL": database, "CHROMA_URL": vector_server, "CHAT_LEASE_SECONDS": "3"}
            for port, name in zip(ports, "ab")]
    llm_server.answer({"echo": True, "delay": 1.5})
    first = await start_bot(envs[0], ports[0])
    started = time.perf_counter()
    second = await start_bot(envs[1], ports[1])  # an empty DATA_DIR: joins the shared index
    joined_in = time.perf_counter() - started
    chats = [f"55119000022{n}" for n in range(3)]
    try:
        for turn in range(3):  # webhooks land round-robin on the two replicas
            for n, chat in enumerate(chats):
                delivery = whatsapp_delivery(chat, f"wamid.{chat}.{turn}", ask(turn, n))
                assert await post_whatsapp(ports[(turn * 3 + n) % 2], delivery) == 200
        await until(lambda: sum(r["path"] == "/api/chat" for r in llm_server.requests) >= 2)
        first.kill()  # mid-answer: the model is still writing
        await first.wait()

        def answers(chat):
            texts = [m["text"]["body"] for m in graph_api.sent("text") if m["to"] == chat]
            return [text for text in texts if "Sobre" in text]

        try:
            await until(lambda: sum(len(answers(c)) for c in chats) >= 9, timeout=90)
        except AssertionError:  # what the shared database and the survivor say
            second.send_signal(signal.SIGTERM)
            _, err = await asyncio.wait_for(second.communicate(), timeout=60)
            with psycopg.connect(database) as conn:
                rows = conn.execute("select seq, chat_id, state, sent, attempts, last_error from inbox").fetchall()
            raise AssertionError(f"{[answers(c) for c in chats]}\n{rows}\n{err.decode()[-3000:]}") from None
        await asyncio.sleep(2)  # nothing more, nothing twice
        # the killed replica was writing answers: the survivor wrote them again after the chats' leases ran out
        assert sum(r["path"] == "/api/chat" for r in llm_server.requests) > 9
        for n, chat in enumerate(chats):
            said = [text.split("“")[1].split("”")[0] for text in answers(chat)]
            assert said == [ask(turn, n) for turn in range(3)], said
    finally:
        second.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(second.communicate(), timeout=60)
    assert second.returncode == 0, err.decode()[-3000:]
    assert "senha" not in err.decode()
    print(f"replica joined the shared index and became ready in {joined_in:.1f} s")


def test_two_replicas_running_the_daily_round_at_once_queue_each_word_once(database_url, tmp_path):
    from datetime import datetime
    from types import SimpleNamespace
    from zoneinfo import ZoneInfo

    from bot.devotional.round import DailyRound

    zone = ZoneInfo("America/Sao_Paulo")
    words = SimpleNamespace(now=lambda: datetime(2026, 11, 30, 7, 30, tzinfo=zone), timezone=zone)
    replicas = [Memory.connect(database_url, tmp_path) for _ in range(2)]
    for chat in ("1", "2", "3"):
        replicas[0].subscriptions.subscribe("telegram", chat, 7, 30, datetime(2026, 11, 30, 6, 0, tzinfo=zone))
    rounds = [DailyRound(m.subscriptions, words, m.inbox.add, lambda: {"telegram"}) for m in replicas]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        queued = list(pool.map(lambda r: r.run(), rounds))
    assert sum(queued) == 3 and sum(r.run() for r in rounds) == 0
    rows = replicas[1].db.execute("select message_id from inbox order by message_id").rows
    assert [r[0] for r in rows] == [f"diario-2026-11-30-{chat}" for chat in ("1", "2", "3")]


def test_a_restart_frees_what_its_crashed_predecessor_held_and_nothing_else(database_url, tmp_path):
    import os
    import socket
    import subprocess

    leases = Memory.connect(database_url, tmp_path).leases
    dead = subprocess.Popen(["true"])
    dead.wait()
    host = socket.gethostname()
    me = f"{host}:{os.getpid()}:novo"
    leases.acquire("chat:whatsapp:1", f"{host}:{dead.pid}:velho", 60)  # killed -9 before it could release
    leases.acquire("telegram-poller", f"{host}:{os.getpid()}:antes", 60)  # a container restarted with our pid
    leases.acquire("chat:whatsapp:2", f"{host}:{os.getppid()}:vivo", 60)  # another live process here
    leases.acquire("chat:whatsapp:3", "outra-maquina:1234:x", 60)  # another machine's replica
    assert leases.forget_previous_runs(me) == 2
    assert leases.acquire("chat:whatsapp:1", me, 60) and leases.acquire("telegram-poller", me, 60)
    assert not leases.acquire("chat:whatsapp:2", me, 60) and not leases.acquire("chat:whatsapp:3", me, 60)
