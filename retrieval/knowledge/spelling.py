"""Names typed one letter off or by ear: a key under which the spellings of one sound meet ("melquisedec",
"Melquisedeque")."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable
from importlib import resources

from corpus.text import fold
from retrieval.knowledge.passages import MIN_TYPO_LENGTH, one_edit

# Portuguese spellings of one sound, in order (on folded, lower-case words): "qu"/"k"/hard "c" are one sound,
# soft "c"/"s"/"z"/"ss" another, "ph" is "f", "y" is "i", a silent "h" and doubled letters go, as does a final "e"
_SOUNDS = [(re.compile(pattern), sound) for pattern, sound in (
    (r"ph", "f"), (r"th", "t"), (r"y", "i"), (r"w", "v"), (r"[cs]h", "x"), (r"qu(?=[ei])", "k"), (r"q", "k"),
    (r"gu(?=[ei])", "g"), (r"g(?=[ei])", "j"), (r"c(?=[ei])", "s"), (r"c", "k"), (r"z", "s"), (r"h", ""),
    (r"(.)\1+", r"\1"), (r"(?<=.)e$", ""))]
# names shorter than this are too easily a plain word by ear ("gera" and "guerra"), unless the word is spelled
# the way no Portuguese word is ("ruth", "esther", "isaac": as Brazilians spell their own names)
MIN_SOUND_NAME = 6
_FOREIGN = re.compile(r"th|ph|y|w|k|h$|aa|ii|uu")
# a word Brazilians say this often (per pyspellchecker's Portuguese frequencies, counted in film subtitles) is a
# word, never a Bible name typed one letter off: "escola" is no Escol, "maluco" no Malco, "acabei" no Acabe
SPOKEN_COUNT = 500


def spoken_words(count: int = SPOKEN_COUNT) -> frozenset[str]:
    """Portuguese words said at least ``count`` times in the frequency list, folded."""
    path = resources.files("spellchecker").joinpath("resources/pt.json.gz")
    with gzip.open(path.open("rb"), "rt", encoding="utf-8") as f:
        frequencies = json.load(f)
    return frozenset(fold(w) for w, n in frequencies.items() if n >= count and w.isalpha())


def sound_key(word: str) -> str:
    """The word as it sounds: "zakeu" and "zaqueu" share "sakeu"."""
    for pattern, sound in _SOUNDS:
        word = pattern.sub(sound, word)
    return word


class NameSpelling:
    """The name a word was meant to be, among these folded names."""

    def __init__(self, names: Iterable[str]):
        self._by_initial: dict[str, list[str]] = {}
        self._by_sound: dict[str, list[str]] = {}
        for name in names:
            self._by_initial.setdefault(name[0], []).append(name)
            self._by_sound.setdefault(sound_key(name), []).append(name)

    def nearest(self, word: str) -> str:
        """A long name typed one letter off ("mefiboset") or spelled by ear ("melquisedec", "zakeu") is the name
        it nearly is, when only one is; else the word."""
        near = [n for n in self._by_initial.get(word[0], ()) if one_edit(word, n)] \
            if len(word) >= MIN_TYPO_LENGTH else []
        return near[0] if len(near) == 1 else self.by_ear(word)

    def by_ear(self, word: str) -> str:
        """The one name of the same first letter that sounds like the word, else the word."""
        short = _FOREIGN.search(word) is not None
        near = [n for n in self._by_sound.get(sound_key(word), ())
                if n[0] == word[0] and (len(n) >= MIN_SOUND_NAME or short)]
        return near[0] if len(near) == 1 else word
