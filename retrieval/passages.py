"""Passages known by their name ("parábola do filho pródigo", "armadura de Deus"): data/passages.toml."""

from __future__ import annotations

import logging
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from corpus.references import Reference, exists, parse_reference
from corpus.text import fold

log = logging.getLogger(__name__)

PASSAGES_FILE = Path(__file__).resolve().parent / "data" / "passages.toml"
_NON_WORD = re.compile(r"[^\w]+")


class PassagesError(ValueError):
    """The named passages file is malformed; the message names the entry."""


@dataclass(frozen=True)
class NamedPassage:
    name: str
    reference: Reference
    kind: str  # parabola, sermao, oracao, milagre, evento, historia, salmo, texto
    others: tuple[Reference, ...] = ()  # parallel accounts


def words_of(text: str) -> str:
    """Folded words separated by single spaces, for phrase matching."""
    return " ".join(_NON_WORD.sub(" ", fold(text)).split())


class NamedPassages:
    """Finds the passage a message names, by its name or one of its variants (longest match wins)."""

    def __init__(self, passages: list[NamedPassage], phrases: dict[str, NamedPassage]):
        self.passages = passages
        self.phrases = phrases
        alternation = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
        self._regex = re.compile(rf"(?<!\w)(?:{alternation})(?!\w)") if phrases else None

    @classmethod
    def load(cls, bible=None, path: Path = PASSAGES_FILE) -> NamedPassages:
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise PassagesError(f"{path}: {error}") from error
        passages, phrases, absent = [], {}, []
        for n, entry in enumerate(data.get("passagem", []), 1):
            name, where = entry.get("nome", ""), entry.get("trecho", "")
            reference = parse_reference(where)
            if not name or reference is None:
                raise PassagesError(f"{path}: passagem {n} ({name or 'sem nome'}): trecho inválido {where!r}")
            if bible is not None and not exists(reference, bible):
                absent.append(where)
                continue
            others = tuple(r for r in (parse_reference(o) for o in entry.get("outros", [])) if r is not None)
            passage = NamedPassage(name, reference, entry.get("tipo", "texto"), others)
            passages.append(passage)
            for phrase in [name, *entry.get("variantes", [])]:
                key = words_of(phrase)
                if len(key.split()) >= 2:  # one word alone is never a passage's name
                    phrases.setdefault(key, passage)
        if absent:
            log.warning("%s: %d passagem(ns) ausente(s) deste texto bíblico, ignoradas: %s", Path(path).name,
                        len(absent), ", ".join(absent[:5]) + (" …" if len(absent) > 5 else ""))
        return cls(passages, phrases)

    def find(self, text: str) -> NamedPassage | None:
        if self._regex is None:
            return None
        found = [m.group(0) for m in self._regex.finditer(words_of(text))]
        return self.phrases[max(found, key=len)] if found else None
