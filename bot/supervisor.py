"""Background work under one supervisor: a step that fails is logged, counted, retried after a backoff;
a task that keeps failing turns /readyz red with its name."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

log = logging.getLogger("pastor.supervisor")

FAILING_AFTER = 3  # consecutive failures before /readyz names the task
MAX_BACKOFF = 60.0

Step = Callable[[], Awaitable[object] | object]


@dataclass
class _Task:
    name: str
    step: Step
    every: Callable[[], float]
    failures: int = 0
    last_error: str = ""
    task: asyncio.Task | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)  # set: a backoff ends at once


class Supervisor:
    """Runs each periodic step forever, whatever it raises; ``failing()`` says which keep failing."""

    def __init__(self, metrics=None, least_backoff: float = 1.0):
        self.metrics = metrics
        self.least_backoff = least_backoff  # the first wait after a failure, even for a step run more often
        self.tasks: dict[str, _Task] = {}

    def periodic(self, name: str, step: Step, every: float | Callable[[], float], now: bool = True) -> None:
        """Run ``step`` now (unless ``now`` is False) and then every ``every`` seconds, until `stop`."""
        interval = every if callable(every) else (lambda: every)
        task = _Task(name, step, interval)
        task.task = asyncio.create_task(self._loop(task, 0.0 if now else interval()), name=f"pastor-{name}")
        self.tasks[name] = task

    def failing(self) -> dict[str, str]:
        """The tasks that failed ``FAILING_AFTER`` times in a row, with their last error."""
        return {t.name: t.last_error for t in self.tasks.values() if t.failures >= FAILING_AFTER}

    def retry_now(self) -> None:
        """End the backoff of every failing task: they run again at once (the database they failed on is back)."""
        for task in self.tasks.values():
            if task.failures:
                task.wake.set()

    def ready(self) -> bool | str:
        failing = self.failing()
        return True if not failing else "falhando: " + ", ".join(sorted(failing))

    async def stop(self) -> None:
        tasks = [t.task for t in self.tasks.values() if t.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.tasks.clear()

    async def _loop(self, task: _Task, delay: float) -> None:
        while True:
            if delay > 0:
                task.wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(task.wake.wait(), delay)
            try:
                result = task.step()
                if inspect.isawaitable(result):
                    await result
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the task goes on: logged, counted, retried later
                task.failures += 1
                task.last_error = f"{type(error).__name__}: {str(error)[:160]}"
                if self.metrics is not None:
                    self.metrics.task_failures.labels(task.name).inc()
                if task.failures == 1 or task.failures % 10 == 0:
                    log.error("tarefa %s falhou (%d vez(es) seguidas): %s", task.name, task.failures,
                              task.last_error)
                delay = min(max(task.every(), self.least_backoff) * 2 ** (task.failures - 1), MAX_BACKOFF)
            else:
                if task.failures:
                    log.warning("tarefa %s voltou a funcionar após %d falha(s)", task.name, task.failures)
                task.failures, task.last_error = 0, ""
                delay = task.every()
