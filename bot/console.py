"""`python -m bot ask` and `python -m bot chat`: the pipeline from a terminal."""

from __future__ import annotations

import asyncio
import json
import sys
import uuid

from bot import commands
from bot.app import App
from bot.channels.console import ConsoleChannel, sources_block
from bot.logs import message_id
from bot.reply import Reply


def render(reply: Reply) -> str:
    return reply.text + (f"\n\n{sources_block(list(reply.sources))}" if reply.sources else "")


async def ask(app: App, chat_id: str, message: str, as_json: bool) -> int:
    message_id.set(f"console-{uuid.uuid4().hex[:8]}")
    try:
        reply = await app.pastor.reply(chat_id, message)
    finally:
        await app.close()
    print(json.dumps(reply.as_dict(), ensure_ascii=False) if as_json else render(reply))
    return 0


async def chat(app: App, chat_id: str) -> int:
    """A conversation at the terminal, through the conversation core like any channel."""
    from bot.run import conversation

    console = ConsoleChannel()
    core = conversation(app)
    core.register(console)
    await core.start()
    print(commands.console_intro())
    try:
        while True:
            try:
                line = await asyncio.to_thread(input, "\nvocê> ")
            except EOFError:
                break
            if not line.strip():
                continue
            if line.strip().lower().lstrip("/") in commands.CONSOLE_EXIT:
                break
            inbound = console.inbound(chat_id, line)
            answered = console.expect(inbound)
            if await core.receive(inbound):
                await answered.wait()
    finally:
        await core.stop()
        await app.close()
    return 0


def main_console(args) -> int:
    from bot.app import build_app

    app = build_app()
    if args.command == "ask":
        message = args.message if args.message is not None else sys.stdin.read()
        return asyncio.run(ask(app, args.chat, message, args.json))
    return asyncio.run(chat(app, args.chat))
