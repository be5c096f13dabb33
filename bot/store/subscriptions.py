"""Daily devotional subscriptions: who gets the verse of the day, at what local time."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime

from bot.store.database import Database

_TIME = re.compile(r"^\s*(\d{1,2})\s*(?:[:h.]\s*(\d{2})?)?\s*(?:h|hs|horas?)?\s*$", re.IGNORECASE)


def parse_time(text: str) -> tuple[int, int] | None:
    """"7:30", "07h30", "7h", "19" -> (hour, minute); None when it is not a time of day."""
    match = _TIME.match(text)
    if not match:
        return None
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    return (hour, minute) if hour < 24 and minute < 60 else None


@dataclass(frozen=True)
class Subscription:
    channel: str
    chat_id: str
    hour: int
    minute: int
    last_date: str  # the last local date whose word was queued for this chat ("" never)

    @property
    def time(self) -> str:
        return f"{self.hour:02d}:{self.minute:02d}"


class Subscriptions:
    """Rows of ``subscriptions`` (see ``bot.store.migrations``). Takes its database; thread-safe."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time):
        self.db, self.clock = db, clock

    def subscribe(self, channel: str, chat_id: str, hour: int, minute: int, now: datetime) -> Subscription:
        """Subscribe (or move the time); a time already past today starts tomorrow."""
        today = now.date().isoformat()
        started = today if (now.hour, now.minute) >= (hour, minute) else ""
        with self.db.transaction():
            row = self.db.execute("select last_date from subscriptions where channel = ? and chat_id = ?",
                                  [channel, chat_id]).fetchone()
            last = max(row[0], started) if row else started
            self.db.execute("insert into subscriptions (channel, chat_id, hour, minute, last_date, created_at) "
                            "values (?, ?, ?, ?, ?, ?) on conflict (channel, chat_id) do update set "
                            "hour = excluded.hour, minute = excluded.minute, last_date = excluded.last_date, "
                            "created_at = excluded.created_at", [channel, chat_id, hour, minute, last, self.clock()])
        return Subscription(channel, chat_id, hour, minute, last)

    def get(self, channel: str, chat_id: str) -> Subscription | None:
        row = self.db.execute("select channel, chat_id, hour, minute, last_date from subscriptions "
                              "where channel = ? and chat_id = ?", [channel, chat_id]).fetchone()
        return Subscription(*row) if row else None

    def cancel(self, channel: str, chat_id: str) -> bool:
        return self.db.execute("delete from subscriptions where channel = ? and chat_id = ?",
                               [channel, chat_id]).rowcount > 0

    def delete_chat(self, chat_id: str) -> int:
        return self.db.execute("delete from subscriptions where chat_id = ?", [chat_id]).rowcount

    def purge_unserved(self, cutoff: float) -> int:
        """Delete subscriptions made before ``cutoff`` whose word has not been queued since (an unreachable chat,
        a channel no longer configured)."""
        day = datetime.fromtimestamp(cutoff).date().isoformat()
        return self.db.execute("delete from subscriptions where created_at < ? and last_date < ?",
                               [cutoff, day]).rowcount

    def due(self, now: datetime) -> list[Subscription]:
        """Subscriptions whose time today has come and whose word for today was not queued yet."""
        today, minutes = now.date().isoformat(), now.hour * 60 + now.minute
        rows = self.db.execute("select channel, chat_id, hour, minute, last_date from subscriptions "
                               "where hour * 60 + minute <= ? and last_date < ? order by hour, minute",
                               [minutes, today]).fetchall()
        return [Subscription(*row) for row in rows]

    def mark(self, subscription: Subscription, day: date) -> None:
        self.db.execute("update subscriptions set last_date = ? where channel = ? and chat_id = ?",
                        [day.isoformat(), subscription.channel, subscription.chat_id])

    def count(self) -> dict[str, int]:
        return dict(self.db.execute("select channel, count(*) from subscriptions group by channel").fetchall())

    # -- the word of each day, the same for everyone ---------------------------------------------
    def word(self, day: date) -> tuple[list[str], str] | None:
        row = self.db.execute("select verse_ids, reflection from daily_words where date = ?",
                              [day.isoformat()]).fetchone()
        return (row[0].split(","), row[1]) if row else None

    def keep_word(self, day: date, verse_ids: list[str], reflection: str) -> tuple[list[str], str]:
        """Store the day's word unless one is stored already (another process was first); the stored one."""
        self.db.execute("insert into daily_words (date, verse_ids, reflection, created_at) values (?, ?, ?, ?) "
                        "on conflict (date) do nothing",
                        [day.isoformat(), ",".join(verse_ids), reflection, self.clock()])
        return self.word(day) or (verse_ids, reflection)
