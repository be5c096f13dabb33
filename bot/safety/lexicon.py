"""The precise layer of crisis screening: patterns per kind, hyperbole and medical questions (data file)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from corpus.datafiles import DataFileError, line_of, read_toml, where

PATTERNS_FILE = Path(__file__).resolve().parent.parent / "data" / "crisis" / "patterns.toml"
LEVELS = ("imminent", "danger", "concern")


class LexiconError(DataFileError):
    """A crisis data file that cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True)
class KindRule:
    kind: str
    level: str
    regex: re.Pattern | None  # None: a kind only the semantic layer recognises
    firm: re.Pattern | None = None  # said this way it is this kind whatever the message's meaning reads
    by_others: bool = False  # someone else does the harm (abuse, violence, threats), not the person to themselves


@dataclass(frozen=True)
class Lexicon:
    hyperbole: re.Pattern
    medical: re.Pattern
    rules: tuple[KindRule, ...]

    @classmethod
    def load(cls, path: Path = PATTERNS_FILE) -> Lexicon:
        data = read_toml(path, LexiconError)
        rules = []
        for entry in data.get("tipo", []):
            kind, level = entry.get("nome"), entry.get("nivel")
            if not kind or level not in LEVELS:
                line = line_of(path, f'"{kind}"') if kind else None
                raise LexiconError(f"{where(path, line)}: tipo {kind!r} precisa de nome e de nivel em {LEVELS}")
            patterns, firm = entry.get("padroes", []), entry.get("firmes", [])
            rules.append(KindRule(kind, level, _compile(path, kind, patterns + firm) if patterns or firm else None,
                                  _compile(path, kind, firm) if firm else None, entry.get("por_outra_pessoa") is True))
        return cls(_compile(path, "hiperbole", data.get("hiperbole", {}).get("padroes", [])),
                   _compile(path, "medico", data.get("medico", {}).get("padroes", [])), tuple(rules))

    @staticmethod
    @cache
    def default() -> Lexicon:
        """The shipped patterns.toml, read and validated once per process."""
        return Lexicon.load()

    def level_of(self, kind: str) -> str | None:
        return next((rule.level for rule in self.rules if rule.kind == kind), None)

    def by_others(self, kind: str | None) -> bool:
        """Someone else does this kind of harm (patterns.toml's por_outra_pessoa)."""
        return any(rule.by_others for rule in self.rules if rule.kind == kind)

    def match(self, folded: str) -> tuple[KindRule, str, bool] | None:
        """The first kind whose patterns the folded message holds (hyperbole removed), with the words and
        whether they are firm (never vetoed by the message's meaning)."""
        cleaned = self.hyperbole.sub(" ", folded)
        for rule in self.rules:
            found = rule.regex.search(cleaned) if rule.regex is not None else None
            if found:
                firm = rule.firm.search(cleaned) if rule.firm is not None else None
                return rule, (firm or found).group(), firm is not None
        return None


def _compile(path: Path, name: str, patterns: list[str]) -> re.Pattern:
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as error:
            raise LexiconError(f"{where(path, line_of(path, pattern))}: padrão inválido em {name}: {pattern!r} "
                               f"({error})") from error
    if not patterns:
        return re.compile(r"(?!x)x")
    return re.compile(r"\b(?:" + "|".join(patterns) + r")\b")
