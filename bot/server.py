"""The aiohttp server: webhooks, health and readiness (and, later, metrics)."""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from bot.channels.whatsapp import valid_signature
from bot.metrics import CONTENT_TYPE, Metrics

log = logging.getLogger("pastor.http")

MAX_BODY = 3 * 1024 * 1024
TELEGRAM_SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def build_server(ready: Callable[[], dict[str, bool]],
                 telegram_feed: Callable[[dict], Awaitable[None]] | None = None,
                 telegram_secret: str = "",
                 whatsapp_accept: Callable[[dict], int] | None = None,
                 whatsapp_verify_token: str = "", whatsapp_app_secret: str = "",
                 metrics: Metrics | None = None) -> web.Application:
    """Routes: /healthz, /readyz, /metrics, and the webhooks of the channels that are configured."""
    app = web.Application(client_max_size=MAX_BODY)

    if metrics is not None:
        async def metrics_endpoint(_request: web.Request) -> web.Response:
            return web.Response(body=metrics.render(), headers={"Content-Type": CONTENT_TYPE})

        app.router.add_get("/metrics", metrics_endpoint)

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

    if whatsapp_accept is not None:
        async def whatsapp_verify(request: web.Request) -> web.Response:
            query = request.query
            token = query.get("hub.verify_token", "")
            if query.get("hub.mode") == "subscribe" and whatsapp_verify_token and \
                    hmac.compare_digest(token.encode(), whatsapp_verify_token.encode()):
                return web.Response(text=query.get("hub.challenge", ""))
            return web.Response(status=403, text="forbidden")

        async def whatsapp_delivery(request: web.Request) -> web.Response:
            body = await request.read()  # the raw bytes: the signature covers them exactly
            if not valid_signature(body, request.headers.get("X-Hub-Signature-256", ""), whatsapp_app_secret):
                log.warning("entrega do WhatsApp com assinatura ausente ou errada: recusada")
                return web.json_response({"error": "forbidden"}, status=403)
            try:
                payload = json.loads(body)
            except (ValueError, UnicodeDecodeError):
                return web.json_response({"error": "invalid json"}, status=400)
            if not isinstance(payload, dict):
                return web.json_response({"error": "invalid payload"}, status=400)
            whatsapp_accept(payload)  # processed in the background; Meta gets its 200 at once
            return web.json_response({"ok": True})

        app.router.add_get("/whatsapp/webhook", whatsapp_verify)
        app.router.add_post("/whatsapp/webhook", whatsapp_delivery)
    return app
