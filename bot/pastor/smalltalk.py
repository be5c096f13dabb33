"""Replies to small talk (greetings, thanks, goodbyes, questions about the bot): bot/data/smalltalk.toml."""

from __future__ import annotations

import re
import string
import tomllib
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bot.commands import BY_NAME
from corpus.text import fold, normalize

SMALLTALK_FILE = Path(__file__).resolve().parent.parent / "data" / "smalltalk.toml"
DEFAULT = "cumprimento"
MAX_WORDS = 12
ALWAYS_WORDS = 8
EXAMPLE_FLOOR = 0.55  # cosine to a kind's nearest example that chooses its reply when no pattern matched

Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Kind:
    name: str
    patterns: tuple[re.Pattern, ...]
    reply: str
    always: bool = False  # a short message with these words is about the bot, whatever the search found
    examples: tuple[str, ...] = ()  # messages of this kind, for those no pattern catches ("como paro de receber?")
    emojis: frozenset[str] = frozenset()  # a message of these emoji alone is this kind ("🙏🙏", "👍")


class SmallTalk:
    """Chooses the reply by the first kind whose patterns the message has, else by the kind of the nearest
    example in meaning (with an embedder), else a greeting."""

    def __init__(self, kinds: list[Kind], embed: Embed | None = None):
        self.kinds = kinds
        self.default = next(k for k in kinds if k.name == DEFAULT)
        self.embed = embed
        self._examples: tuple[np.ndarray, list[Kind]] | None = None  # embedded on first use

    @classmethod
    def load(cls, path: Path = SMALLTALK_FILE, embed: Embed | None = None) -> SmallTalk:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        kinds = []
        for n, entry in enumerate(data.get("tipo", []), 1):
            try:
                patterns = tuple(re.compile(p) for p in entry.get("padroes", []))
                unknown = {field for _, field, _, _ in string.Formatter().parse(entry["resposta"])
                           if field is not None} - set(BY_NAME)
                if unknown:
                    raise ValueError(f"comando desconhecido entre chaves: {', '.join(sorted(unknown))}")
                examples = tuple(str(e) for e in entry.get("exemplos", []))
                emojis = frozenset(c for e in entry.get("emojis", []) for c in _symbols(str(e)))
                kinds.append(Kind(entry["nome"], patterns, entry["resposta"].strip(), bool(entry.get("sempre")),
                                  examples, emojis))
            except (KeyError, ValueError, re.error) as error:
                raise ValueError(f"{path}: tipo {n}: {error}") from error
        if not any(k.name == DEFAULT for k in kinds):
            raise ValueError(f"{path}: falta o tipo {DEFAULT!r}")
        return cls(kinds, embed)

    def by_emoji(self, text: str) -> Kind | None:
        """The kind whose emoji alone make up a message with no words ("🙏🙏", "👍"); None for any other."""
        symbols = _symbols(text)
        return next((k for k in self.kinds if symbols and k.emojis and symbols <= k.emojis), None)

    def kind_of(self, text: str, vector: np.ndarray | None = None) -> Kind:
        """The kind whose patterns the message has; else, given the message's embedding, the nearest example's."""
        folded = fold(normalize(text))
        matched = next((k for k in self.kinds if any(p.search(folded) for p in k.patterns)), None)
        if matched is not None or vector is None or self.embed is None:
            return matched or self.default
        vectors, owners = self._embedded_examples()
        if not owners:
            return self.default
        similarity = vectors @ (np.asarray(vector, dtype=np.float32) / max(float(np.linalg.norm(vector)), 1e-12))
        best = int(np.argmax(similarity))
        return owners[best] if similarity[best] >= EXAMPLE_FLOOR else self.default

    def _embedded_examples(self) -> tuple[np.ndarray, list[Kind]]:
        if self._examples is None:
            owners = [k for k in self.kinds for _ in k.examples]
            texts = [e for k in self.kinds for e in k.examples]
            vectors = np.asarray(self.embed(texts), dtype=np.float32) if texts else np.zeros((0, 1), np.float32)
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            self._examples = (vectors, owners)
        return self._examples

    def recognises(self, text: str) -> bool:
        """Whether a short message is, by its own words, thanks, a goodbye or a question about the bot."""
        folded = fold(normalize(text))
        return len(folded.split()) <= MAX_WORDS and any(p.search(folded) for k in self.kinds for p in k.patterns)

    def about_the_bot(self, text: str) -> bool:
        """Whether a short message asks about the bot itself ("qual é o seu nome?"), whatever verses hold its words."""
        folded = fold(normalize(text))
        return len(folded.split()) <= ALWAYS_WORDS and any(
            p.search(folded) for k in self.kinds if k.always for p in k.patterns)

    def reply(self, text: str, command_style: str = "/{}", vector: np.ndarray | None = None) -> str:
        """The reply of the message's kind, each "{command}" written as the channel takes it."""
        return self.render(self.kind_of(text, vector), command_style)

    @staticmethod
    def render(kind: Kind, command_style: str = "/{}") -> str:
        """A kind's reply, each "{command}" written as the channel takes it."""
        return kind.reply.format_map({name: command_style.format(name) for name in BY_NAME})


def _symbols(text: str) -> set[str]:
    """The symbols of a text, without joiners, variation selectors, skin tones, spaces or punctuation."""
    return {c for c in text if unicodedata.category(c) in ("So", "Sk") and not 0x1F3FB <= ord(c) <= 0x1F3FF}
