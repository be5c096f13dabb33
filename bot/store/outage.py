"""Database outages: fail fast while the database cannot be reached, notice at once when it is back.

The first call that finds the database unreachable opens the breaker; every call after it raises
`StorageUnavailable` at once (nothing waits in the event loop) while a background thread probes the
database every ``every`` seconds. When a probe succeeds the breaker closes and the listeners run
(the conversation sweeps its pending chats, the Telegram poller stores what it holds).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger("pastor.storage")

PROBE_EVERY = 0.25  # a refused connection costs nothing; a hanging one is cut by the connect timeout


class StorageError(RuntimeError):
    """The configured database cannot be used; the message says why (never the password)."""


class StorageUnavailable(StorageError):
    """The database does not answer right now (stopped, unreachable, locked): try again later."""


class Outage:
    """A circuit breaker around one database, with its own probe thread while open."""

    def __init__(self, probe: Callable[[], None], every: float = PROBE_EVERY, clock: Callable[[], float] = time.time,
                 mask: Callable[[str], str] = lambda text: text):
        self.probe, self.every, self.clock, self.mask = probe, every, clock, mask
        self.down_since: float | None = None
        self.reason = ""
        self.outages = 0  # how many times the database went away in this process
        self._lock = threading.Lock()
        self._listeners: list[tuple[asyncio.AbstractEventLoop | None, Callable[[], None]]] = []
        self._back = threading.Event()
        self._back.set()

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def check(self) -> None:
        """Raise at once while the database is known to be down."""
        if self.down_since is not None:
            raise StorageUnavailable(f"banco de dados indisponível: {self.reason}")

    def failed(self, error: BaseException) -> StorageUnavailable:
        """Record that the database failed; returns the error to raise (the probe starts if it is not running)."""
        reason = self.mask(_reason(error))
        with self._lock:
            opened = self.down_since is None
            if opened:
                self.down_since, self.reason = self.clock(), reason
                self.outages += 1
                self._back.clear()
        if opened:
            log.error("banco de dados indisponível: %s (as chamadas falham na hora até ele voltar)", reason)
            threading.Thread(target=self._probe_until_back, name="pastor-db-probe", daemon=True).start()
        return StorageUnavailable(f"banco de dados indisponível: {reason}")

    def on_back(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` when the database comes back (in the caller's event loop when there is one)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        self._listeners.append((loop, callback))

    async def wait_back(self, timeout: float) -> bool:
        """Wait (without blocking the loop) until the database is back; False after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while self.down and time.monotonic() < deadline:  # noqa: ASYNC110 (set from the probe thread)
            await asyncio.sleep(min(0.1, self.every))
        return not self.down

    def _probe_until_back(self) -> None:
        while True:
            time.sleep(self.every)
            try:
                self.probe()
            except Exception as error:  # still down: keep the latest reason for /status
                self.reason = self.mask(_reason(error))
                continue
            break
        with self._lock:
            seconds = self.clock() - (self.down_since or self.clock())
            self.down_since = None
            self._back.set()
        log.warning("banco de dados de volta após %.1f s", seconds)
        for loop, callback in list(self._listeners):
            if loop is None:
                callback()
            elif not loop.is_closed():
                loop.call_soon_threadsafe(callback)


def _reason(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}"[:200] if text else type(error).__name__
