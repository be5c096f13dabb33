"""`python -m bot ask` and `python -m bot chat`: the pipeline from a terminal."""

from __future__ import annotations

import asyncio
import json
import sys
import uuid

from bot import commands
from bot.app import App
from bot.logs import message_id
from bot.reply import Reply


def render(reply: Reply) -> str:
    lines = [reply.text]
    if reply.sources:
        lines.append("\nFontes:")
        lines += [f"  {s.reference} — {s.text}" for s in reply.sources]
    return "\n".join(lines)


async def ask(app: App, chat_id: str, message: str, as_json: bool) -> int:
    message_id.set(f"console-{uuid.uuid4().hex[:8]}")
    try:
        reply = await app.pastor.reply(chat_id, message)
    finally:
        await app.close()
    print(json.dumps(reply.as_dict(), ensure_ascii=False) if as_json else render(reply))
    return 0


async def chat(app: App, chat_id: str) -> int:
    print("Pastor Online — conversa no terminal. /fontes mostra as fontes; /nova recomeça; /sair encerra.")
    try:
        while True:
            try:
                line = await asyncio.to_thread(input, "\nvocê> ")
            except EOFError:
                break
            command = line.strip().lower()
            if command in ("/sair", "/exit", "/quit"):
                break
            if command == f"/{commands.NEW.name}":
                await app.memory.db.call(app.memory.forget_window, chat_id)
                print("Conversa reiniciada.")
                continue
            if command == f"/{commands.SOURCES.name}":
                query, verses = await app.memory.db.call(app.memory.last_sources, chat_id)
                print("\n".join(f"  {v.reference} — {v.text}" for v in verses) or "Ainda não há fontes.")
                continue
            message_id.set(f"console-{uuid.uuid4().hex[:8]}")
            reply = await app.pastor.reply(chat_id, line)
            print("\npastor> " + render(reply))
    finally:
        await app.close()
    return 0


def main_console(args) -> int:
    from bot.app import build_app

    app = build_app()
    if args.command == "ask":
        message = args.message if args.message is not None else sys.stdin.read()
        return asyncio.run(ask(app, args.chat, message, args.json))
    return asyncio.run(chat(app, args.chat))
