"""Brazilian chat shorthand expanded before both channels see the question."""

from __future__ import annotations

import re
from pathlib import Path

from corpus.datafiles import DataFileError, line_of, read_pairs, where
from corpus.text import normalize

SHORTHAND_FILE = Path(__file__).resolve().parent.parent / "data" / "chat_shorthand.txt"


def load_shorthand(path: Path = SHORTHAND_FILE) -> dict[str, str]:
    """Written forms people type in chat apps -> the words they stand for (a lower-case word each)."""
    pairs = read_pairs(path, re.compile(r"\w+", re.UNICODE))
    upper = next((form for form in pairs if form != form.lower()), None)
    if upper is not None:
        raise DataFileError(f"{where(path, line_of(path, upper + ' '))}: escreva a forma em minúsculas: {upper!r}")
    return pairs


# loaded once, at import: a broken file stops the start with its name and line
SHORTHAND = load_shorthand()
_WORD = re.compile(r"\w+", re.UNICODE)
_SLASHED = re.compile(r"(?<!\w)([cps])/", re.IGNORECASE)  # "c/ a prova", "p/ mim"
_REPEATS = re.compile(r"(\w)\1{2,}", re.UNICODE)  # "muuuito" -> "muito"
_LAUGH = re.compile(r"\b(?:k{3,}|(?:ha){2,}|(?:rs)+|(?:he){2,})\b", re.IGNORECASE)
_SLASH_WORDS = {"c": "com", "p": "para", "s": "sem"}
# "vô" is "vou" ("vô lá"), except after a possessive or article: "meu vô" is a grandfather
_GRANDFATHER = re.compile(r"\b(meu|seu|teu|nosso|o|do|pro|pelo|ao)\s+v[oô]\b", re.IGNORECASE)
_GRANDMOTHER = re.compile(r"\b(minha|sua|tua|nossa|a|da|pra|pela|à)\s+v[oó]\b", re.IGNORECASE)


def normalize_chat(text: str) -> str:
    """Expand chat shorthand ("to mto ansioso c/ a prova") into plain Portuguese words."""
    text = normalize(text)
    text = _SLASHED.sub(lambda m: _SLASH_WORDS[m.group(1).lower()] + " ", text)
    text = _LAUGH.sub(" ", text)
    text = _REPEATS.sub(r"\1", text)
    text = _GRANDMOTHER.sub(r"\1 avó", _GRANDFATHER.sub(r"\1 avô", text))

    def expand(match: re.Match) -> str:
        word = match.group()
        replacement = SHORTHAND.get(word.lower())
        return word if replacement is None else replacement

    return " ".join(_WORD.sub(expand, text).split())
