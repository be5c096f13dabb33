"""SQLite memory: migrations, window, sources after a restart, duplicate deliveries, deletion."""

from bot.inbox import Inbound
from bot.memory import MIGRATIONS, Memory
from bot.reply import Source


def test_reopening_keeps_everything_and_migrates_once(tmp_path):
    path = tmp_path / "pastor.db"
    memory = Memory.open(path)
    memory.add_exchange("a", "pergunta", "pergunta completa", "resposta", "answered")
    memory.save_sources("a", "pergunta completa", [Source("JHN.3.16", "João 3:16", "t")])
    memory.db.conn.close()
    again = Memory.open(path)
    assert [t.text for t in again.window("a")] == ["pergunta", "resposta"]
    assert again.window("a")[0].query == "pergunta completa"
    assert again.last_sources("a")[1][0].id == "JHN.3.16"
    assert [r["name"] for r in again.db["_migrations"].rows] == [name for name, _ in MIGRATIONS]
    assert again.db.execute("pragma journal_mode").fetchone()[0] == "wal"
    assert again.db.execute("pragma busy_timeout").fetchone()[0] == 5000


def test_window_is_the_last_ten_exchanges(tmp_path):
    memory = Memory.open(tmp_path / "m.db")
    for n in range(13):
        memory.add_exchange("a", f"q{n}", f"q{n}", f"r{n}", "answered")
    window = memory.window("a")
    assert len(window) == 20 and window[0].text == "q3" and window[-1].text == "r12"
    assert memory.window("b") == []


def test_duplicate_deliveries_and_deletion(tmp_path):
    memory = Memory.open(tmp_path / "m.db")
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
    assert "segredo" not in str(list(memory.db["inbox"].rows))
    assert not memory.inbox.add(Inbound("telegram", "a", "42", "text", "segredo"))  # still a redelivery


def test_purge_by_age(tmp_path):
    now = [1000.0]
    memory = Memory.open(tmp_path / "m.db", clock=lambda: now[0])
    memory.add_exchange("a", "velha", "velha", "r", "answered")
    memory.inbox.add(Inbound("telegram", "a", "1", "text", "velha"))
    memory.inbox.delivered(memory.inbox.next_for("telegram", "a").seq)
    memory.inbox.add(Inbound("telegram", "a", "2", "text", "ainda não entregue"))
    now[0] = 1000.0 + 31 * 86400
    memory.add_exchange("a", "nova", "nova", "r", "answered")
    assert memory.purge_older_than(30 * 86400) == 2 + 1  # the pending message is kept, whatever its age
    assert [t.text for t in memory.window("a")] == ["nova", "r"]
    assert memory.inbox.next_for("telegram", "a").inbound.text == "ainda não entregue"


def test_inbox_rows_are_purged_after_a_week_even_when_conversations_are_kept(tmp_path):
    now = [1000.0]
    memory = Memory.open(tmp_path / "m.db", clock=lambda: now[0])
    memory.inbox.add(Inbound("whatsapp", "b", "w1", "text", "oi"))
    memory.inbox.delivered(memory.inbox.next_for("whatsapp", "b").seq)
    memory.add_exchange("b", "oi", "oi", "r", "answered")
    now[0] += 6 * 86400
    assert memory.purge_older_than(0) == 0
    now[0] += 2 * 86400
    assert memory.purge_older_than(0) == 1  # RETENTION_DAYS=0 keeps the conversation, not the delivery ids
    assert len(memory.window("b")) == 2
