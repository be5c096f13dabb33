"""Serving a fake peer on a free loopback port."""

from __future__ import annotations

from aiohttp import web as _web


async def start_loopback(app: _web.Application) -> tuple[_web.AppRunner, str]:
    """Serve an aiohttp Application on a free loopback port; returns its runner and base URL."""
    runner = _web.AppRunner(app, shutdown_timeout=1.0)  # a peer left hanging must not hold the teardown
    await runner.setup()
    site = _web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"


class LoopbackPeer:
    """A fake network peer: subclasses add their routes; ``async with`` serves it on a free loopback port."""

    url = ""

    def routes(self, app: _web.Application) -> None:
        raise NotImplementedError

    async def start(self) -> str:
        app = _web.Application()
        self.routes(app)
        self._runner, self.url = await start_loopback(app)
        return self.url

    async def stop(self) -> None:
        await self._runner.cleanup()

    async def __aenter__(self):
        await self.start()
        return self

    async def __aexit__(self, *_exc) -> None:
        await self.stop()
