"""A loopback WhatsApp Graph API and webhook bodies as the Cloud API posts them."""

from __future__ import annotations

from aiohttp import web as _web

from tests.fakes.loopback import LoopbackPeer


class FakeGraphAPI(LoopbackPeer):
    """A loopback WhatsApp Graph API: POST /{phone_number_id}/messages with its real JSON shapes."""

    PHONE_ID = "109876543210"
    TOKEN = "EAAG-test-access-token-0123456789"

    def __init__(self):
        self.posts: list[dict] = []
        self.failures: list[tuple[int, dict, dict]] = []  # (status, body, headers) served before successes

    def routes(self, app: _web.Application) -> None:
        app.router.add_post("/{phone_id}/messages", self._messages)

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
