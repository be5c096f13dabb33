"""The aiohttp server: health, readiness and metrics; each channel mounts its own webhook handler."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import Protocol

from aiohttp import web

from bot.metrics import CONTENT_TYPE, Metrics
from bot.store.outage import StorageUnavailable

log = logging.getLogger("pastor.server")

MAX_BODY = 3 * 1024 * 1024
READY_SECONDS = 1.0  # /readyz answers within this, whatever the database does
RETRY_AFTER = "5"


class WebhookHandler(Protocol):
    def register(self, app: web.Application) -> None:
        """Add the channel's routes, with its own authentication."""


def build_server(ready: Callable[[], dict[str, bool | str]], handlers: Iterable[WebhookHandler] = (),
                 metrics: Metrics | None = None) -> web.Application:
    """Routes: /healthz, /readyz, /metrics, and whatever the given webhook handlers register."""
    @web.middleware
    async def database_away(request: web.Request, handler) -> web.StreamResponse:
        """A webhook that cannot be stored gets a fast 503: the platform delivers it again (nothing lost)."""
        try:
            return await handler(request)
        except StorageUnavailable:
            if metrics is not None:
                metrics.storage_unavailable.labels("webhook").inc()
            log.warning("entrega em %s recusada com 503: banco de dados indisponível", request.path)
            return web.json_response({"error": "storage unavailable"}, status=503,
                                     headers={"Retry-After": RETRY_AFTER})

    app = web.Application(client_max_size=MAX_BODY, middlewares=[database_away])

    if metrics is not None:
        async def metrics_endpoint(_request: web.Request) -> web.Response:
            body = await asyncio.to_thread(metrics.render)  # the outbox gauges read the database
            return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE})

        app.router.add_get("/metrics", metrics_endpoint)

    async def healthz(_request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    async def readyz(_request: web.Request) -> web.Response:
        try:  # in a thread, bounded: a database that hangs makes /readyz say so, not hang with it
            checks = await asyncio.wait_for(asyncio.to_thread(ready), READY_SECONDS)
        except TimeoutError:
            checks = {"database": f"sem resposta em {READY_SECONDS:g} s"}
        ok = all(value is True for value in checks.values())
        return web.json_response({"ready": ok, "checks": checks}, status=200 if ok else 503)

    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    for handler in handlers:
        handler.register(app)
    return app
