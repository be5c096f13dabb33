"""Phone numbers spelled in words ("ligue nove nove oito sete...", "cento e oitenta e oito"), read as digits."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class Spelled:
    span: tuple[int, int]  # in the folded text
    digits: str

    def start(self) -> int:
        return self.span[0]

    def end(self) -> int:
        return self.span[1]


@dataclass(frozen=True)
class _Words:
    run: re.Pattern
    values: dict[str, int]
    cue: re.Pattern
    min_digits: int


@cache
def _words() -> _Words:
    data = tomllib.loads(resources.files("bot").joinpath("data/guard.toml").read_text(encoding="utf-8"))["contacts"]
    values = {str(k): int(v) for k, v in data["numbers"].items()}
    word = "|".join(sorted(values, key=len, reverse=True))
    run = re.compile(rf"\b(?:{word})\b(?:(?:[\s,.-]+|\s+e\s+)\b(?:{word})\b)+")
    cue = re.compile(r"\b(?:" + "|".join(re.escape(c) for c in data["cues"]) + r")\b")
    return _Words(run, values, cue, int(data["min_digits"]))


def _digits(run: str, values: dict[str, int]) -> str:
    """Digits of a run of number words: words joined by "e" add up, the others follow one another."""
    groups: list[int] = []
    joined = False
    for token in re.findall(r"\w+", run):
        if token == "e":
            joined = True
        elif token in values:
            if joined and groups:
                groups[-1] += values[token]
            else:
                groups.append(values[token])
            joined = False
    return "".join(str(n) for n in groups)


def spelled_numbers(folded: str) -> list[Spelled]:
    """Runs of number words that are a contact: after a contact word, or long enough to be one anyway."""
    words = _words()
    found = []
    for match in words.run.finditer(folded):
        digits = _digits(match.group(), words.values)
        cued = bool(words.cue.search(folded, max(0, match.start() - 40), match.start()))
        if len(digits) >= words.min_digits or (cued and len(digits) >= 3):
            found.append(Spelled((match.start(), match.end()), digits))
    return found
