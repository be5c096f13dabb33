"""Care cases: a person handed to the care team, under a short code, from the offer until it is closed."""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.store.database import Database

OFFERED, OPEN, CLOSED = "offered", "open", "closed"
ALPHABET = "ACDEFHJKMNPRTUVWXY34679"  # no 0/O, 1/I/L, 2/Z, 5/S, 8/B: read aloud or typed without doubt
CODE_LENGTH = 4
CODE = re.compile(rf"\b[{ALPHABET}{ALPHABET.lower()}]{{{CODE_LENGTH}}}\b")
MENTION = re.compile(rf"\bcaso ([{ALPHABET}]{{{CODE_LENGTH}}})\b", re.IGNORECASE)


def valid_code(text: str) -> str | None:
    """The case code written by a team member ("k7mx" -> "K7MX"), or None when it cannot be one."""
    code = text.strip().upper()
    return code if len(code) == CODE_LENGTH and all(c in ALPHABET for c in code) else None


def mentioned_case(text: str) -> str | None:
    """The case a bot message names ("… caso K7MX …"): a team member replying to it answers that case."""
    match = MENTION.search(text or "")
    return match.group(1).upper() if match else None


@dataclass(frozen=True)
class Case:
    code: str
    origin: str  # "<channel>:<message id>" of the message that started it
    channel: str  # the person's channel and chat
    chat_id: str
    state: str  # OFFERED, OPEN, CLOSED
    level: str | None
    kind: str | None
    offered_at: float
    alerted_at: float | None
    first_reply_at: float | None
    closed_at: float | None
    closed_by: str | None  # "person" (declined), "erased", "expired", "superseded", or the team member


_COLUMNS = ("code, origin, channel, chat_id, state, level, kind, offered_at, alerted_at, first_reply_at, closed_at, "
            "closed_by")


class Cases:
    """Rows of ``care_cases``. Takes its database; thread-safe. State changes are guarded updates, so each
    happens once even when the message that caused it is answered again after a crash."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time):
        self.db, self.clock = db, clock

    def create(self, origin: str, channel: str, chat_id: str, state: str, level: str | None,
               kind: str | None) -> tuple[Case, bool]:
        """The case started by ``origin`` (the message that caused it), and whether it was created now."""
        existing = self._one("origin = ?", [origin])
        if existing is not None:
            return existing, False
        now = self.clock()
        for _ in range(20):  # a code already taken (rare): draw another
            code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
            cursor = self.db.execute(
                "insert into care_cases (code, origin, channel, chat_id, state, level, kind, offered_at, alerted_at, "
                "updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing",
                [code, origin, channel, chat_id, state, level, kind, now, now if state == OPEN else None, now])
            if cursor.rowcount == 1:
                return self.get(code), True
            existing = self._one("origin = ?", [origin])  # another replica created it meanwhile
            if existing is not None:
                return existing, False
        raise RuntimeError("no free care case code")

    def get(self, code: str) -> Case | None:
        return self._one("code = ?", [code])

    def current(self, channel: str, chat_id: str) -> Case | None:
        """The chat's case still offered or open (the latest), if any."""
        return self._one("channel = ? and chat_id = ? and state in (?, ?)", [channel, chat_id, OFFERED, OPEN])

    def latest(self, channel: str, chat_id: str) -> Case | None:
        return self._one("channel = ? and chat_id = ?", [channel, chat_id])

    def open_cases(self) -> list[Case]:
        rows = self.db.execute(f"select {_COLUMNS} from care_cases where state = ? order by alerted_at",
                               [OPEN]).fetchall()
        return [Case(*row) for row in rows]

    def accept(self, code: str) -> bool:
        """Offered -> open (the person said yes); False when it was not offered any more."""
        now = self.clock()
        return self._change(code, OFFERED, state=OPEN, alerted_at=now)

    def decline(self, code: str) -> bool:
        return self._change(code, OFFERED, state=CLOSED, closed_at=self.clock(), closed_by="person")

    def answered(self, code: str, responder: str) -> float | None:
        """Record a human reply; the seconds from the alert to it when it is the case's first, else None."""
        now = self.clock()
        if not self._change(code, OPEN, first_reply_at=now, responder=responder, extra="first_reply_at is null"):
            return None
        case = self.get(code)
        return now - (case.alerted_at or case.offered_at)

    def close(self, code: str, by: str) -> bool:
        changed = self._change(code, OPEN, state=CLOSED, closed_at=self.clock(), closed_by=by)
        return changed or self._change(code, OFFERED, state=CLOSED, closed_at=self.clock(), closed_by=by)

    def erase_chat(self, chat_id: str) -> list[Case]:
        """Close this chat's cases (the person erased the conversation) and forget whose they were; all of
        them, as they were before (the open ones are told to the team, the relays of each are redacted)."""
        rows = self.db.execute(f"select {_COLUMNS} from care_cases where chat_id = ?", [chat_id]).fetchall()
        cases = [Case(*row) for row in rows]
        for case in cases:
            self.close(case.code, "erased")
        self.db.execute("update care_cases set chat_id = '', updated_at = ? where chat_id = ?", [self.clock(), chat_id])
        return cases

    def purge(self, before: float) -> int:
        """Closed cases that ended before ``before`` (the retention of conversations)."""
        return self.db.execute("delete from care_cases where state = ? and closed_at < ?", [CLOSED, before]).rowcount

    def _change(self, code: str, current: str, extra: str = "", **values) -> bool:
        """Set ``values`` on the case if it is in state ``current`` (and ``extra`` holds); whether it changed."""
        values["updated_at"] = self.clock()
        assignments = ", ".join(f"{name} = ?" for name in values)
        condition = "code = ? and state = ?" + (f" and {extra}" if extra else "")
        return self.db.execute(f"update care_cases set {assignments} where {condition}",
                               [*values.values(), code, current]).rowcount == 1

    def _one(self, condition: str, params: list) -> Case | None:
        row = self.db.execute(f"select {_COLUMNS} from care_cases where {condition} order by offered_at desc "
                              "limit 1", params).fetchone()
        return Case(*row) if row else None
