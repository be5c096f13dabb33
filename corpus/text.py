"""Unicode clean-up and accent folding that keeps character offsets."""

from __future__ import annotations

import unicodedata
from functools import lru_cache

# Dashes, minus signs and odd spaces people paste from word processors and phones.
_TRANSLATE = str.maketrans(
    {
        **{c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"},
        **{c: " " for c in "\u00a0\u2007\u202f\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2008\u2009\u200a"
                          "\u3000\t\r\n"},
        "\u00b0": "º",  # a degree sign typed for the ordinal indicator ("1° Coríntios")
        "\u200b": " ",
        "\ufeff": " ",
    }
)


def normalize(text: str) -> str:
    """NFC, with dashes unified to "-" and exotic spaces to " " (length changes only via NFC)."""
    return unicodedata.normalize("NFC", text).translate(_TRANSLATE)


@lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    decomposed = unicodedata.normalize("NFKD", char)
    base = "".join(c for c in decomposed if not unicodedata.combining(c)).lower()
    return base if len(base) == 1 else char.lower()[:1] or char


def fold(text: str) -> str:
    """Lower-case and strip accents, one output character per input character."""
    if text.isascii():
        return text.lower()
    return "".join(_fold_char(c) for c in text)
