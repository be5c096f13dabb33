"""Pastoral concepts found in a question: biblical words to add and topics to consult."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from corpus.text import fold, normalize

_WORD = re.compile(r"[^\W\d_]+")
# "é pecado ler horóscopo?" asks whether a practice is sin: the frame tells no guilt, the practice is the theme
_IS_IT_SIN = re.compile(r"\b(?:e|eh|seria|sera|e considerado|conta como|isso e|ainda e)\s+(?:um\s+)?pecado\b"
                        r"|\bpecado\s*\?|\bpecado ou (?:nao|n)\b")
DATA = Path(__file__).parent.parent / "data"


@dataclass(frozen=True)
class Concept:
    name: str
    words: tuple[str, ...]  # exact trigger words
    prefixes: tuple[str, ...]  # trigger prefixes ("assust" for "assust*")
    phrases: tuple[str, ...]  # multi-word triggers
    vocabulary: tuple[str, ...]  # biblical words for query expansion
    topics: tuple[str, ...]  # OpenBible topic names

    def triggered_by(self, word: str) -> bool:
        """Whether this word alone touches the concept (a trigger word or prefix)."""
        return word in self.words or any(word.startswith(prefix) for prefix in self.prefixes)


def _split(field: str) -> list[str]:
    return [item.strip() for item in field.split(",") if item.strip()]


def data_lines(name: str) -> str:
    """A data file of ``retrieval/data`` without its comment lines."""
    text = (DATA / name).read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))


def parse_table(table: str | None = None) -> tuple[Concept, ...]:
    """Concepts of a table in the format of ``data/thesaurus.txt`` (that file by default)."""
    concepts = []
    for line in (data_lines("thesaurus.txt") if table is None else table).strip().splitlines():
        name, triggers, vocabulary, topics = (part.strip() for part in line.split("|"))
        words, prefixes, phrases = [], [], []
        for trigger in _split(triggers):
            if " " in trigger:
                phrases.append(trigger.rstrip("*"))
            elif trigger.endswith("*"):
                prefixes.append(trigger[:-1])
            else:
                words.append(trigger)
        concepts.append(Concept(name, tuple(words), tuple(prefixes), tuple(phrases), tuple(_split(vocabulary)),
                                tuple(t.strip() for t in topics.split(";") if t.strip())))
    return tuple(concepts)


class Thesaurus:
    """Finds the concepts a question touches, by whole words, word prefixes and phrases."""

    def __init__(self, concepts: tuple[Concept, ...] | None = None):
        self.concepts = concepts if concepts is not None else parse_table()
        self._words: dict[str, list[Concept]] = {}
        self._prefixes: dict[str, list[tuple[str, Concept]]] = {}
        for concept in self.concepts:
            for word in concept.words:
                self._words.setdefault(word, []).append(concept)
            for prefix in concept.prefixes:
                self._prefixes.setdefault(prefix[:3], []).append((prefix, concept))

    def match(self, text: str) -> list[Concept]:
        """Concepts the text touches, in table order (the frame of a question whether something is sin aside)."""
        folded = _IS_IT_SIN.sub(" ", fold(normalize(text)))
        words = _WORD.findall(folded)
        found: set[str] = set()
        for word in words:
            for concept in self._words.get(word, ()):
                found.add(concept.name)
            for prefix, concept in self._prefixes.get(word[:3], ()):
                if word.startswith(prefix):
                    found.add(concept.name)
        padded = f" {' '.join(words)} "
        for concept in self.concepts:
            if concept.name not in found and any(f" {phrase} " in padded for phrase in concept.phrases):
                found.add(concept.name)
        return [c for c in self.concepts if c.name in found]


class Equivalences:
    """Groups of words that different Portuguese translations use for the same thing."""

    def __init__(self, table: str | None = None):
        self.groups: list[tuple[tuple[str, ...], tuple[str, ...]]] = []  # (single words, phrases)
        for line in (data_lines("equivalences.txt") if table is None else table).strip().splitlines():
            entries = [" ".join(e.replace("-", " ").split()) for e in _split(line)]
            self.groups.append((tuple(e for e in entries if " " not in e), tuple(e for e in entries if " " in e)))
        self._by_word: dict[str, list[int]] = {}
        for index, (words, _) in enumerate(self.groups):
            for word in words:
                self._by_word.setdefault(word, []).append(index)

    def alternatives(self, text: str) -> list[tuple[str, ...]]:
        """For each word of ``text``, the word followed by its equivalents in other translations.

        A phrase of the table ("promovem a paz") adds its group as one more alternative set.
        """
        words = _WORD.findall(fold(normalize(text)))
        padded = f" {' '.join(words)} "
        out = []
        for word in words:
            groups = self._by_word.get(word, ())
            out.append((word, *dict.fromkeys(w for g in groups for w in self.groups[g][0] if w != word)))
        for group_words, phrases in self.groups:
            if any(f" {p} " in padded for p in phrases):
                out.append(group_words)
        return out
