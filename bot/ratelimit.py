"""Per-chat rate limiting: the excess waits, it is never dropped; idle chats leave no trace."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

WINDOW = 60.0


class ChatRateLimit:
    """At most ``per_minute`` messages a minute per chat."""

    def __init__(self, per_minute: int = 6, clock: Callable[[], float] = time.monotonic):
        self.per_minute, self.clock = per_minute, clock
        self._times: dict[str, deque[float]] = {}
        self._swept = clock()

    def wait_for(self, chat_id: str) -> float:
        """Seconds to wait before this chat's next message may be processed (then it is counted)."""
        now = self.clock()
        if now - self._swept >= WINDOW:
            self._forget_idle(now)
        times = self._times.setdefault(chat_id, deque())
        while times and now - times[0] >= WINDOW:
            times.popleft()
        wait = 0.0 if len(times) < self.per_minute else WINDOW - (now - times[0])
        times.append(now + wait)
        return wait

    def __len__(self) -> int:
        return len(self._times)

    def _forget_idle(self, now: float) -> None:
        self._swept = now
        for chat_id in list(self._times):
            times = self._times[chat_id]
            while times and now - times[0] >= WINDOW:
                times.popleft()
            if not times:
                del self._times[chat_id]
