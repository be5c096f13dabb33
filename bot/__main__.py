"""Entry point: `python -m bot` (channels), `python -m bot ask`, `python -m bot chat`, `python -m bot eval-crisis`."""

from __future__ import annotations

import argparse
import sys

from bot.llm.factory import LLMConfigError
from bot.voice.transcription import TranscriberConfigError
from corpus.loaders.errors import CorpusError
from retrieval.index.embedders import EmbedderError
from retrieval.index.store import StoreError
from retrieval.startup import IndexNotReady
from retrieval.understand.topics import TopicsError


def run_channels() -> int:
    from bot.run import run

    return run()


def main(argv: list[str] | None = None) -> int:
    from bot.logs import configure, settings_secrets
    from bot.settings import Settings

    configure("WARNING", secrets=settings_secrets(Settings()))
    parser = argparse.ArgumentParser(prog="python -m bot", description="Pastor Online")
    sub = parser.add_subparsers(dest="command")
    ask = sub.add_parser("ask", help="uma mensagem, uma resposta")
    ask.add_argument("message", nargs="?", help="a mensagem (sem ela, lê da entrada padrão)")
    ask.add_argument("--chat", default="console", help="identificador da conversa (memória)")
    ask.add_argument("--json", action="store_true")
    chat = sub.add_parser("chat", help="conversa interativa no terminal")
    chat.add_argument("--chat", default="console")
    crisis = sub.add_parser("eval-crisis", help="mede a triagem de crise num JSONL {text, label, kind}")
    crisis.add_argument("files", nargs="+")
    crisis.add_argument("--json", action="store_true")
    crisis.add_argument("--with-llm", action="store_true", help="usar o LLM configurado (padrão: nenhum)")
    args = parser.parse_args(argv)
    try:
        if args.command is None:
            return run_channels()
        if args.command == "eval-crisis":
            from bot.crisis_eval import main_eval

            return main_eval(args.files, args.json, args.with_llm)
        from bot.console import main_console

        return main_console(args)
    except (IndexNotReady, EmbedderError, StoreError, CorpusError, TopicsError, LLMConfigError,
            TranscriberConfigError) as error:
        print(f"erro: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
