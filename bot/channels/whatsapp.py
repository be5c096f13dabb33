"""WhatsApp Cloud API: signed webhook deliveries in (stored before Meta gets its 200), Graph API messages out."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging

import httpx
from aiohttp import web

from bot.channels import messages
from bot.channels.formatting import sources_plain, split_message
from bot.channels.typing import repeating
from bot.conversation import COMMANDS, Conversation, Outgoing
from bot.delivery import DeliveryError
from bot.inbox import Inbound
from bot.transcription import Audio
from bot.voice import AudioUnavailable

log = logging.getLogger("pastor.whatsapp")

LIMIT = 4096
SOURCES_BUTTON = ("fontes", "📖 Ver fontes")
ERASE_BUTTONS = [("apagar:sim", "Sim, apagar tudo"), ("apagar:nao", "Cancelar")]
OUTSIDE_WINDOW = 131047  # the 24-hour customer service window is closed
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
                            permanent=permanent, code=code if isinstance(code, int) else None)


class WhatsAppChannel:
    """Turns deliveries into `Inbound`, renders the core's answers as Graph API messages and sends them."""

    name = "whatsapp"

    def __init__(self, graph: GraphClient, conversation: Conversation, typing_every: float = TYPING_EVERY):
        self.graph, self.conversation, self.typing_every = graph, conversation, typing_every
        conversation.register(self)

    # -- out ---------------------------------------------------------------------------------------
    def render(self, inbound: Inbound, outgoing: list[Outgoing]) -> list[dict]:
        parts: list[dict] = []
        for item in outgoing:
            if item.kind == "answer":
                parts += [_text(p) for p in split_message(item.text, LIMIT)]
            elif item.kind == "sources":
                parts.append(_buttons(messages.SOURCES_OFFER, [SOURCES_BUTTON]))
            elif item.kind == "sources_list":
                parts += [_text(p) for p in split_message(sources_plain(list(item.sources)), LIMIT)]
            elif item.kind == "erase_confirm":
                parts.append(_buttons(item.text, ERASE_BUTTONS))
            else:
                parts.append(_text(messages.HELP_WHATSAPP if item.kind == "help" else item.text))
        return parts

    async def deliver(self, chat_id: str, part: dict) -> None:
        try:
            await self.graph.post({"recipient_type": "individual", "to": chat_id, **part})
        except DeliveryError as error:
            if error.code == OUTSIDE_WINDOW:
                log.warning("fora da janela de 24 h do WhatsApp: %s", error)
            raise

    async def fetch_audio(self, inbound: Inbound) -> Audio:
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


def _buttons(body: str, buttons: list[tuple[str, str]]) -> dict:
    return {"type": "interactive", "interactive": {
        "type": "button", "body": {"text": body[:1024]},
        "action": {"buttons": [{"type": "reply", "reply": {"id": i, "title": t[:20]}} for i, t in buttons]}}}


class MalformedDelivery(ValueError):
    """A webhook body that is not the Cloud API's shape."""


def inbound_messages(payload) -> list[Inbound]:
    """The messages of one delivery ("statuses" such as delivered/read are ignored); raises `MalformedDelivery`."""
    out: list[Inbound] = []
    for entry in _list(payload.get("entry") if isinstance(payload, dict) else None, "entry"):
        for change in _list(_dict(entry, "entry").get("changes"), "changes"):
            value = _dict(_dict(change, "change").get("value", {}), "value")
            for message in _list(value.get("messages"), "messages"):
                message = _dict(message, "message")
                sender, wamid = message.get("from"), message.get("id")
                if not isinstance(sender, str) or not isinstance(wamid, str) or not sender or not wamid:
                    raise MalformedDelivery("message without from/id")
                out.append(_inbound(sender, wamid, message))
    return out


def _inbound(sender: str, wamid: str, message: dict) -> Inbound:
    kind, meta = message.get("type"), {"wamid": wamid}
    if kind == "interactive":
        reply = _dict(_dict(message.get("interactive", {}), "interactive").get("button_reply", {}), "button_reply")
        return Inbound("whatsapp", sender, wamid, "button", str(reply.get("id", "")), meta)
    if kind == "audio":
        media_id = _dict(message.get("audio", {}), "audio").get("id")
        if isinstance(media_id, str) and media_id:
            return Inbound("whatsapp", sender, wamid, "voice", "", {**meta, "media_id": media_id})
    if kind != "text":
        return Inbound("whatsapp", sender, wamid, "other", "", meta)
    text = _dict(message.get("text", {}), "text").get("body")
    text = text if isinstance(text, str) else ""
    command = text.strip().lower().lstrip("/")
    if command in COMMANDS and command != "start":
        return Inbound("whatsapp", sender, wamid, "command", command, meta)
    return Inbound("whatsapp", sender, wamid, "text", text, meta)


def _list(value, what: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise MalformedDelivery(f"{what} is not a list")
    return value


def _dict(value, what: str) -> dict:
    if not isinstance(value, dict):
        raise MalformedDelivery(f"{what} is not an object")
    return value


class WhatsAppWebhook:
    """The webhook routes: Meta's verification handshake, and signed deliveries stored before the 200."""

    def __init__(self, channel: WhatsAppChannel, verify_token: str, app_secret: str):
        self.channel, self.verify_token, self.app_secret = channel, verify_token, app_secret

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
            payload = json.loads(body)
            if not isinstance(payload, dict):
                raise MalformedDelivery("not an object")
            inbound = inbound_messages(payload)
        except (ValueError, UnicodeDecodeError) as error:  # MalformedDelivery is a ValueError
            log.warning("entrega do WhatsApp malformada recusada: %s", error)
            return web.json_response({"error": "invalid payload"}, status=400)
        for message in inbound:
            self.channel.conversation.accept(message)
        return web.json_response({"ok": True})
