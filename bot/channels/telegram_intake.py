"""Telegram updates in: long polling read one update at a time, and the webhook route."""

from __future__ import annotations

import asyncio
import hmac
import inspect
import logging
from datetime import timedelta
from typing import TYPE_CHECKING

from aiohttp import web
from telegram import Update
from telegram._utils.defaultvalue import DEFAULT_NONE, DefaultValue
from telegram.ext import ExtBot

from bot.channels.malformed import MalformedUpdate, describe, load_json
from bot.store.outage import StorageUnavailable

if TYPE_CHECKING:
    from bot.channels.telegram import TelegramChannel

log = logging.getLogger("pastor.telegram")

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
STORE_ATTEMPTS, STORE_WAIT = 5, 0.4  # a polled batch waits up to ~2 s for the database before it is refetched


class InboxBot(ExtBot):
    """An ExtBot that reads polled updates one at a time and hands them to the inbox before ``getUpdates`` returns."""

    # python-telegram-bot parses a batch whole: one update it cannot read (a voice note without ``duration``)
    # fails the batch, is logged with everyone's messages in it, and is fetched again forever. Here an unreadable
    # update goes to ``on_malformed`` and is skipped; an empty update with its id keeps the offset moving past it.

    def __init__(self, *args, on_updates=None, on_malformed=None, **kwargs):
        super().__init__(*args, **kwargs)
        self._on_updates, self._on_malformed = on_updates, on_malformed

    async def get_updates(self, offset=None, limit=None, timeout=None, allowed_updates=None, *,
                          read_timeout=DEFAULT_NONE, write_timeout=DEFAULT_NONE, connect_timeout=DEFAULT_NONE,
                          pool_timeout=DEFAULT_NONE, api_kwargs=None) -> tuple[Update, ...]:
        base = self._request[0].read_timeout if isinstance(read_timeout, DefaultValue) else read_timeout
        wait = timeout.total_seconds() if isinstance(timeout, timedelta) else (timeout or 0)
        raw = await self._post("getUpdates", {"timeout": timeout, "offset": offset, "limit": limit,
                                              "allowed_updates": allowed_updates},
                               read_timeout=(base or 0) + wait, write_timeout=write_timeout,
                               connect_timeout=connect_timeout, pool_timeout=pool_timeout, api_kwargs=api_kwargs)
        updates, read = [], []
        for data in raw if isinstance(raw, list) else []:
            update_id = data.get("update_id") if isinstance(data, dict) else None
            update_id = update_id if type(update_id) is int else None
            try:
                update = parse_update(data, self)
                self.insert_callback_data(update)
            except Exception as error:
                if self._on_malformed is not None:
                    self._on_malformed(update_id, error)
                if update_id is not None:
                    updates.append(Update(update_id))  # confirmed with the rest, handled by nobody
                continue
            updates.append(update)
            read.append(update)
        if self._on_updates is not None and read and not await self._stored(read):
            return ()  # not confirmed: Telegram hands them over again on the next call
        return tuple(updates)

    async def _stored(self, updates: list[Update]) -> bool:
        """Store a batch, waiting a little for a database that is away; False if it stays away."""
        for _ in range(STORE_ATTEMPTS):
            try:
                stored = self._on_updates(updates)
                if inspect.isawaitable(stored):
                    await stored
                return True
            except StorageUnavailable:
                await asyncio.sleep(STORE_WAIT)
        log.warning("%d atualização(ões) do Telegram não confirmadas: banco de dados indisponível", len(updates))
        return False


def parse_update(data, bot) -> Update:
    """One raw update as python-telegram-bot reads it; raises `MalformedUpdate` (no part of the data in it)."""
    if not isinstance(data, dict) or type(data.get("update_id")) is not int:
        raise MalformedUpdate("update_id")
    try:
        return Update.de_json(data, bot)
    except Exception as error:
        raise MalformedUpdate(*describe(error)) from None


class TelegramWebhook:
    """The webhook route: checks Telegram's secret header, stores the update, then answers 200."""

    def __init__(self, channel: TelegramChannel, secret: str):
        if not secret:
            raise ValueError("o webhook do Telegram exige um segredo (TELEGRAM_WEBHOOK_SECRET)")
        self.channel, self.secret = channel, secret.encode()

    def register(self, app: web.Application, path: str = "/telegram/webhook") -> None:
        app.router.add_post(path, self.handle)

    async def handle(self, request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "")
        if not given.isascii() or not hmac.compare_digest(given.encode(), self.secret):
            log.warning("webhook do Telegram com segredo ausente ou errado: recusado")
            return web.json_response({"error": "forbidden"}, status=403)
        update_id = None
        try:
            data = load_json(await request.read())
            update_id = data.get("update_id") if isinstance(data, dict) else None
            update = parse_update(data, self.channel.bot)
            await self.channel.receive(update)  # stored off the event loop before the 200
        except StorageUnavailable:
            raise  # the server answers 503: Telegram delivers it again
        except MalformedUpdate as error:  # untrusted input of any odd shape: a 400, never a 500 with a traceback
            self.channel.malformed.skip(update_id if type(update_id) is int else None, error)
            return web.json_response({"error": "malformed update"}, status=400)
        except Exception as error:
            log.warning("atualização do Telegram não guardada: %s", type(error).__name__)
            return web.json_response({"error": "malformed update"}, status=400)
        return web.json_response({"ok": True})
