"""Care mode: a chat where risk was seen stays watched until the person is safe or a human takes over."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.store.database import Database


@dataclass(frozen=True)
class CareState:
    kind: str  # the crisis kind first seen ("suicide-direct", "domestic-violence"...)
    level: str  # the most serious level seen in this chat ("imminent", "danger", "concern")
    since: float
    checks: int  # replies sent in care mode (each one checks on the person)


class CareMode:
    """Rows of ``care_mode``. Takes its database; thread-safe."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time):
        self.db, self.clock = db, clock

    def enter(self, chat_id: str, kind: str, level: str) -> None:
        """Start (or renew) care mode; the kind and level are updated to the latest risk seen."""
        now = self.clock()
        self.db.execute("insert into care_mode (chat_id, kind, level, since, updated_at, checks) "
                        "values (?, ?, ?, ?, ?, 0) on conflict (chat_id) do update set kind = excluded.kind, "
                        "level = excluded.level, updated_at = excluded.updated_at", [chat_id, kind, level, now, now])

    def get(self, chat_id: str) -> CareState | None:
        row = self.db.execute("select kind, level, since, checks from care_mode where chat_id = ?",
                              [chat_id]).fetchone()
        return CareState(*row) if row else None

    def checked(self, chat_id: str) -> None:
        self.db.execute("update care_mode set checks = checks + 1, updated_at = ? where chat_id = ?",
                        [self.clock(), chat_id])

    def clear(self, chat_id: str) -> int:
        """Leave care mode (the person is safe, a human took over, or the chat was erased)."""
        return self.db.execute("delete from care_mode where chat_id = ?", [chat_id]).rowcount
