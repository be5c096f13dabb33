"""The seam every chat channel implements: what the conversation core asks of Telegram, WhatsApp, the next one."""

from __future__ import annotations

import contextlib
from typing import Protocol

from bot.outgoing import Outgoing
from bot.store.inbox import Inbound
from bot.voice.transcription import Audio


class Channel(Protocol):
    """The seam every chat channel implements (Telegram, WhatsApp, the next one)."""

    name: str
    scheduled: bool  # can send what the person did not just ask for (the daily word)
    command_style: str  # how a command is written to the person: "/{}" or "*{}*"

    def render(self, inbound: Inbound, outgoing: list[Outgoing]) -> list[dict]:
        """The wire calls (JSON-serialisable) that show ``outgoing`` to the person, in order."""

    async def deliver(self, chat_id: str, part: dict) -> None:
        """Make one wire call; raise `DeliveryError` (with ``retry_after`` or ``permanent``) when it fails."""

    async def fetch_audio(self, inbound: Inbound) -> Audio:
        """The voice note of a "voice" inbound, in memory; raise `AudioUnavailable` when it cannot be had."""

    def typing(self, inbound: Inbound) -> contextlib.AbstractAsyncContextManager:
        """Show that an answer is being prepared, for as long as the context lasts. The context yields
        None, or an async ``show(text)`` through which validated text of the answer may be shown while
        it forms (a Telegram draft); the answer itself is still rendered and delivered afterwards."""
