"""Replies to small talk (greetings, thanks, goodbyes, questions about the bot): bot/data/smalltalk.toml."""

from __future__ import annotations

import re
import string
import tomllib
from dataclasses import dataclass
from pathlib import Path

from bot.commands import BY_NAME
from corpus.text import fold, normalize

SMALLTALK_FILE = Path(__file__).resolve().parent.parent / "data" / "smalltalk.toml"
DEFAULT = "cumprimento"
MAX_WORDS = 12
ALWAYS_WORDS = 8


@dataclass(frozen=True)
class Kind:
    name: str
    patterns: tuple[re.Pattern, ...]
    reply: str
    always: bool = False  # a short message with these words is about the bot, whatever the search found


class SmallTalk:
    """Chooses the reply by the first kind whose patterns the message has; a greeting otherwise."""

    def __init__(self, kinds: list[Kind]):
        self.kinds = kinds
        self.default = next(k for k in kinds if k.name == DEFAULT)

    @classmethod
    def load(cls, path: Path = SMALLTALK_FILE) -> SmallTalk:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        kinds = []
        for n, entry in enumerate(data.get("tipo", []), 1):
            try:
                patterns = tuple(re.compile(p) for p in entry.get("padroes", []))
                unknown = {field for _, field, _, _ in string.Formatter().parse(entry["resposta"])
                           if field is not None} - set(BY_NAME)
                if unknown:
                    raise ValueError(f"comando desconhecido entre chaves: {', '.join(sorted(unknown))}")
                kinds.append(Kind(entry["nome"], patterns, entry["resposta"].strip(), bool(entry.get("sempre"))))
            except (KeyError, ValueError, re.error) as error:
                raise ValueError(f"{path}: tipo {n}: {error}") from error
        if not any(k.name == DEFAULT for k in kinds):
            raise ValueError(f"{path}: falta o tipo {DEFAULT!r}")
        return cls(kinds)

    def kind_of(self, text: str) -> Kind:
        folded = fold(normalize(text))
        return next((k for k in self.kinds if any(p.search(folded) for p in k.patterns)), self.default)

    def recognises(self, text: str) -> bool:
        """Whether a short message is, by its own words, thanks, a goodbye or a question about the bot."""
        folded = fold(normalize(text))
        return len(folded.split()) <= MAX_WORDS and any(p.search(folded) for k in self.kinds for p in k.patterns)

    def about_the_bot(self, text: str) -> bool:
        """Whether a short message asks about the bot itself ("qual é o seu nome?"), whatever verses hold its words."""
        folded = fold(normalize(text))
        return len(folded.split()) <= ALWAYS_WORDS and any(
            p.search(folded) for k in self.kinds if k.always for p in k.patterns)

    def reply(self, text: str, command_style: str = "/{}") -> str:
        """The reply of the message's kind, each "{command}" written as the channel takes it."""
        return self.kind_of(text).reply.format_map({name: command_style.format(name) for name in BY_NAME})
