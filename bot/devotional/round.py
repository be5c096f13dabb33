"""The daily round: every minute (at second 0, under the supervisor), today's word is queued for each
subscription whose time came.

Each word goes through the inbox under the id ``diario-<date>-<chat>``, so it is delivered like any
answer (retries, 429s, a crash mid-send) and never twice: a second queueing of the same day is a
redelivery the inbox refuses. A round also runs at start, so a time missed while down is sent then.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from bot.devotional.verses import VerseOfTheDay
from bot.store.inbox import Inbound, InboundKind
from bot.store.subscriptions import Subscriptions
from bot.supervisor import Supervisor

log = logging.getLogger("pastor.daily")


class DailyRound:
    """Queues the due words of the channels that can send them."""

    def __init__(self, subscriptions: Subscriptions, words: VerseOfTheDay, accept: Callable[[Inbound], bool],
                 channels: Callable[[], set[str]]):
        self.subscriptions, self.words, self.accept, self.channels = subscriptions, words, accept, channels
        self.last_run: dict = {}  # {"at": epoch, "queued": n} for /status

    def run(self) -> int:
        """Queue every due word now; how many were queued. Store calls: `round` runs it in the database's threads."""
        now, sending, queued = self.words.now(), self.channels(), 0
        for subscription in self.subscriptions.due(now):
            if subscription.channel not in sending:
                continue  # that channel is not configured now: its subscribers wait for it
            day = now.date().isoformat()
            inbound = Inbound(subscription.channel, subscription.chat_id, f"diario-{day}-{subscription.chat_id}",
                              InboundKind.DAILY, "", {"date": day})
            queued += self.accept(inbound)
            self.subscriptions.mark(subscription, now.date())
        self.last_run = {"at": time.time(), "queued": queued}
        if queued:
            log.info("versículo do dia: %d envio(s) na fila", queued)
        return queued

    def start(self, supervisor: Supervisor, every: float | None = None) -> None:
        """Run now (what was missed while down), then at second 0 of every minute (or every ``every`` seconds),
        under ``supervisor``: a round that fails is logged, counted and retried. Call from the running loop."""
        supervisor.periodic("versiculo-do-dia", self.round, every if every is not None else self._until_next_minute)

    async def round(self) -> int:
        """`run`, off the event loop."""
        return await self.subscriptions.db.call(self.run)

    @staticmethod
    def _until_next_minute() -> float:
        return 60.0 - time.time() % 60.0
