"""The aiohttp server: webhooks, health and readiness (and, later, metrics)."""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

log = logging.getLogger("pastor.http")

MAX_BODY = 3 * 1024 * 1024
TELEGRAM_SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def build_server(ready: Callable[[], dict[str, bool]],
                 telegram_feed: Callable[[dict], Awaitable[None]] | None = None,
                 telegram_secret: str = "") -> web.Application:
    """Routes: /healthz (alive), /readyz (index loaded, database writable), /telegram/webhook when given."""
    app = web.Application(client_max_size=MAX_BODY)

    async def healthz(_request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def readyz(_request: web.Request) -> web.Response:
        checks = ready()
        return web.json_response({"ready": all(checks.values()), "checks": checks},
                                 status=200 if all(checks.values()) else 503)

    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)

    if telegram_feed is not None:
        async def telegram_webhook(request: web.Request) -> web.Response:
            given = request.headers.get(TELEGRAM_SECRET_HEADER, "")
            if not telegram_secret or not hmac.compare_digest(given.encode(), telegram_secret.encode()):
                log.warning("webhook do Telegram com segredo ausente ou errado: recusado")
                return web.json_response({"error": "forbidden"}, status=403)
            try:
                data = json.loads(await request.read())
            except (ValueError, UnicodeDecodeError):
                return web.json_response({"error": "invalid json"}, status=400)
            if not isinstance(data, dict) or "update_id" not in data:
                return web.json_response({"error": "not an update"}, status=400)
            await telegram_feed(data)
            return web.json_response({"ok": True})

        app.router.add_post("/telegram/webhook", telegram_webhook)
    return app
