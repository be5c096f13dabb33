"""Portuguese stemmers for the lexical channel, both guarded against over-stemming.

Known collisions (documented, measured in the README): "luto"/"lutavam" -> "lut";
"temas" (fear, verb) and "temer" share "tem"; "mãe" -> "mae"/"ma".
"""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

import Stemmer as _PyStemmer

MIN_STEM = 3  # "deus" must not become "d", "mar" not "m"


class WordStemmer(Protocol):
    """Maps one folded word to its stem."""

    name: str

    def __call__(self, word: str) -> str: ...


class SnowballStemmer:
    """PyStemmer's Snowball Portuguese on accent-folded words, with a minimum-stem guard."""

    name = "snowball-pt"

    def __init__(self) -> None:
        stemmer = _PyStemmer.Stemmer("portuguese")
        self._stem = lru_cache(maxsize=200_000)(self._guarded(stemmer.stemWord))

    @staticmethod
    def _guarded(stem_word):
        def stem(word: str) -> str:
            stem = stem_word(word)
            return stem if len(stem) >= MIN_STEM else word

        return stem

    def __call__(self, word: str) -> str:
        return self._stem(word)


# RSLP-style rules (Orengo & Huyck 2001), simplified and written for folded text:
# (suffix, minimum stem length, replacement). Steps run in this order; each step
# applies the first matching rule whose remaining stem is long enough.
_PLURAL = [("oes", 3, "ao"), ("aes", 1, "ao"), ("ais", 1, "al"), ("eis", 2, "el"), ("ois", 1, "ol"),
           ("is", 2, "il"), ("les", 3, "l"), ("res", 3, "r"), ("ns", 1, "m"), ("s", 2, "")]
_PLURAL_EXCEPTIONS = frozenset("deus lapis cais mais pois depois dois tres atras jesus israel simples "
                               "atraves ves alias paris onibus virus tenis cris judas lazaro".split())
_VERBAL_EIS = ("areis", "ereis", "ireis", "asseis", "esseis", "isseis", "aveis", "ieis")
_FEMININE = [("ona", 3, "ao"), ("ora", 3, "or"), ("na", 4, "no"), ("inha", 3, "inho"), ("esa", 3, "es"),
             ("osa", 3, "oso"), ("iaca", 3, "iaco"), ("ica", 3, "ico"), ("ada", 2, "ado"), ("ida", 3, "ido"),
             ("ima", 3, "imo"), ("iva", 3, "ivo"), ("eira", 3, "eiro")]
_ADVERB = [("mente", 4, "")]
_AUGMENTATIVE = [("issimo", 3, ""), ("zinho", 2, ""), ("inho", 3, ""), ("zito", 2, ""), ("ito", 3, ""),
                 ("zao", 2, ""), ("arrao", 4, "")]
_NOUN = [("amento", 3, ""), ("imento", 3, ""), ("alizacao", 4, ""), ("izacao", 4, ""), ("acao", 3, ""),
         ("icao", 3, ""), ("idade", 4, ""), ("ancia", 3, ""), ("encia", 3, ""), ("ismo", 3, ""), ("ista", 4, ""),
         ("avel", 2, ""), ("ivel", 3, ""), ("mento", 4, ""), ("ador", 3, ""), ("edor", 3, ""), ("idor", 4, ""),
         ("ante", 2, ""), ("ente", 4, ""), ("eza", 3, ""), ("ice", 4, ""), ("oso", 3, ""), ("ura", 4, ""),
         ("ivo", 4, ""), ("ario", 3, ""), ("eiro", 3, ""), ("ico", 4, ""), ("cao", 3, "")]
_VERB = [("ariamos", 2, ""), ("eriamos", 2, ""), ("iriamos", 3, ""), ("assemos", 2, ""), ("essemos", 2, ""),
         ("issemos", 3, ""), ("aremos", 2, ""), ("eremos", 2, ""), ("iremos", 3, ""), ("aramos", 2, ""),
         ("avamos", 2, ""), ("ariam", 2, ""), ("eriam", 2, ""), ("iriam", 3, ""), ("ardes", 2, ""),
         ("erdes", 2, ""), ("irdes", 2, ""), ("areis", 2, ""), ("ereis", 2, ""), ("ireis", 2, ""),
         ("asses", 2, ""), ("esses", 2, ""), ("isses", 2, ""), ("astes", 2, ""), ("estes", 2, ""),
         ("istes", 2, ""), ("ando", 2, ""), ("endo", 3, ""), ("indo", 3, ""), ("aram", 2, ""), ("eram", 2, ""),
         ("iram", 2, ""), ("avam", 2, ""), ("arem", 2, ""), ("erem", 2, ""), ("irem", 2, ""), ("ava", 2, ""),
         ("arei", 2, ""), ("erei", 2, ""), ("irei", 3, ""), ("ara", 2, ""), ("era", 3, ""), ("ira", 3, ""),
         ("ado", 2, ""), ("ido", 3, ""), ("ai", 2, ""), ("ei", 3, ""), ("am", 2, ""), ("em", 2, ""),
         ("ar", 2, ""), ("er", 2, ""), ("ir", 3, ""), ("as", 2, ""), ("es", 3, ""), ("is", 3, ""),
         ("eu", 3, ""), ("iu", 3, ""), ("ou", 3, ""), ("a", 3, ""), ("e", 3, ""), ("i", 3, "")]
_VOWEL = [("a", 3, ""), ("e", 3, ""), ("o", 3, "")]


def _apply(word: str, rules) -> tuple[str, bool]:
    for suffix, minimum, replacement in rules:
        if word.endswith(suffix) and len(word) - len(suffix) >= minimum:
            return word[: len(word) - len(suffix)] + replacement, True
    return word, False


class RslpStemmer:
    """A compact RSLP-style stemmer: plural, feminine, adverb, augmentative, noun or verb, vowel."""

    name = "rslp-lite"

    def __init__(self) -> None:
        self._stem = lru_cache(maxsize=200_000)(self._stem_word)

    def __call__(self, word: str) -> str:
        return self._stem(word)

    @staticmethod
    def _stem_word(word: str) -> str:
        if len(word) < 4 or word in _PLURAL_EXCEPTIONS:
            return word
        stem = word
        if stem.endswith("s") and not stem.endswith(_VERBAL_EIS):
            stem, _ = _apply(stem, _PLURAL)
        if stem.endswith("a"):
            stem, _ = _apply(stem, _FEMININE)
        stem, _ = _apply(stem, _ADVERB)
        stem, _ = _apply(stem, _AUGMENTATIVE)
        stem, changed = _apply(stem, _NOUN)
        if not changed:
            stem, changed = _apply(stem, _VERB)
        if not changed:
            stem, _ = _apply(stem, _VOWEL)
        return stem if len(stem) >= MIN_STEM - 1 else word


STEMMERS = {"snowball-pt": SnowballStemmer, "rslp-lite": RslpStemmer}
