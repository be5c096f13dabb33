"""Telegram: the real python-telegram-bot `Application` (polling) or our webhook in; Bot API calls out.

Updates become `Inbound` messages stored in the inbox before Telegram is told they arrived: by the
webhook handler before it answers 200, and by long polling before the next ``getUpdates`` (which is
what acknowledges them).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from telegram import (
    BotCommand,
    BotCommandScopeChat,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Update,
)
from telegram.constants import ChatAction, ChatType, ParseMode
from telegram.error import BadRequest, Forbidden, InvalidToken, RetryAfter, TelegramError
from telegram.ext import AIORateLimiter, Application
from telegram.request import HTTPXRequest

from bot import buttons, commands
from bot.buttons import CardButton, CareButton, EraseButton
from bot.card import Card
from bot.card import render as render_card
from bot.care.cases import mentioned_case
from bot.channels.drafts import TelegramDraft, draft_id
from bot.channels.inline import InlineVerses
from bot.channels.malformed import Malformed, MalformedUpdate, describe
from bot.channels.telegram_intake import InboxBot, TelegramWebhook  # noqa: F401 (the webhook is imported from here)
from bot.channels.telegram_render import COMMAND_STYLE, render_item
from bot.channels.typing import repeating
from bot.conversation import Conversation
from bot.delivery import DeliveryError
from bot.outgoing import Outgoing
from bot.store.inbox import Inbound, InboundKind
from bot.voice.notes import AudioUnavailable
from bot.voice.transcription import Audio

log = logging.getLogger("pastor.telegram")

BOT_COMMANDS = [BotCommand(name, description) for name, description in commands.telegram_menu()]
TEAM_COMMANDS = [BotCommand(name, description) for name, description in commands.telegram_menu(team=True)]
ALLOWED_UPDATES = ["message", "callback_query", "inline_query"]
TYPING_EVERY = 4.0
CONNECTIONS = 64  # concurrent Bot API calls (a custom bot starts with one)
ANSWERED_BUTTONS = (EraseButton, CardButton, CareButton)  # the buttons Telegram shows (sources are text there)


class TelegramChannel:
    """Turns updates into `Inbound`, renders the core's answers as Bot API calls and makes them."""

    name = "telegram"
    scheduled = True
    command_style = COMMAND_STYLE

    def __init__(self, token: str, conversation: Conversation, api_base_url: str = "https://api.telegram.org",
                 rate_limiter=None, file_base_url: str = "", inline: InlineVerses | None = None):
        self.conversation, self.inline = conversation, inline
        self._inline_tasks: set[asyncio.Task] = set()
        base = api_base_url.rstrip("/")
        files = file_base_url.rstrip("/") or f"{base}/file/bot"  # voice notes are downloaded from here
        self.malformed = Malformed(self.name, conversation.metrics, log)
        bot = InboxBot(token, base_url=f"{base}/bot", base_file_url=files, on_updates=self._polled,
                       on_malformed=self.malformed.skip,
                       request=HTTPXRequest(connection_pool_size=CONNECTIONS), get_updates_request=HTTPXRequest(),
                       rate_limiter=rate_limiter or AIORateLimiter(max_retries=0))  # retries are the core's
        self.app: Application = Application.builder().bot(bot).concurrent_updates(8).build()
        self.bot = bot
        self.drafts = True  # answers shown as they form (sendMessageDraft) until the Bot API refuses them
        conversation.register(self)

    # -- lifecycle -----------------------------------------------------------------------------
    async def start(self, webhook_url: str = "", secret: str = "", poll_timeout: float = 10,
                    poll: bool = True) -> None:
        """Ready to send; updates by webhook, or by long polling (unless ``poll`` is False: another replica
        may be the poller, see `start_polling`)."""
        await self.app.initialize()
        await self.bot.set_my_commands(BOT_COMMANDS)
        team_chat = self.conversation.care.team.telegram_chat
        if team_chat:  # the care team's group sees its own commands in the menu
            await self.bot.set_my_commands(TEAM_COMMANDS, scope=BotCommandScopeChat(team_chat))
        await self.app.start()
        self.poll_timeout = poll_timeout
        if webhook_url:
            await self.bot.set_webhook(webhook_url, secret_token=secret or None, allowed_updates=ALLOWED_UPDATES)
        elif poll:
            await self.start_polling()

    async def start_polling(self) -> None:
        await self.bot.delete_webhook()
        await self.app.updater.start_polling(timeout=self.poll_timeout, allowed_updates=ALLOWED_UPDATES,
                                             error_callback=self._polling_error)

    async def keep_polling(self, leading: bool) -> None:
        """Start long polling again if it stopped by itself while this replica leads."""
        if leading and self.app.updater is not None and not self.app.updater.running:
            log.error("o long polling do Telegram tinha parado: reiniciando")
            await self.start_polling()

    async def stop_intake(self) -> None:
        """Stop polling (its last ``getUpdates`` stores what it confirms); sending still works."""
        if self.app.updater and self.app.updater.running:
            await self.app.updater.stop()

    async def stop(self) -> None:
        await self.stop_intake()
        if self.app.running:
            await self.app.stop()
        await self.app.shutdown()

    @staticmethod
    def _polling_error(error: TelegramError) -> None:
        log.warning("erro ao buscar atualizações do Telegram: %s", type(error).__name__)

    # -- in ----------------------------------------------------------------------------------------
    async def _polled(self, updates) -> None:
        """`receive` for a polled batch."""
        for update in updates:
            try:
                await self.receive(update)
            except MalformedUpdate as error:  # skipped; a failing inbox still fails the batch (fetched again)
                self.malformed.skip(update.update_id, error)

    async def receive(self, update: Update) -> bool:
        """`accept` with the store call off the event loop (`Conversation.receive`): polling's and the webhook's way."""
        if update.inline_query is not None:
            return self.accept(update)  # answered at once, nothing stored
        inbound = self.inbound(update)
        return inbound is not None and await self.conversation.receive(inbound)

    def accept(self, update: Update) -> bool:
        """Store one update for the core; False when it is not for us or was seen before; raises `MalformedUpdate`
        for one it cannot read. Inline queries are answered at once, outside the inbox (a person waiting for
        suggestions retypes rather than waits)."""
        if update.inline_query is not None:
            task = asyncio.get_running_loop().create_task(self._answer_inline(update.inline_query))
            self._inline_tasks.add(task)
            task.add_done_callback(self._inline_tasks.discard)
            return False
        inbound = self.inbound(update)
        return inbound is not None and self.conversation.accept(inbound)

    def inbound(self, update: Update) -> Inbound | None:
        """What the person sent, or None for what the bot does not answer (channels, edits, other groups' talk);
        raises `MalformedUpdate` for an update of odd types (a chat id that is no number, a text that is none)."""
        try:
            return self._inbound(update)
        except MalformedUpdate:
            raise
        except Exception as error:  # python-telegram-bot keeps the JSON types it is given
            raise MalformedUpdate(*describe(error)) from None

    def _inbound(self, update: Update) -> Inbound | None:
        chat = update.effective_chat
        if chat is None or chat.type == ChatType.CHANNEL:
            return None
        if type(chat.id) is not int:
            raise MalformedUpdate("chat_id")
        chat_id, update_id = str(chat.id), str(update.update_id)
        query = update.callback_query
        if query is not None:
            if not isinstance(buttons.unpack(str(query.data)), ANSWERED_BUTTONS):
                return None
            meta = {"callback_id": query.id, "message_id": query.message.message_id if query.message else None}
            return Inbound(self.name, chat_id, update_id, InboundKind.BUTTON, query.data, meta)
        message = update.message
        if message is None:
            return None
        group = chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)
        if group and not self._addressed(message):
            return None
        meta = {"private": chat.type == ChatType.PRIVATE}
        if message.date is not None:
            meta["sent_at"] = message.date.timestamp()  # when the person wrote it: the order of a backlog's answers
        user = update.effective_user
        if group and user is not None:
            meta["user"] = str(user.id)  # who of a group wrote (the care team's group: who answered a case)
        if (case := self._replied_case(message)) is not None:
            meta["case"] = case  # a reply to a care case message: that case is answered
        if user is not None and user.language_code:
            meta["language"] = user.language_code  # "pt-br": the country whose crisis services are named
        media = message.voice or message.audio or message.video_note
        if media is not None and message.text is None:
            meta.update(_voice_meta(message, media))
            return Inbound(self.name, chat_id, update_id, InboundKind.VOICE, "", meta)
        if message.text is None:
            return Inbound(self.name, chat_id, update_id, InboundKind.OTHER, "", meta)
        text = message.text
        if self.bot.username:
            text = text.replace(f"@{self.bot.username}", "").strip()
        if text.startswith("/"):
            words = text[1:].split(maxsplit=1)
            command = commands.telegram_command(words[0].split("@")[0] if words else "")
            meta["args"] = words[1] if len(words) > 1 else ""
            return Inbound(self.name, chat_id, update_id, InboundKind.COMMAND, command, meta)
        return Inbound(self.name, chat_id, update_id, InboundKind.TEXT, text, meta)

    def _addressed(self, message) -> bool:
        """In groups the bot answers only commands (Telegram sends it only those meant for it), and messages
        that mention or reply to it."""
        if (message.text or "").startswith("/"):
            return True
        me = self.bot.username or ""
        replied = message.reply_to_message
        if replied and replied.from_user and replied.from_user.id == self.bot.id:
            return True
        return bool(me) and f"@{me.lower()}" in (message.text or message.caption or "").lower()

    def _replied_case(self, message) -> str | None:
        replied = message.reply_to_message
        if replied is None or replied.from_user is None or replied.from_user.id != self.bot.id:
            return None
        return mentioned_case(replied.text or "")

    # -- out ---------------------------------------------------------------------------------------
    def render(self, inbound: Inbound, outgoing: list[Outgoing]) -> list[dict]:
        return [part for item in outgoing for part in render_item(item, inbound)]

    async def deliver(self, chat_id: str, part: dict) -> None:
        method = part["method"]
        try:
            if method == "sendMessage":
                markup = part.get("reply_markup")
                await self.bot.send_message(chat_id, part["text"], parse_mode=part.get("parse_mode") and ParseMode.HTML,
                                            disable_web_page_preview=True,
                                            reply_markup=InlineKeyboardMarkup.de_json(markup, self.bot) if markup
                                            else None)
            elif method == "sendPhoto":
                photo = await asyncio.to_thread(render_card, Card(**part["card"]))
                await self.bot.send_photo(chat_id, photo, caption=part["caption"][:1024])
            elif method == "editMessageText":
                await self.bot.edit_message_text(part["text"], chat_id=chat_id, message_id=part["message_id"])
            elif method == "answerCallbackQuery":
                await self.bot.answer_callback_query(part["callback_query_id"])
        except RetryAfter as error:
            delay = error.retry_after
            seconds = delay.total_seconds() if hasattr(delay, "total_seconds") else float(delay)
            raise DeliveryError(f"Bot API 429 em {method} (retry_after {seconds:g} s)", retry_after=seconds) from None
        except (BadRequest, Forbidden, InvalidToken) as error:  # BadRequest is a NetworkError: test it first
            if part.get("optional"):
                log.info("%s recusado pelo Telegram (ignorado): %s", method, error)
                return
            raise DeliveryError(f"Bot API recusou {method}: {type(error).__name__}: {error}", permanent=True,
                                unreachable=isinstance(error, Forbidden)) from None
        except TelegramError as error:
            raise DeliveryError(f"Bot API falhou em {method}: {type(error).__name__}: {error}") from None

    async def _answer_inline(self, query) -> None:
        """Offer the verses for an inline query (an empty list when there is nothing to offer)."""
        try:
            found = await self.inline.find(query.query) if self.inline else []
            results = [InlineQueryResultArticle(f"{n}-{v.id}"[:64], v.title, InputTextMessageContent(v.message),
                                                description=v.description) for n, v in enumerate(found)]
            await self.bot.answer_inline_query(query.id, results, cache_time=300, is_personal=False)
        except TelegramError as error:  # a query answered too late is simply gone
            log.info("consulta inline não respondida: %s: %s", type(error).__name__, error)
        except Exception as error:
            log.error("consulta inline falhou: %s: %s", type(error).__name__, error)

    async def fetch_audio(self, inbound: Inbound) -> Audio:
        """getFile, then the download from the file server; in memory only."""
        try:
            file = await self.bot.get_file(inbound.meta["file_id"])
            data = bytes(await file.download_as_bytearray())
        except TelegramError as error:
            raise AudioUnavailable(f"Bot API: {type(error).__name__}: {error}") from None
        return Audio(data, inbound.meta["filename"], inbound.meta["mime"], inbound.meta.get("seconds"))

    def typing(self, inbound: Inbound) -> contextlib.AbstractAsyncContextManager:
        """A draft of the answer in private chats (it yields a way to show validated text); "digitando…"
        in groups and wherever drafts are refused."""
        if inbound.meta.get("private") and self.drafts:
            return TelegramDraft(self.bot, inbound.chat_id, draft_id(inbound.message_id), self._drafts_refused,
                                 lambda: self._typing(inbound))
        return self._typing(inbound)

    def _typing(self, inbound: Inbound) -> contextlib.AbstractAsyncContextManager:
        async def typing_once() -> None:
            with contextlib.suppress(TelegramError):
                await self.bot.send_chat_action(inbound.chat_id, ChatAction.TYPING)

        return repeating(typing_once, TYPING_EVERY)

    def _drafts_refused(self, error: Exception) -> None:
        if self.drafts:
            self.drafts = False
            log.warning("a Bot API recusou rascunhos (sendMessageDraft: %s): as respostas aparecem inteiras, "
                        "com \"digitando…\" enquanto se formam", type(error).__name__)


def _voice_meta(message, media) -> dict:
    """What is needed to fetch and judge a voice note, audio file or video note later (JSON-serialisable)."""
    seconds = media.to_dict().get("duration")  # the wire value, in seconds (the attribute is changing type)
    if message.voice is not None:
        filename, mime = "voz.ogg", media.mime_type or "audio/ogg"
    elif message.audio is not None:
        filename, mime = media.file_name or "audio.mp3", media.mime_type or "audio/mpeg"
    else:
        filename, mime = "video.mp4", "video/mp4"
    return {"file_id": media.file_id, "seconds": seconds, "filename": filename, "mime": mime}
