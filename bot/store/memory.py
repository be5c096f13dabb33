"""Conversation memory (SQLite or PostgreSQL, see bot.store.database): windows, last sources, the inbox of messages."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bot.care.cases import Cases
from bot.care.mode import CareMode
from bot.reply import Source
from bot.store.database import Database, SQLiteDatabase, open_database
from bot.store.inbox import DEDUPE_SECONDS, Inbox
from bot.store.leases import Leases
from bot.store.migrations import MIGRATIONS
from bot.store.subscriptions import Subscriptions

WINDOW_EXCHANGES = 10


@dataclass(frozen=True)
class Turn:
    role: str  # "user" or "assistant"
    text: str
    query: str = ""  # for user turns: the standalone question that was searched
    created_at: float = 0.0


class Memory:
    """Everything stored per chat. Takes its database (bot.store.database); safe to share between threads."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time):
        self.db = db
        self.clock = clock
        db.migrate(MIGRATIONS, clock)
        self.inbox = Inbox(db, clock)
        self.subscriptions = Subscriptions(db, clock)
        self.leases = Leases(db, clock)
        self.care = CareMode(db, clock)
        self.cases = Cases(db, clock)

    @classmethod
    def open(cls, path: Path | str, clock: Callable[[], float] = time.time) -> Memory:
        """SQLite at ``path``."""
        return cls(SQLiteDatabase.open(path), clock)

    @classmethod
    def connect(cls, url: str, data_dir: Path, clock: Callable[[], float] = time.time) -> Memory:
        """The database ``DATABASE_URL`` names (PostgreSQL), or SQLite in ``data_dir``."""
        return cls(open_database(url, data_dir), clock)

    # -- conversation window --------------------------------------------------------
    def add_exchange(self, chat_id: str, question: str, query: str, answer: str, status: str) -> None:
        now = self.clock()
        insert = "insert into turns (chat_id, role, text, query, status, created_at) values (?, ?, ?, ?, ?, ?)"
        with self.db.transaction():
            self.db.execute(insert, [chat_id, "user", question, query, status, now])
            self.db.execute(insert, [chat_id, "assistant", answer, "", status, now])

    def window(self, chat_id: str, exchanges: int = WINDOW_EXCHANGES) -> list[Turn]:
        """The last ``exchanges`` question/answer pairs, oldest first."""
        rows = self.db.execute(
            "select role, text, query, created_at from turns where chat_id = ? order by id desc limit ?",
            [chat_id, exchanges * 2]).fetchall()
        return [Turn(*row) for row in reversed(rows)]

    def forget_window(self, chat_id: str) -> int:
        return self.db.execute("delete from turns where chat_id = ?", [chat_id]).rowcount

    # -- last sources ------------------------------------------------------------------
    def save_sources(self, chat_id: str, query: str, sources: list[Source]) -> None:
        verses = [s.as_dict() for s in sources]
        self.db.execute("insert into sources (chat_id, query, verses, updated_at) values (?, ?, ?, ?) "
                        "on conflict (chat_id) do update set query = excluded.query, verses = excluded.verses, "
                        "updated_at = excluded.updated_at", [chat_id, query, json.dumps(verses), self.clock()])

    def last_sources(self, chat_id: str) -> tuple[str, list[Source]]:
        """The question last searched in this chat and the verses shown for it."""
        row = self.db.execute("select query, verses from sources where chat_id = ?", [chat_id]).fetchone()
        return (row[0], [Source(**v) for v in json.loads(row[1])]) if row else ("", [])

    # -- privacy ---------------------------------------------------------------------------
    def delete_chat(self, chat_id: str) -> int:
        """Delete everything said in one chat (its finished inbox rows keep only their ids); how many rows."""
        with self.db.transaction():
            removed = sum(self.db.execute(f"delete from {table} where chat_id = ?", [chat_id]).rowcount
                          for table in ("turns", "sources", "care_mode"))
        return removed + self.inbox.redact_chat(chat_id) + self.subscriptions.delete_chat(chat_id)

    def purge_older_than(self, seconds: float) -> int:
        """Delete conversations older than ``seconds`` (0: keep them) and inbox rows past their use."""
        removed = 0
        if seconds:
            cutoff = self.clock() - seconds
            with self.db.transaction():
                removed = (self.db.execute("delete from turns where created_at < ?", [cutoff]).rowcount
                           + self.db.execute("delete from sources where updated_at < ?", [cutoff]).rowcount
                           + self.subscriptions.purge_unserved(cutoff) + self.cases.purge(cutoff))
        return removed + self.inbox.purge(min(seconds, DEDUPE_SECONDS) if seconds else DEDUPE_SECONDS)

    def writable(self) -> bool:
        return self.db.writable()
