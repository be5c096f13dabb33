"""Work a search starts early on another thread, kept until the step that reads it takes it."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Executor, Future

KEPT = 8  # searches run on several threads at once: the last few are kept, each under its own key


class Ahead:
    """Futures by key (the message they were started for), each taken once; the oldest is dropped past ``kept``
    (a search that never read it: answered before that step)."""

    def __init__(self, kept: int = KEPT):
        self.kept = kept
        self._lock = threading.Lock()
        self._futures: OrderedDict[Hashable, Future] = OrderedDict()

    def put(self, key: Hashable, future: Future) -> None:
        with self._lock:
            self._futures[key] = future
            while len(self._futures) > self.kept:
                self._futures.popitem(last=False)

    def take(self, key: Hashable) -> Future | None:
        with self._lock:
            return self._futures.pop(key, None)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._futures

    def __len__(self) -> int:
        return len(self._futures)


def start(threads: Executor, work: Callable, *args) -> Future:
    """``work(*args)`` on ``threads``, started now: this thread lets go of the GIL once, so the worker takes it at
    once instead of when this thread next blocks, or after the 5 ms switch interval (docs/performance.md)."""
    future = threads.submit(work, *args)
    time.sleep(0)
    return future
