"""WhatsApp Cloud API deliveries read: the messages of a webhook body as `Inbound`, or `MalformedDelivery`."""

from __future__ import annotations

from bot.channels.malformed import MalformedUpdate
from bot.commands import whatsapp_command
from bot.store.inbox import Inbound, InboundKind


class MalformedDelivery(MalformedUpdate):
    """A webhook body that is not the Cloud API's shape; ``update_id`` is the message's id when it has one."""

    def __init__(self, detail: str, update_id: str | None = None):
        super().__init__("shape", detail)
        self.update_id = update_id


def inbound_messages(payload) -> list[Inbound]:
    """The messages of one delivery ("statuses" such as delivered/read are ignored); raises `MalformedDelivery`."""
    out: list[Inbound] = []
    for entry in _list(payload.get("entry") if isinstance(payload, dict) else None, "entry"):
        for change in _list(_dict(entry, "entry").get("changes"), "changes"):
            value = _dict(_dict(change, "change").get("value", {}), "value")
            for message in _list(value.get("messages"), "messages"):
                message = _dict(message, "message")
                sender, wamid = message.get("from"), message.get("id")
                if not _identifier(sender) or not _identifier(wamid):
                    raise MalformedDelivery("message without from/id", wamid if _identifier(wamid) else None)
                try:
                    out.append(_inbound(sender, wamid, message))
                except MalformedDelivery as error:
                    error.update_id = wamid
                    raise
    return out


def _identifier(value) -> bool:
    """A phone number, user or message id as the Cloud API writes them: printable ASCII, no spaces."""
    return isinstance(value, str) and 0 < len(value) <= 256 and value.isascii() and value.isprintable() \
        and " " not in value


def _inbound(sender: str, wamid: str, message: dict) -> Inbound:
    kind, meta = message.get("type"), {"wamid": wamid}
    if isinstance(message.get("timestamp"), str) and message["timestamp"].isdigit():
        meta["sent_at"] = float(message["timestamp"])  # when the person wrote it: the order of a backlog's answers
    if kind == "interactive":
        reply = _dict(_dict(message.get("interactive", {}), "interactive").get("button_reply", {}), "button_reply")
        data = reply.get("id", "")
        if not isinstance(data, str):
            raise MalformedDelivery("button id is not a string")
        return Inbound("whatsapp", sender, wamid, InboundKind.BUTTON, data, meta)
    if kind == "audio":  # without a usable media id it is an audio that cannot be fetched, not a non-text message
        media_id = _dict(message.get("audio", {}), "audio").get("id")
        return Inbound("whatsapp", sender, wamid, InboundKind.VOICE, "",
                       {**meta, "media_id": media_id if isinstance(media_id, str) else ""})
    if kind != "text":
        return Inbound("whatsapp", sender, wamid, InboundKind.OTHER, "", meta)
    text = _dict(message.get("text", {}), "text").get("body")
    text = text if isinstance(text, str) else ""
    command = whatsapp_command(text)
    if command is not None:
        name, args = command
        return Inbound("whatsapp", sender, wamid, InboundKind.COMMAND, name, {**meta, "args": args})
    return Inbound("whatsapp", sender, wamid, InboundKind.TEXT, text, meta)


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
