"""What the conversation core asks a channel to show: one `Outgoing` per thing to tell the person."""

from __future__ import annotations

from dataclasses import dataclass

from bot.buttons import CardButton
from bot.card import Card
from bot.reply import Source


@dataclass(frozen=True)
class Outgoing:
    """One thing to tell the person; the channel decides how it looks on the wire.

    kinds: "answer" (the pastor's reply), "sources" (the verses under an answer), "sources_list"
    (/fontes), "notice" (a fixed text), "help", "erase_confirm", "erase_done", "daily" (the verse of
    the day, asked for), "daily_scheduled" (the same, sent at the subscriber's time), "card" (a verse
    card image, ``text`` its caption), "care_offer" (the care team offered, with yes/no buttons for the case
    ``ref``), "care_done" (the answer to that offer), "relay" (a message relayed to or from the care team).
    """

    kind: str
    text: str = ""
    sources: tuple[Source, ...] = ()
    status: str = ""  # for an "answer": the pastor's status, counted in the metrics once it is delivered
    card: Card | None = None
    ref: str = ""  # for a "care_offer": the case code its buttons answer


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
