"""The pastoral map: life situations -> the person's needs -> Scripture (data in retrieval/data/)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus.bible import Bible
from corpus.references import find_references, verses_of
from corpus.text import fold, normalize
from retrieval.understand.message import asks_for_task, says, tells_own_life
from retrieval.understand.tone import pattern_regex

DATA = Path(__file__).resolve().parent.parent / "data"
TONES = ("aflicao", "direcao", "alegria")

class PastoralMapError(ValueError):
    """The pastoral map's data files are inconsistent; the message names the entry."""


@dataclass(frozen=True)
class Need:
    key: str
    name: str
    references: tuple[str, ...]  # as a pastor writes them: "Salmos 34:18"
    topics: tuple[str, ...]  # OpenBible topic names


@dataclass(frozen=True)
class Situation:
    id: str
    tone: str  # "aflicao", "direcao" or "alegria"
    needs: tuple[str, ...]  # most urgent first
    phrases: tuple[str, ...]  # how people tell it
    references: tuple[str, ...] = ()  # passages of this situation itself, shown before the needs'
    words: tuple[str, ...] = ()  # words that by themselves tell this situation ("enchente", "demiti*")
    excludes: tuple[str, ...] = ()  # situations never read together with this one (abuse, not marriage renewal)
    unless: tuple[str, ...] = ()  # words that rule this situation out ("morreu" for an illness, "curado")
    needs_words: bool = False  # only its own words tell it (grief: a friend who moved away is not mourned)


@dataclass(frozen=True)
class PastoralMap:
    needs: dict[str, Need]
    situations: tuple[Situation, ...]

    @classmethod
    def load(cls, directory: Path = DATA) -> PastoralMap:
        directory = Path(directory)
        needs_data = _toml(directory / "needs.toml")
        needs = {key: Need(key, entry.get("nome", key), tuple(entry.get("versiculos", ())),
                           tuple(t.lower() for t in entry.get("topicos", ())))
                 for key, entry in needs_data.items()}
        situations, seen = [], set()
        for entry in _toml(directory / "situations.toml").get("situacao", []):
            sid = entry.get("id", "")
            if not sid or sid in seen:
                raise PastoralMapError(f"situations.toml: situação sem id ou repetida: {sid!r}")
            seen.add(sid)
            if entry.get("tom") not in TONES:
                raise PastoralMapError(f"situations.toml: {sid}: tom deve ser um de {', '.join(TONES)}")
            unknown = [n for n in entry.get("necessidades", ()) if n not in needs]
            if unknown or not entry.get("necessidades"):
                raise PastoralMapError(f"situations.toml: {sid}: necessidades desconhecidas ou ausentes: {unknown}")
            if not entry.get("frases"):
                raise PastoralMapError(f"situations.toml: {sid}: sem frases")
            situations.append(Situation(sid, entry["tom"], tuple(entry["necessidades"]), tuple(entry["frases"]),
                                        tuple(entry.get("versiculos", ())), tuple(entry.get("palavras", ())),
                                        tuple(entry.get("nao_combinar", ())), tuple(entry.get("exceto", ())),
                                        bool(entry.get("exige_palavras", False))))
        unknown = sorted({x for s in situations for x in s.excludes} - seen)
        if unknown:
            raise PastoralMapError(f"situations.toml: nao_combinar cita situações inexistentes: {unknown}")
        return cls(needs, tuple(situations))

    @property
    def topics(self) -> set[str]:
        return {t for need in self.needs.values() for t in need.topics}

    def problems(self, bible: Bible) -> list[str]:
        """References of the map that do not parse or are not in ``bible``."""
        out = []
        for owner, refs in [(f"necessidade {n.key}", n.references) for n in self.needs.values()] + \
                           [(f"situação {s.id}", s.references) for s in self.situations]:
            for text in refs:
                if not _positions(text, bible):
                    out.append(f"{owner}: {text!r} não existe em {bible.name or 'no corpus'}")
        return out


def _toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise PastoralMapError(f"{path.name}: {error}") from error


def _positions(text: str, bible: Bible) -> list[int]:
    refs = find_references(text)
    if len(refs) != 1:
        return []
    return [bible.position(*v.key) for v in verses_of(refs[0], bible)]


@dataclass(frozen=True)
class Recognised:
    """A situation the message tells, with how closely (cosine of its nearest phrase, plus a bonus
    when the message says one of the situation's own words)."""

    situation: Situation
    score: float
    said: bool = False


@dataclass(frozen=True)
class NeedRanking:
    positions: list[int]  # verse positions, best first
    reasons: dict[int, str]  # position -> the situation or need that brought it
    curated: frozenset[int]  # chosen by hand in the map (the harm guard trusts them)


class PastoralReader:
    """Recognises situations in a message and ranks Scripture by the needs they raise."""

    def __init__(self, pastoral_map: PastoralMap, bible: Bible, embedder, topics=None,
                 threshold: float = 0.55, margin: float = 0.1, most: int = 2, word_bonus: float = 0.2):
        self.map = pastoral_map
        self.topics = topics
        self.threshold = threshold  # calibrated for USE-m3: off-topic questions stayed below 0.5
        self.margin = margin  # a second situation counts when this close to the first
        self.most = most
        self.word_bonus = word_bonus  # meaning and words agree: the message says the situation's own words
        self._words = {s.id: pattern_regex(s.words) for s in pastoral_map.situations if s.words}
        self._first_words, self._first_prefixes = _first_words(pastoral_map.situations)
        self._unless = {s.id: pattern_regex(s.unless) for s in pastoral_map.situations if s.unless}
        self._needs_words = {s.id for s in pastoral_map.situations if s.needs_words}
        self._by_id = {s.id: s for s in pastoral_map.situations}
        self.need_passages = {k: _passages(n.references, bible) for k, n in pastoral_map.needs.items()}
        self.situation_passages = {s.id: _passages(s.references, bible) for s in pastoral_map.situations}
        phrases = [(s, p) for s in pastoral_map.situations for p in s.phrases]
        self._owner = [s for s, _ in phrases]
        self._ids = [s.id for s in pastoral_map.situations]
        self._owner_index = np.array([self._ids.index(s.id) for s in self._owner], dtype=np.intp)
        self._vectors = embedder.embed([p for _, p in phrases]) if phrases else np.zeros((0, 1), np.float32)

    def said(self, text: str) -> set[str]:
        """Situations whose own words the message says, not negated ("não passei" is no pass)."""
        return self._said(fold(normalize(text)))

    def _said(self, folded: str) -> set[str]:
        tokens = {w.strip(".,;:!?()\"'") for w in folded.split()} | set(re.findall(r"\w+", folded))
        candidates = set().union(*(self._first_words.get(t, ()) for t in tokens),
                                 *(self._first_prefixes.get(t[:n], ()) for t in tokens for n in range(1, len(t) + 1)))
        return {sid for sid in candidates if says(self._words[sid], folded)}

    def recognise(self, vector: np.ndarray, text: str = "") -> list[Recognised]:
        """Situations the message tells, closest first: the nearest phrase's cosine, plus a bonus for the
        situation's own words. When the words name situations, a guess by meaning alone is left out
        (the embedder hardly tells "passei" from "não passei"), and so is a situation another excludes
        or whose ``exceto`` words the message says."""
        if not len(self._owner) or (text and asks_for_task(text)):
            return []
        best, said = self._scores(vector, text)
        if any(best[sid] >= self.threshold for sid in said):
            best = {sid: best[sid] for sid in said}
        ranked = sorted(best.items(), key=lambda kv: -kv[1])
        if not ranked or ranked[0][1] < self.threshold:
            return []
        top = ranked[0][1]
        out: list[Recognised] = []
        for sid, value in ranked:
            if value < self.threshold or value < top - self.margin or len(out) == self.most:
                break
            situation = self._by_id[sid]
            if any(sid in r.situation.excludes or r.situation.id in situation.excludes for r in out):
                continue
            out.append(Recognised(situation, round(value, 4), sid in said))
        return out

    def _scores(self, vector: np.ndarray, text: str) -> tuple[dict[str, float], set[str]]:
        """Each situation's score (nearest phrase's cosine, plus the word bonus) and those the words say."""
        similarities = self._vectors @ np.asarray(vector, dtype=np.float32)
        nearest = np.full(len(self._ids), -1.0, dtype=np.float32)
        np.maximum.at(nearest, self._owner_index, similarities)
        best = dict(zip(self._ids, nearest.tolist()))
        if not text:
            return {sid: v for sid, v in best.items() if sid not in self._needs_words}, set()
        folded = fold(normalize(text))
        said = self._said(folded)
        for sid in self._needs_words - said:
            best.pop(sid, None)
        if float(nearest.max()) < self.threshold and not tells_own_life(folded):
            said = set()  # words alone do not turn a fragment ("cansados e oprimidos") into a life story
        for sid in said:
            best[sid] += self.word_bonus
        for sid, regex in self._unless.items():
            if says(regex, folded):
                best.pop(sid, None)
                said.discard(sid)
        return best, said

    def ranking(self, recognised: list[Recognised], limit: int = 100) -> NeedRanking:
        """Verses for the recognised situations: their own, then each need's chosen passages, then its topic votes.

        Needs take turns (the first need of each situation first), each turn bringing one passage not
        yet chosen, so the most urgent need of every situation reaches the top even when needs share verses.
        """
        out: list[int] = []
        reasons: dict[int, str] = {}

        def add(positions: list[int], reason: str) -> None:
            for position in positions:
                if position not in reasons:
                    reasons[position] = reason
                    out.append(position)

        def take_turns(tagged: list[tuple[str, list[list[int]]]], suffix: str = "") -> None:
            queues = [(need, iter(passages)) for need, passages in tagged]
            while queues:
                for entry in list(queues):
                    need, passages = entry
                    passage = next((p for p in passages if any(q not in reasons for q in p)), None)
                    if passage is None:
                        queues.remove(entry)
                    else:
                        add(passage, f"necessidade: {self.map.needs[need].name}{suffix}")

        for r in recognised:
            for passage in self.situation_passages.get(r.situation.id, ()):
                add(passage, f"situação {r.situation.id}")
        needs = list(dict.fromkeys(_interleave([list(r.situation.needs) for r in recognised])))
        take_turns([(n, self.need_passages[n]) for n in needs])
        curated = frozenset(out)
        if self.topics is not None:
            take_turns([(n, [[p] for p, _ in self.topics.ranking(self.map.needs[n].topics, limit)]) for n in needs],
                       " (tópicos)")
        return NeedRanking(out[:limit], reasons, curated)


def _first_words(situations) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Each pattern's first word -> the situations it may say (exact words, and "*" prefixes): only
    those situations' patterns are tried on a message."""
    exact: dict[str, set[str]] = {}
    prefixes: dict[str, set[str]] = {}
    for situation in situations:
        for pattern in situation.words:
            first = fold(pattern).split()[0]
            target = prefixes if first.endswith("*") else exact
            target.setdefault(first.rstrip("*"), set()).add(situation.id)
    return exact, prefixes


def _passages(references: tuple[str, ...], bible: Bible) -> list[list[int]]:
    """Verse positions of each reference that exists in this corpus (a New Testament alone has no Psalms)."""
    return [positions for text in references if (positions := _positions(text, bible))]


def _interleave(lists: list[list]) -> list:
    out = []
    for i in range(max((len(items) for items in lists), default=0)):
        out += [items[i] for items in lists if i < len(items)]
    return out
