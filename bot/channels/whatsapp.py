"""WhatsApp Cloud API: signed webhook deliveries in, Graph API messages out (httpx)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable

import httpx

from bot.channels import messages
from bot.channels.formatting import sources_plain, split_message
from bot.logs import message_id
from bot.memory import Memory
from bot.pastor import Pastor
from bot.reply import Source

log = logging.getLogger("pastor.whatsapp")

LIMIT = 4096
SOURCES_BUTTON = ("fontes", "📖 Ver fontes")
COMMANDS = {"fontes", "status", "ajuda", "nova", "apagar"}
OUTSIDE_WINDOW = 131047  # the 24-hour customer service window is closed
RETRYABLE = {429, 500, 502, 503, 504}


def valid_signature(body: bytes, header: str, app_secret: str) -> bool:
    """X-Hub-Signature-256: "sha256=" + HMAC-SHA256 of the raw body, compared in constant time."""
    if not app_secret or not header.startswith("sha256="):
        return False
    expected = hmac.new(app_secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header[7:].strip().lower())


class GraphError(RuntimeError):
    def __init__(self, status: int, code: int | None, message: str):
        self.status, self.code = status, code
        super().__init__(f"Graph API HTTP {status} (código {code}): {message[:200]}")


class GraphClient:
    """Sends messages through the Graph API; retries 429 and 5xx a bounded number of times."""

    def __init__(self, client: httpx.AsyncClient, base_url: str, phone_number_id: str, access_token: str,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep):
        self.client, self.sleep = client, sleep
        self.url = f"{base_url.rstrip('/')}/{phone_number_id}/messages"
        self._headers = {"Authorization": f"Bearer {access_token}"}

    async def post(self, payload: dict) -> dict:
        body = {"messaging_product": "whatsapp", **payload}
        for attempt in range(3):
            try:
                response = await self.client.post(self.url, json=body, headers=self._headers, timeout=15.0)
            except httpx.HTTPError as error:
                if attempt == 2:
                    raise GraphError(0, None, type(error).__name__) from None
                await self.sleep(1.0 * (attempt + 1))
                continue
            if response.status_code < 400:
                return response.json()
            error = _graph_error(response)
            if response.status_code not in RETRYABLE or attempt == 2:
                raise error
            retry_after = response.headers.get("retry-after")
            await self.sleep(min(float(retry_after), 20.0) if retry_after and retry_after.isdigit()
                             else 1.0 * 2 ** attempt)
        raise GraphError(0, None, "sem resposta")  # pragma: no cover

    async def text(self, to: str, body: str) -> None:
        await self.post({"recipient_type": "individual", "to": to, "type": "text",
                         "text": {"preview_url": False, "body": body}})

    async def buttons(self, to: str, body: str, buttons: list[tuple[str, str]]) -> None:
        await self.post({"recipient_type": "individual", "to": to, "type": "interactive", "interactive": {
            "type": "button", "body": {"text": body[:1024]},
            "action": {"buttons": [{"type": "reply", "reply": {"id": i, "title": t[:20]}} for i, t in buttons]}}})

    async def read_and_typing(self, message_id: str) -> None:
        await self.post({"status": "read", "message_id": message_id, "typing_indicator": {"type": "text"}})


def _graph_error(response: httpx.Response) -> GraphError:
    try:
        error = response.json().get("error", {})
    except ValueError:
        error = {}
    return GraphError(response.status_code, error.get("code"), str(error.get("message", response.text[:200])))


class WhatsAppChannel:
    """Turns webhook deliveries into Pastor replies; one chat's messages in order."""

    def __init__(self, graph: GraphClient, pastor: Pastor, memory: Memory,
                 status_text: Callable[[], Awaitable[str]]):
        self.graph, self.pastor, self.memory, self.status_text = graph, pastor, memory, status_text
        self._locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._tasks: set[asyncio.Task] = set()

    def accept(self, payload: dict) -> int:
        """Schedule every new message of a delivery; returns how many were scheduled."""
        scheduled = 0
        for entry in payload.get("entry") or ():
            for change in entry.get("changes") or ():
                value = change.get("value") or {}
                for message in value.get("messages") or ():  # "statuses" (delivered, read) are ignored
                    sender, message_id = message.get("from"), message.get("id")
                    if not sender or not message_id:
                        continue
                    if not self.memory.first_delivery("whatsapp", message_id, sender):
                        log.info("mensagem %s repetida: ignorada", message_id)
                        continue
                    # the lock is taken in arrival order, so one chat's messages stay in order
                    task = asyncio.create_task(self._ordered(sender, message))
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
                    scheduled += 1
        return scheduled

    async def drain(self) -> None:
        """Wait for the messages in flight (shutdown and tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def _ordered(self, sender: str, message: dict) -> None:
        message_id.set(f"wa-{message.get('id', '?')}")
        async with self._locks[sender]:
            try:
                await self._handle(sender, message)
            except GraphError as error:
                level = logging.WARNING if error.code == OUTSIDE_WINDOW else logging.ERROR
                log.log(level, "envio ao WhatsApp falhou: %s", error)
            except Exception as error:  # the bot keeps running; the person gets an apology
                log.error("erro ao tratar mensagem do WhatsApp: %s: %s", type(error).__name__, error)
                try:
                    await self.graph.text(sender, messages.SORRY)
                except GraphError:
                    pass

    async def _handle(self, sender: str, message: dict) -> None:
        kind = message.get("type")
        if kind == "interactive":
            reply = (message.get("interactive") or {}).get("button_reply") or {}
            await self._button(sender, reply.get("id", ""))
            return
        if kind != "text":
            await self.graph.text(sender, messages.ONLY_TEXT)
            return
        text = ((message.get("text") or {}).get("body") or "")
        command = text.strip().lower().lstrip("/")
        if command in COMMANDS:
            await self._command(sender, command)
            return
        try:
            await self.graph.read_and_typing(message["id"])
        except GraphError as error:
            log.warning("não foi possível marcar como lida: %s", error)
        reply = await self.pastor.reply(sender, text, channel="whatsapp")
        for part in split_message(reply.text, LIMIT):
            await self.graph.text(sender, part)
        if reply.sources:
            await self.graph.buttons(sender, messages.SOURCES_OFFER, [SOURCES_BUTTON])

    async def _command(self, sender: str, command: str) -> None:
        if command == "fontes":
            await self._send_sources(sender)
        elif command == "status":
            await self.graph.text(sender, await self.status_text())
        elif command == "ajuda":
            await self.graph.text(sender, messages.HELP_WHATSAPP)
        elif command == "nova":
            self.memory.forget_window(sender)
            await self.graph.text(sender, messages.NEW_CONVERSATION)
        elif command == "apagar":
            await self.graph.buttons(sender, messages.ERASE_CONFIRM,
                                     [("apagar:sim", "Sim, apagar tudo"), ("apagar:nao", "Cancelar")])

    async def _button(self, sender: str, button_id: str) -> None:
        if button_id == SOURCES_BUTTON[0]:
            await self._send_sources(sender)
        elif button_id == "apagar:sim":
            self.memory.delete_chat(sender)
            await self.graph.text(sender, messages.ERASED)
        elif button_id == "apagar:nao":
            await self.graph.text(sender, messages.ERASE_CANCELLED)

    async def _send_sources(self, sender: str) -> None:
        _, verses = self.memory.last_sources(sender)
        if not verses:
            await self.graph.text(sender, messages.NO_SOURCES)
            return
        for part in split_message(sources_plain([Source(**v) for v in verses]), LIMIT):
            await self.graph.text(sender, part)
