"""Migrations: one append-only list, and databases migrated by earlier releases are recognised, never redone."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from bot.store.memory import Memory
from bot.store.migrations import MIGRATIONS, migration

FIXTURES = Path(__file__).parent / "data" / "databases"  # written by the code before bot/store/migrations.py existed
OLD_NAMES = ["001_initial", "002_inbox", "003_inbox_outcome", "004_subscriptions", "005_leases", "006_care_mode",
             "007_care_cases"]


def schema(path: Path) -> dict[str, str]:
    with sqlite3.connect(path) as connection:
        rows = connection.execute("select name, sql from sqlite_master where sql is not null and name not like "
                                  "'sqlite_%'").fetchall()
    return dict(rows)


def test_the_names_are_those_earlier_releases_recorded():
    assert [name for name, _ in MIGRATIONS][:len(OLD_NAMES)] == OLD_NAMES


def test_a_migration_out_of_order_is_refused():
    def m042_later(db):
        pass

    with pytest.raises(ValueError, match="m042_later"):
        migration(m042_later)


def test_a_fresh_database_has_the_schema_earlier_releases_built(tmp_path):
    Memory.open(tmp_path / "new.sqlite").db.close()
    assert schema(tmp_path / "new.sqlite") == schema(FIXTURES / "pastor-007.sqlite")


def test_a_fully_migrated_database_is_recognised_and_kept(tmp_path):
    path = tmp_path / "pastor.db"
    shutil.copy(FIXTURES / "pastor-007.sqlite", path)
    memory = Memory.open(path, clock=lambda: 2_000_000_000.0)
    applied = memory.db.execute("select name, applied_at from _migrations order by name").rows
    assert applied == [(name, 1_700_000_000.0) for name in OLD_NAMES]  # nothing ran again
    assert [turn.text for turn in memory.window("tg-1")] == ["estou com medo", "Não temas."]
    assert memory.last_sources("tg-1")[1][0].id == "ISA.41.10"
    assert memory.subscriptions.get("telegram", "tg-1").time == "07:30"
    assert memory.inbox.next_for("telegram", "tg-1").inbound.text == "estou com medo"


def test_a_database_of_an_older_release_gets_only_the_missing_migrations(tmp_path):
    path = tmp_path / "pastor.db"
    shutil.copy(FIXTURES / "pastor-003.sqlite", path)
    memory = Memory.open(path, clock=lambda: 2_000_000_000.0)
    applied = dict(memory.db.execute("select name, applied_at from _migrations").rows)
    assert [applied[name] for name in OLD_NAMES[:3]] == [1_700_000_000.0] * 3
    assert [applied[name] for name in OLD_NAMES[3:]] == [2_000_000_000.0] * 4
    assert [turn.text for turn in memory.window("wa-5")] == ["oi"]
    memory.db.close()
    assert schema(path) == schema(FIXTURES / "pastor-007.sqlite")
