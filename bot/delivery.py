"""One outbound delivery policy for every platform API: bounded retries, capped backoff, `retry_after` honoured."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

log = logging.getLogger("pastor.delivery")


class DeliveryError(Exception):
    """A wire call that failed: ``permanent`` (a 4xx other than 429: retrying cannot help) or transient,
    with the wait the platform asked for, if any; ``unreachable`` when the person blocked the bot."""

    def __init__(self, reason: str, retry_after: float | None = None, permanent: bool = False,
                 code: int | None = None, unreachable: bool = False):
        super().__init__(reason)
        self.retry_after, self.permanent, self.code = retry_after, permanent, code  # code: the platform's own
        self.unreachable = unreachable


@dataclass(frozen=True)
class DeliveryPolicy:
    attempts: int = 6  # wire attempts per call before the message is postponed
    backoff: float = 1.0  # first wait after a failure without retry_after; doubles each time
    cap: float = 20.0  # the longest single wait, even when the platform asks for more
    later: float = 30.0  # a postponed message is tried again after this many seconds

    def wait(self, attempt: int, error: DeliveryError) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (0-based)."""
        asked = error.retry_after if error.retry_after is not None else self.backoff * 2 ** attempt
        return max(0.0, min(asked, self.cap))

    async def send(self, call: Callable[[], Awaitable[None]], sleep: Callable[[float], Awaitable[None]]) -> None:
        """Make ``call``; retry transient failures; raise the last `DeliveryError` when out of attempts."""
        for attempt in range(self.attempts):
            try:
                await call()
                return
            except DeliveryError as error:
                if error.permanent or attempt == self.attempts - 1:
                    raise
                wait = self.wait(attempt, error)
                log.warning("envio falhou (tentativa %d de %d): %s; nova tentativa em %.1f s", attempt + 1,
                            self.attempts, error, wait)
                await sleep(wait)
