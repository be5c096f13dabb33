"""What each verse becomes in the dense index: id, metadata, windowed vector."""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from corpus.bible import Bible
from corpus.canon import BY_CODE
from retrieval.index.embedders import Embedder, embed_in_batches

_NAMESPACE = uuid.UUID("6f1d3c52-9a0e-5b7f-8c21-5a7e0b9d4c11")


def verse_uuid(translation: str, book: str, chapter: int, verse: int) -> str:
    """Deterministic id: UUID v5 of "translation|book|chapter|verse"."""
    return str(uuid.uuid5(_NAMESPACE, f"{translation}|{book}|{chapter}|{verse}"))


def metadata(bible: Bible, position: int) -> dict:
    verse = bible.verses[position]
    book = BY_CODE[verse.book]
    return {"book": verse.book, "chapter": verse.chapter, "verse": verse.verse, "testament": book.testament,
            "group": book.group, "heading": verse.heading or "", "pos": position}


def window_positions(bible: Bible, position: int, window: int) -> list[int]:
    """The verse and up to ``window`` neighbours on each side, within the same chapter."""
    centre = bible.verses[position]
    out = []
    for p in range(max(0, position - window), min(len(bible.verses), position + window + 1)):
        v = bible.verses[p]
        if v.book == centre.book and v.chapter == centre.chapter:
            out.append(p)
    return out


def text_key(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def fingerprints(bible: Bible, window: int, neighbour_weight: float, embedder_slug: str) -> list[str]:
    """Per verse, a hash of everything its dense vector depends on."""
    keys = [text_key(v.text) for v in bible.verses]
    prefix = f"{embedder_slug}|{window}|{neighbour_weight}|"
    out = []
    for position, verse in enumerate(bible.verses):
        parts = ",".join(keys[p] for p in window_positions(bible, position, window))
        out.append(text_key(prefix + (verse.heading or "") + "|" + parts))
    return out


class EmbeddingCache:
    """Isolated-verse vectors keyed by text hash, saved per embedder: only new texts are embedded."""

    def __init__(self, path: Path, dimension: int):
        self.path = path
        self.vectors: dict[str, np.ndarray] = {}
        if path.exists():
            with np.load(path, allow_pickle=False) as data:
                if data["vectors"].shape[1] == dimension:
                    self.vectors = dict(zip(data["keys"].tolist(), data["vectors"]))

    def ensure(self, texts: Sequence[str], embedder: Embedder, batch: int = 512, log=lambda _: None) -> int:
        """Embed the texts not cached yet; returns how many were embedded."""
        missing = list(dict.fromkeys(t for t in texts if text_key(t) not in self.vectors))
        done = 0
        for chunk, vectors in embed_in_batches(embedder, missing, batch):
            for text, vector in zip(chunk, vectors):
                self.vectors[text_key(text)] = vector
            done += len(chunk)
            log(f"embeddings: {done}/{len(missing)}")
        return len(missing)

    def get(self, text: str) -> np.ndarray:
        return self.vectors[text_key(text)]

    def save(self) -> None:
        keys = np.array(list(self.vectors), dtype="U32")
        vectors = np.stack(list(self.vectors.values())) if self.vectors else np.zeros((0, 1), np.float32)
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp.npz")
        np.savez(tmp, keys=keys, vectors=vectors.astype(np.float32))
        tmp.replace(self.path)


def window_vectors(bible: Bible, positions: Sequence[int], cache: EmbeddingCache, window: int,
                   neighbour_weight: float) -> np.ndarray:
    """Each verse's vector blended with its neighbours' (weight ``neighbour_weight``), normalised."""
    out = []
    for position in positions:
        total = None
        for p in window_positions(bible, position, window):
            weight = 1.0 if p == position else neighbour_weight
            vector = cache.get(bible.verses[p].text) * weight
            total = vector if total is None else total + vector
        out.append(total / max(float(np.linalg.norm(total)), 1e-12))
    return np.asarray(out, dtype=np.float32)
