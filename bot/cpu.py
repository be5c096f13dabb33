"""The CPU-heavy steps of an answer (screening, retrieval, the answer's checks and its semantic guard) run
here: off the event loop, in as many threads as the machine has cores, the oldest message's steps first.

`asyncio.to_thread` would use the loop's default pool (cores + 4 threads): when a backlog is answered at once
(the database back after an outage) six threads then fight over the GIL with the event loop, which waits its
turn for every callback and stalls /healthz and the webhooks. With one thread per core the loop takes the GIL
almost at once, and the queued steps simply wait their turn.

The turn is the message's, not the step's: a first-come queue of steps interleaves every answer of a backlog
(each answer is five or six steps), so all of them finish together at the end of the drain — after an outage
the first person waited as long as the last. Steps are taken in the order their messages were written (`begin`,
with the channel's own time: Telegram's `date`, WhatsApp's `timestamp`), so answers leave one after the other from
the first second, oldest first across both channels, at the same total throughput.
The database's worker threads take their calls in the same order (`OrderedPool`, used by `Database.call`).
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import os
import queue
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import TypeVar

T = TypeVar("T")
THREADS = max(1, os.cpu_count() or 1)
_began: contextvars.ContextVar[tuple[float, int] | None] = contextvars.ContextVar("pastor_cpu_began",
                                                                            default=None)
_order = itertools.count()  # ties (and steps of one message) in submission order
_FIRST, _LAST = (0.0, 0), (float("inf"), 0)


def begin(written_at: float | None = None, arrival: int = 0) -> None:
    """Mark the current task's message (written at ``written_at``, Unix time, default now; ``arrival`` breaks
    ties, e.g. the inbox's sequence): its steps go before those of messages written later, by either channel."""
    _began.set((time.time() if written_at is None else written_at, arrival))


class OrderedPool:
    """A few threads taking calls in the order their messages began. Calls outside any message (a webhook storing
    what arrived, the sweep, a lease) are short and someone waits on them: they go first, in submission order."""

    def __init__(self, threads: int, name: str):
        self.size, self.name = threads, name
        self._queue: queue.PriorityQueue = queue.PriorityQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    async def run(self, function: Callable[..., T], /, *args) -> T:
        """``function(*args)`` in a thread of the pool (the caller's context goes along); awaits its result."""
        if len(self._threads) < self.size:
            self._start()
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        began = _began.get()
        call = partial(contextvars.copy_context().run, function, *args)
        self._queue.put((_FIRST if began is None else began, next(_order), call, loop, future))
        return await future

    def shutdown(self) -> None:
        """Let the queued calls finish, then end the threads (a call submitted afterwards starts them again)."""
        with self._lock:
            threads, self._threads = self._threads, []
        for _ in threads:
            self._queue.put((_LAST, next(_order), None, None, None))
        for thread in threads:
            thread.join(timeout=10)  # a thread started meanwhile may take a sentinel: never wait forever

    def _start(self) -> None:
        with self._lock:
            while len(self._threads) < self.size:
                thread = threading.Thread(target=self._work, name=f"{self.name}_{len(self._threads)}", daemon=True)
                thread.start()
                self._threads.append(thread)

    def _work(self) -> None:
        while True:
            _, _, call, loop, future = self._queue.get()
            if call is None:
                return
            if future.cancelled():
                continue
            try:
                result, error = call(), None
            except BaseException as raised:  # handed to the awaiting task, as an executor does
                result, error = None, raised
            try:
                loop.call_soon_threadsafe(_settle, future, result, error)
            except RuntimeError:  # the loop closed meanwhile: nobody waits for it
                pass


def _settle(future: asyncio.Future, result, error: BaseException | None) -> None:
    if future.cancelled():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


_cpu = OrderedPool(THREADS, "pastor-cpu")


async def on_cpu(function: Callable[..., T], /, *args) -> T:
    """``function(*args)`` in the CPU threads (the caller's context, e.g. the message id of the logs, goes along)."""
    return await _cpu.run(function, *args)
