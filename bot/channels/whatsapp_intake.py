"""WhatsApp Cloud API deliveries read: the messages of a webhook body as `Inbound`, or `MalformedDelivery`."""

from __future__ import annotations

from bot.care.cases import valid_code
from bot.care.team import TEAM_COMMANDS
from bot.channels.malformed import MalformedUpdate
from bot.conversation import COMMANDS
from bot.inbox import Inbound
from bot.subscriptions import parse_time
from corpus.references import parse_reference
from corpus.text import fold


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
    if kind == "interactive":
        reply = _dict(_dict(message.get("interactive", {}), "interactive").get("button_reply", {}), "button_reply")
        data = reply.get("id", "")
        if not isinstance(data, str):
            raise MalformedDelivery("button id is not a string")
        return Inbound("whatsapp", sender, wamid, "button", data, meta)
    if kind == "audio":  # without a usable media id it is an audio that cannot be fetched, not a non-text message
        media_id = _dict(message.get("audio", {}), "audio").get("id")
        return Inbound("whatsapp", sender, wamid, "voice", "",
                       {**meta, "media_id": media_id if isinstance(media_id, str) else ""})
    if kind != "text":
        return Inbound("whatsapp", sender, wamid, "other", "", meta)
    text = _dict(message.get("text", {}), "text").get("body")
    text = text if isinstance(text, str) else ""
    command = command_of(text)
    if command is not None:
        name, args = command
        return Inbound("whatsapp", sender, wamid, "command", name, {**meta, "args": args})
    return Inbound("whatsapp", sender, wamid, "text", text, meta)


def command_of(text: str) -> tuple[str, str] | None:
    """A message that is a command word ("fontes", "versículo"), or "diário 7:30" / "imagem João 3:16" /
    "responder K7MX texto" (only with a time, a reference or a case after them: any other message is for
    the pastor)."""
    words = text.strip().lstrip("/").split(maxsplit=1)
    if not words:
        return None
    name, args = fold(words[0]).rstrip(".!"), words[1].strip() if len(words) > 1 else ""
    if name not in COMMANDS or name == "start":
        return None
    if not args:
        return name, ""
    if (name == "diario" and parse_time(args)) or (name == "imagem" and parse_reference(args)):
        return name, args
    if name in TEAM_COMMANDS and valid_code(args.split()[0]):  # the care team's (only team numbers may)
        return name, args
    return None


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
