"""Leases in the shared database: which replica works a chat, or polls Telegram, until when."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable

from bot.store.database import Database, StorageUnavailable
from bot.supervisor import Supervisor

log = logging.getLogger("pastor.leases")


def replica_name() -> str:
    """This process, as other replicas see it in the leases table."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class Leases:
    """Named, expiring claims; a holder that dies loses its lease when the time runs out."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time):
        self.db, self.clock = db, clock

    def acquire(self, name: str, owner: str, seconds: float) -> bool:
        """Take ``name`` for ``seconds`` (or extend it) unless another owner holds it unexpired."""
        now = self.clock()
        return self.db.execute(
            "insert into leases (name, owner, expires_at) values (?, ?, ?) on conflict (name) do update set "
            "owner = excluded.owner, expires_at = excluded.expires_at "
            "where leases.owner = excluded.owner or leases.expires_at < ?",
            [name, owner, now + seconds, now]).rowcount == 1

    def renew(self, name: str, owner: str, seconds: float) -> bool:
        """`acquire` for a holder that must stop when unsure: a database that cannot answer counts as lost."""
        try:
            return self.acquire(name, owner, seconds)
        except StorageUnavailable:
            raise  # the caller decides: a chat's worker keeps going, the poller steps down
        except Exception as error:
            log.error("não foi possível renovar %s: %s: %s", name, type(error).__name__, error)
            return False

    def release(self, name: str, owner: str) -> None:
        self.db.execute("delete from leases where name = ? and owner = ?", [name, owner])

    def forget_previous_runs(self, owner: str) -> int:
        """Drop the leases of earlier processes of this host that are gone, so that a restart after a crash
        resumes its chats and its polling at once instead of waiting for the leases to run out."""
        host = owner.split(":")[0]
        rows = self.db.execute("select name, owner from leases where owner like ?", [f"{host}:%"]).rows
        gone = [(name, held) for name, held in rows if held != owner and not _running(held)]
        for name, held in gone:
            self.db.execute("delete from leases where name = ? and owner = ?", [name, held])
        return len(gone)

    def holder(self, name: str) -> str | None:
        row = self.db.execute("select owner from leases where name = ? and expires_at >= ?",
                              [name, self.clock()]).fetchone()
        return row[0] if row else None


def _running(owner: str) -> bool:
    """Whether the process named in ``owner`` ("host:pid:tag", this host) still runs; our own pid under
    another name is an earlier run (a container restarted with the same pid)."""
    try:
        pid = int(owner.split(":")[1])
    except (IndexError, ValueError):
        return True
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Leader:
    """Runs ``lead`` on the one replica holding lease ``name`` and ``step_down`` if it loses it
    (Telegram long polling: two pollers of one bot conflict). Renewal runs under a supervisor."""

    def __init__(self, leases: Leases, name: str, owner: str, lead: Callable[[], Awaitable[None]],
                 step_down: Callable[[], Awaitable[None]], seconds: float = 30.0, supervisor: Supervisor | None = None):
        self.leases, self.name, self.owner = leases, name, owner
        self.lead, self.step_down, self.seconds = lead, step_down, seconds
        self.leading = False
        self.supervisor = supervisor or Supervisor()
        self._owns_supervisor = supervisor is None

    async def start(self) -> None:
        """Try once now (a single replica leads from its first second), then keep trying in the background."""
        with contextlib.suppress(StorageUnavailable):  # the database away at start: the supervisor tries again
            await self._round()
        self.supervisor.periodic(f"concessao:{self.name}", self._round, self.seconds / 3, now=False)

    async def stop(self) -> None:
        if self._owns_supervisor:
            await self.supervisor.stop()
        if self.leading:
            self.leading = False
            await self.step_down()
        with contextlib.suppress(StorageUnavailable):  # it expires by itself
            await self.leases.db.call(self.leases.release, self.name, self.owner)

    async def _round(self) -> None:
        try:
            held = await self.leases.db.call(self.leases.renew, self.name, self.owner, self.seconds)
        except StorageUnavailable:
            held = None  # unsure: step down, never two leaders
        if held and not self.leading:
            log.info("esta réplica assumiu %s", self.name)
            await self.lead()
            self.leading = True
        elif not held and self.leading:
            log.warning("esta réplica deixou %s (%s)", self.name,
                        "banco de dados indisponível" if held is None else "outra assumiu")
            self.leading = False  # first: whatever checks ``leading`` meanwhile must not start it again
            await self.step_down()
        if held is None:
            raise StorageUnavailable(f"não foi possível renovar {self.name}")
