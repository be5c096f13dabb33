"""A loopback OpenAI-compatible speech-to-text server: POST /v1/audio/transcriptions (multipart)."""

from __future__ import annotations

from aiohttp import web as _web

from tests.fakes.loopback import LoopbackPeer


class FakeTranscriptionServer(LoopbackPeer):
    """Checks the multipart fields as OpenAI documents them and answers ``{"text": ...}``; each request
    takes the next scripted behaviour ({"text": ...} or {"status": 429, "body": {...}}), the last repeats."""

    KEY = "sk-transcription-test-key-0123456789"

    def __init__(self, require_key: bool = True):
        self.require_key = require_key
        self.requests: list[dict] = []
        self.script: list[dict] = [{"text": "Olá."}]

    def answer(self, *behaviours: dict) -> None:
        self.script = list(behaviours)

    def routes(self, app: _web.Application) -> None:
        app.router.add_post("/v1/audio/transcriptions", self._transcribe)
        app.router.add_get("/v1/models", self._models)

    def _authorized(self, request) -> bool:
        return not self.require_key or request.headers.get("Authorization") == f"Bearer {self.KEY}"

    async def _models(self, request):
        if not self._authorized(request):
            return self._unauthorized()
        return _web.json_response({"object": "list", "data": [{"id": "whisper-1", "object": "model"}]})

    @staticmethod
    def _unauthorized():
        return _web.json_response({"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                                             "code": "invalid_api_key"}}, status=401)

    async def _transcribe(self, request):
        if not self._authorized(request):
            return self._unauthorized()
        if not request.content_type.startswith("multipart/form-data"):
            return _web.json_response({"error": {"message": "expected multipart/form-data"}}, status=400)
        fields, file = {}, None
        async for part in await request.multipart():
            if part.name == "file":
                file = {"filename": part.filename, "content_type": part.headers.get("Content-Type"),
                        "data": await part.read()}
            else:
                fields[part.name] = await part.text()
        missing = [name for name in ("model",) if not fields.get(name)] + ([] if file else ["file"])
        if missing:
            return _web.json_response({"error": {"message": f"missing: {', '.join(missing)}",
                                                 "type": "invalid_request_error"}}, status=400)
        self.requests.append({"fields": fields, "file": file})
        behaviour = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        if "status" in behaviour:
            return _web.json_response(behaviour.get("body", {"error": {"message": "Server error"}}),
                                      status=behaviour["status"])
        return _web.json_response({"text": behaviour["text"]})
