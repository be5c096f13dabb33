"""Keeping a "typing…" indicator alive while an answer is prepared, for any channel."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable


@contextlib.asynccontextmanager
async def repeating(action: Callable[[], Awaitable[None]], every: float):
    """Run ``action`` at once, then every ``every`` seconds, until the context ends."""

    async def again() -> None:
        while True:
            await asyncio.sleep(every)
            await action()

    await action()
    task = asyncio.create_task(again())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
