"""The CPU-heavy steps of an answer (screening, retrieval, the answer's checks and its semantic guard) run
here: off the event loop, in as many threads as the machine has cores.

`asyncio.to_thread` would use the loop's default pool (cores + 4 threads): when a backlog is answered at once
(the database back after an outage) six threads then fight over the GIL with the event loop, which waits its
turn for every callback and stalls /healthz and the webhooks. With one thread per core the loop takes the GIL
almost at once, and the queued steps simply wait their turn.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TypeVar

T = TypeVar("T")
THREADS = max(1, os.cpu_count() or 1)
_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


async def on_cpu(function: Callable[..., T], /, *args) -> T:
    """``function(*args)`` in the CPU threads (the caller's context, e.g. the message id of the logs, goes along)."""
    global _pool
    if _pool is None:
        with _lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(THREADS, thread_name_prefix="pastor-cpu")
    context = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(_pool, partial(context.run, function, *args))
