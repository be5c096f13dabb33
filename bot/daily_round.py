"""The daily round: every minute (APScheduler), today's word is queued for each subscription whose time came.

Each word goes through the inbox under the id ``diario-<date>-<chat>``, so it is delivered like any
answer (retries, 429s, a crash mid-send) and never twice: a second queueing of the same day is a
redelivery the inbox refuses. A round also runs at start, so a time missed while down is sent then.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot.daily import VerseOfTheDay
from bot.inbox import Inbound
from bot.subscriptions import Subscriptions

log = logging.getLogger("pastor.daily")

DAILY = "daily"


class DailyRound:
    """Queues the due words of the channels that can send them."""

    def __init__(self, subscriptions: Subscriptions, words: VerseOfTheDay, accept: Callable[[Inbound], bool],
                 channels: Callable[[], set[str]]):
        self.subscriptions, self.words, self.accept, self.channels = subscriptions, words, accept, channels
        self.last_run: dict = {}  # {"at": epoch, "queued": n} for /status
        self._scheduler: AsyncIOScheduler | None = None

    def run(self) -> int:
        """Queue every due word now; how many were queued."""
        now, sending, queued = self.words.now(), self.channels(), 0
        for subscription in self.subscriptions.due(now):
            if subscription.channel not in sending:
                continue  # that channel is not configured now: its subscribers wait for it
            day = now.date().isoformat()
            inbound = Inbound(subscription.channel, subscription.chat_id, f"diario-{day}-{subscription.chat_id}",
                              DAILY, "", {"date": day})
            queued += self.accept(inbound)
            self.subscriptions.mark(subscription, now.date())
        self.last_run = {"at": time.time(), "queued": queued}
        if queued:
            log.info("versículo do dia: %d envio(s) na fila", queued)
        return queued

    async def _tick(self) -> None:
        try:
            self.run()
        except Exception as error:  # a round that fails is retried by the next one
            log.error("a rodada do versículo do dia falhou: %s: %s", type(error).__name__, error)

    def start(self, every: float | None = None) -> None:
        """Run once now (what was missed while down), then at second 0 of every minute (or ``every`` seconds).
        Must be called from the running event loop: rounds run in it."""
        self.run()
        zone = self.words.timezone
        trigger = CronTrigger(second=0, timezone=zone) if every is None else IntervalTrigger(seconds=every)
        self._scheduler = AsyncIOScheduler(timezone=zone)
        self._scheduler.add_job(self._tick, trigger, id="daily-round", coalesce=True, max_instances=1,
                                misfire_grace_time=50)
        self._scheduler.start()

    def stop(self) -> None:
        if self._scheduler is not None and self._scheduler.running:
            self._scheduler.shutdown(wait=False)
