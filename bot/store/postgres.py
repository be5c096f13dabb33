"""PostgreSQL behind the `Database` seam (bot.store.database): what lets several replicas share one state."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from bot.store.database import CONNECT_TIMEOUT, STATEMENT_TIMEOUT_MS, Database, Result, _read, url_passwords
from bot.store.outage import Outage, StorageError, StorageUnavailable
from retrieval.index.shared import redact

MIGRATION_LOCK = 7_415_001  # advisory lock key held while a replica migrates


class PostgresDatabase(Database):
    """PostgreSQL through a small pool of psycopg 3 connections: what lets several replicas share one state.

    Connections are opened on demand with a short timeout and dropped when broken; nothing reconnects in
    the background with a growing backoff, so the first call after the database is back succeeds.
    """

    kind = "postgresql"

    def __init__(self, url: str, max_idle: int = 8):
        import psycopg

        self.url = redact(url)
        self._dsn, self._psycopg = url, psycopg
        self._local = threading.local()
        self._idle: list = []
        self._idle_lock = threading.Lock()
        self.max_idle = max_idle
        self.outage = Outage(self._probe, mask=lambda text: _mask(text, url))
        try:  # one direct attempt first: a wrong address or password fails at once, with a clear reason
            self._release(self._connect())
        except psycopg.Error as error:
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise StorageError(f"PostgreSQL inacessível em {redact(url)}: {_mask(reason, url)}") from None

    def execute(self, sql: str, params: Sequence = ()) -> Result:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            return _read(conn.execute(_placeholders(sql), list(params)))
        with self._connection() as conn:
            return _read(conn.execute(_placeholders(sql), list(params)))

    @contextmanager
    def transaction(self) -> Iterator[None]:
        if getattr(self._local, "conn", None) is not None:
            yield
            return
        with self._connection() as conn:
            with conn.transaction():
                self._local.conn = conn
                try:
                    yield
                finally:
                    self._local.conn = None

    @contextmanager
    def _connection(self) -> Iterator:
        """A connection for one call or transaction; an unreachable database is `StorageUnavailable`."""
        psycopg = self._psycopg
        self.outage.check()
        try:
            conn = self._take()
        except psycopg.OperationalError as error:
            raise self.outage.failed(error) from None
        try:
            yield conn
        except psycopg.OperationalError as error:
            conn.close()
            raise self.outage.failed(error) from None
        except BaseException:
            self._release(conn)
            raise
        else:
            self._release(conn)

    def _connect(self):
        return self._psycopg.connect(self._dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT,
                                     options=f"-c statement_timeout={STATEMENT_TIMEOUT_MS}")

    def _take(self):
        with self._idle_lock:
            while self._idle:
                conn = self._idle.pop()
                if not conn.closed:
                    return conn
        return self._connect()

    def _release(self, conn) -> None:
        ok = not conn.closed and not conn.broken and conn.info.transaction_status == \
            self._psycopg.pq.TransactionStatus.IDLE
        with self._idle_lock:
            if ok and len(self._idle) < self.max_idle:
                self._idle.append(conn)
                return
        conn.close()

    def _probe(self) -> None:
        with self._psycopg.connect(self._dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT) as conn:
            conn.execute("select 1")
        with self._idle_lock:  # connections from before the outage are dead: start afresh
            stale, self._idle = self._idle, []
        for conn in stale:
            conn.close()

    def writable(self) -> bool:
        try:
            with self.transaction():
                self.execute("create temp table if not exists _probe (x int)")
                self.execute("insert into _probe values (1)")
                self.execute("delete from _probe")
            return True
        except (self._psycopg.Error, StorageUnavailable):
            return False

    def close(self) -> None:
        self._stop_workers()
        with self._idle_lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    def describe(self) -> str:
        return f"PostgreSQL ({self.url})"

    def _lock_migrations(self) -> None:
        self.execute("select pg_advisory_xact_lock(?)", [MIGRATION_LOCK])


def _mask(text: str, url: str) -> str:
    for secret in url_passwords(url):
        text = text.replace(secret, "***")
    return text


def _placeholders(sql: str) -> str:
    return sql.replace("%", "%%").replace("?", "%s")
