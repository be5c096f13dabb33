"""WhatsApp Cloud API: signed webhook deliveries in (stored before Meta gets its 200), Graph API messages out."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
from collections.abc import Awaitable, Callable
from dataclasses import asdict

import httpx
from aiohttp import web

from bot import commands, messages
from bot.buttons import CareButton, EraseButton, SourcesButton
from bot.card import Card
from bot.card import render as render_card
from bot.channels.formatting import sources_plain, split_message
from bot.channels.malformed import Malformed, MalformedUpdate, load_json
from bot.channels.typing import repeating
from bot.channels.whatsapp_intake import MalformedDelivery, inbound_messages
from bot.conversation import Conversation
from bot.delivery import DeliveryError
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
from bot.voice.notes import AudioUnavailable
from bot.voice.transcription import Audio

log = logging.getLogger("pastor.whatsapp")

LIMIT = 4096
SOURCES_BUTTON = (SourcesButton().pack(), "📖 Ver fontes")
ERASE_BUTTONS = [(EraseButton(True).pack(), "Sim, apagar tudo"), (EraseButton(False).pack(), "Cancelar")]
OUTSIDE_WINDOW = 131047  # the 24-hour customer service window is closed
UNREACHABLE = {131026, 131050}  # undeliverable (blocked, no WhatsApp); the person stopped such messages
CARD_BUTTON_TITLE = "🖼️ Imagem"
TYPING_EVERY = 20.0  # the indicator lasts ~25 s or until the answer is sent


def valid_signature(body: bytes, header: str, app_secret: str) -> bool:
    """X-Hub-Signature-256: "sha256=" + HMAC-SHA256 of the raw body, compared in constant time."""
    if not app_secret or not header.isascii() or not header.startswith("sha256="):
        return False
    expected = hmac.new(app_secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), header[7:].strip().lower().encode())


class GraphClient:
    """One Graph API call per ``post``; failures become `DeliveryError` (the core's policy retries)."""

    def __init__(self, client: httpx.AsyncClient, base_url: str, phone_number_id: str, access_token: str):
        self.client, self.base_url = client, base_url.rstrip("/")
        self.url = f"{self.base_url}/{phone_number_id}/messages"
        self._headers = {"Authorization": f"Bearer {access_token}"}

    async def media(self, media_id: str) -> tuple[bytes, str]:
        """GET /<media-id> for the media URL, then download it with the access token: (bytes, mime type)."""
        try:
            lookup = await self.client.get(f"{self.base_url}/{media_id}", headers=self._headers, timeout=15.0)
            if lookup.status_code >= 400:
                raise AudioUnavailable(f"Graph API HTTP {lookup.status_code} ao buscar a mídia")
            info = lookup.json()
            download = await self.client.get(info["url"], headers=self._headers, timeout=60.0)
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as error:
            raise AudioUnavailable(f"Graph API: {type(error).__name__}") from None
        if download.status_code >= 400:
            raise AudioUnavailable(f"download da mídia: HTTP {download.status_code}")
        return download.content, str(info.get("mime_type") or download.headers.get("content-type", "audio/ogg"))

    async def upload(self, data: bytes, mime: str, filename: str) -> str:
        """POST /<phone-number-id>/media (multipart): the media id to send."""
        try:
            response = await self.client.post(self.url.removesuffix("/messages") + "/media", headers=self._headers,
                                              data={"messaging_product": "whatsapp", "type": mime},
                                              files={"file": (filename, data, mime)}, timeout=60.0)
        except httpx.HTTPError as error:
            raise DeliveryError(f"Graph API inacessível: {type(error).__name__}") from None
        if response.status_code >= 400:
            raise DeliveryError(f"Graph API HTTP {response.status_code} ao enviar a mídia",
                                permanent=response.status_code < 500 and response.status_code != 429)
        return str(response.json()["id"])

    async def post(self, payload: dict) -> dict:
        body = {"messaging_product": "whatsapp", **payload}
        try:
            response = await self.client.post(self.url, json=body, headers=self._headers, timeout=15.0)
        except httpx.HTTPError as error:
            raise DeliveryError(f"Graph API inacessível: {type(error).__name__}") from None
        if response.status_code < 400:
            return response.json()
        try:
            error = response.json().get("error", {})
        except ValueError:
            error = {}
        code = error.get("code") if isinstance(error, dict) else None
        reason = f"Graph API HTTP {response.status_code} (código {code}): {str(error.get('message', ''))[:200]}"
        retry_after = response.headers.get("retry-after", "")
        permanent = response.status_code < 500 and response.status_code != 429
        raise DeliveryError(reason, retry_after=float(retry_after) if retry_after.isdigit() else None,
                            permanent=permanent, code=code if isinstance(code, int) else None,
                            unreachable=code in UNREACHABLE)


class WhatsAppChannel:
    """Turns deliveries into `Inbound`, renders the core's answers as Graph API messages and sends them."""

    name = "whatsapp"
    command_style = "*{}*"

    def __init__(self, graph: GraphClient, conversation: Conversation, typing_every: float = TYPING_EVERY,
                 daily_template: str = ""):
        self.graph, self.conversation, self.typing_every = graph, conversation, typing_every
        name, _, language = daily_template.partition(":")
        self.template = (name.strip(), language.strip() or "pt_BR") if name.strip() else None
        self.scheduled = self.template is not None  # Meta allows unrequested messages only as approved templates
        self.malformed = Malformed(self.name, conversation.metrics, log)
        conversation.register(self)

    # -- out ---------------------------------------------------------------------------------------
    def render(self, inbound: Inbound, outgoing: list[Outgoing]) -> list[dict]:
        parts: list[dict] = []
        for item in outgoing:
            match item:
                case Answer(text=text) | Relay(text=text):
                    parts += [_text(p) for p in split_message(text, LIMIT)]
                case CareOffer():
                    parts.append(_buttons(item.text, [(CareButton(True, item.case).pack(), messages.CARE_OFFER_YES),
                                                      (CareButton(False, item.case).pack(), messages.CARE_OFFER_NO)]))
                case Sources(listed=False):
                    parts.append(_buttons(messages.SOURCES_OFFER,
                                          [SOURCES_BUTTON, (card_button_data(item.sources), CARD_BUTTON_TITLE)]))
                case Sources(listed=True):
                    parts += [_text(p) for p in split_message(sources_plain(list(item.sources)), LIMIT)]
                case DailyVerse(scheduled=True) if self.template is not None:
                    parts.append(_template(*self.template, _daily_parameter(item)))
                case DailyVerse():
                    text = item.text + (f"\n\n{commands.stop_note(self.command_style)}" if item.scheduled else "")
                    parts.append(_buttons(text, [(card_button_data(item.sources), CARD_BUTTON_TITLE)])
                                 if len(text) <= 1024 else _text(text))
                case VerseCard():
                    parts.append({"type": "card", "card": asdict(item.card), "caption": item.caption[:1024]})
                case EraseConfirm():
                    parts.append(_buttons(item.text, ERASE_BUTTONS))
                case Help():
                    parts.append(_text(commands.HELP_WHATSAPP))
                case Notice() | ButtonAnswer():
                    parts.append(_text(item.text))
        return parts

    async def deliver(self, chat_id: str, part: dict) -> None:
        if part.get("type") == "card":  # drawn and uploaded at send time: the inbox keeps only its words
            png = await asyncio.to_thread(render_card, Card(**part["card"]))
            media_id = await self.graph.upload(png, "image/png", "versiculo.png")
            part = {"type": "image", "image": {"id": media_id, "caption": part["caption"]}}
        try:
            await self.graph.post({"recipient_type": "individual", "to": chat_id, **part})
        except DeliveryError as error:
            if error.code == OUTSIDE_WINDOW:
                log.warning("fora da janela de 24 h do WhatsApp: %s", error)
            raise

    async def fetch_audio(self, inbound: Inbound) -> Audio:
        if not inbound.meta.get("media_id"):
            raise AudioUnavailable("mensagem de áudio sem id de mídia")
        data, mime = await self.graph.media(inbound.meta["media_id"])
        mime = mime.split(";")[0].strip() or "audio/ogg"
        extension = {"audio/ogg": "ogg", "audio/mpeg": "mp3", "audio/mp4": "m4a", "audio/aac": "aac",
                     "audio/amr": "amr"}.get(mime, "ogg")
        return Audio(data, f"audio.{extension}", mime)

    def typing(self, inbound: Inbound) -> contextlib.AbstractAsyncContextManager:
        wamid = inbound.meta.get("wamid") or inbound.message_id

        async def typing_once() -> None:
            try:
                await self.graph.post({"status": "read", "message_id": wamid, "typing_indicator": {"type": "text"}})
            except DeliveryError as error:
                log.info("indicador de digitação não enviado: %s", error)

        return repeating(typing_once, self.typing_every)


def _text(body: str) -> dict:
    return {"type": "text", "text": {"preview_url": False, "body": body}}


def _daily_parameter(item: DailyVerse) -> str:
    """The template's one body parameter: the passage and its reference, on one line (Meta refuses newlines)."""
    text = " ".join(" ".join(s.text for s in item.sources).split())
    first, last = item.sources[0], item.sources[-1]
    reference = first.reference if first == last else f"{first.reference}-{last.id.rsplit('.', 1)[1]}"
    return f"“{text}” ({reference})"


def _template(name: str, language: str, parameter: str) -> dict:
    return {"type": "template", "template": {"name": name, "language": {"code": language}, "components": [
        {"type": "body", "parameters": [{"type": "text", "text": parameter}]}]}}


def _buttons(body: str, buttons: list[tuple[str, str]]) -> dict:
    return {"type": "interactive", "interactive": {
        "type": "button", "body": {"text": body[:1024]},
        "action": {"buttons": [{"type": "reply", "reply": {"id": i, "title": t[:20]}} for i, t in buttons]}}}


class WhatsAppWebhook:
    """The webhook routes: Meta's verification handshake, and signed deliveries stored before the 200."""

    def __init__(self, channel: WhatsAppChannel | None, verify_token: str, app_secret: str, *,
                 accept: Callable[[Inbound], Awaitable[bool]] | None = None, malformed: Malformed | None = None):
        """``accept`` and ``malformed`` default to the channel's; before the channel exists (the index still
        loading) deliveries go straight into the inbox and are answered once it is ready."""
        self.channel, self.verify_token, self.app_secret = channel, verify_token, app_secret
        self.accept = accept or channel.conversation.receive
        self.malformed = malformed or channel.malformed

    def register(self, app: web.Application, path: str = "/whatsapp/webhook") -> None:
        app.router.add_get(path, self.verify)
        app.router.add_post(path, self.handle)

    async def verify(self, request: web.Request) -> web.Response:
        query = request.query
        token = query.get("hub.verify_token", "")
        if query.get("hub.mode") == "subscribe" and self.verify_token and token.isascii() and \
                hmac.compare_digest(token.encode(), self.verify_token.encode()):
            return web.Response(text=query.get("hub.challenge", ""))
        return web.Response(status=403, text="forbidden")

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.read()  # the raw bytes: the signature covers them exactly
        if not valid_signature(body, request.headers.get("X-Hub-Signature-256", ""), self.app_secret):
            log.warning("entrega do WhatsApp com assinatura ausente ou errada: recusada")
            return web.json_response({"error": "forbidden"}, status=403)
        try:
            payload = load_json(body)
            if not isinstance(payload, dict):
                raise MalformedDelivery("not an object")
            inbound = inbound_messages(payload)
        except MalformedUpdate as error:  # no JSON, too deep, or not the Cloud API's shape: a 400, never a 500
            self.malformed.skip(getattr(error, "update_id", None), error)
            return web.json_response({"error": "invalid payload"}, status=400)
        for message in inbound:
            await self.accept(message)  # stored (off the event loop) before the 200
        return web.json_response({"ok": True})
