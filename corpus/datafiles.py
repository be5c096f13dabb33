"""Reading the pastor-editable data files: every problem names the file and, when known, the line."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

_TOML_LINE = re.compile(r"at line (\d+)")


class DataFileError(ValueError):
    """A data file that cannot be used; the message names the file, the line and what is wrong."""


def where(path: Path | str, line: int | None) -> str:
    """``file, linha N`` for messages (just the file when the line is unknown)."""
    return f"{path}, linha {line}" if line else str(path)


def line_of(path: Path | str, text: str) -> int | None:
    """The first line of ``path`` that holds ``text`` as written (or as a TOML basic string escapes it)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for needle in (text, text.replace("\\", "\\\\")):
        for number, line in enumerate(lines, 1):
            if needle in line:
                return number
    return None


def read_toml(path: Path | str, error: type[ValueError] = DataFileError) -> dict:
    """A TOML data file; unreadable or malformed files raise ``error`` naming the file and line."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as problem:
        raise error(f"{path}: não foi possível ler o arquivo ({problem.strerror or problem})") from problem
    except tomllib.TOMLDecodeError as problem:
        found = _TOML_LINE.search(str(problem))
        raise error(f"{where(path, int(found.group(1)) if found else None)}: TOML inválido ({problem})") \
            from problem


def read_pairs(path: Path | str, key: re.Pattern, error: type[ValueError] = DataFileError) -> dict[str, str]:
    """``key = value`` lines (``#`` comments, blank lines skipped); a malformed or repeated key names its line."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as problem:
        raise error(f"{path}: não foi possível ler o arquivo ({problem.strerror or problem})") from problem
    pairs: dict[str, str] = {}
    for number, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, equals, value = (part.strip() for part in line.partition("="))
        if not equals or not key.fullmatch(name):
            raise error(f"{where(path, number)}: esperado 'forma = palavras', encontrado {line!r}")
        if name in pairs:
            raise error(f"{where(path, number)}: {name!r} aparece mais de uma vez")
        pairs[name] = value
    return pairs
