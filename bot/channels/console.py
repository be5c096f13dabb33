"""The terminal as a channel (`python -m bot chat`): messages go through the conversation core like Telegram's
and WhatsApp's (the inbox, the commands, the care flow); buttons become numbered choices."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Callable

from bot import commands, messages
from bot.buttons import CareButton, EraseButton
from bot.outgoing import (
    Answer,
    ButtonAnswer,
    CareOffer,
    DailyVerse,
    EraseConfirm,
    Help,
    Notice,
    Outgoing,
    Relay,
    Sources,
    VerseCard,
)
from bot.reply import Source
from bot.store.inbox import Inbound, InboundKind
from bot.voice.notes import AudioUnavailable
from bot.voice.transcription import Audio


def sources_block(sources: list[Source]) -> str:
    return "Fontes:\n" + "\n".join(f"  {s.reference} — {s.text}" for s in sources)


class ConsoleChannel:
    """One person at a terminal; ``write`` shows a line (print by default)."""

    name = "console"
    scheduled = False
    command_style = "/{}"

    def __init__(self, write: Callable[[str], None] = print):
        self.write = write
        self.choices: dict[str, list[str]] = {}  # chat -> the button data a number chooses
        self._answered: dict[str, asyncio.Event] = {}

    def inbound(self, chat_id: str, line: str) -> Inbound:
        """What a typed line is: a command, a numbered choice of the last buttons, or a message."""
        text, meta = line.strip(), {"private": True}
        message_id = uuid.uuid4().hex
        choices = self.choices.get(chat_id, [])
        if text.isdigit() and 1 <= int(text) <= len(choices):
            return Inbound(self.name, chat_id, message_id, InboundKind.BUTTON, choices[int(text) - 1], meta)
        if text.startswith("/"):
            words = text[1:].split(maxsplit=1)
            meta["args"] = words[1] if len(words) > 1 else ""
            return Inbound(self.name, chat_id, message_id, InboundKind.COMMAND,
                           commands.telegram_command(words[0] if words else ""), meta)
        return Inbound(self.name, chat_id, message_id, InboundKind.TEXT, text, meta)

    def expect(self, inbound: Inbound) -> asyncio.Event:
        """Set once every part of the answer to ``inbound`` was shown."""
        return self._answered.setdefault(inbound.message_id, asyncio.Event())

    def render(self, inbound: Inbound, outgoing: list[Outgoing]) -> list[dict]:
        parts: list[dict] = []
        for item in outgoing:
            match item:
                case Answer(text=text) | Relay(text=text) | Notice(text=text) | ButtonAnswer(text=text):
                    parts.append({"text": text})
                case Sources():
                    parts.append({"text": sources_block(list(item.sources)) if item.sources else messages.NO_SOURCES})
                case DailyVerse():
                    parts.append({"text": item.text})
                case VerseCard():
                    parts.append({"text": item.caption})
                case EraseConfirm():
                    parts.append({"text": item.text, "choices": [[EraseButton(True).pack(), "Sim, apagar tudo"],
                                                                 [EraseButton(False).pack(), "Cancelar"]]})
                case CareOffer():
                    parts.append({"text": item.text, "choices": [
                        [CareButton(True, item.case).pack(), messages.CARE_OFFER_YES],
                        [CareButton(False, item.case).pack(), messages.CARE_OFFER_NO]]})
                case Help():
                    parts.append({"text": commands.help_text("console")})
        if parts:
            parts[0]["first"] = True
        return [*parts, {"answered": inbound.message_id}]

    async def deliver(self, chat_id: str, part: dict) -> None:
        if "answered" in part:
            self._answered.pop(part["answered"], asyncio.Event()).set()
            return
        choices = part.get("choices") or []
        self.choices[chat_id] = [data for data, _ in choices]
        lines = [part["text"], *(f"  {n}. {title}" for n, (_, title) in enumerate(choices, 1))]
        self.write(("\npastor> " if part.get("first") else "") + "\n".join(lines))

    async def fetch_audio(self, inbound: Inbound) -> Audio:
        raise AudioUnavailable("o terminal não envia áudio")

    def typing(self, inbound: Inbound) -> contextlib.AbstractAsyncContextManager:
        return contextlib.nullcontext()
