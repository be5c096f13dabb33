"""A loopback LLM server: Ollama, OpenAI and Anthropic streaming protocols."""

from __future__ import annotations

import asyncio as _asyncio
import json as _json
import re as _re

from aiohttp import web as _web

from tests.fakes.loopback import LoopbackPeer

_MESSAGE = _re.compile(r"<mensagem>\s*(.*?)\s*</mensagem>", _re.S)

# An answer breaking every promise about generated text (for the channels' tests): a misquoted verse of the
# made-up Bible, an invented phone number and e-mail address, and a treatment directive.
FORGING = {"chunks": ["Como está escrito em Salmos 56:1: “Quem confia nunca mais vai sofrer.”\n\n",
                      "Ligue para o apoio no 0800-123-4567 ou escreva para ajuda@falso.org. ",
                      "Suspenda o remédio e confie. Ele está contigo."]}


async def _probe(request):
    """GET /api/tags (Ollama), /v1/models (OpenAI, Anthropic): what /status probes."""
    return _web.json_response({"models": [{"name": "qwen2.5:1.5b"}], "data": [{"id": "m"}]})


class FakeLLMServer(LoopbackPeer):
    """One aiohttp server speaking Ollama (/api/chat), OpenAI (/v1/chat/completions) and
    Anthropic (/v1/messages) streaming protocols. Each request takes the next scripted
    behaviour (the last one repeats); every request is recorded."""

    def __init__(self):
        self.requests: list[dict] = []
        self.written: list[tuple[float, str]] = []  # (loop time, text) of each streamed chunk, for timelines
        self.script: list[dict] = [{"chunks": ["Olá."]}]
        self.load_seconds = 0.0  # how long Ollama takes to load the model into memory
        self.loaded: set[str] = set()  # models in memory (GET /api/ps)
        self._loading = None  # like Ollama, a chat waits while its model loads

    def answer(self, *behaviours: dict) -> None:
        """Behaviours: {"chunks": [...]} streams text; add "status"/"headers"/"body" for an HTTP error,
        "error_after": n for an error event after n chunks, "truncate": True to end without the final
        event, "delay": s to wait before answering, "pace": s to wait before each chunk (a slow CPU model),
        "echo": True to answer "Sobre “<the person's message>”: paz."."""
        self.script = list(behaviours)

    def _next(self) -> dict:
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    def routes(self, app: _web.Application) -> None:
        app.router.add_post("/api/chat", self._ollama)
        app.router.add_post("/api/generate", self._ollama_load)
        app.router.add_get("/api/ps", self._ollama_ps)
        app.router.add_post("/v1/chat/completions", self._openai)
        app.router.add_post("/v1/messages", self._anthropic)
        for path in ("/api/tags", "/v1/models"):
            app.router.add_get(path, _probe)

    async def _record(self, request, protocol: str) -> dict:
        body = await request.json()
        self.requests.append({"protocol": protocol, "path": request.path, "headers": dict(request.headers),
                              "json": body})
        behaviour = self._next()
        if behaviour.get("echo"):  # answer about the person's own words: proves which message was answered
            said = _MESSAGE.search(str((body.get("messages") or [{}])[-1].get("content", "")))
            behaviour = {**behaviour, "chunks": [f"Sobre “{said.group(1).strip() if said else ''}”: paz."]}
        if behaviour.get("delay"):
            await _asyncio.sleep(behaviour["delay"])
        return behaviour

    @staticmethod
    def _error(behaviour: dict, default_body: dict):
        return _web.json_response(behaviour.get("body", default_body), status=behaviour["status"],
                                  headers=behaviour.get("headers", {}))

    async def _ollama_load(self, request):
        """POST /api/generate without a prompt: Ollama loads the model and answers once."""
        body = await request.json()
        self.requests.append({"protocol": "ollama", "path": request.path, "headers": dict(request.headers),
                              "json": body})
        if body.get("model") != "qwen2.5:1.5b":
            return _web.json_response({"error": f"model '{body.get('model')}' not found"}, status=404)
        if body["model"] not in self.loaded:
            self._loading = _asyncio.get_running_loop().create_future()
            await _asyncio.sleep(self.load_seconds)
            self.loaded.add(body["model"])
            self._loading.set_result(None)
        return _web.json_response({"model": body["model"], "created_at": "2026-11-30T00:00:00Z", "response": "",
                                   "done": True, "done_reason": "load"})

    async def _ollama_ps(self, request):
        return _web.json_response({"models": [
            {"name": name, "model": name, "size": 1_900_000_000, "digest": "d" * 64,
             "details": {"family": "qwen2", "parameter_size": "1.5B", "quantization_level": "Q4_K_M"},
             "expires_at": "2026-12-01T00:00:00Z", "size_vram": 0} for name in sorted(self.loaded)]})

    async def _ollama(self, request):
        if self._loading is not None:
            await self._loading
        b = await self._record(request, "ollama")
        self.loaded.add(self.requests[-1]["json"].get("model", ""))
        if "status" in b:
            return self._error(b, {"error": "model overloaded"})
        response = _web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        for n, chunk in enumerate(b["chunks"]):
            if b.get("pace"):
                await _asyncio.sleep(b["pace"])
            if b.get("error_after") == n:
                await response.write(_json.dumps({"error": "out of memory"}).encode() + b"\n")
                return response
            line = {"model": request.app and "m", "created_at": "2026-11-30T00:00:00Z",
                    "message": {"role": "assistant", "content": chunk}, "done": False}
            await response.write(_json.dumps(line).encode() + b"\n")
            self.written.append((_asyncio.get_running_loop().time(), chunk))
        if not b.get("truncate"):
            await response.write(_json.dumps({"model": "m", "message": {"role": "assistant", "content": ""},
                                              "done": True, "done_reason": "stop",
                                              "prompt_eval_count": b.get("usage", (42, 7))[0],
                                              "eval_count": b.get("usage", (42, 7))[1]}).encode() + b"\n")
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
