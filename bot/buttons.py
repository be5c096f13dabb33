"""Button payloads as one typed callback-data type (aiogram's ``CallbackData`` is the model).

Each kind of button is a frozen dataclass with a prefix; ``pack`` writes "prefix:field:field" and checks
Telegram's 64-byte limit, ``unpack`` reads it back. Booleans are written "sim"/"nao", tuples joined by ",".
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, fields
from typing import ClassVar

MAX_BYTES = 64  # Telegram's limit for callback_data (WhatsApp allows more; the tighter one rules)
SEPARATOR = ":"


class CallbackData:
    """The base of every button payload: a prefix and the dataclass's fields, in order."""

    prefix: ClassVar[str]

    def pack(self) -> str:
        data = SEPARATOR.join([self.prefix, *(_write(getattr(self, field.name)) for field in fields(self))])
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"dados do botão com mais de {MAX_BYTES} bytes: {data!r}")
        return data

    def fits(self) -> bool:
        """Whether ``pack`` stays within the limit."""
        try:
            self.pack()
        except ValueError:
            return False
        return True

    @classmethod
    def unpack(cls, data: str):
        """The button ``data`` was packed from; ValueError when it is not one of this kind."""
        prefix, *values = data.split(SEPARATOR)
        hints = typing.get_type_hints(cls)
        names = [field.name for field in fields(cls)]
        if prefix != cls.prefix or len(values) != len(names):
            raise ValueError(f"não é um botão {cls.prefix!r}: {data!r}")
        return cls(*(_read(hints[name], value) for name, value in zip(names, values, strict=True)))


def _write(value) -> str:
    if isinstance(value, bool):
        return "sim" if value else "nao"
    if isinstance(value, tuple):
        return ",".join(value)
    return str(value)


def _read(kind, value: str):
    if kind is bool:
        if value not in ("sim", "nao"):
            raise ValueError(f"esperado sim ou nao: {value!r}")
        return value == "sim"
    if typing.get_origin(kind) is tuple:
        return tuple(part for part in value.split(",") if part)
    return value


@dataclass(frozen=True)
class SourcesButton(CallbackData):
    """"📖 Ver fontes" under an answer on WhatsApp: "fontes"."""

    prefix: ClassVar[str] = "fontes"


@dataclass(frozen=True)
class EraseButton(CallbackData):
    """The answer to "apagar tudo?": "apagar:sim" / "apagar:nao"."""

    prefix: ClassVar[str] = "apagar"
    confirmed: bool


@dataclass(frozen=True)
class CardButton(CallbackData):
    """A verse card of these verses: "imagem:PHP.4.6,PHP.4.7"."""

    prefix: ClassVar[str] = "imagem"
    verses: tuple[str, ...]


@dataclass(frozen=True)
class CareButton(CallbackData):
    """The person's answer to the care team's offer: "equipe:sim:K7MX" / "equipe:nao:K7MX"."""

    prefix: ClassVar[str] = "equipe"
    accepted: bool
    case: str


KINDS: tuple[type[CallbackData], ...] = (SourcesButton, EraseButton, CardButton, CareButton)


def unpack(data: str) -> CallbackData | None:
    """The button ``data`` names, of whichever kind; None for anything else."""
    for kind in KINDS:
        if data.split(SEPARATOR, 1)[0] == kind.prefix:
            try:
                return kind.unpack(data)
            except ValueError:
                return None
    return None
