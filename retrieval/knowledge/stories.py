"""Bible stories by meaning: a question that tells a story in its own words ("a cobra que enganou a mulher no
jardim", "o homem que construiu um barco e pôs os bichos dentro") reaches the named passage whose names and
verses are nearest it in the embedder's space, with no phrase of it written in passages.toml."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus.references import verses_of
from retrieval.arrays import save_arrays
from retrieval.knowledge.passages import NamedPassages

log = logging.getLogger(__name__)

VERSION = 1  # part of the cache key: bump when the way passages are embedded changes
NAME_SHARE = 0.7  # a passage's meaning: its names (what people call it) weigh more than its verses' mean
FLOOR = 0.40  # cosine between the message and a passage's meaning, for a question about Scripture
SURE = 0.50  # as near as this, a message of any other intent but chat tells the story too
MARGIN = 0.05  # nearer the message than to any question with no subject ("o que a Bíblia diz?"): the Bereans
NAMES_PER_PASSAGE = 7  # the name and the first variants
TIE = 0.03  # a second passage this close to the first is told too ("a entrada de Jesus em Jerusalém": not only
# the Ascension, whose name is as near)

Embed = Callable[[Sequence[str]], np.ndarray]


def _unit(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    return matrix / np.maximum(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12)


def meanings(name_vectors: np.ndarray, verse_means: np.ndarray, name_share: float = NAME_SHARE) -> np.ndarray:
    """Each passage's meaning: its names' vector and its verses' mean vector, both unit, blended."""
    return _unit(name_share * _unit(name_vectors) + (1.0 - name_share) * _unit(verse_means))


def nearest(similarity: np.ndarray, frame_similarity: np.ndarray, floor: float = FLOOR,
            margin: float = MARGIN, tie: float = TIE) -> list[int]:
    """The rows of the passages nearest the message, near enough and nearer than to a bare question frame: the
    nearest, and the next when it is as near within ``tie``."""
    fit = np.flatnonzero((similarity >= floor) & (similarity - frame_similarity >= margin))
    ranked = fit[np.argsort(-similarity[fit], kind="stable")][:2]
    return [int(r) for r in ranked if similarity[r] >= similarity[ranked[0]] - tie]


@dataclass(frozen=True)
class StoryMeanings:
    """Every named passage as one unit vector, with the positions of its verses and every verse's vector."""

    names: tuple[str, ...]
    positions: tuple[tuple[int, ...], ...]
    vectors: np.ndarray
    frame_similarity: np.ndarray  # each passage's nearness to a question with no subject
    verse_vectors: object  # the index's verse vectors (VerseVectors): a passage's verses are ordered by them

    @staticmethod
    def texts(passages: NamedPassages) -> tuple[list[str], list[str]]:
        """(passage names, what each is called: its name and first variants joined)."""
        called: dict[str, list[str]] = {}
        for phrase, passage in passages.phrases.items():
            called.setdefault(passage.name, []).append(phrase)
        names = [p.name for p in passages.passages]
        return names, ["; ".join([name, *called.get(name, [])[:NAMES_PER_PASSAGE - 1]]) for name in names]

    @staticmethod
    def positions_of(passages: NamedPassages, bible) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(bible.position(*v.key) for v in verses_of(p.reference, bible)) for p in passages.passages)

    @classmethod
    def build(cls, passages: NamedPassages, bible, verse_vectors, embed: Embed, frames: Sequence[str] = (),
              positions: tuple[tuple[int, ...], ...] | None = None) -> StoryMeanings:
        names, called = cls.texts(passages)
        positions = positions if positions is not None else cls.positions_of(passages, bible)
        means = np.vstack([_unit(np.asarray(verse_vectors[list(ps)], np.float32)).mean(axis=0) for ps in positions])
        vectors = meanings(embed(called), means)
        frame_similarity = (vectors @ _unit(embed(list(frames))).T).max(axis=1) if frames else np.zeros(len(names))
        return cls(tuple(names), positions, vectors, frame_similarity.astype(np.float32), verse_vectors)

    @classmethod
    def cached(cls, passages: NamedPassages, bible, verse_vectors, embed: Embed, embedder_slug: str,
               directory: Path | None, frames: Sequence[str] = ()) -> StoryMeanings:
        """`build`, kept in ``directory`` under a key of the passages' names and verses, the frames and the
        embedder."""
        names, called = cls.texts(passages)
        key_text = "\n".join([f"{VERSION}|{NAME_SHARE}|{embedder_slug}|{len(bible.verses)}", *called,
                              *(repr(p.reference) for p in passages.passages), "", *frames])
        key = hashlib.sha256(key_text.encode()).hexdigest()[:16]
        path = Path(directory) / f"story-meanings-{key}.npz" if directory is not None else None
        positions = cls.positions_of(passages, bible)
        if path is not None and path.exists():
            try:
                with np.load(path, allow_pickle=False) as data:
                    vectors, frame_similarity = data["vectors"], data["frame_similarity"]
                if vectors.shape[0] == len(names):
                    return cls(tuple(names), positions, vectors, frame_similarity, verse_vectors)
            except (OSError, ValueError, KeyError) as error:
                log.warning("passagens pelo sentido em cache ilegíveis (%s): refeitas", error)
        stories = cls.build(passages, bible, verse_vectors, embed, frames, positions)
        if path is not None:
            save_arrays(path, "as passagens pelo sentido", vectors=stories.vectors,
                        frame_similarity=stories.frame_similarity)
        return stories

    def about(self, vector: np.ndarray) -> tuple[list[int], float]:
        """The rows of the passages a message tells (none when no passage is near enough), and the best cosine."""
        similarity = self.vectors @ _unit(vector)
        rows = nearest(similarity, self.frame_similarity)
        return rows, float(similarity[rows[0]]) if rows else 0.0

    def verses(self, rows: list[int], vector: np.ndarray, mask: np.ndarray | None, limit: int) -> list[int]:
        """The verses of the passages ``rows``, nearest the message first, one passage after the other."""
        ranked = []
        for row in rows:
            positions = [p for p in self.positions[row] if mask is None or mask[p]]
            if positions:
                cosine = _unit(np.asarray(self.verse_vectors[positions], np.float32)) @ _unit(vector)
                ranked.append([positions[i] for i in np.argsort(-cosine, kind="stable")])
        interleaved = [p for group in zip(*ranked) for p in group] + [p for group in ranked for p in group]
        return list(dict.fromkeys(interleaved))[:limit]
