"""What the person sees on Telegram: each `Outgoing` as the Bot API calls that show it (JSON, kept in the inbox)."""

from __future__ import annotations

from dataclasses import asdict

from bot import commands, messages
from bot.buttons import CareButton, EraseButton
from bot.channels.formatting import sources_html, telegram_html_parts
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
    card_button_data,
)
from bot.store.inbox import Inbound

COMMAND_STYLE = "/{}"  # how a command is written on Telegram
ERASE_BUTTONS = {"inline_keyboard": [[{"text": "Sim, apagar tudo", "callback_data": EraseButton(True).pack()},
                                      {"text": "Cancelar", "callback_data": EraseButton(False).pack()}]]}


def _card_button(sources) -> dict | None:
    """The button under a passage that asks for its verse card."""
    if not sources:
        return None
    return {"inline_keyboard": [[{"text": messages.CARD_BUTTON, "callback_data": card_button_data(sources)}]]}


def _offer_buttons(code: str) -> dict:
    """Yes and no under the care team's offer, for case ``code``."""
    return {"inline_keyboard": [[{"text": messages.CARE_OFFER_YES, "callback_data": CareButton(True, code).pack()},
                                 {"text": messages.CARE_OFFER_NO, "callback_data": CareButton(False, code).pack()}]]}


def render_item(item: Outgoing, inbound: Inbound) -> list[dict]:
    """The Bot API calls that show ``item``."""
    callback = inbound.meta.get("callback_id")
    match item:
        case Answer(text=text) | Relay(text=text):
            return [{"method": "sendMessage", "text": p, "parse_mode": "HTML"} for p in telegram_html_parts(text)]
        case CareOffer():
            return [{"method": "sendMessage", "text": item.text, "reply_markup": _offer_buttons(item.case)}]
        case Sources():
            return [{"method": "sendMessage", "text": sources_html(list(item.sources)), "parse_mode": "HTML",
                     "reply_markup": _card_button(item.sources)}]
        case DailyVerse():
            text = item.text + (f"\n\n{commands.stop_note(COMMAND_STYLE)}" if item.scheduled else "")
            return [{"method": "sendMessage", "text": text, "reply_markup": _card_button(item.sources)}]
        case VerseCard():
            spinner = [{"method": "answerCallbackQuery", "callback_query_id": callback, "optional": True}]
            return (spinner if callback else []) + [  # a card from a button: stop the button's spinner first
                {"method": "sendPhoto", "card": asdict(item.card), "caption": item.caption}]
        case EraseConfirm():
            return [{"method": "sendMessage", "text": item.text, "reply_markup": ERASE_BUTTONS}]
        case ButtonAnswer() if callback:  # a query too old to answer is no reason to stop: optional
            return [{"method": "answerCallbackQuery", "callback_query_id": callback, "optional": True},
                    {"method": "editMessageText", "message_id": inbound.meta.get("message_id"), "text": item.text}]
        case Help():
            return [{"method": "sendMessage", "text": commands.HELP_TELEGRAM}]
        case Notice() | ButtonAnswer():
            return [{"method": "sendMessage", "text": item.text}]
    raise TypeError(f"nada para mostrar: {item!r}")
