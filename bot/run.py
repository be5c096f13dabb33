"""`python -m bot`: the HTTP server plus every channel whose settings are present."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

from aiohttp import web

from bot.app import App, build_app
from bot.channels.telegram import TelegramChannel
from bot.channels.whatsapp import GraphClient, WhatsAppChannel
from bot.server import build_server
from bot.status import status_text
from corpus.editions import edition_for
from retrieval.topics import ATTRIBUTION

log = logging.getLogger("pastor")


def telegram_channel(app: App) -> TelegramChannel:
    settings = app.settings
    edition = edition_for(settings.corpus_path, app.retriever.bible.name)
    attribution = edition.attribution + (f"; {ATTRIBUTION}" if app.retriever.topics else "")
    return TelegramChannel(settings.telegram_bot_token.get_secret_value(), app.pastor, app.memory,
                           lambda: status_text(app), settings.telegram_api_base_url, attribution)


def whatsapp_channel(app: App) -> WhatsAppChannel:
    settings = app.settings
    missing = [name for name, value in (("WHATSAPP_APP_SECRET", settings.whatsapp_app_secret.get_secret_value()),
                                        ("WHATSAPP_VERIFY_TOKEN", settings.whatsapp_verify_token.get_secret_value()),
                                        ("WHATSAPP_PHONE_NUMBER_ID", settings.whatsapp_phone_number_id)) if not value]
    if missing:
        raise SystemExit(f"WHATSAPP_ACCESS_TOKEN exige também: {', '.join(missing)}")
    graph = GraphClient(app.http, settings.whatsapp_api_base_url, settings.whatsapp_phone_number_id,
                        settings.whatsapp_access_token.get_secret_value())
    return WhatsAppChannel(graph, app.pastor, app.memory, lambda: status_text(app))


async def retention_job(memory, days: int, stop: asyncio.Event, every: float = 3600.0) -> None:
    """Purge conversations older than ``days``, now and then every ``every`` seconds, until ``stop``."""
    while not stop.is_set():
        if days:
            removed = memory.purge_older_than(days * 86400)
            if removed:
                log.info("retenção: %d registros com mais de %d dias apagados", removed, days)
        try:
            await asyncio.wait_for(stop.wait(), timeout=every)
        except asyncio.TimeoutError:
            pass


async def serve(app: App, stop: asyncio.Event) -> list[str]:
    """Start what is configured, run until ``stop`` is set, then shut everything down; returns what ran."""
    settings = app.settings
    started: list[str] = []
    telegram = None
    if settings.telegram_bot_token.get_secret_value():
        telegram = telegram_channel(app)
    webhook = bool(telegram and settings.telegram_webhook_url)
    whatsapp = whatsapp_channel(app) if settings.whatsapp_access_token.get_secret_value() else None
    server = build_server(app.ready, telegram.feed_webhook if webhook else None,
                          settings.telegram_webhook_secret.get_secret_value(),
                          whatsapp.accept if whatsapp else None, settings.whatsapp_verify_token.get_secret_value(),
                          settings.whatsapp_app_secret.get_secret_value(), app.metrics)
    runner = web.AppRunner(server, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, settings.http_host, settings.http_port)
    await site.start()
    started.append(f"servidor HTTP em {settings.http_host}:{settings.http_port} (/healthz, /readyz, /metrics"
                   + (", /telegram/webhook" if webhook else "") + (", /whatsapp/webhook" if whatsapp else "") + ")")
    try:
        if telegram:
            if webhook and not settings.telegram_webhook_secret.get_secret_value():
                raise SystemExit("TELEGRAM_WEBHOOK_URL exige TELEGRAM_WEBHOOK_SECRET")
            await telegram.start(settings.telegram_webhook_url, settings.telegram_webhook_secret.get_secret_value())
            started.append("Telegram por webhook" if webhook else "Telegram por long polling")
        if whatsapp:
            started.append("WhatsApp (Cloud API, webhook em /whatsapp/webhook)")
        started.append(f"retenção de conversas: {settings.retention_days} dias" if settings.retention_days
                       else "retenção de conversas: até /apagar")
        print("Pastor Online iniciado:\n" + "\n".join(f"  - {line}" for line in started), file=sys.stderr,
              flush=True)
        await retention_job(app.memory, settings.retention_days, stop)
    finally:
        if telegram:
            await telegram.stop()
        await runner.cleanup()
        if whatsapp:
            await whatsapp.drain()
        await app.close()
    return started


def run() -> int:
    from bot.logs import configure, settings_secrets
    from bot.settings import Settings

    settings = Settings()
    configure(settings.log_level, settings.log_json, settings_secrets(settings))
    app = build_app(settings)
    if not app.settings.telegram_bot_token.get_secret_value():
        log.warning("nenhum canal de conversa configurado (TELEGRAM_BOT_TOKEN vazio): só o servidor HTTP")

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await serve(app, stop)

    asyncio.run(main())
    return 0
