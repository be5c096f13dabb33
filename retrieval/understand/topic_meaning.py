"""OpenBible topics chosen by meaning: the message and the topics' (English) names in the embedder's
multilingual space, so "é pecado ler horóscopo?" reaches "astrology" with no word list written for it."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from retrieval.arrays import BoundedRows, save_arrays
from retrieval.understand.topics import TopicIndex

log = logging.getLogger(__name__)

FRAMES_FILE = Path(__file__).resolve().parent.parent / "data" / "topic_frames.txt"
VERSION = 1  # part of the cache key: bump when the way names are embedded changes
NEAREST = 4  # topics whose verses one message may bring
FLOOR = 0.42  # cosine between the message and a topic's name
MARGIN = 0.05  # closer to the message than to any question frame with no subject ("o que a Bíblia diz?")
MIN_VERSES = 3  # a topic of one or two verses is one person's note, not the community's

Embed = Callable[[Sequence[str]], np.ndarray]


def read_frames(path: Path = FRAMES_FILE) -> list[str]:
    """Questions with no subject, one a line (``#`` comments): what every question's frame looks like."""
    lines = [line.strip() for line in Path(path).read_text(encoding="utf-8").splitlines()]
    frames = [line for line in lines if line and not line.startswith("#")]
    if not frames:
        raise ValueError(f"{path}: nenhuma pergunta-moldura")
    return frames


def _unit(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    return matrix / np.maximum(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12)


def chosen_topics(similarity: np.ndarray, frame_similarity: np.ndarray, sizes: np.ndarray,
                  nearest: int = NEAREST, floor: float = FLOOR, margin: float = MARGIN,
                  min_verses: int = MIN_VERSES) -> list[tuple[int, float]]:
    """(topic row, cosine) of the topics a message is about, nearest first."""
    fit = (similarity >= floor) & (similarity - frame_similarity >= margin) & (sizes >= min_verses)
    rows = np.flatnonzero(fit)
    best = rows[np.argsort(-similarity[rows], kind="stable")][:nearest]
    return [(int(r), float(similarity[r])) for r in best]


def voted_ranking(chosen: list[tuple[list[tuple[int, float]], float]], mask: np.ndarray | None,
                  limit: int) -> list[int]:
    """Verse positions by the topics' vote shares, each topic weighted by how near the message it is."""
    scores: dict[int, float] = {}
    for verses, weight in chosen:
        for position, share in verses:
            if mask is None or mask[position]:
                scores[position] = scores.get(position, 0.0) + share * weight
    return [p for p, _ in sorted(scores.items(), key=lambda ps: (-ps[1], ps[0]))[:limit]]


@dataclass(frozen=True)
class TopicMeanings:
    """Every topic's name as a unit vector, and how near each is to a question with no subject."""

    names: tuple[str, ...]
    vectors: np.ndarray
    frame_similarity: np.ndarray
    sizes: np.ndarray

    def __post_init__(self):  # the names are read once a message, by the topics channel and the relevance model
        object.__setattr__(self, "_names", BoundedRows.whole(self.vectors))

    def similarity(self, vector: np.ndarray) -> np.ndarray:
        """Cosine of a message (its embedding) to every topic's name."""
        return self._names.bounds(_unit(vector))[0]

    @classmethod
    def build(cls, topics: TopicIndex, embed: Embed, frames: Sequence[str], batch: int = 256) -> TopicMeanings:
        names = tuple(sorted(topics.topics))
        vectors = _unit(np.vstack([embed(list(names[i:i + batch])) for i in range(0, len(names), batch)]))
        frame_vectors = _unit(embed(list(frames)))
        return cls(names, vectors, (vectors @ frame_vectors.T).max(axis=1),
                   np.array([len(topics.topics[n]) for n in names]))

    @classmethod
    def cached(cls, topics: TopicIndex, embed: Embed, embedder_slug: str, directory: Path | None,
               frames_path: Path = FRAMES_FILE) -> TopicMeanings:
        """`build`, kept in ``directory`` under a key of the names, the frames and the embedder."""
        frames = read_frames(frames_path)
        names = sorted(topics.topics)
        key = hashlib.sha256("\n".join([f"{VERSION}|{embedder_slug}", *frames, "", *names]).encode()).hexdigest()[:16]
        path = Path(directory) / f"topic-meanings-{key}.npz" if directory is not None else None
        if path is not None and path.exists():
            try:
                with np.load(path, allow_pickle=False) as data:
                    return cls(tuple(names), data["vectors"], data["frame_similarity"],
                               np.array([len(topics.topics[n]) for n in names]))
            except (OSError, ValueError, KeyError) as error:
                log.warning("nomes de tópicos em cache ilegíveis (%s): refeitos", error)
        meanings = cls.build(topics, embed, frames)
        if path is not None:
            save_arrays(path, "os nomes de tópicos", vectors=meanings.vectors,
                        frame_similarity=meanings.frame_similarity)
        return meanings

    def about(self, vector: np.ndarray) -> list[tuple[str, float]]:
        """The topics a message (its embedding) is about, nearest first."""
        similarity = self.similarity(vector)
        return [(self.names[r], s) for r, s in chosen_topics(similarity, self.frame_similarity, self.sizes)]

    def ranking(self, vector: np.ndarray, topics: TopicIndex, mask: np.ndarray | None, limit: int) -> list[int]:
        return voted_ranking([(topics.topics[name], s) for name, s in self.about(vector)], mask, limit)
