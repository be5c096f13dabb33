"""The aiohttp server: health, readiness and metrics; each channel mounts its own webhook handler."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from aiohttp import web

from bot.metrics import CONTENT_TYPE, Metrics

MAX_BODY = 3 * 1024 * 1024


class WebhookHandler(Protocol):
    def register(self, app: web.Application) -> None:
        """Add the channel's routes, with its own authentication."""


def build_server(ready: Callable[[], dict[str, bool | str]], handlers: Iterable[WebhookHandler] = (),
                 metrics: Metrics | None = None) -> web.Application:
    """Routes: /healthz, /readyz, /metrics, and whatever the given webhook handlers register."""
    app = web.Application(client_max_size=MAX_BODY)

    if metrics is not None:
        async def metrics_endpoint(_request: web.Request) -> web.Response:
            return web.Response(body=metrics.render(), headers={"Content-Type": CONTENT_TYPE})

        app.router.add_get("/metrics", metrics_endpoint)

    async def healthz(_request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def readyz(_request: web.Request) -> web.Response:
        checks = ready()
        ok = all(value is True for value in checks.values())
        return web.json_response({"ready": ok, "checks": checks}, status=200 if ok else 503)

    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    for handler in handlers:
        handler.register(app)
    return app
