"""An index shared by replicas: its manifest, fingerprints and build lock live in PostgreSQL (DATABASE_URL).

Replicas that share a vector server (CHROMA_URL, a Qdrant server) and a database join the index one of
them built: each builds only its BM25 part from the corpus (seconds), never the vectors; one build runs
at a time across all of them, and the others wait for it.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict

from retrieval.index.manifest import IndexCorrupt, Manifest


class SharedIndexError(RuntimeError):
    """The database that holds the shared index's manifest cannot be used."""


def redact(url: str) -> str:
    """The URL without its password, for logs and errors."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")))


_TABLE = """create table if not exists index_manifests (
    location text primary key, manifest text not null, prints text, updated_at double precision not null)"""


class SharedIndex:
    """The rows of one vector collection (by its location) in ``index_manifests``."""

    def __init__(self, database_url: str, location: str):
        import psycopg

        self._psycopg = psycopg
        self.url, self.location = database_url, location
        self.key = int.from_bytes(hashlib.sha256(f"index:{location}".encode()).digest()[:8], "big", signed=True)
        with self._connect() as conn:
            conn.execute(f"select pg_advisory_xact_lock({self.key})")  # two first replicas create it once
            conn.execute(_TABLE)

    def _connect(self):
        try:
            return self._psycopg.connect(self.url, autocommit=False, connect_timeout=10)
        except self._psycopg.Error as error:
            raise SharedIndexError(f"PostgreSQL inacessível em {redact(self.url)} (índice compartilhado): "
                                   f"{type(error).__name__}") from None

    def read(self) -> Manifest | None:
        with self._connect() as conn:
            row = conn.execute("select manifest from index_manifests where location = %s",
                               [self.location]).fetchone()
        if row is None:
            return None
        try:
            data = json.loads(row[0])
            return Manifest(**{k: v for k, v in data.items() if k in Manifest.__dataclass_fields__})
        except (ValueError, TypeError) as error:
            raise IndexCorrupt(f"manifesto compartilhado ilegível para {self.location}: {error}") from error

    def write(self, manifest: Manifest) -> None:
        self._execute("insert into index_manifests (location, manifest, updated_at) values (%s, %s, %s) "
                      "on conflict (location) do update set manifest = excluded.manifest, "
                      "updated_at = excluded.updated_at",
                      [self.location, json.dumps(asdict(manifest), ensure_ascii=False), time.time()])

    def read_prints(self) -> dict[str, str]:
        with self._connect() as conn:
            row = conn.execute("select prints from index_manifests where location = %s", [self.location]).fetchone()
        return json.loads(row[0]) if row and row[0] else {}

    def write_prints(self, prints: dict[str, str]) -> None:
        """The fingerprint of each stored vector, so that the next build re-encodes only what changed."""
        self._execute("insert into index_manifests (location, manifest, prints, updated_at) values (%s, '{}', %s, %s) "
                      "on conflict (location) do update set prints = excluded.prints, updated_at = excluded.updated_at",
                      [self.location, json.dumps(prints), time.time()])

    def _execute(self, sql: str, params: list) -> None:
        with self._connect() as conn:
            conn.execute(sql, params)

    @contextmanager
    def build_lock(self, on_wait: Callable[[], None] = lambda: None) -> Iterator[None]:
        """Across every replica, one build at a time; a second waits (``on_wait`` is told) instead of failing.

        A session lock on a connection of its own: if the builder dies, PostgreSQL releases it.
        """
        conn = self._psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        try:
            if not conn.execute("select pg_try_advisory_lock(%s)", [self.key]).fetchone()[0]:
                on_wait()
                conn.execute("select pg_advisory_lock(%s)", [self.key])
            yield
        finally:
            conn.close()
