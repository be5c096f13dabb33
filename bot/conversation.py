"""The conversation core: what every channel does, once. Channels only turn wire input into `Inbound`
and render and send what the core answers.

A message goes received -> answered -> delivered in the inbox. It is stored before the channel
acknowledges it, answered once (the rendered wire calls are stored with it), and each wire call is
made once; after a crash every message not delivered is resumed where it stopped.

Replicas sharing one database split the chats by lease: a chat is worked by the replica that holds
its lease, in order; a lease a dead replica held expires and another replica's sweep takes the chat.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial
from typing import TypeVar

from bot import cpu, messages
from bot.care.team import CareTeam, Team
from bot.channel import Channel
from bot.delivery import DeliveryError, DeliveryPolicy
from bot.devotional.commands import Devotional
from bot.logs import message_id
from bot.metrics import Metrics
from bot.outgoing import Answer, Notice
from bot.pastor.pipeline import Pastor
from bot.ratelimit import ChatRateLimit
from bot.responses import Responses
from bot.store.inbox import ANSWERED, RECEIVED, Entry, Inbound
from bot.store.leases import replica_name
from bot.store.memory import Memory
from bot.store.outage import StorageUnavailable
from bot.supervisor import Supervisor
from bot.voice.notes import VoiceNotes

log = logging.getLogger("pastor.conversation")

CHAT_LEASE_SECONDS = 60.0  # a replica that dies holding a chat gives it up after this long
T = TypeVar("T")


StatusText = Callable[[bool], Awaitable[str]]


class Conversation(Responses):
    """Per-chat order, duplicate detection, rate limiting, the commands and the reply flow, for all channels."""

    def __init__(self, pastor: Pastor, memory: Memory, status_text: StatusText, attribution: str = "",
                 admins: frozenset[str] = frozenset(), rate_limit: ChatRateLimit | None = None,
                 policy: DeliveryPolicy | None = None, metrics: Metrics | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep, clock: Callable[[], float] = time.time,
                 concurrency: int = 64, voice: VoiceNotes | None = None, devotional: Devotional | None = None,
                 replica: str | None = None, lease_seconds: float = CHAT_LEASE_SECONDS, care_team: Team | None = None,
                 supervisor: Supervisor | None = None):
        self.pastor, self.memory, self.inbox = pastor, memory, memory.inbox
        self.status_text, self.attribution, self.admins = status_text, attribution, admins
        self.rate_limit = ChatRateLimit() if rate_limit is None else rate_limit
        self.policy = policy or DeliveryPolicy()
        self.metrics = metrics or pastor.metrics
        self.sleep, self.clock = sleep, clock
        self.voice = voice  # None: voice notes get the "only text for now" reply
        self.devotional = devotional  # None: no verse of the day, subscriptions or cards (tests of the core)
        self.channels: dict[str, Channel] = {}
        self._workers: dict[tuple[str, str], asyncio.Task] = {}
        self._background: set[asyncio.Task] = set()
        self._loop: asyncio.AbstractEventLoop | None = None  # the first call on the loop sets it (`_on_loop`):
        # `accept` may be called from a store thread, even before `start` (a webhook answers as soon as HTTP is up)
        self._loop_thread = 0
        self.supervisor = supervisor or Supervisor(self.metrics)  # real time, whatever ``sleep`` tests inject
        self._owns_supervisor = supervisor is None
        self._slots = asyncio.Semaphore(concurrency)  # chats answered at once; the others wait their turn
        self.replica = replica or replica_name()
        self.lease_seconds = lease_seconds
        self.care = CareTeam(care_team or Team(), memory, pastor.crisis_help, self.metrics, clock)  # no team: told so
        self.care.bind(self.accept, lambda name: getattr(self.channels.get(name), "command_style", "/{}"))

    def register(self, channel: Channel) -> None:
        self.channels[channel.name] = channel

    # -- intake ------------------------------------------------------------------------------
    def accept(self, inbound: Inbound) -> bool:
        """Store a message and start its chat's worker; False for a redelivery (stored before, ignored). A store
        call: from the database's threads (the daily round, the care team); the event loop uses `receive`."""
        if not self.inbox.add(inbound):
            log.info("mensagem %s/%s repetida: ignorada", inbound.channel, inbound.message_id)
            return False
        if self._loop is not None and threading.get_ident() != self._loop_thread:  # from a store thread (care team)
            self._loop.call_soon_threadsafe(self._wake, inbound.channel, inbound.chat_id)
        else:
            self._wake(inbound.channel, inbound.chat_id)
        return True

    async def receive(self, inbound: Inbound) -> bool:
        """`accept` with the store call off the event loop (the webhooks' way in)."""
        self._on_loop()
        if not await self._db(self.inbox.add, inbound):
            log.info("mensagem %s/%s repetida: ignorada", inbound.channel, inbound.message_id)
            return False
        self._wake(inbound.channel, inbound.chat_id)
        return True

    def start(self, sweep_every: float = 5.0) -> asyncio.Task[int]:
        """Resume every chat with a message not yet delivered, and retry postponed deliveries from now on
        (the sweep runs under the supervisor, and at once when the database comes back from an outage).
        The resumption runs in the background; the task returned says how many chats it resumed."""
        self._loop, self._loop_thread = asyncio.get_running_loop(), threading.get_ident()
        self.supervisor.periodic("varredura", self.sweep, sweep_every, now=False)
        self.memory.db.outage.on_back(self._database_back)
        self.memory.db.outage.on_back(self.supervisor.retry_now)  # the lease, the poller, the daily round: now
        return self._spawn(self._resume())

    def _on_loop(self) -> None:
        """Remember the event loop (called on it), so that store threads can wake a chat's worker there."""
        if self._loop is None:
            self._loop, self._loop_thread = asyncio.get_running_loop(), threading.get_ident()

    async def _resume(self) -> int:
        try:
            chats = await self.sweep(due_before=float("inf"))
        except StorageUnavailable as error:  # the sweep finds them when the database is back
            log.warning("conversas pendentes não retomadas agora: %s", error)
            return 0
        if chats:
            log.info("retomando %d conversa(s) com mensagens ainda não entregues", chats)
        return chats

    async def stop(self, grace: float = 30.0) -> None:
        """Let the answers in flight finish (up to ``grace`` seconds); what is left resumes on the next start."""
        if self._owns_supervisor:
            await self.supervisor.stop()
        workers = list(self._workers.values())
        if workers:
            done, pending = await asyncio.wait(workers, timeout=grace)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    async def drain(self) -> None:
        """Wait until no chat has work in flight (tests and shutdown)."""
        while self._workers:
            await asyncio.gather(*list(self._workers.values()), return_exceptions=True)

    async def sweep(self, due_before: float | None = None) -> int:
        """Wake every chat with a message due (its query in the database's threads); how many."""
        chats = await self._db(self.inbox.pending_chats, due_before)
        for channel, chat_id in chats:
            self._wake(channel, chat_id)
        return len(chats)

    def _database_back(self) -> None:
        """After an outage: every chat left waiting is worked again now (postponed deliveries keep their time)."""
        self._spawn(self._sweep_back())

    def _spawn(self, work) -> asyncio.Task:
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def _sweep_back(self) -> None:
        try:
            await self.sweep()
        except StorageUnavailable:
            pass  # down again already: the supervised sweep retries

    async def _db(self, function: Callable[..., T], *args) -> T:
        """A store call, off the event loop (see `Database.call`)."""
        return await self.memory.db.call(function, *args)

    def _wake(self, channel: str, chat_id: str) -> None:
        key = (channel, chat_id)
        if key not in self._workers and channel in self.channels:
            self._workers[key] = asyncio.create_task(self._work(self.channels[channel], chat_id))

    # -- one chat at a time, in arrival order -------------------------------------------------
    async def _work(self, channel: Channel, chat_id: str) -> None:
        key, lease = (channel.name, chat_id), f"chat:{channel.name}:{chat_id}"
        leases = self.memory.leases
        try:
            while await self._db(leases.acquire, lease, self.replica, self.lease_seconds):  # else: another replica
                keeper = asyncio.create_task(self._keep_lease(lease))
                try:
                    if not await self._work_held(channel, chat_id, keeper):
                        return
                finally:
                    keeper.cancel()
                    with contextlib.suppress(StorageUnavailable):  # it expires by itself
                        await self._db(leases.release, lease, self.replica)
                if await self._db(self.inbox.next_for, channel.name, chat_id) is None:
                    return  # nothing arrived while the lease was being given up
        except StorageUnavailable as error:  # the message stays in the inbox: worked again when the database is back
            self.metrics.storage_unavailable.labels("conversation").inc()
            log.warning("conversa %s/%s em espera: %s", channel.name, chat_id, error)
        finally:
            self._workers.pop(key, None)

    async def _work_held(self, channel: Channel, chat_id: str, keeper: asyncio.Task) -> bool:
        """Answer this chat's messages in order while the lease is held; False when postponed or lost."""
        while not keeper.done():
            entry = await self._db(self.inbox.next_for, channel.name, chat_id)
            if entry is None:
                return True
            if entry.next_attempt_at > self.clock():
                return False  # a delivery postponed: the sweeper comes back for it
            message_id.set(f"{channel.name[:2]}-{entry.inbound.message_id}")
            async with self._slots:
                cpu.begin(_written_at(entry), entry.seq)  # its CPU steps before those of later messages
                if not await self._process(channel, entry):
                    return False
        return False  # the lease was lost (this replica stalled): whoever holds it now goes on

    async def _keep_lease(self, lease: str) -> None:
        """Renew the lease while the chat is worked; return (ending the work) if it cannot be kept."""
        while True:
            await asyncio.sleep(self.lease_seconds / 3)
            try:
                held = await self._db(self.memory.leases.renew, lease, self.replica, self.lease_seconds)
            except StorageUnavailable:
                continue  # nobody can take it while the database is away; the next renewal tells
            if not held:
                log.error("a conversa %s não é mais desta réplica", lease)
                return

    async def _process(self, channel: Channel, entry: Entry) -> bool:
        if entry.state == RECEIVED:
            parts, outcome = await self._answer(channel, entry.inbound)
            await self._durably(partial(self.inbox.answered, entry.seq, parts, outcome))
            entry = replace(entry, state=ANSWERED, parts=parts, outcome=outcome)
        return await self._deliver(channel, entry)

    async def _answer(self, channel: Channel, inbound: Inbound) -> tuple[list[dict], str]:
        """The wire calls of the answer, and the pastor's status when it is one of his answers."""
        try:
            outgoing = await self._respond(channel, inbound)
        except StorageUnavailable:
            raise  # not the person's fault, nor an answer: the message is answered when the database is back
        except Exception as error:  # the bot goes on; the person gets an apology
            log.error("erro ao preparar a resposta: %s: %s", type(error).__name__, error)
            outgoing = [Notice(messages.SORRY)]
        outcome = next((item.status for item in outgoing if isinstance(item, Answer)), "")
        return channel.render(inbound, outgoing), outcome

    async def _deliver(self, channel: Channel, entry: Entry) -> bool:
        """Send the parts not sent yet; False when delivery is postponed (the chat waits, in order)."""
        for index in range(entry.sent, len(entry.parts)):
            try:
                await self.policy.send(lambda part=entry.parts[index]: channel.deliver(entry.inbound.chat_id, part),
                                       self.sleep)
            except DeliveryError as error:
                if error.permanent:
                    log.error("entrega recusada por %s, desistindo desta mensagem: %s", channel.name, error)
                    if error.unreachable and self.devotional is not None:
                        await self._durably(partial(self.devotional.unreachable, entry.inbound, str(error)))
                    await self._durably(partial(self.inbox.failed, entry.seq, str(error)))
                    self.metrics.deliveries.labels(channel.name, "failed").inc()
                    return True
                log.warning("entrega adiada em %s (tentativa %d): %s", channel.name, entry.attempts + 1, error)
                await self._durably(partial(self.inbox.postpone, entry.seq, self.clock() + self.policy.later,
                                            str(error)))
                self.metrics.deliveries.labels(channel.name, "postponed").inc()
                return False
            await self._durably(partial(self.inbox.sent, entry.seq, index + 1))
        await self._durably(partial(self.inbox.delivered, entry.seq))
        self.metrics.deliveries.labels(channel.name, "delivered").inc()
        if entry.outcome:  # an answer counts once the person has it, never when only prepared
            self.metrics.messages.labels(channel.name, entry.outcome).inc()
        return True

    async def _durably(self, write: Callable[[], object]) -> None:
        """A write that records what already happened (a part sent, an answer made): kept until the database
        takes it, so nothing is sent twice nor answered again after a short outage."""
        wait = 0.2
        while True:
            try:
                await self._db(write)
                return
            except StorageUnavailable:
                self.metrics.storage_unavailable.labels("delivery").inc()
                await self.memory.db.outage.wait_back(wait)
                wait = min(wait * 2, 2.0)


def _written_at(entry: Entry) -> float:
    """When the person wrote the message (the channel's own time; never after it reached the inbox)."""
    sent_at = entry.inbound.meta.get("sent_at")
    return min(float(sent_at), entry.received_at) if isinstance(sent_at, int | float) and sent_at > 0 \
        else entry.received_at
