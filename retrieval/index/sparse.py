"""BM25 as sparse vectors for Qdrant: document side saturates term frequency, the server applies IDF."""

from __future__ import annotations

import zlib
from collections import Counter

K1, B = 1.5, 0.75


def term_id(stem: str) -> int:
    """A stable id for a stem (independent of any vocabulary built from the corpus)."""
    return zlib.crc32(stem.encode("utf-8")) & 0x7FFFFFFF


def document_vector(stems: list[str], average_length: float) -> tuple[list[int], list[float]]:
    counts = Counter(stems)
    length = max(len(stems), 1)
    norm = K1 * (1 - B + B * length / max(average_length, 1.0))
    pairs = {term_id(t): tf * (K1 + 1) / (tf + norm) for t, tf in counts.items()}
    indices = sorted(pairs)
    return indices, [pairs[i] for i in indices]


def query_vector(weighted_stems: dict[str, float]) -> tuple[list[int], list[float]]:
    pairs: dict[int, float] = {}
    for stem, weight in weighted_stems.items():
        key = term_id(stem)
        pairs[key] = max(pairs.get(key, 0.0), weight)
    indices = sorted(pairs)
    return indices, [pairs[i] for i in indices]
