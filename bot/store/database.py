"""The storage seam: one small `Database` interface, SQLite (embedded default) or PostgreSQL (replicas).

Stores (`Memory`, `Inbox`, `Subscriptions`, `Leases`) take a `Database` and write plain SQL in the
subset both engines speak: `?` placeholders, `insert ... on conflict ... do nothing / do update`.
PostgreSQL's side is in `bot.store.postgres`. `execute` runs one statement and commits it unless a
`transaction()` of this thread is open; rows are read before the call returns, so a result never holds a
connection.

A database that stops answering raises `StorageUnavailable` quickly (short connect and statement
timeouts), and then at once for every call until a probe finds it back (`bot.store.outage.Outage`).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import sqlite_utils

from bot.cpu import OrderedPool
from bot.store.outage import Outage, StorageError, StorageUnavailable
from retrieval.index.shared import redact

__all__ = ["Database", "Result", "SQLiteDatabase", "StorageError", "StorageUnavailable", "open_database"]
CONNECT_TIMEOUT = 2  # seconds to reach PostgreSQL before a call fails (the loop waits at most this, once)
STATEMENT_TIMEOUT_MS = 5000
BUSY_TIMEOUT_MS = 1000  # SQLite: how long a write waits for another process's lock before failing
WORKER_THREADS = 4  # threads that run store calls for the event loop (`Database.call`)
T = TypeVar("T")
_workers_lock = threading.Lock()


@dataclass(frozen=True)
class Result:
    rowcount: int
    rows: list[tuple]

    def fetchone(self) -> tuple | None:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[tuple]:
        return self.rows


class Database:
    """What every store needs from a database."""

    kind = ""
    outage: Outage
    _workers: OrderedPool | None = None

    async def call(self, function: Callable[..., T], /, *args) -> T:
        """``function(*args)`` (a store method) in this database's few worker threads: the event loop never
        waits on the database, and a burst of store calls queues there instead of multiplying threads. While
        the database is known to be down it raises `StorageUnavailable` at once, without a thread."""
        self.outage.check()
        if self._workers is None:
            with _workers_lock:
                if self._workers is None:  # calls in the order their messages began (see bot.cpu)
                    self._workers = OrderedPool(WORKER_THREADS, f"pastor-{self.kind}")
        return await self._workers.run(function, *args)  # the message id of the logs goes along

    def _stop_workers(self) -> None:
        if self._workers is not None:
            self._workers.shutdown()
            self._workers = None

    def execute(self, sql: str, params: Sequence = ()) -> Result:
        raise NotImplementedError

    @contextmanager
    def transaction(self) -> Iterator[None]:
        raise NotImplementedError
        yield

    def writable(self) -> bool:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        """Where the state lives, for /status (never a password)."""
        raise NotImplementedError

    def migrate(self, migrations: Sequence[tuple[str, Callable[[Database], None]]], clock: Callable[[], float]) -> None:
        """Apply, once each and in order, the migrations not yet recorded in ``_migrations``."""
        with self.transaction():
            self._lock_migrations()
            self.execute("create table if not exists _migrations (name text primary key, applied_at "
                         f"{'double precision' if self.kind == 'postgresql' else 'real'})")
            applied = {row[0] for row in self.execute("select name from _migrations").rows}
            for name, migrate in migrations:
                if name not in applied:
                    migrate(self)
                    self.execute("insert into _migrations (name, applied_at) values (?, ?)", [name, clock()])

    def applied_migrations(self) -> list[str]:
        return [row[0] for row in self.execute("select name from _migrations order by name").rows]

    def _lock_migrations(self) -> None:
        """Serialise concurrent migrators (replicas starting together)."""


def _enable_wal(db: sqlite_utils.Database, patience_s: float = 10.0) -> None:
    """Switch the file to WAL; several processes opening a new file together may each find it locked once."""
    deadline = time.monotonic() + patience_s
    while True:
        try:
            if db.conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                db.conn.execute("PRAGMA journal_mode=wal")
            return
        except sqlite3.OperationalError as error:  # SQLite does not wait on its busy handler for this switch
            if "locked" not in str(error).lower() or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class SQLiteDatabase(Database):
    """The embedded default: one file (WAL), shared by the threads of one process."""

    kind = "sqlite"

    def __init__(self, db: sqlite_utils.Database):
        self.db = db
        self._lock = threading.RLock()
        self._local = threading.local()
        self.outage = Outage(self._probe)
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if db.conn.execute("PRAGMA database_list").fetchone()[2]:  # a file, not :memory:
            _enable_wal(db)
            # WAL + NORMAL: a commit survives the process being killed (only a power cut may lose the last
            # ones), and does not wait for a disk flush each time: the inbox commits several times a message.
            db.execute("PRAGMA synchronous = NORMAL")

    @classmethod
    def open(cls, path: Path | str) -> SQLiteDatabase:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        return cls(sqlite_utils.Database(sqlite3.connect(str(path), check_same_thread=False,
                                                         timeout=BUSY_TIMEOUT_MS / 1000)))

    def execute(self, sql: str, params: Sequence = ()) -> Result:
        if not getattr(self._local, "depth", 0):
            self.outage.check()  # before the lock: the probe may hold it while the file is locked
        with self._lock:
            if getattr(self._local, "depth", 0):
                return _read(self.db.conn.execute(sql, list(params)))
            try:
                with self.db.conn:
                    return _read(self.db.conn.execute(sql, list(params)))
            except sqlite3.OperationalError as error:
                raise self._unavailable(error) from None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if not getattr(self._local, "depth", 0):
            self.outage.check()
        with self._lock:
            depth = getattr(self._local, "depth", 0)
            self._local.depth = depth + 1
            try:
                if depth:
                    yield
                else:
                    try:
                        with self.db.conn:
                            yield
                    except sqlite3.OperationalError as error:
                        raise self._unavailable(error) from None
            finally:
                self._local.depth = depth

    def _unavailable(self, error: sqlite3.OperationalError) -> Exception:
        """A locked or unreadable file is an outage; a mistake in the SQL stays what it is."""
        text = str(error).lower()
        if any(word in text for word in ("locked", "busy", "disk i/o", "unable to open", "readonly")):
            return self.outage.failed(error)
        return error

    def _probe(self) -> None:
        with self._lock:
            self.db.conn.execute("begin immediate")
            self.db.conn.execute("rollback")

    def writable(self) -> bool:
        if self.outage.down:
            return False
        try:
            with self._lock:
                self.db.execute("create temp table if not exists _probe (x)")
                self.db.execute("insert into _probe values (1)")
                self.db.execute("delete from _probe")
            return True
        except sqlite3.Error:
            return False

    def close(self) -> None:
        self._stop_workers()
        self.db.conn.close()

    def describe(self) -> str:
        path = self.db.conn.execute("PRAGMA database_list").fetchone()[2]
        return f"SQLite ({path or 'em memória'})"

    def _lock_migrations(self) -> None:
        if not self.db.conn.in_transaction:
            self.db.conn.execute("begin immediate")  # DDL would not open the transaction by itself


def open_database(url: str, data_dir: Path) -> Database:
    """``DATABASE_URL``: "postgresql://…" for PostgreSQL; "" or "sqlite:///path" for SQLite (default data/pastor.db)."""
    if url.startswith(("postgresql://", "postgres://")):
        from bot.store.postgres import PostgresDatabase

        return PostgresDatabase(url)
    if url.startswith("sqlite:///"):
        return SQLiteDatabase.open(url.removeprefix("sqlite:///"))
    if url:
        raise StorageError(f"DATABASE_URL não reconhecida ({redact(url)}): use postgresql://… ou sqlite:///caminho")
    return SQLiteDatabase.open(data_dir / "pastor.db")


def url_passwords(url: str) -> list[str]:
    """The password inside a database URL (as written and decoded), to mask it wherever it might appear."""
    from urllib.parse import unquote, urlsplit

    try:
        password = urlsplit(url).password
    except ValueError:
        return []
    return [p for p in {password, unquote(password)} if p] if password else []


def _read(cursor) -> Result:
    rows = [tuple(row) for row in cursor.fetchall()] if cursor.description else []
    return Result(cursor.rowcount, rows)
