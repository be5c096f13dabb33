"""Passages known by their name ("parábola do filho pródigo", "armadura de Deus"): data/passages.toml."""

from __future__ import annotations

import logging
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from corpus.references import Reference, exists, parse_reference, verses_of
from corpus.text import fold
from retrieval.index.lexical import STOPWORDS
from retrieval.index.stemmers import SnowballStemmer

log = logging.getLogger(__name__)

PASSAGES_FILE = Path(__file__).resolve().parent.parent / "data" / "passages.toml"
_NON_WORD = re.compile(r"[^\w]+")
_WORD = re.compile(r"[^\W\d_]+")
_SENTENCE = re.compile(r"[.!?:;]")
ARTICLES = frozenset("o a os as".split())
_NUMBERS = dict(zip("1 2 3 4 5 7 10 12".split(), "um dois tres quatro cinco sete dez doze".split()))


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


def _bare(words: str) -> str:
    """Folded words without articles, which translations and memory add or drop ("amai (os) vossos inimigos")."""
    return " ".join(w for w in words.split() if w not in ARTICLES)


def _spelled(words: list[str]) -> list[str]:
    """Small numbers written as words, as passages are named ("10 virgens" is "dez virgens")."""
    return [_NUMBERS.get(w, w) for w in words]


# words that only frame a request for a passage ("aquele capítulo", "me manda a história de…")
FRAME = frozenset("aquele aquela aquilo capitulo capitulos historia texto passagem trecho versiculo versiculos biblia "
                  "fala falam diz dizem conta conte manda mande mostra mostre onde esta ta qual quais livro quero "
                  "queria ler pastor fica chamava chamavam".split())
OWN_WORD_LENGTH = 7
STEM_PREFIX = 6  # stems cut this short meet across word classes ("sacrifício"/"sacrificar", "prisão"/"preso" do not)
MAX_STEMMED_PHRASE = 6
STEMMED_LENGTH = 5  # shorter words are only themselves ("10 min" is no "dez minas")
# words that ask for a passage as a story when said right before one of its names ("a parábola do semeador")
ASKED_AS_STORY = ("historia", "parabola", "passagem")
MIN_TYPO_LENGTH = 6  # shorter words are too easily another word with one letter changed


def one_edit(a: str, b: str) -> bool:
    """Whether ``a`` becomes ``b`` by one substitution, insertion or deletion."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b)) == 1
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


class NamedPassages:
    """Finds the passage a message names, by its name or one of its variants (longest match wins)."""

    def __init__(self, passages: list[NamedPassage], phrases: dict[str, NamedPassage],
                 proper: frozenset[str] = frozenset()):
        self.passages = passages
        self.proper = proper  # names of people and places, never stemmed ("Pedro" is not "pedra")
        self.titles: frozenset[str] = frozenset()  # the passages' own names, not words of them (set by `load`)
        self.alone: dict[str, NamedPassage] = {}  # a title of one word after its article, said alone (by `load`)
        self.phrases = {" ".join(_spelled(p.split())): passage for p, passage in phrases.items()}
        phrases = self.phrases
        name_words: dict[str, set[str]] = {}
        for phrase, owner in phrases.items():
            name_words.setdefault(owner.name, set()).update(phrase.split())
        self._name_words = {name: frozenset(words) for name, words in name_words.items()}
        self._name_stems: dict[str, frozenset[str]] = {}  # by `_stems_of_names`, as passages are named
        self._corrections: dict[str, str] = {}
        self._vocabulary: dict[tuple[str, int], list[str]] = {}  # (first letter, length) -> words of the names
        for word in sorted({w for p in phrases for w in p.split() if len(w) >= MIN_TYPO_LENGTH}):  # one order
            self._vocabulary.setdefault((word[0], len(word)), []).append(word)
        owners: dict[str, set[str]] = {}
        for phrase, passage in phrases.items():
            for word in phrase.split():
                owners.setdefault(word, set()).add(passage.name)
        by_name = {p.name: p for p in passages}
        # a long word that only one passage's names hold ("diluvio", "getsemani") names it in a short question
        self._own_words = {w: by_name[next(iter(names))] for w, names in owners.items()
                           if len(names) == 1 and len(w) >= OWN_WORD_LENGTH}
        alternation = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
        self._regex = re.compile(rf"(?<!\w)(?:{alternation})(?!\w)") if phrases else None
        # the names' content words as stems, in order: "como Davi venceu Golias" says "Davi vence Golias"
        self._stem = SnowballStemmer()
        self._stemmed: dict[tuple[str, ...], str] = {}
        for phrase in sorted(phrases, key=len):
            key = self._stems(phrase.split())
            if 2 <= len(key) <= MAX_STEMMED_PHRASE:
                self._stemmed.setdefault(key, phrase)

    @classmethod
    def load(cls, bible=None, path: Path = PASSAGES_FILE) -> NamedPassages:
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise PassagesError(f"{path}: {error}") from error
        passages, phrases, absent, titles, alone = [], {}, [], set(), {}
        capitalised: set[str] = set()
        lowercase: set[str] = set()
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
            own = " ".join(v.text for v in verses_of(reference, bible)) if bible else ""
            own_text = f" {_bare(words_of(own))} "
            for sentence in _SENTENCE.split(own):  # a sentence's first word is capitalised whatever it is
                for word in _WORD.findall(sentence)[1:]:
                    (capitalised if word[0].isupper() else lowercase).add(fold(word))
            variants = entry.get("variantes", [])
            # a name repeated as a variant is a verse remembered ("Tudo posso naquele que me fortalece"), no title
            remembered = words_of(name) in {words_of(v) for v in variants}
            for n_phrase, phrase in enumerate([name, *variants]):
                key = words_of(phrase)
                bare = key.split(" ", 1)[1] if key.split(" ", 1)[0] in ARTICLES else key  # "do rico e Lázaro"
                for form in (key, bare):
                    if len(form.split()) >= 2:  # one word alone is never a passage's name...
                        phrases.setdefault(form, passage)
                        if n_phrase == 0 and not remembered and f" {_bare(form)} " not in own_text:  # a title
                            titles.add(form)
                if bare != key and len(bare.split()) == 1:  # ... but "O Pentecostes" is asked as "pentecostes"
                    alone.setdefault(bare, passage)
        if absent:
            log.warning("%s: %d passagem(ns) ausente(s) deste texto bíblico, ignoradas: %s", Path(path).name,
                        len(absent), ", ".join(absent[:5]) + (" …" if len(absent) > 5 else ""))
        named = cls(passages, phrases, frozenset(capitalised - lowercase))
        named.titles = frozenset(" ".join(_spelled(p.split())) for p in titles)
        named.alone = {" ".join(_spelled([word])): passage for word, passage in alone.items()}
        return named

    def find(self, text: str) -> NamedPassage | None:
        match = self.match(text)
        return match[0] if match else None

    def match(self, text: str) -> tuple[NamedPassage, float, bool] | None:
        """The passage named, how much of the message its name is (its content words / the message's), and
        whether the message says the passage's title (a variant may be a verse of it, quoted)."""
        if self._regex is None:
            return None
        words = [self._corrected(w) for w in _spelled(words_of(text).split())]
        literal = [m.group(0) for m in self._regex.finditer(" ".join(words))]
        found = list(dict.fromkeys(literal + self._stem_found(words)))
        if not found:
            content = [w for w in words if w not in STOPWORDS and w not in FRAME]
            alone = self.alone.get(content[0]) if len(content) == 1 else None  # "pentecostes?", "fala do shema"
            return (alone, 1.0, True) if alone is not None else None
        content = [w for w in words if w not in STOPWORDS and w not in FRAME]
        said = set(self._stems(content))
        # the passage whose names hold most of the message's words ("a queda de adão e eva, a serpente e o
        # fruto": the fall, not Eden), then the name holding most; on a tie, one said as it is ("a história da
        # jumenta que falou" over "meu filho… disse", the two sons' parable in other forms), then the longest
        longest = max(found, key=lambda name: (len(said & self._stems_of_names(self.phrases[name])),
                                               len(self._stems(name.split())), name in literal, len(name)))
        passage = self.phrases[longest]
        # "o que é a grande comissão?", "aquele capítulo dos heróis da fé" are all the name; so is a message
        # naming one passage twice ("a ressurreição de Jesus, o túmulo vazio")
        # the message's words its names cover (said as they are or in another form of the word)
        covered = set(self._stems(" ".join(name for name in found if self.phrases[name] is passage).split()))
        named = [w for w in content if self._stems([w]) and self._stems([w])[0] in covered]
        joined = f" {' '.join(words)} "  # a title may overlap a longer variant found first ("moisés e a sarça…")
        titled = any(f" {title} " in joined for title in self.titles if self.phrases.get(title) is passage)
        return passage, min(1.0, len(named) / max(1, len(content))), titled

    def story_asked(self, text: str, passage: NamedPassage) -> bool:
        """Whether the message asks for the passage as a story by one of its names ("preciso da história do bom
        samaritano pra contar às crianças"), whatever else it tells."""
        joined = f" {' '.join(self._corrected(w) for w in _spelled(words_of(text).split()))} "
        names = [name for name, owner in self.phrases.items() if owner is passage]
        return any(f" {name} " in joined for name in names if name.split(" ", 1)[0] in ASKED_AS_STORY) or any(
            f" {container} {prep} {name} " in joined for name in names for container in ASKED_AS_STORY
            for prep in ("de", "do", "da", "dos", "das", "sobre", "sobre o", "sobre a"))

    def words_of_names(self, passage: NamedPassage) -> frozenset[str]:
        """Every word of a passage's name and variants ("José de Arimateia" names its burial of Jesus)."""
        return self._name_words.get(passage.name, frozenset())

    def _stems_of_names(self, passage: NamedPassage) -> frozenset[str]:
        """The stems of every word of the passage's names, read once per passage."""
        stems = self._name_stems.get(passage.name)
        if stems is None:
            stems = self._name_stems[passage.name] = frozenset(self._stems(sorted(self.words_of_names(passage))))
        return stems

    def _stems(self, words: list[str]) -> tuple[str, ...]:
        return tuple(f"{w}=" if w in self.proper or len(w) < STEMMED_LENGTH else self._stem(w)[:STEM_PREFIX]
                     for w in words if w not in STOPWORDS and w not in FRAME and w not in ARTICLES)

    def _stem_found(self, words: list[str]) -> list[str]:
        """Names whose content words the message says in order, in other forms of the same words, with at
        most one word of its own between them ("Abraão ia sacrificar o filho Isaque": "sacrifício de Isaque")."""
        stems = self._stems(words)
        found = []
        for n in range(min(MAX_STEMMED_PHRASE, len(stems)), 1, -1):
            for i in range(len(stems) - n + 1):
                window = stems[i:i + n + 1]
                runs = [window[:n]] + [window[:j] + window[j + 1:] for j in range(1, n) if len(window) > n]
                found += [self._stemmed[run] for run in runs if run in self._stemmed]
        return found

    def within(self, text: str, chapters: list[Reference]) -> NamedPassage | None:
        """The passage the message names inside a chapter it gives ("a mulher virtuosa, Provérbios 31")."""
        passage = self.find(text)
        if passage is None:
            return None
        ref = passage.reference
        return passage if any(c.verse is None and c.book == ref.book and c.chapter <= ref.chapter <= c.last_chapter
                              for c in chapters) else None

    def by_own_word(self, text: str) -> NamedPassage | None:
        """The passage a word of the message belongs to alone, when exactly one passage is so named."""
        found = {self._own_words[w].name: self._own_words[w]
                 for w in (self._corrected(w) for w in _spelled(words_of(text).split())) if w in self._own_words}
        return next(iter(found.values())) if len(found) == 1 else None

    def _corrected(self, word: str) -> str:
        """A long word one letter away from a word of the names ("prodijo", "ressureicao") is taken as it."""
        if len(word) < MIN_TYPO_LENGTH:
            return word
        known = self._corrections.get(word)
        if known is not None:
            return known
        if len(self._corrections) > 50_000:
            self._corrections.clear()
        self._corrections[word] = corrected = self._nearest(word)
        return corrected

    def _nearest(self, word: str) -> str:
        candidates = [c for n in (len(word) - 1, len(word), len(word) + 1)
                      for c in self._vocabulary.get((word[0], n), ())]
        if word in candidates:
            return word
        return next((c for c in candidates if one_edit(word, c)), word)
