"""Conversation memory in SQLite (sqlite-utils): windows, last sources, and the inbox of messages."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from bot.inbox import DEDUPE_SECONDS, Inbox, add_outcome, migrate_inbox
from bot.reply import Source
from bot.subscriptions import Subscriptions, migrate_subscriptions

WINDOW_EXCHANGES = 10


@dataclass(frozen=True)
class Turn:
    role: str  # "user" or "assistant"
    text: str
    query: str = ""  # for user turns: the standalone question that was searched
    created_at: float = 0.0


def _m001_initial(db: sqlite_utils.Database) -> None:
    db["turns"].create({"id": int, "chat_id": str, "role": str, "text": str, "query": str, "status": str,
                        "created_at": float}, pk="id")
    db["turns"].create_index(["chat_id", "id"])
    db["sources"].create({"chat_id": str, "query": str, "verses": str, "updated_at": float}, pk="chat_id")
    db["processed"].create({"channel": str, "message_id": str, "chat_id": str, "processed_at": float},
                           pk=("channel", "message_id"))
    db["processed"].create_index(["chat_id"])


# Append-only: never edit or reorder an applied migration; add a new one.
MIGRATIONS: list[tuple[str, Callable[[sqlite_utils.Database], None]]] = [
    ("001_initial", _m001_initial),
    ("002_inbox", migrate_inbox),
    ("003_inbox_outcome", add_outcome),
    ("004_subscriptions", migrate_subscriptions),
]


class Memory:
    """Everything stored per chat. Takes its database; safe to share between threads."""

    def __init__(self, db: sqlite_utils.Database, clock: Callable[[], float] = time.time):
        self.db = db
        self.clock = clock
        self._lock = threading.RLock()
        self.db.execute("PRAGMA busy_timeout = 5000")
        if db.conn.execute("PRAGMA database_list").fetchone()[2]:  # a file, not :memory:
            self.db.enable_wal()
            # WAL + NORMAL: a commit survives the process being killed (only a power cut may lose the last
            # ones), and does not wait for a disk flush each time: the inbox commits several times a message.
            self.db.execute("PRAGMA synchronous = NORMAL")
        self._migrate()
        self.inbox = Inbox(db, self._lock, clock)
        self.subscriptions = Subscriptions(db, self._lock, clock)

    @classmethod
    def open(cls, path: Path | str, clock: Callable[[], float] = time.time) -> Memory:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False, timeout=5.0)
        return cls(sqlite_utils.Database(conn), clock)

    def _migrate(self) -> None:
        with self._lock:
            if "_migrations" not in self.db.table_names():
                self.db["_migrations"].create({"name": str, "applied_at": float}, pk="name")
            applied = {row["name"] for row in self.db["_migrations"].rows}
            for name, migrate in MIGRATIONS:
                if name not in applied:
                    with self.db.conn:
                        migrate(self.db)
                        self.db["_migrations"].insert({"name": name, "applied_at": self.clock()})

    # -- conversation window --------------------------------------------------------
    def add_exchange(self, chat_id: str, question: str, query: str, answer: str, status: str) -> None:
        now = self.clock()
        with self._lock, self.db.conn:
            self.db["turns"].insert_all([
                {"chat_id": chat_id, "role": "user", "text": question, "query": query, "status": status,
                 "created_at": now},
                {"chat_id": chat_id, "role": "assistant", "text": answer, "query": "", "status": status,
                 "created_at": now},
            ])

    def window(self, chat_id: str, exchanges: int = WINDOW_EXCHANGES) -> list[Turn]:
        """The last ``exchanges`` question/answer pairs, oldest first."""
        with self._lock:
            rows = self.db.execute(
                "select role, text, query, created_at from turns where chat_id = ? order by id desc limit ?",
                [chat_id, exchanges * 2]).fetchall()
        return [Turn(*row) for row in reversed(rows)]

    def forget_window(self, chat_id: str) -> int:
        with self._lock, self.db.conn:
            return self.db.execute("delete from turns where chat_id = ?", [chat_id]).rowcount

    # -- last sources ------------------------------------------------------------------
    def save_sources(self, chat_id: str, query: str, sources: list[Source]) -> None:
        verses = [s.as_dict() for s in sources]
        with self._lock, self.db.conn:
            self.db["sources"].upsert({"chat_id": chat_id, "query": query, "verses": json.dumps(verses),
                                       "updated_at": self.clock()}, pk="chat_id")

    def last_sources(self, chat_id: str) -> tuple[str, list[Source]]:
        """The question last searched in this chat and the verses shown for it."""
        with self._lock:
            row = self.db.execute("select query, verses from sources where chat_id = ?", [chat_id]).fetchone()
        return (row[0], [Source(**v) for v in json.loads(row[1])]) if row else ("", [])

    # -- privacy ---------------------------------------------------------------------------
    def delete_chat(self, chat_id: str) -> int:
        """Delete everything said in one chat (its finished inbox rows keep only their ids); how many rows."""
        with self._lock, self.db.conn:
            removed = sum(self.db.execute(f"delete from {table} where chat_id = ?", [chat_id]).rowcount
                          for table in ("turns", "sources"))
        return removed + self.inbox.redact_chat(chat_id) + self.subscriptions.delete_chat(chat_id)

    def purge_older_than(self, seconds: float) -> int:
        """Delete conversations older than ``seconds`` (0: keep them) and inbox rows past their use."""
        removed = 0
        if seconds:
            cutoff = self.clock() - seconds
            with self._lock, self.db.conn:
                removed = (self.db.execute("delete from turns where created_at < ?", [cutoff]).rowcount
                           + self.db.execute("delete from sources where updated_at < ?", [cutoff]).rowcount
                           + self.subscriptions.purge_unserved(cutoff))
        return removed + self.inbox.purge(min(seconds, DEDUPE_SECONDS) if seconds else DEDUPE_SECONDS)

    def writable(self) -> bool:
        try:
            with self._lock:
                self.db.execute("create temp table if not exists _probe (x)")
                self.db.execute("insert into _probe values (1)")
                self.db.execute("delete from _probe")
            return True
        except sqlite3.Error:
            return False
