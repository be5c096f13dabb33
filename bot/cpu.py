"""The CPU-heavy steps of an answer (screening, retrieval, the answer's checks and its semantic guard) run
here: off the event loop, in as many threads as the machine has cores, the oldest message's steps first.

`asyncio.to_thread` would use the loop's default pool (cores + 4 threads): when a backlog is answered at once
(the database back after an outage) six threads then fight over the GIL with the event loop, which waits its
turn for every callback and stalls /healthz and the webhooks. With one thread per core the loop takes the GIL
almost at once, and the queued steps simply wait their turn.

The turn is the message's, not the step's: a first-come queue of steps interleaves every answer of a backlog
(each answer is five or six steps), so all of them finish together at the end of the drain — after an outage
the first person waited as long as the last. Steps are taken in the order their messages began (`begin`), so
answers leave one after the other from the first second, in arrival order, at the same total throughput.
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
_began: contextvars.ContextVar[float | None] = contextvars.ContextVar("pastor_cpu_began", default=None)
_queue: queue.PriorityQueue = queue.PriorityQueue()
_order = itertools.count()  # ties (and steps of one message) in submission order
_threads: list[threading.Thread] = []
_lock = threading.Lock()


def begin() -> None:
    """Mark the current task's message as begun now: its CPU steps go before those of messages begun later."""
    _began.set(time.monotonic())


async def on_cpu(function: Callable[..., T], /, *args) -> T:
    """``function(*args)`` in the CPU threads (the caller's context, e.g. the message id of the logs, goes along)."""
    if not _threads:
        _start()
    loop = asyncio.get_running_loop()
    future = loop.create_future()
    began = _began.get()
    context = contextvars.copy_context()
    _queue.put((time.monotonic() if began is None else began, next(_order), partial(context.run, function, *args),
                loop, future))
    return await future


def _start() -> None:
    with _lock:
        while len(_threads) < THREADS:
            thread = threading.Thread(target=_work, name=f"pastor-cpu_{len(_threads)}", daemon=True)
            thread.start()
            _threads.append(thread)


def _work() -> None:
    while True:
        _, _, call, loop, future = _queue.get()
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
