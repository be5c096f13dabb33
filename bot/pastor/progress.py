"""Showing a streaming answer as it forms: each completed paragraph, checked exactly like the final answer."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from functools import partial

from bot.checks.answer import AnswerRules, balanced, check_answer
from bot.cpu import on_cpu

Show = Callable[[str], Awaitable[None]]  # a channel's way to show validated text (a Telegram draft)


class ParagraphProgress:
    """Feeds ``show`` the checked text of every paragraph the model has finished, never a half one."""

    def __init__(self, show: Show, rules: AnswerRules, prefix: str = "", started: float | None = None):
        self.show, self.rules, self.prefix = show, rules, prefix
        self.started = time.perf_counter() if started is None else started
        self.first_shown: float | None = None  # seconds from the start of the reply to the first text shown
        self._considered = 0
        self._last = ""

    async def feed(self, text: str) -> None:
        """``text``: everything the model wrote so far."""
        end = text.rfind("\n\n")
        if end <= self._considered:
            return
        complete = text[:end]
        if not balanced(complete):
            return  # a quotation still open across paragraphs: wait for its end
        self._considered = end
        body = (await on_cpu(partial(check_answer, final=False), complete, self.rules)).text
        shown = f"{self.prefix}\n\n{body}" if self.prefix and body else body
        if not body or shown == self._last:
            return
        self._last = shown
        await self.show(shown)
        if self.first_shown is None:
            self.first_shown = time.perf_counter() - self.started
