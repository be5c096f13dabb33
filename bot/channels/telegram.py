"""Telegram: the real python-telegram-bot `Application`, by long polling or by our webhook."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable

from telegram import BotCommand, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ChatAction, ChatType, ParseMode
from telegram.error import NetworkError, RetryAfter, TelegramError
from telegram.ext import (AIORateLimiter, Application, ApplicationHandlerStop, CallbackQueryHandler, CommandHandler,
                          ContextTypes, MessageHandler, TypeHandler, filters)

from bot.channels import messages
from bot.channels.formatting import sources_html, telegram_html_parts
from bot.logs import message_id
from bot.memory import Memory
from bot.pastor import Pastor
from bot.reply import Source

log = logging.getLogger("pastor.telegram")

COMMANDS = [
    BotCommand("start", "O que este bot faz"),
    BotCommand("ajuda", "Como conversar comigo"),
    BotCommand("fontes", "Versículos da última resposta"),
    BotCommand("status", "Estado do índice e do modelo"),
    BotCommand("nova", "Começar uma conversa nova"),
    BotCommand("apagar", "Apagar tudo o que guardei desta conversa"),
]
NON_TEXT = (filters.Sticker.ALL | filters.PHOTO | filters.VOICE | filters.AUDIO | filters.VIDEO | filters.VIDEO_NOTE
            | filters.Document.ALL | filters.LOCATION | filters.CONTACT | filters.ANIMATION | filters.POLL)
TYPING_EVERY = 4.0


class ChatRateLimit:
    """At most ``per_minute`` messages a minute per chat; the excess waits, it is never dropped."""

    def __init__(self, per_minute: int = 6, clock: Callable[[], float] = time.monotonic):
        self.per_minute, self.clock = per_minute, clock
        self._times: dict[str, deque[float]] = defaultdict(deque)

    def wait_for(self, chat_id: str) -> float:
        """Seconds to wait before this chat's next message may be processed (then it is counted)."""
        now = self.clock()
        times = self._times[chat_id]
        while times and now - times[0] >= 60:
            times.popleft()
        wait = 0.0 if len(times) < self.per_minute else 60 - (now - times[0])
        times.append(now + wait)
        return wait


class TelegramChannel:
    """Wires handlers onto a python-telegram-bot Application; knows nothing of the environment."""

    def __init__(self, token: str, pastor: Pastor, memory: Memory, status_text: Callable[[], Awaitable[str]],
                 api_base_url: str = "https://api.telegram.org", attribution: str = "",
                 rate_limit: ChatRateLimit | None = None, sleep=asyncio.sleep, flood_limiter=None):
        self.pastor, self.memory, self.status_text, self.attribution = pastor, memory, status_text, attribution
        self.rate_limit = rate_limit or ChatRateLimit()
        self.sleep = sleep
        self._locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        base = api_base_url.rstrip("/")
        self.app: Application = (
            Application.builder().token(token).base_url(f"{base}/bot").base_file_url(f"{base}/file/bot")
            .rate_limiter(flood_limiter or AIORateLimiter(max_retries=3)).concurrent_updates(64).build()
        )
        self._add_handlers()

    def _add_handlers(self) -> None:
        app = self.app
        app.add_handler(TypeHandler(Update, self._drop_duplicates), group=-1)
        for name, callback in (("start", self._start), ("ajuda", self._help), ("fontes", self._sources),
                               ("status", self._status), ("nova", self._new), ("apagar", self._erase)):
            app.add_handler(CommandHandler(name, self._in_order(callback), filters=filters.UpdateType.MESSAGE))
        app.add_handler(CallbackQueryHandler(self._in_order(self._erase_answer), pattern=r"^apagar:(sim|nao)$"))
        app.add_handler(MessageHandler(filters.UpdateType.MESSAGE & filters.TEXT & ~filters.COMMAND,
                                       self._in_order(self._text)))
        app.add_handler(MessageHandler(filters.UpdateType.MESSAGE & NON_TEXT, self._in_order(self._non_text)))
        app.add_error_handler(self._error)

    def _in_order(self, handler):
        """One chat's updates are handled one at a time, in arrival order; other chats run concurrently."""

        async def ordered(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
            message_id.set(f"tg-{update.update_id}")
            async with self._locks[str(update.effective_chat.id)]:
                await handler(update, context)

        return ordered

    # -- lifecycle -----------------------------------------------------------------------------
    async def start(self, webhook_url: str = "", secret: str = "", poll_timeout: float = 10) -> None:
        await self.app.initialize()
        await self.app.bot.set_my_commands(COMMANDS)
        await self.app.start()
        if webhook_url:
            await self.app.bot.set_webhook(webhook_url, secret_token=secret or None,
                                           allowed_updates=["message", "callback_query"])
        else:
            await self.app.bot.delete_webhook()
            await self.app.updater.start_polling(timeout=poll_timeout, allowed_updates=["message", "callback_query"],
                                                 error_callback=self._polling_error)

    async def stop(self) -> None:
        if self.app.updater and self.app.updater.running:
            await self.app.updater.stop()
        if self.app.running:
            await self.app.stop()
        await self.app.shutdown()

    async def feed_webhook(self, data: dict) -> None:
        """An update received by our aiohttp webhook, queued for the same handlers as polling."""
        await self.app.update_queue.put(Update.de_json(data, self.app.bot))

    @staticmethod
    def _polling_error(error: TelegramError) -> None:
        log.warning("erro ao buscar atualizações do Telegram: %s", type(error).__name__)

    # -- gates ---------------------------------------------------------------------------------
    async def _drop_duplicates(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat = update.effective_chat
        if chat is None or chat.type == ChatType.CHANNEL:
            raise ApplicationHandlerStop
        if not self.memory.first_delivery("telegram", str(update.update_id), str(chat.id)):
            log.info("atualização %s repetida: ignorada", update.update_id)
            raise ApplicationHandlerStop
        message = update.message
        if message and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP) and not self._addressed(message, context):
            raise ApplicationHandlerStop

    @staticmethod
    def _addressed(message, context) -> bool:
        """In groups the bot answers only when mentioned or replied to."""
        me = context.bot.username or ""
        if message.reply_to_message and message.reply_to_message.from_user \
                and message.reply_to_message.from_user.id == context.bot.id:
            return True
        text = message.text or message.caption or ""
        return bool(me) and f"@{me.lower()}" in text.lower()

    # -- messages ------------------------------------------------------------------------------
    async def _text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat_id = str(update.effective_chat.id)
        text = update.message.text
        me = context.bot.username
        if me:
            text = text.replace(f"@{me}", "").strip()
        wait = self.rate_limit.wait_for(chat_id)
        if wait > 0:
            await self._send(context, chat_id, messages.RATE_LIMITED.format(seconds=int(wait) + 1))
            await self.sleep(wait)
        async with self._typing(context, chat_id):
            reply = await self.pastor.reply(chat_id, text, channel="telegram")
            for part in telegram_html_parts(reply.text):
                await self._send(context, chat_id, part, html=True)
        if reply.sources:
            await self._send(context, chat_id, sources_html(reply.sources), html=True)

    async def _non_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await self._send(context, str(update.effective_chat.id), messages.ONLY_TEXT)

    @contextlib.asynccontextmanager
    async def _typing(self, context, chat_id: str):
        async def keep_typing():
            while True:
                with contextlib.suppress(TelegramError):
                    await context.bot.send_chat_action(chat_id, ChatAction.TYPING)
                await asyncio.sleep(TYPING_EVERY)

        task = asyncio.create_task(keep_typing())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _send(self, context, chat_id: str, text: str, html: bool = False, **kwargs) -> None:
        for attempt in range(3):
            try:
                await context.bot.send_message(chat_id, text, parse_mode=ParseMode.HTML if html else None,
                                               disable_web_page_preview=True, **kwargs)
                return
            except RetryAfter as error:
                delay = error.retry_after
                await self.sleep(delay.total_seconds() if hasattr(delay, "total_seconds") else float(delay))
            except NetworkError:
                if attempt == 2:
                    raise
                await self.sleep(1.0 * (attempt + 1))

    # -- commands ----------------------------------------------------------------------------------
    async def _start(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await self._send(context, str(update.effective_chat.id), messages.welcome(self.attribution))

    async def _help(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await self._send(context, str(update.effective_chat.id), messages.HELP)

    async def _sources(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        chat_id = str(update.effective_chat.id)
        _, verses = self.memory.last_sources(chat_id)
        if not verses:
            await self._send(context, chat_id, messages.NO_SOURCES)
            return
        await self._send(context, chat_id, sources_html([Source(**v) for v in verses]), html=True)

    async def _status(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        await self._send(context, str(update.effective_chat.id), await self.status_text())

    async def _new(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        self.memory.forget_window(str(update.effective_chat.id))
        await self._send(context, str(update.effective_chat.id), messages.NEW_CONVERSATION)

    async def _erase(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Sim, apagar tudo", callback_data="apagar:sim"),
                                          InlineKeyboardButton("Cancelar", callback_data="apagar:nao")]])
        await self._send(context, str(update.effective_chat.id), messages.ERASE_CONFIRM, reply_markup=keyboard)

    async def _erase_answer(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        await query.answer()
        if query.data == "apagar:sim":
            self.memory.delete_chat(str(update.effective_chat.id))
            await query.edit_message_text(messages.ERASED)
        else:
            await query.edit_message_text(messages.ERASE_CANCELLED)

    # -- errors ------------------------------------------------------------------------------------
    async def _error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        error = context.error
        log.error("erro ao tratar atualização: %s: %s", type(error).__name__, error)
        if isinstance(update, Update) and update.effective_chat:
            with contextlib.suppress(TelegramError):
                await context.bot.send_message(update.effective_chat.id, messages.SORRY)
