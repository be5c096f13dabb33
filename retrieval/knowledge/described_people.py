"""Bible people as askers describe them without the name ("o cara que foi engolido por um peixe"): a question that
asks for someone described is compared with the descriptions helpers wrote (retrieval/data/people_described.jsonl)
by its content words and its meaning; the nearest ones name their person when they agree, or when the verses the
search found for the question speak of that person. A learned gate reads whether a message asks for someone
described at all, against messages of other kinds and questions about someone named
(retrieval/data/people_named.jsonl), whatever other names it says ("o marido da Bate-Seba que Davi…")."""

from __future__ import annotations

import hashlib
import logging
import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from retrieval.index.text_vectors import remembered
from retrieval.knowledge.passages import words_of
from retrieval.knowledge.retellings import CONTRAST, RIVAL, Retellings, cached_retellings, unit

log = logging.getLogger(__name__)

DESCRIPTIONS_FILE = Path(__file__).resolve().parent.parent / "data" / "people_described.jsonl"
NAMED_FILE = Path(__file__).resolve().parent.parent / "data" / "people_named.jsonl"
VERSION = 1  # part of the asking gate's cache key: bump when the way it is read changes
WORDS_SHARE = 0.5  # of a description's nearness: its content words (tf-idf), the rest its meaning
SURE = 0.55  # the nearest description this near, with AGREEING of the three nearest on its person, names them
AGREEING = 2
AHEAD = 0.1  # … or this much nearer than any description of another person (one fact only it tells)
NEIGHBOURS = 10  # descriptions whose persons are weighed when the verses found must confirm one
CONFIRMED = 0.35  # … the nearest description of the person the verses speak of, at least this near
ASKED_FLOOR = 0.50  # a message the gate reads as asking for someone described names the person of its nearest
# description (n-grams beside meaning) this near, nearer than any message of another kind, two of three agreeing

Embed = Callable[[Sequence[str]], np.ndarray]


def load_descriptions(path: Path = DESCRIPTIONS_FILE) -> list[tuple[str, str]]:
    """(person id, description) pairs (JSONL: "person", "q"); a malformed line is an error naming the file."""
    from retrieval.understand.textmodel import read_bank

    return read_bank(path, lambda row: (str(row["person"]).strip(), str(row["q"]).strip()),
                     lambda row: bool(row[0]) and bool(row[1]), "pessoa e texto obrigatórios")


def load_named(path: Path = NAMED_FILE) -> list[str]:
    """Questions about someone named ("o que Jonatas fez por Davi?"; the descriptions' format, "person" the name as
    written), which the asking gate learns are no description; a malformed line is an error naming the file."""
    return [q for _, q in load_descriptions(path)]


@dataclass(frozen=True)
class DescribedPeople:
    """Each description's person (Theographic id), meaning (unit vector) and content words (tf-idf rows)."""

    ids: tuple[str, ...]
    vectors: np.ndarray
    words: object  # a fitted TfidfVectorizer over the descriptions' folded content words
    matrix: object  # its sparse rows, unit length
    texts: tuple[str, ...] = ()
    asking: Retellings | None = None  # the descriptions (a row per person of `asked_ids`) beside other kinds, gated
    asked_ids: tuple[str, ...] = ()
    names: tuple[frozenset[str], ...] = ()  # the people each description names ("…o irmão Adonias": Adonias, Davi)

    def other_facts(self, named: frozenset[str]) -> frozenset[int]:
        """The descriptions that name someone the message names and someone else it does not, while it names
        someone they do not: another fact about the same people ("o filho de Davi que mandou matar o irmão Adonias"
        is no answer to "…de Davi… matar o irmão Amnom"; "o espião da tribo de Judá…" shares no one with "fora o
        Josué…" and stays)."""
        if not named or not self.names:
            return frozenset()
        sharing = {i for who in named for i in self._naming.get(who, ())}  # the descriptions naming someone said
        return frozenset(i for i in sharing if self.names[i] - named and named - self.names[i])

    @cached_property
    def _naming(self) -> dict[str, tuple[int, ...]]:
        """Person id -> the descriptions that name them."""
        naming: dict[str, list[int]] = defaultdict(list)
        for i, said in enumerate(self.names):
            for who in said:
                naming[who].append(i)
        return {who: tuple(rows) for who, rows in naming.items()}

    def asked(self, text: str, vector: np.ndarray, named: frozenset[str] = frozenset()) -> str | None:
        """The id of the person a message asks for by a description, whatever other names it says: when the gate
        reads it as such a question and its nearest descriptions agree, near enough and nearer than any message of
        another kind; None when one of the three nearest descriptions is of someone it names (``named``: "naamã,
        o chefe do exército que tinha lepra, quem era?" asks for Naamã, not the prophet who healed him)."""
        if self.asking is None:
            return None
        avoid = frozenset(i for i, who in enumerate(self.asked_ids) if who in named)
        found = self.asking.telling(text, vector, floor=math.inf, margin=0.0, like_floor=ASKED_FLOOR, avoid=avoid,
                                    drop=self.other_facts(named))
        return self.asked_ids[found[0]] if found is not None else None

    def nearness(self, text: str, vector: np.ndarray) -> np.ndarray:
        """How near the question is to each description: content words and meaning, blended."""
        words = self.words.transform([words_of(text)])
        return WORDS_SHARE * (self.matrix @ words.T).toarray().ravel() + \
            (1 - WORDS_SHARE) * (self.vectors @ unit(vector))

    def person(self, text: str, vector: np.ndarray, spoken_of: frozenset[str] = frozenset(),
               named: frozenset[str] = frozenset()) -> str | None:
        """The id of the person described: the nearest descriptions' when near and agreeing (or far ahead of any
        other person's); else the nearest
        among the people ``spoken_of`` by the verses found, when near enough; else None. Never someone the
        message names (``named``: "com quem a Rute casou?" is not Rute)."""
        near = self.nearness(text, vector)
        if named:
            near = np.where([i in named for i in self.ids], -np.inf, near)
            if other := self.other_facts(named):
                near[np.fromiter(other, np.intp)] = -np.inf
        top = np.argsort(-near, kind="stable")[:NEIGHBOURS]
        best = self.ids[top[0]]
        other = next((near[i] for i in top if self.ids[i] != best), -np.inf)
        if near[top[0]] >= SURE and (sum(self.ids[i] == best for i in top[:3]) >= AGREEING or
                                     near[top[0]] - other >= AHEAD):
            return best
        weight: dict[str, float] = defaultdict(float)
        for i in top:
            if self.ids[i] in spoken_of and near[i] >= CONFIRMED:
                weight[self.ids[i]] += float(near[i])
        return max(weight, key=weight.get) if weight else None

    @classmethod
    def build(cls, descriptions: Sequence[tuple[str, str]], known: set[str], stopwords: frozenset[str],
              embed: Embed, embedder_slug: str, directory: Path | None) -> DescribedPeople | None:
        """The descriptions of people the index knows (their vectors kept in ``directory``); None without any.
        A description of someone unknown is said in the log."""
        from sklearn.feature_extraction.text import TfidfVectorizer

        if missing := sorted({who for who, _ in descriptions if who not in known}):
            log.warning("pessoas descritas que os dados de pessoas não têm (ignoradas): %s", ", ".join(missing))
        kept = [(who, text) for who, text in descriptions if who in known]
        if not kept:
            return None
        texts = [text for _, text in kept]
        words = TfidfVectorizer(token_pattern=r"\b\w\w+\b", stop_words=sorted(stopwords), sublinear_tf=True,
                                dtype=np.float32)
        matrix = words.fit_transform([words_of(t) for t in texts])
        vectors = unit(remembered(embed, embedder_slug, directory)(texts))
        return cls(tuple(who for who, _ in kept), vectors, words, matrix, tuple(texts))

    def gated(self, others: Sequence[str], contrasts: Sequence[str], embed: Embed, embedder_slug: str,
              directory: Path | None) -> DescribedPeople:
        """These descriptions with the asking gate, learned against ``others`` (messages of other kinds, which a
        description must be nearer than) and ``contrasts`` (questions about someone named, stories asked for,
        verses quoted: they only teach the gate); kept in ``directory`` under a key of every text and the embedder."""
        from dataclasses import replace

        from retrieval.understand.intent import embedding_text

        asked_ids = tuple(dict.fromkeys(self.ids))
        row_of = {who: row for row, who in enumerate(asked_ids)}
        texts = [*self.texts, *others, *contrasts]
        rows = np.array([*(row_of[who] for who in self.ids), *([RIVAL] * len(others)),
                         *([CONTRAST] * len(contrasts))], dtype=np.int32)
        key = hashlib.sha256("\n".join([f"{VERSION}|{embedder_slug}", *map(str, rows), "", *texts]).encode()
                             ).hexdigest()[:16]
        path = Path(directory) / f"asked-{key}.npz" if directory is not None else None
        asking = cached_retellings(path, texts, rows, lambda: unit(remembered(embed, embedder_slug, directory)(
            [embedding_text(t) for t in texts])), "as perguntas por alguém descrito")
        return replace(self, asking=asking, asked_ids=asked_ids)
