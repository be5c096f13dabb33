"""Entry point: `python -m bot` (channels), `python -m bot ask`, `python -m bot chat`."""

from __future__ import annotations

import argparse
import logging
import sys

from bot.llm.factory import LLMConfigError
from corpus.loaders.errors import CorpusError
from retrieval.embedders import EmbedderError
from retrieval.startup import IndexNotReady
from retrieval.store import StoreError
from retrieval.topics import TopicsError


def run_channels() -> int:
    from bot.settings import Settings

    settings = Settings()
    channels = []
    if settings.telegram_bot_token.get_secret_value():
        channels.append("Telegram")
    if settings.whatsapp_access_token.get_secret_value():
        channels.append("WhatsApp")
    print(
        "Pastor Online: os canais Telegram e WhatsApp ainda não estão implementados nesta versão "
        f"(configurados: {', '.join(channels) or 'nenhum'}). Nada foi iniciado. "
        "Use `python -m bot chat` para conversar no terminal.",
        file=sys.stderr,
    )
    return 2


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    parser = argparse.ArgumentParser(prog="python -m bot", description="Pastor Online")
    sub = parser.add_subparsers(dest="command")
    ask = sub.add_parser("ask", help="uma mensagem, uma resposta")
    ask.add_argument("message", nargs="?", help="a mensagem (sem ela, lê da entrada padrão)")
    ask.add_argument("--chat", default="console", help="identificador da conversa (memória)")
    ask.add_argument("--json", action="store_true")
    chat = sub.add_parser("chat", help="conversa interativa no terminal")
    chat.add_argument("--chat", default="console")
    args = parser.parse_args(argv)
    if args.command is None:
        return run_channels()
    from bot.console import main_console

    try:
        return main_console(args)
    except (IndexNotReady, EmbedderError, StoreError, CorpusError, TopicsError, LLMConfigError) as error:
        print(f"erro: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
