"""What the conversation core answers: a message, a voice note, a button, and the command handlers named in
bot/commands.py. `Conversation` (bot/conversation.py) is these and the inbox's machinery that delivers them."""

from __future__ import annotations

import contextlib

from bot import buttons, commands, messages
from bot.buttons import CardButton, CareButton, EraseButton, SourcesButton
from bot.care.team import asks_for_a_person
from bot.channel import Channel
from bot.delivery import DeliveryError
from bot.outgoing import Answer, ButtonAnswer, EraseConfirm, Help, Notice, Outgoing, Relay, Sources
from bot.safety.country import country_of
from bot.store.inbox import Inbound, InboundKind


class Responses:
    """The replies of `Conversation` (its base class). They read what the core holds: its pastor, memory, care
    team, devotional, voice notes, rate limit, status text, ``sleep`` and store calls (``_db``)."""

    # -- what to answer --------------------------------------------------------------------------
    async def _respond(self, channel: Channel, inbound: Inbound) -> list[Outgoing]:
        if inbound.kind == InboundKind.RELAY:  # to or from the care team, written when it was queued
            return [Relay(inbound.text)]
        if self.care.from_team(inbound):
            command = commands.named(inbound.text) if inbound.kind == InboundKind.COMMAND else None
            if command is not None and command.team_only:
                return await command.handler(self, channel, inbound)
            return await self._db(self.care.team_message, inbound)
        match inbound.kind:
            case InboundKind.COMMAND:
                command = commands.named(inbound.text)
                if command.team_only:  # outside the team's chat: the person's help
                    return [Help()]
                return await command.handler(self, channel, inbound)
            case InboundKind.BUTTON:
                return await self._db(self._button, inbound)
            case InboundKind.DAILY:
                return await self.devotional.scheduled(inbound) if self.devotional else []
            case InboundKind.VOICE if self.voice is not None:
                return await self._voice_note(channel, inbound)
            case InboundKind.TEXT:
                return await self._reply(channel, inbound, inbound.text)
        return [Notice(messages.ONLY_TEXT)]

    async def _reply(self, channel: Channel, inbound: Inbound, text: str) -> list[Outgoing]:
        chat_id = inbound.chat_id
        await self._db(self.care.forward, inbound, text)  # while the care team has this chat, it reads along
        if asks_for_a_person(text):
            return await self._db(self.care.request, inbound)
        wait = self.rate_limit.wait_for(f"{inbound.channel}:{chat_id}")
        if wait > 0:
            await self._notify(channel, inbound, messages.RATE_LIMITED.format(seconds=int(wait) + 1))
            await self.sleep(wait)
        async with channel.typing(inbound) as show:
            reply = await self.pastor.reply(chat_id, text, show=show, country=country_of(inbound),
                                            command_style=getattr(channel, "command_style", "/{}"))
        out = [Answer(reply.text, reply.status)] + await self._db(self.care.after_reply, inbound, reply)
        return out + [Sources(tuple(reply.sources))] if reply.sources else out

    async def _voice_note(self, channel: Channel, inbound: Inbound) -> list[Outgoing]:
        """What was understood first, then the answer as for text; or a kind reply (nothing dropped)."""
        async with channel.typing(inbound):
            heard = await self.voice.hear(lambda: channel.fetch_audio(inbound), inbound.meta.get("seconds"))
        if heard.notice:
            return [Notice(heard.notice)]
        return [Notice(messages.VOICE_HEARD.format(text=heard.text))] + \
            await self._reply(channel, inbound, heard.text)

    # -- the command handlers named in bot/commands.py ------------------------------------------------
    async def welcome(self, channel: Channel, inbound: Inbound) -> list[Outgoing]:
        style = getattr(channel, "command_style", "/{}")
        return [Notice(messages.welcome(self.attribution, style.format(commands.HELP.name),
                                        style.format(commands.ERASE.name)))]

    async def last_sources(self, channel: Channel, inbound: Inbound) -> list[Outgoing]:
        return await self._db(self._sources, inbound.chat_id)

    async def status(self, channel: Channel, inbound: Inbound) -> list[Outgoing]:
        return [Notice(await self.status_text(inbound.chat_id in self.admins))]

    async def new_conversation(self, channel: Channel, inbound: Inbound) -> list[Outgoing]:
        await self._db(self.memory.forget_window, inbound.chat_id)
        return [Notice(messages.NEW_CONVERSATION)]

    async def erase(self, channel: Channel, inbound: Inbound) -> list[Outgoing]:
        return [EraseConfirm(messages.ERASE_CONFIRM)]

    async def team_command(self, method: str, inbound: Inbound) -> list[Outgoing]:
        """A care team command (``care.<method>``), in the database's threads."""
        return await self._db(getattr(self.care, method), inbound)

    async def ask_for_a_person(self, channel: Channel, inbound: Inbound) -> list[Outgoing]:
        return await self._db(self.care.request, inbound)

    def _button(self, inbound: Inbound) -> list[Outgoing]:
        """A pressed button's answer; store calls: run it in the database's threads."""
        match buttons.unpack(inbound.text):
            case CareButton() as button:
                return self.care.button(inbound, button)
            case SourcesButton():
                return self._sources(inbound.chat_id)
            case EraseButton(confirmed=True):
                self.memory.delete_chat(inbound.chat_id)
                self.care.erased(inbound.chat_id)
                return [ButtonAnswer(messages.ERASED)]
            case EraseButton(confirmed=False):
                return [ButtonAnswer(messages.ERASE_CANCELLED)]
            case CardButton() as button if self.devotional is not None:
                return self.devotional.button(button)
        return []

    def _sources(self, chat_id: str) -> list[Outgoing]:
        """The last answer's verses; a store call."""
        _, verses = self.memory.last_sources(chat_id)
        if not verses:
            return [Notice(messages.NO_SOURCES)]
        return [Sources(tuple(verses), listed=True)]

    async def _notify(self, channel: Channel, inbound: Inbound, text: str) -> None:
        """A courtesy note outside the inbox (if it is lost, nothing the person asked for is)."""
        for part in channel.render(inbound, [Notice(text)]):
            with contextlib.suppress(DeliveryError):
                await channel.deliver(inbound.chat_id, part)
