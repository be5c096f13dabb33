"""The storage seam: one small `Database` interface, SQLite (embedded default) or PostgreSQL (replicas).

Stores (`Memory`, `Inbox`, `Subscriptions`, `Leases`) take a `Database` and write plain SQL in the
subset both engines speak: `?` placeholders, `insert ... on conflict ... do nothing / do update`.
`execute` runs one statement and commits it unless a `transaction()` of this thread is open; rows are
read before the call returns, so a result never holds a connection.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from retrieval.shared import redact


@dataclass(frozen=True)
class Result:
    rowcount: int
    rows: list[tuple]

    def fetchone(self) -> tuple | None:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[tuple]:
        return self.rows


class StorageError(RuntimeError):
    """The configured database cannot be used; the message says why (never the password)."""


class Database:
    """What every store needs from a database."""

    kind = ""

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


class SQLiteDatabase(Database):
    """The embedded default: one file (WAL), shared by the threads of one process."""

    kind = "sqlite"

    def __init__(self, db: sqlite_utils.Database):
        self.db = db
        self._lock = threading.RLock()
        self._local = threading.local()
        db.execute("PRAGMA busy_timeout = 5000")
        if db.conn.execute("PRAGMA database_list").fetchone()[2]:  # a file, not :memory:
            db.enable_wal()
            # WAL + NORMAL: a commit survives the process being killed (only a power cut may lose the last
            # ones), and does not wait for a disk flush each time: the inbox commits several times a message.
            db.execute("PRAGMA synchronous = NORMAL")

    @classmethod
    def open(cls, path: Path | str) -> SQLiteDatabase:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        return cls(sqlite_utils.Database(sqlite3.connect(str(path), check_same_thread=False, timeout=5.0)))

    def execute(self, sql: str, params: Sequence = ()) -> Result:
        with self._lock:
            if getattr(self._local, "depth", 0):
                return _read(self.db.conn.execute(sql, list(params)))
            with self.db.conn:
                return _read(self.db.conn.execute(sql, list(params)))

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            depth = getattr(self._local, "depth", 0)
            self._local.depth = depth + 1
            try:
                if depth:
                    yield
                else:
                    with self.db.conn:
                        yield
            finally:
                self._local.depth = depth

    def writable(self) -> bool:
        try:
            with self._lock:
                self.db.execute("create temp table if not exists _probe (x)")
                self.db.execute("insert into _probe values (1)")
                self.db.execute("delete from _probe")
            return True
        except sqlite3.Error:
            return False

    def close(self) -> None:
        self.db.conn.close()

    def describe(self) -> str:
        path = self.db.conn.execute("PRAGMA database_list").fetchone()[2]
        return f"SQLite ({path or 'em memória'})"

    def _lock_migrations(self) -> None:
        if not self.db.conn.in_transaction:
            self.db.conn.execute("begin immediate")  # DDL would not open the transaction by itself


class PostgresDatabase(Database):
    """PostgreSQL through a psycopg 3 connection pool: what lets several replicas share one state."""

    kind = "postgresql"

    def __init__(self, url: str, max_size: int = 8):
        import psycopg

        self.url = redact(url)
        from psycopg_pool import ConnectionPool

        self._psycopg = psycopg
        self._local = threading.local()
        try:  # one direct attempt first: a wrong address or password fails at once, with a clear reason
            psycopg.connect(url, connect_timeout=10).close()
        except psycopg.Error as error:
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            for secret in url_passwords(url):
                reason = reason.replace(secret, "***")
            raise StorageError(f"PostgreSQL inacessível em {redact(url)}: {reason}") from None
        self.pool = ConnectionPool(url, min_size=1, max_size=max_size, kwargs={"autocommit": True},
                                   open=False, name="pastor")
        self.pool.open(wait=True, timeout=30)

    def execute(self, sql: str, params: Sequence = ()) -> Result:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            return _read(conn.execute(_placeholders(sql), list(params)))
        with self.pool.connection() as conn:
            return _read(conn.execute(_placeholders(sql), list(params)))

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if getattr(self._local, "conn", None) is not None:
            yield
            return
        with self.pool.connection() as conn, conn.transaction():
            self._local.conn = conn
            try:
                yield
            finally:
                self._local.conn = None

    def writable(self) -> bool:
        try:
            with self.transaction():
                self.execute("create temp table if not exists _probe (x int)")
                self.execute("insert into _probe values (1)")
                self.execute("delete from _probe")
            return True
        except self._psycopg.Error:
            return False

    def close(self) -> None:
        self.pool.close()

    def describe(self) -> str:
        return f"PostgreSQL ({self.url})"

    def _lock_migrations(self) -> None:
        self.execute("select pg_advisory_xact_lock(?)", [MIGRATION_LOCK])


MIGRATION_LOCK = 7_415_001  # advisory lock key held while a replica migrates


def open_database(url: str, data_dir: Path) -> Database:
    """``DATABASE_URL``: "postgresql://…" for PostgreSQL; "" or "sqlite:///path" for SQLite (default data/pastor.db)."""
    if url.startswith(("postgresql://", "postgres://")):
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


def _placeholders(sql: str) -> str:
    return sql.replace("%", "%%").replace("?", "%s")


def _read(cursor) -> Result:
    rows = [tuple(row) for row in cursor.fetchall()] if cursor.description else []
    return Result(cursor.rowcount, rows)
