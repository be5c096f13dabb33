"""Entry point: `python -m bot`."""

from __future__ import annotations

import sys

from bot.settings import Settings


def main() -> int:
    settings = Settings()
    channels = []
    if settings.telegram_bot_token.get_secret_value():
        channels.append("Telegram")
    if settings.whatsapp_access_token.get_secret_value():
        channels.append("WhatsApp")
    print(
        "Pastor Online: os canais de conversa ainda não estão implementados nesta versão "
        f"(configurados: {', '.join(channels) or 'nenhum'}). Nada foi iniciado.",
        file=sys.stderr,
    )
    return 2


if __name__ == "__main__":
    sys.exit(main())
