"""The person's country, as a channel can tell it: a WhatsApp number's calling code, Telegram's language."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from bot.store.inbox import Inbound

CODES_FILE = Path(__file__).resolve().parent.parent / "data" / "crisis" / "dialing_codes.txt"


@cache
def _codes() -> dict[str, str]:
    codes = {}
    for number, line in enumerate(CODES_FILE.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2 or not parts[0].isdigit() or len(parts[1]) != 2:
            raise ValueError(f"{CODES_FILE}:{number}: esperado 'código PAÍS', veio {line!r}")
        codes[parts[0]] = parts[1].upper()
    return codes


def country_of_number(number: str) -> str | None:
    """ISO code of an international phone number ("5511987654321" -> "BR"), or None."""
    digits = "".join(c for c in number if c.isdigit())
    codes = _codes()
    for length in (3, 2, 1):
        if len(digits) > length and digits[:length] in codes:
            return codes[digits[:length]]
    return None


def country_of_language(code: str) -> str | None:
    """The region of an IETF language tag ("pt-br" -> "BR", "pt_PT" -> "PT"); None for a bare language."""
    parts = code.replace("_", "-").split("-")
    return parts[1].upper() if len(parts) > 1 and len(parts[1]) == 2 and parts[1].isalpha() else None


def country_of(inbound: Inbound) -> str | None:
    """The country a channel knows for this person, or None (then ``CRISIS_COUNTRY`` is used)."""
    if inbound.channel == "whatsapp":
        return country_of_number(inbound.chat_id)
    language = inbound.meta.get("language")
    return country_of_language(language) if isinstance(language, str) else None
