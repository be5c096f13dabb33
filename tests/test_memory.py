"""SQLite memory: migrations, window, sources after a restart, duplicate deliveries, deletion."""

from bot.memory import MIGRATIONS, Memory


def test_reopening_keeps_everything_and_migrates_once(tmp_path):
    path = tmp_path / "pastor.db"
    memory = Memory.open(path)
    memory.add_exchange("a", "pergunta", "pergunta completa", "resposta", "answered")
    memory.save_sources("a", "pergunta completa", [{"id": "JHN.3.16", "reference": "João 3:16", "text": "t"}])
    memory.db.conn.close()
    again = Memory.open(path)
    assert [t.text for t in again.window("a")] == ["pergunta", "resposta"]
    assert again.window("a")[0].query == "pergunta completa"
    assert again.last_sources("a")[1][0]["id"] == "JHN.3.16"
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
    assert memory.first_delivery("telegram", "42", "a")
    assert not memory.first_delivery("telegram", "42", "a")
    assert memory.first_delivery("whatsapp", "42", "a")
    memory.add_exchange("a", "q", "q", "r", "answered")
    memory.add_exchange("b", "q", "q", "r", "answered")
    memory.save_sources("a", "q", [])
    assert memory.delete_chat("a") == 2 + 1 + 2
    assert memory.window("a") == [] and memory.last_sources("a") == ("", [])
    assert len(memory.window("b")) == 2


def test_purge_by_age(tmp_path):
    now = [1000.0]
    memory = Memory.open(tmp_path / "m.db")
    memory.clock = lambda: now[0]
    memory.add_exchange("a", "velha", "velha", "r", "answered")
    now[0] = 1000.0 + 31 * 86400
    memory.add_exchange("a", "nova", "nova", "r", "answered")
    assert memory.purge_older_than(30 * 86400) == 2
    assert [t.text for t in memory.window("a")] == ["nova", "r"]
