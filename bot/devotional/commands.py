"""The pastor who also comes by: the verse of the day, daily subscriptions and verse cards, for every channel."""

from __future__ import annotations

import logging
from datetime import date

from bot import commands, messages
from bot.buttons import CardButton
from bot.card import MAX_CHARS, Card
from bot.devotional.verses import DailyWord, VerseOfTheDay, passage_label
from bot.outgoing import DailyVerse, Notice, Outgoing, VerseCard
from bot.store.inbox import Inbound
from bot.store.memory import Memory
from bot.store.subscriptions import parse_time
from corpus.bible import Bible
from corpus.references import parse_reference, verses_of

log = logging.getLogger("pastor.daily")

ZONE_NAMES = {"America/Sao_Paulo": "horário de Brasília"}


class Devotional:
    """Answers /versiculo, /diario, /parar, /imagem and the card buttons, and writes the scheduled word."""

    def __init__(self, words: VerseOfTheDay, memory: Memory, bible: Bible, translation: str):
        self.words, self.memory, self.bible, self.translation = words, memory, bible, translation
        self.subscriptions, self.db = memory.subscriptions, memory.db  # store calls: `self.db.call`, off the loop
        key = words.timezone.key
        self.zone = ZONE_NAMES.get(key, key)

    def _words(self, channel) -> dict:
        style = getattr(channel, "command_style", "/{}")
        return {"command": style.format(commands.DAILY.name), "stop": style.format(commands.STOP.name),
                "zone": self.zone}

    async def verse(self, channel, inbound: Inbound) -> list[Outgoing]:
        """The verse of the day, asked for."""
        return [self._daily(await self.words.word())]

    async def card(self, channel, inbound: Inbound) -> list[Outgoing]:
        """The card of the passage named after the command, or of the last answer's first passage."""
        style = getattr(channel, "command_style", "/{}")
        return await self.db.call(self._card_for, str(inbound.meta.get("args", "")).strip(), inbound.chat_id,
                                  style.format(commands.CARD.name))

    async def stop(self, channel, inbound: Inbound) -> list[Outgoing]:
        """The daily word cancelled."""
        if not getattr(channel, "scheduled", True):
            return [Notice(messages.DAILY_UNAVAILABLE)]
        done = await self.db.call(self.subscriptions.cancel, inbound.channel, inbound.chat_id)
        return [Notice((messages.DAILY_STOPPED if done else messages.DAILY_NOT_SUBSCRIBED)
                         .format(**self._words(channel)))]

    async def subscribe(self, channel, inbound: Inbound) -> list[Outgoing]:
        """The daily word at the time given, or the current time when none is."""
        if not getattr(channel, "scheduled", True):
            return [Notice(messages.DAILY_UNAVAILABLE)]
        args, words = str(inbound.meta.get("args", "")).strip(), self._words(channel)
        if not args:
            current = await self.db.call(self.subscriptions.get, inbound.channel, inbound.chat_id)
            return [Notice(messages.DAILY_CURRENT.format(time=current.time, **words) if current
                             else messages.DAILY_NONE.format(**words))]
        when = parse_time(args)
        if when is None:
            return [Notice(messages.DAILY_BAD_TIME.format(given=args[:40], **words))]
        subscription = await self.db.call(self.subscriptions.subscribe, inbound.channel, inbound.chat_id, *when,
                                          self.words.now())
        log.info("inscrição no versículo do dia às %s (%s)", subscription.time, inbound.channel)
        return [Notice(messages.DAILY_SUBSCRIBED.format(time=subscription.time, **words))]

    async def scheduled(self, inbound: Inbound) -> list[Outgoing]:
        """The word queued by the daily round; nothing when the person stopped it meanwhile."""
        if await self.db.call(self.subscriptions.get, inbound.channel, inbound.chat_id) is None:
            return []
        return [self._daily(await self.words.word(date.fromisoformat(inbound.meta["date"])), scheduled=True)]

    def button(self, button: CardButton) -> list[Outgoing]:
        """A card button ("imagem:JHN.3.16,JHN.3.17")."""
        verses = [v for v in (self._verse(i) for i in button.verses) if v is not None]
        if not verses:
            return [Notice(messages.CARD_WHICH.format(command=f"/{commands.CARD.name}"))]
        return self._card(verses)

    def unreachable(self, inbound: Inbound, reason: str) -> None:
        """The person blocked the bot: no more daily words for them (a store call)."""
        if self.subscriptions.cancel(inbound.channel, inbound.chat_id):
            log.warning("versículo do dia: inscrição cancelada, a pessoa bloqueou o bot (%s): %s", inbound.channel,
                        reason[:120])

    # -- helpers -------------------------------------------------------------------------------------
    def _daily(self, word: DailyWord, scheduled: bool = False) -> Outgoing:
        lines = [messages.DAILY_TITLE.format(date=word.day.strftime("%d/%m/%Y")), f"“{word.text}” ({word.reference})"]
        if word.reflection:
            lines.append(word.reflection)
        lines.append(self.translation)
        return DailyVerse("\n\n".join(lines), tuple(word.sources), scheduled)

    def _card_for(self, args: str, chat_id: str, command: str) -> list[Outgoing]:
        """The card asked for (the last answer's sources are a store call)."""
        if not args:
            _, sources = self.memory.last_sources(chat_id)
            if not sources:
                return [Notice(messages.CARD_WHICH.format(command=command))]
            return self.button(CardButton((sources[0].id,)))
        ref = parse_reference(args)
        verses = verses_of(ref, self.bible) if ref else []
        if not verses:
            return [Notice(messages.CARD_MISSING.format(given=args[:60]))]
        if sum(len(v.text) for v in verses) > MAX_CHARS:
            return [Notice(messages.CARD_TOO_LONG.format(command=command))]
        return self._card(verses)

    def _card(self, verses) -> list[Outgoing]:
        if sum(len(v.text) for v in verses) > MAX_CHARS:
            verses = verses[:1]
        reference, text = passage_label(verses), " ".join(v.text for v in verses)
        card = Card(text, reference, self.translation)
        return [VerseCard(f"“{text}” ({reference})\n{self.translation}", card)]

    def _verse(self, verse_id: str):
        parts = verse_id.split(".")
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            return None
        return self.bible.get(parts[0], int(parts[1]), int(parts[2]))

