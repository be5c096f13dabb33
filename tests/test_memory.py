"""Memory on SQLite and on PostgreSQL (the same tests): migrations, window, sources after a restart,
duplicate deliveries, deletion, retention."""

from bot.reply import Source
from bot.store.database import BUSY_TIMEOUT_MS
from bot.store.inbox import Inbound
from bot.store.memory import Memory
from bot.store.migrations import MIGRATIONS


def open_memory(url, tmp_path, clock=None) -> Memory:
    return Memory.connect(url, tmp_path, **({"clock": clock} if clock else {}))


def test_reopening_keeps_everything_and_migrates_once(database_url, tmp_path):
    memory = open_memory(database_url, tmp_path)
    memory.add_exchange("a", "pergunta", "pergunta completa", "resposta", "answered")
    memory.save_sources("a", "pergunta completa", [Source("JHN.3.16", "João 3:16", "t")])
    memory.db.close()
    again = open_memory(database_url, tmp_path)
    assert [t.text for t in again.window("a")] == ["pergunta", "resposta"]
    assert again.window("a")[0].query == "pergunta completa"
    assert again.last_sources("a")[1][0].id == "JHN.3.16"
    assert again.db.applied_migrations() == [name for name, _ in MIGRATIONS]
    if again.db.kind == "sqlite":
        assert again.db.execute("pragma journal_mode").fetchone()[0] == "wal"
        assert again.db.execute("pragma busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS
    assert again.writable()
    assert again.db.describe().startswith({"sqlite": "SQLite (", "postgresql": "PostgreSQL (postgresql://"}[again.db.kind])


def test_window_is_the_last_ten_exchanges(database_url, tmp_path):
    memory = open_memory(database_url, tmp_path)
    for n in range(13):
        memory.add_exchange("a", f"q{n}", f"q{n}", f"r{n}", "answered")
    window = memory.window("a")
    assert len(window) == 20 and window[0].text == "q3" and window[-1].text == "r12"
    assert memory.window("b") == []


def test_duplicate_deliveries_and_deletion(database_url, tmp_path):
    memory = open_memory(database_url, tmp_path)
    assert memory.inbox.add(Inbound("telegram", "a", "42", "text", "segredo"))
    assert not memory.inbox.add(Inbound("telegram", "a", "42", "text", "segredo"))
    assert memory.inbox.add(Inbound("whatsapp", "a", "42", "text", "outro"))
    memory.inbox.delivered(memory.inbox.next_for("telegram", "a").seq)
    memory.add_exchange("a", "q", "q", "r", "answered")
    memory.add_exchange("b", "q", "q", "r", "answered")
    memory.save_sources("a", "q", [])
    assert memory.delete_chat("a") == 2 + 1 + 1  # turns, sources, the finished inbox row redacted
    assert memory.window("a") == [] and memory.last_sources("a") == ("", [])
    assert len(memory.window("b")) == 2
    assert "segredo" not in str(memory.db.execute("select * from inbox").rows)
    assert not memory.inbox.add(Inbound("telegram", "a", "42", "text", "segredo"))  # still a redelivery


def test_purge_by_age(database_url, tmp_path):
    now = [1000.0]
    memory = open_memory(database_url, tmp_path, clock=lambda: now[0])
    memory.add_exchange("a", "velha", "velha", "r", "answered")
    memory.inbox.add(Inbound("telegram", "a", "1", "text", "velha"))
    memory.inbox.delivered(memory.inbox.next_for("telegram", "a").seq)
    memory.inbox.add(Inbound("telegram", "a", "2", "text", "ainda não entregue"))
    now[0] = 1000.0 + 31 * 86400
    memory.add_exchange("a", "nova", "nova", "r", "answered")
    assert memory.purge_older_than(30 * 86400) == 2 + 1  # the pending message is kept, whatever its age
    assert [t.text for t in memory.window("a")] == ["nova", "r"]
    assert memory.inbox.next_for("telegram", "a").inbound.text == "ainda não entregue"


def test_inbox_rows_are_purged_after_a_week_even_when_conversations_are_kept(database_url, tmp_path):
    now = [1000.0]
    memory = open_memory(database_url, tmp_path, clock=lambda: now[0])
    memory.inbox.add(Inbound("whatsapp", "b", "w1", "text", "oi"))
    memory.inbox.delivered(memory.inbox.next_for("whatsapp", "b").seq)
    memory.add_exchange("b", "oi", "oi", "r", "answered")
    now[0] += 6 * 86400
    assert memory.purge_older_than(0) == 0
    now[0] += 2 * 86400
    assert memory.purge_older_than(0) == 1  # RETENTION_DAYS=0 keeps the conversation, not the delivery ids
    assert len(memory.window("b")) == 2


def test_leases_split_work_between_replicas_and_expire(database_url, tmp_path):
    now = [1000.0]
    first = open_memory(database_url, tmp_path, clock=lambda: now[0])
    second = open_memory(database_url, tmp_path, clock=lambda: now[0])  # another replica, the same database
    assert first.leases.acquire("chat:telegram:1", "a", 30)
    assert not second.leases.acquire("chat:telegram:1", "b", 30)
    assert second.leases.acquire("chat:telegram:2", "b", 30)  # another chat is free
    now[0] += 20
    assert first.leases.acquire("chat:telegram:1", "a", 30)  # renewed by its holder
    now[0] += 25
    assert not second.leases.acquire("chat:telegram:1", "b", 30) and second.leases.holder("chat:telegram:1") == "a"
    now[0] += 10  # the holder died: its lease ran out
    assert second.leases.acquire("chat:telegram:1", "b", 30) and first.leases.holder("chat:telegram:1") == "b"
    second.leases.release("chat:telegram:1", "a")  # only the holder releases
    assert first.leases.holder("chat:telegram:1") == "b"
    second.leases.release("chat:telegram:1", "b")
    assert first.leases.acquire("chat:telegram:1", "a", 30)


def test_two_replicas_migrating_at_once_apply_each_migration_once(database_url, tmp_path):
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        memories = list(pool.map(lambda _: open_memory(database_url, tmp_path), range(4)))
    assert memories[0].db.applied_migrations() == [name for name, _ in MIGRATIONS]
    assert memories[0].inbox.add(Inbound("telegram", "a", "1", "text", "oi"))
    assert not memories[3].inbox.add(Inbound("telegram", "a", "1", "text", "oi"))  # the same rows for all


def test_an_unreachable_database_is_a_clear_error_without_the_password(tmp_path):
    import pytest

    from bot.store.database import StorageError, redact
    from tests.servers import free_port

    url = f"postgresql://pastor:s3nh4-secreta@127.0.0.1:{free_port()}/pastor"
    with pytest.raises(StorageError) as raised:
        Memory.connect(url, tmp_path)
    assert "s3nh4-secreta" not in str(raised.value) and "127.0.0.1" in str(raised.value)
    assert redact(url) == url.replace("s3nh4-secreta", "***")
    with pytest.raises(StorageError, match="DATABASE_URL"):
        Memory.connect("mysql://x", tmp_path)
