"""The durable inbox/outbox: every inbound message is stored before it is acknowledged, then answered and delivered."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from bot.store.database import Database

RECEIVED, ANSWERED, DELIVERED, FAILED = "received", "answered", "delivered", "failed"
PENDING = (RECEIVED, ANSWERED)
DEDUPE_SECONDS = 7 * 86400  # how long a message id is remembered to refuse a redelivery


class InboundKind(StrEnum):
    """What a stored message is; the value is what the inbox keeps in its payload."""

    TEXT = "text"  # words for the pastor
    COMMAND = "command"  # a command of bot/commands.py (``text`` is its name, ``meta["args"]`` the rest)
    BUTTON = "button"  # a button pressed (``text`` is its payload, see bot/buttons.py)
    VOICE = "voice"  # a voice note, fetched from the channel when it is answered
    OTHER = "other"  # anything else a person sent (a sticker, a photo): answered with "only text"
    RELAY = "relay"  # a message to or from the care team, queued by the core, shown as it is
    DAILY = "daily"  # the verse of the day, queued by the daily round at the subscriber's time


@dataclass(frozen=True)
class Inbound:
    """One message from a person, as every channel reduces it: text, a command, a button, or something else."""

    channel: str
    chat_id: str
    message_id: str
    kind: InboundKind
    text: str = ""
    meta: dict = field(default_factory=dict)  # channel details needed to answer (callback ids, chat type)

    def __post_init__(self):
        object.__setattr__(self, "kind", InboundKind(self.kind))  # a plain "text" is accepted, an unknown refused

    def as_dict(self) -> dict:
        return {"channel": self.channel, "chat_id": self.chat_id, "message_id": self.message_id, "kind": self.kind,
                "text": self.text, "meta": self.meta}


@dataclass(frozen=True)
class Entry:
    """A stored message and how far its answer got: the wire calls to make and how many were made."""

    seq: int
    inbound: Inbound
    state: str
    parts: list[dict]
    sent: int
    attempts: int
    received_at: float
    next_attempt_at: float = 0.0
    outcome: str = ""  # the pastor's status for this answer ("answered", "crisis"…), counted once delivered


class Inbox:
    """Rows of the ``inbox`` table (see ``bot.store.migrations``). Takes its database; thread-safe."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time):
        self.db, self.clock = db, clock

    def add(self, inbound: Inbound) -> bool:
        """Store a message; False when this channel's message id was already stored (a redelivery)."""
        now = self.clock()
        cursor = self.db.execute(
            "insert into inbox (channel, message_id, chat_id, payload, state, parts, sent, attempts, "
            "next_attempt_at, received_at, updated_at) values (?, ?, ?, ?, ?, null, 0, 0, 0, ?, ?) "
            "on conflict (channel, message_id) do nothing",
            [inbound.channel, inbound.message_id, inbound.chat_id, json.dumps(inbound.as_dict()), RECEIVED,
             now, now])
        return cursor.rowcount == 1

    def next_for(self, channel: str, chat_id: str) -> Entry | None:
        """The oldest message of this chat not yet delivered."""
        row = self.db.execute(
            f"select {_COLUMNS} from inbox where channel = ? and chat_id = ? and state in (?, ?) "
            "order by seq limit 1", [channel, chat_id, *PENDING]).fetchone()
        return _entry(row) if row else None

    def pending_chats(self, due_before: float | None = None) -> list[tuple[str, str]]:
        """(channel, chat id) of every chat with a message not yet delivered, oldest first."""
        due = self.clock() if due_before is None else due_before
        rows = self.db.execute(
            "select channel, chat_id, min(seq) from inbox where state in (?, ?) and next_attempt_at <= ? "
            "group by channel, chat_id order by 3", [*PENDING, due]).fetchall()
        return [(channel, chat_id) for channel, chat_id, _ in rows]

    def answered(self, seq: int, parts: list[dict], outcome: str = "") -> None:
        self._update(seq, state=ANSWERED, parts=json.dumps(parts), outcome=outcome or None)

    def sent(self, seq: int, count: int) -> None:
        self._update(seq, sent=count, state=ANSWERED)

    def delivered(self, seq: int) -> None:
        self._update(seq, state=DELIVERED, last_error=None)

    def failed(self, seq: int, reason: str) -> None:
        self._update(seq, state=FAILED, last_error=reason[:300])

    def postpone(self, seq: int, until: float, reason: str) -> None:
        self.db.execute("update inbox set attempts = attempts + 1, next_attempt_at = ?, last_error = ?, "
                        "updated_at = ? where seq = ?", [until, reason[:300], self.clock(), seq])

    def backlog(self) -> tuple[int, float]:
        """How many messages wait for delivery and the age in seconds of the oldest."""
        count, oldest = self.db.execute("select count(*), min(received_at) from inbox where state in (?, ?)",
                                        list(PENDING)).fetchone()
        return count, (self.clock() - oldest) if oldest else 0.0

    def redact_chat(self, chat_id: str) -> int:
        """Erase what was said in this chat's finished messages, keeping only their ids (to refuse redeliveries)."""
        return self.db.execute("update inbox set payload = null, parts = null "
                               "where chat_id = ? and state in (?, ?)", [chat_id, DELIVERED, FAILED]).rowcount

    def redact_prefix(self, prefix: str) -> int:
        """Erase what was said in the finished messages whose id starts with ``prefix`` (relays of one care case)."""
        return self.db.execute("update inbox set payload = null, parts = null where message_id like ? "
                               "and state in (?, ?)", [prefix.replace("%", "") + "%", DELIVERED, FAILED]).rowcount

    def purge(self, older_than: float) -> int:
        """Finished rows received more than ``older_than`` seconds ago."""
        cutoff = self.clock() - older_than
        return self.db.execute("delete from inbox where received_at < ? and state in (?, ?)",
                               [cutoff, DELIVERED, FAILED]).rowcount

    def _update(self, seq: int, **values) -> None:
        values["updated_at"] = self.clock()
        assignments = ", ".join(f"{name} = ?" for name in values)
        self.db.execute(f"update inbox set {assignments} where seq = ?", [*values.values(), seq])


_COLUMNS = "seq, payload, state, parts, sent, attempts, received_at, next_attempt_at, outcome"


def _entry(row) -> Entry:
    seq, payload, state, parts, sent, attempts, received_at, next_attempt_at, outcome = row
    data = json.loads(payload) if payload else {}
    inbound = Inbound(data.get("channel", ""), data.get("chat_id", ""), data.get("message_id", ""),
                      data.get("kind", "other"), data.get("text", ""), data.get("meta") or {})
    return Entry(seq, inbound, state, json.loads(parts) if parts else [], sent, attempts, received_at,
                 next_attempt_at, outcome or "")
