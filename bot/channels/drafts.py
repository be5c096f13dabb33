"""Telegram drafts (Bot API ``sendMessageDraft``): an answer shown while it forms, in private chats."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from telegram import Bot
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, InvalidToken, RetryAfter, TelegramError

from bot.channels.formatting import telegram_html_parts

log = logging.getLogger("pastor.telegram")

REFRESH_EVERY = 20.0  # Telegram shows a draft for about 30 s; the latest text is sent again before that
Refused = Callable[[Exception], None]


class TelegramDraft:
    """One answer's draft: the "Pensando…" placeholder at once, then each validated text the pipeline
    shows, refreshed before it expires. When the Bot API refuses drafts, ``refused`` is told and the
    ``fallback`` context (the typing action) runs instead for the rest of the answer."""

    def __init__(self, bot: Bot, chat_id: str, draft_id: int, refused: Refused,
                 fallback: Callable[[], contextlib.AbstractAsyncContextManager], refresh_every: float = REFRESH_EVERY):
        self.bot, self.chat_id, self.draft_id = bot, int(chat_id), draft_id
        self.refused, self.fallback, self.refresh_every = refused, fallback, refresh_every
        self._latest = ""
        self._wake = asyncio.Event()
        self._task: asyncio.Task | None = None
        self._typing: contextlib.AbstractAsyncContextManager | None = None
        self._closed = False

    async def __aenter__(self):
        if not await self._send(""):
            await self._start_typing()
            return None
        self._task = asyncio.create_task(self._run())
        return self.show

    async def __aexit__(self, *exc) -> None:
        self._closed = True
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._typing is not None:
            await self._typing.__aexit__(None, None, None)

    async def show(self, text: str) -> None:
        """Show ``text`` (already validated) as soon as the previous draft call is done; never blocks."""
        self._latest = text
        self._wake.set()

    async def _run(self) -> None:
        while not self._closed:
            try:
                async with asyncio.timeout(self.refresh_every):  # unlike wait_for, never swallows a cancel
                    await self._wake.wait()
            except TimeoutError:
                pass
            self._wake.clear()
            if self._closed:
                return
            if not await self._send(self._latest):
                await self._start_typing()
                return

    async def _start_typing(self) -> None:
        self._typing = self.fallback()
        await self._typing.__aenter__()

    async def _send(self, text: str) -> bool:
        """False when the Bot API refuses drafts; any other failure only skips this draft."""
        html = telegram_html_parts(text)[-1] if text else ""  # a long answer: the part being written
        try:
            await self.bot.send_message_draft(self.chat_id, self.draft_id, html,
                                              parse_mode=ParseMode.HTML if html else None)
        except RetryAfter:
            return True  # a draft is a courtesy: the next one, or the final message, will do
        except (BadRequest, Forbidden, InvalidToken) as error:
            self.refused(error)
            return False
        except TelegramError as error:
            log.info("rascunho não enviado (%s): seguimos", type(error).__name__)
        return True


def draft_id(message_id: str) -> int:
    """A non-zero draft id for one answer, derived from the message it answers."""
    number = int(message_id) if message_id.isdigit() else sum(map(ord, message_id))
    return number % 2_147_483_647 or 1
