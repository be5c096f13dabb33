"""A loopback Telegram Bot API."""

from __future__ import annotations

import asyncio as _asyncio
import time

from aiohttp import web as _web

from tests.fakes.loopback import LoopbackPeer


class FakeBotAPI(LoopbackPeer):
    """A loopback Telegram Bot API: the methods the bot uses, real JSON shapes, form-encoded params
    as python-telegram-bot sends them. Updates are served by getUpdates; what the bot sends is recorded."""

    TOKEN = "123456:TEST-TOKEN-abcdefghijklmnopqrstuvwxyz"
    BOT = {"id": 123456, "is_bot": True, "first_name": "Pastor", "username": "pastor_online_bot",
           "can_join_groups": True, "can_read_all_group_messages": False, "supports_inline_queries": True}

    def __init__(self):
        self.calls: list[tuple[str, dict]] = []
        self.call_times: list[float] = []  # monotonic time of each call, for latency measurements
        self.failures: dict[str, list[dict]] = {}
        self.storm_until = 0.0  # loop time until which every sendMessage gets a 429
        self.files: dict[str, bytes] = {}  # file_id -> content, for getFile and the file server
        self.refuse_drafts = False  # an older Bot API server: sendMessageDraft is an unknown method (404)
        self.blocked: set[int] = set()  # chats whose person blocked the bot: sending gets a 403
        self.slow: dict[str, float] = {}  # method -> seconds the server takes before it answers
        self._updates: list[dict] = []
        self._next_update = int(time.time() * 1000) % 10**9  # like Telegram: never reused across runs
        self._next_message = 1
        self._arrived = _asyncio.Event()

    def routes(self, app: _web.Application) -> None:
        app.router.add_post("/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.+}", self._file)

    # -- what the bot sent --------------------------------------------------------------------
    def sent(self, method: str = "sendMessage", chat_id=None) -> list[dict]:
        """Calls the bot made (refused ones included)."""
        return [p for m, p in self.calls if m == method and (chat_id is None or str(p.get("chat_id")) == str(chat_id))]

    def delivered(self, chat_id=None) -> list[dict]:
        """Messages the API accepted."""
        return [p for m, p in self.calls if m == "sendMessage" and p.get("_ok")
                and (chat_id is None or str(p.get("chat_id")) == str(chat_id))]

    def drafts(self, chat_id=None) -> list[tuple[float, str]]:
        """(loop time, text) of every draft the bot showed, in order."""
        return [(t, p.get("text", "")) for (m, p), t in zip(self.calls, self.call_times)
                if m == "sendMessageDraft" and (chat_id is None or str(p.get("chat_id")) == str(chat_id))]

    def times(self, method: str = "sendMessage", chat_id=None) -> list[float]:
        """Loop time of each call of ``method``."""
        return [t for (m, p), t in zip(self.calls, self.call_times)
                if m == method and (chat_id is None or str(p.get("chat_id")) == str(chat_id))]

    async def wait_for(self, count: int, method: str = "sendMessage", chat_id=None, timeout: float = 30) -> list[dict]:
        deadline = _asyncio.get_running_loop().time() + timeout
        while len(self.sent(method, chat_id)) < count:
            assert _asyncio.get_running_loop().time() < deadline, f"only {self.sent(method, chat_id)}"
            await _asyncio.sleep(0.02)
        return self.sent(method, chat_id)

    async def wait_for_delivered(self, count: int, chat_id=None, timeout: float = 30) -> list[dict]:
        deadline = _asyncio.get_running_loop().time() + timeout
        while len(self.delivered(chat_id)) < count:
            assert _asyncio.get_running_loop().time() < deadline, f"only {self.delivered(chat_id)}"
            await _asyncio.sleep(0.02)
        return self.delivered(chat_id)

    # -- updates to deliver --------------------------------------------------------------------
    def push(self, update: dict) -> dict:
        self._updates.append(update)
        self._arrived.set()
        return update

    def update_id(self) -> int:
        self._next_update += 1
        return self._next_update

    def message(self, chat_id: int, text: str | None = None, chat_type: str = "private", user_id: int | None = None,
                update_id: int | None = None, reply_to_bot: bool = False, **content) -> dict:
        message = {"message_id": self._new_message_id(), "date": int(time.time()),  # when the person wrote
                   "chat": {"id": chat_id, "type": chat_type, **({"title": "Grupo"} if chat_type != "private"
                                                                 else {"first_name": "Ana"})},
                   "from": {"id": user_id or abs(chat_id), "is_bot": False, "first_name": "Ana"}, **content}
        if text is not None:
            message["text"] = text
            if text.startswith("/"):
                message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
        if reply_to_bot:
            message["reply_to_message"] = {"message_id": 1, "date": 1796000000, "chat": message["chat"],
                                           "from": self.BOT, "text": "resposta anterior"}
        return {"update_id": update_id or self.update_id(), "message": message}

    def callback(self, chat_id: int, data: str, message_id: int = 1) -> dict:
        return {"update_id": self.update_id(), "callback_query": {
            "id": f"cb{self._next_update}", "chat_instance": "ci", "data": data,
            "from": {"id": chat_id, "is_bot": False, "first_name": "Ana"},
            "message": {"message_id": message_id, "date": 1796000000, "chat": {"id": chat_id, "type": "private"},
                        "from": self.BOT, "text": "Quer mesmo apagar?"}}}

    def inline_query(self, user_id: int, query: str) -> dict:
        return {"update_id": self.update_id(), "inline_query": {
            "id": f"iq{self._next_update}", "from": {"id": user_id, "is_bot": False, "first_name": "Ana"},
            "query": query, "offset": ""}}

    def _new_message_id(self) -> int:
        self._next_message += 1
        return self._next_message

    # -- the API -------------------------------------------------------------------------------
    async def _handle(self, request):
        method = request.match_info["method"]
        if request.match_info["token"] != self.TOKEN:
            return _web.json_response({"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401)
        params = dict(await request.post()) if request.can_read_body else {}
        if request.content_type == "application/json":
            params = await request.json()
        for name, value in list(params.items()):  # multipart uploads (sendPhoto): keep the bytes
            if isinstance(value, _web.FileField):
                params[name] = value.file.read()
        self.calls.append((method, params))
        self.call_times.append(_asyncio.get_running_loop().time())
        if method in self.slow:
            await _asyncio.sleep(self.slow[method])
        if method == "sendMessageDraft" and self.refuse_drafts:
            return _web.json_response({"ok": False, "error_code": 404, "description": "Not Found"}, status=404)
        if method == "sendMessage" and _asyncio.get_running_loop().time() < self.storm_until:
            return _web.json_response({"ok": False, "error_code": 429, "parameters": {"retry_after": 1},
                                       "description": "Too Many Requests: retry after 1"}, status=429)
        if method.startswith("send") and method != "sendChatAction" and int(params.get("chat_id", 0)) in self.blocked:
            return _web.json_response({"ok": False, "error_code": 403,
                                       "description": "Forbidden: bot was blocked by the user"}, status=403)
        failures = self.failures.get(method)
        if failures:
            failure = failures.pop(0)
            return _web.json_response({"ok": False, **failure}, status=failure["error_code"])
        if method == "getUpdates":
            return _web.json_response({"ok": True, "result": await self._get_updates(params)})
        if method == "getFile":
            file_id = params.get("file_id")
            if file_id not in self.files:
                return _web.json_response({"ok": False, "error_code": 400,
                                           "description": "Bad Request: invalid file_id"}, status=400)
            return _web.json_response({"ok": True, "result": {
                "file_id": file_id, "file_unique_id": f"u{file_id}", "file_size": len(self.files[file_id]),
                "file_path": f"voice/{file_id}.oga"}})
        if method == "getMe":
            return _web.json_response({"ok": True, "result": self.BOT})
        if method in ("sendMessage", "editMessageText", "sendPhoto"):
            params["_ok"] = True
            chat = {"id": int(params["chat_id"]) if "chat_id" in params else 1, "type": "private"}
            result = {"message_id": self._new_message_id(), "date": 1796000000, "chat": chat, "from": self.BOT}
            if method == "sendPhoto":
                result.update(caption=params.get("caption", ""), photo=[
                    {"file_id": f"photo{result['message_id']}", "file_unique_id": f"p{result['message_id']}",
                     "width": 1080, "height": 1920, "file_size": len(params.get("photo", b""))}])
            else:
                result["text"] = params.get("text", "")
            return _web.json_response({"ok": True, "result": result})
        return _web.json_response({"ok": True, "result": True})

    async def _file(self, request):
        """The file server: GET /file/bot<token>/<file_path>, as getFile's file_path says."""
        if request.match_info["token"] != self.TOKEN:
            return _web.Response(status=404, text="Not Found")
        self.calls.append(("download", {"path": request.match_info["path"]}))
        self.call_times.append(_asyncio.get_running_loop().time())
        file_id = request.match_info["path"].removeprefix("voice/").removesuffix(".oga")
        if file_id not in self.files:
            return _web.Response(status=404, text="Not Found")
        return _web.Response(body=self.files[file_id], content_type="audio/ogg")

    def voice(self, chat_id: int, file_id: str, audio: bytes, seconds: int, kind: str = "voice") -> dict:
        """An update with a voice note (or "audio", "video_note") whose content the file server holds."""
        self.files[file_id] = audio
        media = {"file_id": file_id, "file_unique_id": f"u{file_id}", "duration": seconds, "file_size": len(audio)}
        if kind == "voice":
            media["mime_type"] = "audio/ogg"
        elif kind == "audio":
            media.update(mime_type="audio/mpeg", file_name="pregacao.mp3")
        else:
            media["length"] = 240
        return self.message(chat_id, **{kind: media})

    async def _get_updates(self, params) -> list[dict]:
        offset = int(params.get("offset") or 0)
        timeout = min(float(params.get("timeout") or 0), 0.3)
        pending = [u for u in self._updates if u["update_id"] >= offset]
        if not pending and timeout:
            self._arrived.clear()
            try:
                await _asyncio.wait_for(self._arrived.wait(), timeout)
            except TimeoutError:
                pass
            pending = [u for u in self._updates if u["update_id"] >= offset]
        self._updates = pending
        return pending
