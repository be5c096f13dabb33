"""What the conversation core asks a channel to show: small frozen dataclasses, one per thing to tell the person."""

from __future__ import annotations

from dataclasses import dataclass

from bot.buttons import CardButton
from bot.card import Card
from bot.reply import Source


@dataclass(frozen=True)
class Answer:
    """The pastor's reply; ``status`` is counted in the metrics once it is delivered."""

    text: str
    status: str = ""


@dataclass(frozen=True)
class Sources:
    """The verses under an answer, or, ``listed``, the verses /fontes asks for."""

    sources: tuple[Source, ...]
    listed: bool = False


@dataclass(frozen=True)
class Notice:
    """A fixed text."""

    text: str


@dataclass(frozen=True)
class Help:
    """The channel's help text (bot/commands.py)."""


@dataclass(frozen=True)
class Relay:
    """A message relayed to or from the care team, shown as it is."""

    text: str


@dataclass(frozen=True)
class DailyVerse:
    """The verse of the day: asked for, or ``scheduled`` (sent at the subscriber's time)."""

    text: str
    sources: tuple[Source, ...]
    scheduled: bool = False


@dataclass(frozen=True)
class VerseCard:
    """A verse card image with its caption."""

    caption: str
    card: Card


@dataclass(frozen=True)
class EraseConfirm:
    """The question before erasing a chat, with yes/no buttons."""

    text: str


@dataclass(frozen=True)
class CareOffer:
    """The care team offered, with yes/no buttons for ``case``."""

    text: str
    case: str


@dataclass(frozen=True)
class ButtonAnswer:
    """The answer to a yes/no button (erasing, the care offer): it replaces the question where it can."""

    text: str


# One thing to tell the person; each channel renders them with ``match``.
Outgoing = Answer | Sources | Notice | Help | Relay | DailyVerse | VerseCard | EraseConfirm | CareOffer | ButtonAnswer


def card_button_data(sources: tuple[Source, ...] | list[Source]) -> str:
    """The button payload that asks for a card of the first passage of ``sources`` (the first verse and those
    that follow it directly, as many as fit Telegram's 64 bytes): "imagem:PHP.4.6,PHP.4.7"."""
    verses: tuple[str, ...] = ()
    previous = None
    for source in sources:
        book, chapter, verse = source.id.split(".")
        if previous is not None and previous != (book, chapter, int(verse) - 1):
            break
        if not CardButton(verses + (source.id,)).fits():
            break
        verses, previous = verses + (source.id,), (book, chapter, int(verse))
    return CardButton(verses).pack()
