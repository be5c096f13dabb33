"""`python -m bot`: the HTTP server plus every channel whose settings are present."""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import sys
from functools import partial

from aiohttp import web

from bot.app import App, build_app
from bot.care.team import Team
from bot.channels.inline import InlineVerses
from bot.channels.malformed import Malformed
from bot.channels.telegram import TelegramChannel, TelegramWebhook
from bot.channels.whatsapp import GraphClient, WhatsAppChannel, WhatsAppWebhook
from bot.commands import ERASE
from bot.conversation import Conversation
from bot.devotional.commands import Devotional
from bot.devotional.round import DailyRound
from bot.llm.base import LLMError
from bot.llm.factory import LLMConfigError
from bot.metrics import Metrics
from bot.server import build_server
from bot.status import status_text
from bot.store.database import StorageError, StorageUnavailable
from bot.store.leases import Leader
from bot.store.memory import Memory
from bot.voice.transcription import TranscriberConfigError
from corpus.editions import edition_for
from retrieval.index.config import IndexConfig
from retrieval.knowledge.people import CREDIT as PEOPLE_CREDIT
from retrieval.startup import stage
from retrieval.understand.topics import ATTRIBUTION

log = logging.getLogger("pastor")

RETENTION_EVERY = 3600.0


def translation(app: App) -> str:
    """The attribution the translation's licence asks for wherever its text is shown."""
    return edition_for(app.settings.corpus_path, app.retriever.bible.name).attribution


def attribution(app: App) -> str:
    people = app.retriever.knowledge.people
    return translation(app) + (f"; {ATTRIBUTION}" if app.retriever.topics else "") + (
        f"; {PEOPLE_CREDIT}" if people is not None else "")


def conversation(app: App) -> Conversation:
    async def status(full: bool) -> str:
        return await status_text(app, full)

    app.metrics.watch_outbox(app.memory.inbox)
    devotional = Devotional(app.words, app.memory, app.retriever.bible, translation(app)) if app.words else None
    return Conversation(app.pastor, app.memory, status, attribution(app), app.settings.admins, metrics=app.metrics,
                        voice=app.voice, devotional=devotional, replica=app.replica,
                        lease_seconds=app.settings.chat_lease_seconds, care_team=care_team(app.settings),
                        supervisor=app.supervisor)


def care_team(settings) -> Team:
    """CARE_TEAM_*: the team's chats on the channels that are configured (a chat on a channel that is not
    could never be reached: it is left out, with a warning)."""
    telegram = settings.care_team_chat_id.strip()
    numbers = frozenset("".join(c for c in part if c.isdigit()) for part in settings.care_team_whatsapp.split(","))
    numbers -= {""}
    if telegram and not settings.telegram_bot_token.get_secret_value():
        log.warning("CARE_TEAM_CHAT_ID ignorado: o Telegram não está configurado (TELEGRAM_BOT_TOKEN)")
        telegram = ""
    if numbers and not settings.whatsapp_access_token.get_secret_value():
        log.warning("CARE_TEAM_WHATSAPP ignorado: o WhatsApp não está configurado (WHATSAPP_ACCESS_TOKEN)")
        numbers = frozenset()
    return Team(telegram, numbers, settings.care_team_alert_imminent, settings.crisis_country)


def describe_team(team: Team) -> str:
    if not team.configured:
        return "equipe pastoral: nenhuma (quem pede uma pessoa ouve que não há ninguém conectado)"
    where = (["grupo do Telegram"] if team.telegram_chat else []) + \
        ([f"{len(team.whatsapp)} número(s) do WhatsApp"] if team.whatsapp else [])
    return f"equipe pastoral: {' e '.join(where)}" + (", alerta imediato em risco iminente" if team.alert_imminent
                                                       else "")


def telegram_channel(app: App, core: Conversation) -> TelegramChannel:
    settings = app.settings
    return TelegramChannel(settings.telegram_bot_token.get_secret_value(), core, settings.telegram_api_base_url,
                           file_base_url=settings.telegram_file_base_url,
                           inline=InlineVerses(app.retriever, translation(app)))


def whatsapp_channel(app: App, core: Conversation) -> tuple[WhatsAppChannel, WhatsAppWebhook]:
    settings = app.settings
    missing = [name for name, value in (("WHATSAPP_APP_SECRET", settings.whatsapp_app_secret.get_secret_value()),
                                        ("WHATSAPP_VERIFY_TOKEN", settings.whatsapp_verify_token.get_secret_value()),
                                        ("WHATSAPP_PHONE_NUMBER_ID", settings.whatsapp_phone_number_id)) if not value]
    if missing:
        raise SystemExit(f"WHATSAPP_ACCESS_TOKEN exige também: {', '.join(missing)}")
    graph = GraphClient(app.http, settings.whatsapp_api_base_url, settings.whatsapp_phone_number_id,
                        settings.whatsapp_access_token.get_secret_value())
    channel = WhatsAppChannel(graph, core, daily_template=settings.whatsapp_daily_template)
    return channel, WhatsAppWebhook(channel, settings.whatsapp_verify_token.get_secret_value(),
                                    settings.whatsapp_app_secret.get_secret_value())


def retention(memory, days: int):
    """One purge of the conversations older than ``days`` (0: kept until /apagar, only old inbox rows go); a store
    call, for the database's threads."""
    def purge() -> int:
        removed = memory.purge_older_than(days * 86400)
        if removed:
            log.info("retenção: %d registros antigos apagados (conversas: %s)", removed,
                     f"{days} dias" if days else f"até /{ERASE.name}")
        return removed

    return purge


async def warm_up(app: App) -> None:
    """Load the local model before the first person writes; the outcome goes to /status and the log."""
    llm = app.pastor.llm
    if llm is None:
        return
    try:
        seconds = await llm.warm_up()
    except LLMError as error:
        app.warm_up = {"error": f"{error.kind}" + (f" (HTTP {error.status})" if error.status else "")}
        log.error("o modelo %s não pôde ser carregado na memória: %s", llm.model, error)
        return
    if seconds is not None:
        app.warm_up = {"seconds": seconds}
        log.info("modelo %s carregado na memória em %.1f s (OLLAMA_KEEP_ALIVE=%s)", llm.model, seconds,
                 app.settings.ollama_keep_alive)


async def serve(app: App, stop: asyncio.Event) -> list[str]:
    """Start what is configured, run until ``stop`` is set, then shut everything down; returns what ran."""
    settings = app.settings
    started: list[str] = []
    core = conversation(app)
    telegram = telegram_channel(app, core) if settings.telegram_bot_token.get_secret_value() else None
    webhook = bool(telegram and settings.telegram_webhook_url)
    if webhook and not settings.telegram_webhook_secret.get_secret_value():
        raise SystemExit("TELEGRAM_WEBHOOK_URL exige TELEGRAM_WEBHOOK_SECRET")
    handlers = [TelegramWebhook(telegram, settings.telegram_webhook_secret.get_secret_value())] if webhook else []
    whatsapp = None
    if settings.whatsapp_access_token.get_secret_value():
        whatsapp, handler = whatsapp_channel(app, core)
        handlers.append(handler)
    warming = asyncio.create_task(warm_up(app))  # people may write meanwhile: their answer waits for the load
    core_started = asyncio.Event()

    def ready() -> dict[str, bool | str]:
        """/readyz: the app's checks, and the conversations' workers running (the channels start first)."""
        return {**app.ready(), "conversations": core_started.is_set()}

    runner = web.AppRunner(build_server(ready, handlers, app.metrics), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, settings.http_host, settings.http_port)
    await site.start()
    started.append(f"servidor HTTP em {settings.http_host}:{settings.http_port} (/healthz, /readyz, /metrics"
                   + (", /telegram/webhook" if webhook else "") + (", /whatsapp/webhook" if whatsapp else "") + ")")
    poller = None
    try:
        if forgotten := await app.memory.db.call(app.memory.leases.forget_previous_runs, core.replica):
            log.info("%d concessão(ões) de uma execução anterior desta máquina liberada(s)", forgotten)
    except StorageUnavailable as error:  # they expire by themselves
        log.warning("concessões de execuções anteriores não liberadas: %s", error)
    try:
        if telegram:
            await telegram.start(settings.telegram_webhook_url, settings.telegram_webhook_secret.get_secret_value(),
                                 poll=False)
            if not webhook:  # one replica polls (two pollers of one bot conflict); another takes over if it dies
                poller = Leader(app.memory.leases, "telegram-poller", core.replica, telegram.start_polling,
                                telegram.stop_intake, supervisor=app.supervisor)
                await poller.start()
                app.supervisor.periodic("long-polling", lambda: telegram.keep_polling(poller.leading), 5.0,
                                        now=False)
            started.append("Telegram por webhook" if webhook else (
                "Telegram por long polling" if poller.leading else
                "Telegram: outra réplica faz o long polling; esta assume se aquela cair"))
        if whatsapp:
            started.append("WhatsApp (Cloud API, webhook em /whatsapp/webhook)")
        resumed = await core.start()
        core_started.set()
        if resumed:
            started.append(f"retomadas {resumed} conversa(s) com mensagens ainda não entregues")
        if app.words is not None:
            app.daily_round = DailyRound(app.memory.subscriptions, app.words, core.accept,
                                         lambda: {name for name, channel in core.channels.items() if channel.scheduled})
            app.daily_round.start(app.supervisor)
            started.append(f"versículo do dia: rodada a cada minuto ({settings.timezone})")
        started.append(describe_team(core.care.team))
        started.append(f"retenção de conversas: {settings.retention_days} dias" if settings.retention_days
                       else f"retenção de conversas: até /{ERASE.name}")
        app.supervisor.periodic("retencao", partial(app.memory.db.call, retention(app.memory, settings.retention_days)),
                                RETENTION_EVERY)
        print("Pastor Online iniciado:\n" + "\n".join(f"  - {line}" for line in started), file=sys.stderr,
              flush=True)
        await stop.wait()
    finally:
        warming.cancel()
        await app.supervisor.stop()
        if poller is not None:
            await poller.stop()
        if telegram:
            await telegram.stop_intake()
        await runner.cleanup()  # no more webhooks: what arrived is stored
        await core.stop(settings.shutdown_grace_seconds)
        if telegram:
            await telegram.stop()
        await app.close()
    return started


def run() -> int:
    from bot.logs import configure, settings_secrets
    from bot.settings import Settings

    settings = Settings()
    configure(settings.log_level, settings.log_json, settings_secrets(settings))

    async def main() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        app = await prepare(settings)
        if app is None:
            return 1
        # the index, the models and the Bible live as long as the process: out of the collector's sight, a full
        # collection no longer walks millions of their objects inside the event loop (a 100-ms /healthz)
        gc.freeze()
        if not settings.telegram_bot_token.get_secret_value():
            log.warning("nenhum canal de conversa configurado (TELEGRAM_BOT_TOKEN vazio): só o servidor HTTP")
        await serve(app, stop)
        return 0

    return asyncio.run(main())


async def prepare(settings) -> App | None:
    """Open (or build) the index with the HTTP port already answering: /healthz is alive and /readyz says
    "building" meanwhile, so an orchestrator neither kills the process nor sends it traffic."""
    state = {"index": "abrindo"}

    def on_build() -> None:
        state["index"] = "construindo"

    memory = None
    try:
        with stage("banco de dados conectado"):
            memory = await asyncio.to_thread(Memory.connect, settings.database_url.get_secret_value(),
                                             settings.data_dir)
    except StorageError:
        pass  # reported below, with the reason, once the port answers
    runner = await warming_server(settings, state, early_intake(settings, memory))
    try:
        if memory is None:  # the same failure again, now reported as the database's
            memory = Memory.connect(settings.database_url.get_secret_value(), settings.data_dir)
        return await asyncio.to_thread(build_app, settings, on_build=on_build, memory=memory)
    except (LLMConfigError, TranscriberConfigError) as error:
        print(f"erro: {error}", file=sys.stderr, flush=True)
        return None
    except StorageError as error:  # the database, not the index: nothing to rebuild
        log.error("o banco de dados não pôde ser aberto: %s", error)
        print(f"banco de dados indisponível: {error}\nConfira DATABASE_URL e se o servidor está no ar; o índice "
              "não precisa ser reconstruído.", file=sys.stderr, flush=True)
        return None
    except Exception as error:  # the true reason, once, and what to do; never a traceback loop
        log.error("o índice não pôde ser aberto nem construído: %s: %s", type(error).__name__, error)
        index_dir = IndexConfig.from_settings(settings).index_dir
        print(f"índice indisponível: {error}\nPara reconstruí-lo do zero: apague {index_dir} e rode "
              "python -m retrieval build", file=sys.stderr, flush=True)
        return None
    finally:
        await runner.cleanup()


def early_intake(settings, memory) -> list:
    """The WhatsApp webhook while the index loads: deliveries go into the inbox (answered once ready) instead
    of a 503 that Meta retries for hours. Telegram needs none: polling starts when ready, webhooks retry."""
    if memory is None or not settings.whatsapp_access_token.get_secret_value():
        return []
    return [WhatsAppWebhook(None, settings.whatsapp_verify_token.get_secret_value(),
                            settings.whatsapp_app_secret.get_secret_value(),
                            accept=partial(memory.db.call, memory.inbox.add),
                            malformed=Malformed("whatsapp", Metrics(), logging.getLogger("pastor.whatsapp")))]


async def warming_server(settings, state: dict, handlers=()) -> web.AppRunner:
    """/healthz 200 and /readyz 503 with the index state; the WhatsApp webhook stores what arrives, any other
    route gets 503 (the platforms deliver again later)."""
    async def not_yet(_request):
        return web.json_response({"ready": False, "checks": dict(state)}, status=503)

    app = build_server(lambda: dict(state), handlers)  # /readyz: 503 while the state holds no True
    app.router.add_route("*", "/{tail:.*}", not_yet)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, settings.http_host, settings.http_port).start()
    return runner
