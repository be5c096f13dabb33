"""A loopback WhatsApp Graph API and webhook bodies as the Cloud API posts them."""

from __future__ import annotations

import hashlib as _hashlib
import hmac as _hmac
import json as _json
import time as _time

from aiohttp import web as _web

from tests.fakes.loopback import LoopbackPeer


class FakeGraphAPI(LoopbackPeer):
    """A loopback WhatsApp Graph API: POST /{phone_number_id}/messages with its real JSON shapes."""

    PHONE_ID = "109876543210"
    TOKEN = "EAAG-test-access-token-0123456789"

    def __init__(self):
        self.posts: list[dict] = []
        self.failures: list[tuple[int, dict, dict]] = []  # (status, body, headers) served before successes
        self.media: dict[str, tuple[bytes, str]] = {}  # media id -> (content, mime type)
        self.downloads: list[str] = []  # media ids downloaded

    def routes(self, app: _web.Application) -> None:
        app.router.add_post("/{phone_id}/messages", self._messages)
        app.router.add_post("/{phone_id}/media", self._upload)
        app.router.add_get("/{media_id}", self._media_url)
        app.router.add_get("/media/{media_id}/download", self._download)

    def sent(self, kind: str | None = None) -> list[dict]:
        """Messages delivered (not read receipts), optionally of one type ("text", "interactive")."""
        return [p for p in self.posts if p.get("to") and (kind is None or p.get("type") == kind)
                and p.get("_ok")]

    def _authorized(self, request) -> bool:
        return request.headers.get("Authorization") == f"Bearer {self.TOKEN}"

    async def _media_url(self, request):
        """GET /<media-id>: the short-lived URL of the media, as the Cloud API answers it."""
        media_id = request.match_info["media_id"]
        if not self._authorized(request):
            return _web.json_response({"error": {"message": "Invalid OAuth access token.", "code": 190}}, status=401)
        if media_id not in self.media:
            return _web.json_response({"error": {"message": "Unsupported get request.", "code": 100}}, status=400)
        data, mime = self.media[media_id]
        return _web.json_response({"messaging_product": "whatsapp", "id": media_id, "mime_type": mime,
                                   "sha256": "0" * 64, "file_size": len(data),
                                   "url": f"{self.url}/media/{media_id}/download"})

    async def _download(self, request):
        """The media itself: only with the access token, like lookaside.fbsbx.com."""
        if not self._authorized(request):
            return _web.Response(status=401, text="Unauthorized")
        media_id = request.match_info["media_id"]
        self.downloads.append(media_id)
        data, mime = self.media[media_id]
        return _web.Response(body=data, content_type=mime.split(";")[0])

    async def _upload(self, request):
        """POST /<phone-number-id>/media, multipart (file, type, messaging_product): the new media id."""
        assert request.match_info["phone_id"] == self.PHONE_ID
        if not self._authorized(request):
            return _web.json_response({"error": {"message": "Invalid OAuth access token.", "code": 190}}, status=401)
        form = await request.post()
        upload = form.get("file")
        if form.get("messaging_product") != "whatsapp" or not isinstance(upload, _web.FileField):
            return _web.json_response({"error": {"message": "(#100) The parameter file is required.",
                                                 "code": 100}}, status=400)
        media_id = f"upload{len(self.media) + 1}"
        self.media[media_id] = (upload.file.read(), str(form.get("type") or upload.content_type))
        return _web.json_response({"id": media_id})

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


APP_SECRET = "app-secret-for-tests"
VERIFY_TOKEN = "verify-token-for-tests"


def signed(payload: dict, secret: str = APP_SECRET) -> tuple[bytes, dict]:
    """A webhook body and its headers, signed as Meta signs it (X-Hub-Signature-256)."""
    body = _json.dumps(payload).encode()
    signature = "sha256=" + _hmac.new(secret.encode(), body, _hashlib.sha256).hexdigest()
    return body, {"X-Hub-Signature-256": signature, "Content-Type": "application/json"}


def whatsapp_delivery(sender: str, message_id: str, text: str | None = None, **message) -> dict:
    """A webhook body as the Cloud API posts it."""
    content = {"type": "text", "text": {"body": text}} if text is not None else message
    return {"object": "whatsapp_business_account", "entry": [{"id": "WABA", "changes": [{"field": "messages", "value": {
        "messaging_product": "whatsapp",
        "metadata": {"display_phone_number": "5511999990000", "phone_number_id": FakeGraphAPI.PHONE_ID},
        "contacts": [{"profile": {"name": "Ana"}, "wa_id": sender}],
        "messages": [{"from": sender, "id": message_id, "timestamp": str(int(_time.time())), **content}]}}]}]}


def whatsapp_audio(sender: str, message_id: str, media_id: str, voice: bool = True) -> dict:
    """A webhook body with an audio message (a voice note when ``voice``)."""
    return whatsapp_delivery(sender, message_id, type="audio",
                             audio={"mime_type": "audio/ogg; codecs=opus", "sha256": "0" * 64, "id": media_id,
                                    "voice": voice})
