"""What judges said before: graded (message, verse) pairs as vectors, asked how similar pairs were graded."""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from retrieval.aptness.grades import GradedPair

log = logging.getLogger(__name__)

CLASSES = (2, 1, 0, -1)
SHARPNESS = 8.0  # kernel exp(SHARPNESS * (cos - 1)): cos 1 -> 1, 0.7 -> 0.09
MESSAGES_VERSION = "raw-1"  # part of the message cache key: bump when the way messages are prepared changes
NEIGHBOURS = 12  # graded messages whose apt verses the memory channel offers
NEAREST = 160  # exemplar pairs whose message is closest: only these are compared verse by verse
HARM_SHARPNESS = 4.0  # the harm share's message kernel, softer: a situation like this one counts, not only its twin
HARM_NEAREST = 1000  # pairs the harm share weighs (closest messages first)
PRIOR = 2.0  # pseudo-judgements (at the overall rates) that temper a verse's own rates over few judgements
MEMORY_FEATURES = ("knn_apt", "knn_weak", "knn_off", "knn_harm", "same_apt", "same_harm", "knn_grade",
                   "harm_share", "harm_mass", "verse_apt_rate", "verse_harm_rate")


class VerseVectors:
    """Isolated-verse vectors by corpus position (the builder's embedding cache, float16 in memory)."""

    def __init__(self, matrix: np.ndarray):
        self.matrix = matrix

    @classmethod
    def from_cache(cls, texts: Sequence[str], cache_path: Path) -> VerseVectors:
        from retrieval.index.documents import text_key

        with np.load(cache_path, allow_pickle=False) as data:
            row = {k: i for i, k in enumerate(data["keys"].tolist())}
            vectors = data["vectors"]
            index = np.array([row.get(text_key(t), -1) for t in texts])
            if (index < 0).any():
                raise ValueError(f"{int((index < 0).sum())} versículos sem vetor em {cache_path}")
            return cls(vectors[index].astype(np.float16))

    @classmethod
    def cached(cls, texts: Sequence[str], cache_path: Path, directory: Path) -> VerseVectors:
        """`from_cache`, kept aligned to the corpus in ``directory`` and memory-mapped (restarts skip ~0.4 s)."""
        stat = Path(cache_path).stat()
        key = hashlib.sha256(f"{cache_path.name}|{stat.st_size}|{stat.st_mtime_ns}|{len(texts)}|"
                             f"{hashlib.sha256(chr(10).join(texts).encode()).hexdigest()}".encode()).hexdigest()[:16]
        path = Path(directory) / f"verse-vectors-{key}.npy"
        if path.exists():
            try:
                return cls(np.load(path, mmap_mode="r"))
            except (OSError, ValueError):
                log.warning("vetores alinhados ilegíveis em %s: refeitos", path)
        vectors = cls.from_cache(texts, cache_path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
            np.save(tmp, vectors.matrix)
            tmp.replace(path)
        except OSError as error:
            log.warning("não foi possível guardar os vetores alinhados em %s: %s", path, error)
        return vectors

    @classmethod
    def of_index(cls, bible, embedder_slug: str, index_dir: Path, directory: Path) -> VerseVectors:
        """`cached`, from the index's own embedding cache (OSError or ValueError when it is missing or stale)."""
        cache = Path(index_dir) / "embeddings" / f"{embedder_slug}.npz"
        if not cache.exists():
            raise ValueError(f"vetores dos versículos ausentes em {cache}: rode `python -m retrieval build`")
        return cls.cached([v.text for v in bible.verses], cache, directory)

    def __getitem__(self, positions) -> np.ndarray:
        return self.matrix[positions].astype(np.float32)


class GradeMemory:
    """Graded pairs as (message vector, verse position, grade, situation), searched by kernel similarity."""

    def __init__(self, messages: np.ndarray, pair_message: np.ndarray, pair_position: np.ndarray,
                 pair_grade: np.ndarray, pair_situation: np.ndarray, verses: VerseVectors,
                 situations: Sequence[str] = ()):
        self.messages = messages.astype(np.float32)
        self.pair_message = pair_message
        self.pair_position = pair_position
        self.pair_grade = pair_grade
        self.pair_situation = pair_situation
        self.verses = verses
        self.situations = {name: i for i, name in enumerate(situations)}
        self.texts: dict[str, int] = {}  # message -> row of ``messages`` (filled by `build`)
        self._judged = _judgements(self.pair_position, self.pair_grade)  # per position: judged, apt, tone-deaf
        self._vote = np.select([pair_grade == 2, pair_grade == 1, pair_grade == -1], [1.0, 0.25, -2.0], 0.0)
        # each message's pairs, in pair order: `channel` reads only those of the closest messages
        self._by_message = np.argsort(pair_message, kind="stable")
        self._first_pair = np.searchsorted(pair_message[self._by_message], np.arange(len(messages) + 1))
        self._last: tuple[np.ndarray, np.ndarray] | None = None  # (message, `cosines`), replaced whole: thread-safe

    def cosines(self, message: np.ndarray) -> np.ndarray:
        """The message's cosine to every graded message, kept for the last message (a care search reads it twice:
        the memory channel, then the ranker's features)."""
        message = np.asarray(message, np.float32)
        last = self._last
        if last is not None and np.array_equal(last[0], message):
            return last[1]
        cosine = self.messages @ message
        cosine.flags.writeable = False
        self._last = (message.copy(), cosine)
        return cosine

    @classmethod
    def build(cls, pairs: Sequence[GradedPair], position_of: Callable[[str], int | None], embed,
              verses: VerseVectors, cache_dir: Path | None = None, slug: str = "",
              prepare: Callable[[str], str] = str) -> GradeMemory:
        kept = [(p, position_of(p.verse)) for p in pairs]
        kept = [(p, pos) for p, pos in kept if pos is not None]
        texts = list(dict.fromkeys(p.q for p, _ in kept))
        vectors = message_vectors(texts, embed, cache_dir, slug, prepare)
        row = {t: i for i, t in enumerate(texts)}
        situations = sorted({p.situation for p, _ in kept})
        sid = {s: i for i, s in enumerate(situations)}
        memory = cls(vectors, np.array([row[p.q] for p, _ in kept], dtype=np.int32),
                   np.array([pos for _, pos in kept], dtype=np.int32),
                   np.array([p.grade for p, _ in kept], dtype=np.int8),
                   np.array([sid[p.situation] for p, _ in kept], dtype=np.int32), verses, situations)
        memory.texts = row
        return memory

    def features(self, message: np.ndarray, positions: Sequence[int], exclude: int | None = None) -> np.ndarray:
        """One row per candidate verse: for each grade, the closest graded pair (message and verse alike),
        the same verse graded for a close message, the kernel-weighted grade, and the share (and weight) of
        tone-deaf grades among pairs like this one under a softer kernel (a Nadaraya-Watson estimate of harm for
        this reader). ``exclude`` leaves one situation's own pairs out (training)."""
        out = np.zeros((len(positions), len(MEMORY_FEATURES)), dtype=np.float32)
        if not len(self.pair_grade) or not len(positions):
            return out
        cosine = self.cosines(message)[self.pair_message]
        if exclude is not None:
            cosine = np.where(self.pair_situation == exclude, -np.inf, cosine)
        weight = np.exp(SHARPNESS * (cosine - 1.0))
        candidates = self.verses[list(positions)]
        share = MEMORY_FEATURES.index("harm_share")
        out[:, share:share + 2] = self._harm_share(cosine, candidates)
        chosen = np.argsort(-weight)[:NEAREST]
        weight = weight[chosen]
        grades = self.pair_grade[chosen]
        near_verse = np.exp(SHARPNESS * (candidates @ self.verses[self.pair_position[chosen]].T - 1.0))
        same = np.asarray(positions)[:, None] == self.pair_position[chosen][None, :]
        both = near_verse * weight[None, :]
        for column, grade in enumerate(CLASSES):
            mask = grades == grade
            if mask.any():
                out[:, column] = both[:, mask].max(axis=1)
        out[:, 4] = (same * weight[None, :] * (grades == 2)[None, :]).max(axis=1)
        out[:, 5] = (same * weight[None, :] * (grades == -1)[None, :]).max(axis=1)
        total = both.sum(axis=1)
        out[:, 6] = np.where(total > 1e-9, (both * grades[None, :]).sum(axis=1) / np.maximum(total, 1e-9), 0.5)
        out[:, 9:11] = self._verse_rates(positions, exclude)
        return out

    def _verse_rates(self, positions: Sequence[int], exclude: int | None) -> np.ndarray:
        """Per candidate, whoever asks: the shares of its judgements that found it apt and tone-deaf (smoothed
        towards the overall rates; a verse judged harmful for many pains, such as a call to rejoice, scores high)."""
        judged = self._judged
        if exclude is not None:  # training: the situation's own judgements left out
            own = self.pair_situation == exclude
            judged = judged - _judgements(self.pair_position[own], self.pair_grade[own], judged.shape[1])
        total = judged.sum(axis=1)
        wanted = np.asarray(positions)
        counts = np.zeros((3, len(wanted)), np.float32)
        inside = wanted < judged.shape[1]
        counts[:, inside] = judged[:, wanted[inside]]
        overall = total[1:] / max(total[0], 1.0)
        return ((counts[1:] + PRIOR * overall[:, None]) / (counts[0] + PRIOR)).T

    def _harm_share(self, cosine: np.ndarray, candidates: np.ndarray) -> np.ndarray:
        """Per candidate: tone-deaf grades' share of the kernel weight of the pairs nearest in message and verse
        (smoothed towards 0 where few pairs are near), and their weight."""
        nearest = np.argsort(-cosine)[:HARM_NEAREST]
        weight = np.exp(HARM_SHARPNESS * (cosine[nearest] - 1.0))[None, :] * np.exp(
            SHARPNESS * (candidates @ self.verses[self.pair_position[nearest]].T - 1.0))
        harmful = (weight * (self.pair_grade[nearest] == -1)[None, :]).sum(axis=1)
        return np.stack([harmful / (weight.sum(axis=1) + 0.05), harmful], axis=1)

    def channel(self, message: np.ndarray, limit: int = 30, mask=None, exclude: int | None = None,
                neighbours: int = NEIGHBOURS, floor: float = -1.0) -> list[int]:
        """Verses judged apt for the closest graded messages, most supported first: each of the ``neighbours``
        closest messages (no farther than cosine ``floor``) votes with its kernel weight (apt +1, weak +0.25,
        tone-deaf -2); only verses some close message found apt are offered."""
        if not len(self.pair_grade):
            return []
        cosine = self.cosines(message)
        near = np.where(cosine >= floor, np.exp(SHARPNESS * (cosine - 1.0)), 0.0)
        if exclude is not None:
            near[np.unique(self.pair_message[self.pair_situation == exclude])] = 0.0
        closest = [m for m in np.argsort(-near)[:neighbours] if near[m] > 0]
        pairs = np.sort(np.concatenate([self._by_message[self._first_pair[m]:self._first_pair[m + 1]]
                                        for m in closest] or [np.zeros(0, np.int64)]))
        votes: dict[int, float] = {}
        apt: set[int] = set()
        for position, grade, weight, value in zip(self.pair_position[pairs].tolist(), self.pair_grade[pairs].tolist(),
                                                   near[self.pair_message[pairs]].tolist(), self._vote[pairs].tolist()):
            votes[position] = votes.get(position, 0.0) + weight * value
            if grade == 2:
                apt.add(position)
        ranked = sorted((p for p in apt if votes[p] > 0 and (mask is None or mask[p])), key=lambda p: -votes[p])
        return ranked[:limit]


def _judgements(positions: np.ndarray, grades: np.ndarray, size: int | None = None) -> np.ndarray:
    """Rows (judged, apt, tone-deaf) of counts per corpus position."""
    size = size if size is not None else (int(positions.max()) + 1 if len(positions) else 0)
    rows = [np.bincount(positions, weights=weights, minlength=size)
            for weights in (None, (grades == 2).astype(np.float64), (grades == -1).astype(np.float64))]
    return np.stack(rows).astype(np.float32)


_EMBEDDED: dict[str, np.ndarray] = {}


def message_vectors(texts: list[str], embed, cache_dir: Path | None, slug: str,
                     prepare: Callable[[str], str] = str) -> np.ndarray:
    """The vectors of the messages as the search embeds them (``prepare``), kept in ``cache_dir`` keyed by the
    texts and the embedder (a restart reads them instead of preparing and embedding ~1,300 messages)."""
    if not texts:
        return np.zeros((0, 1), np.float32)
    digest = hashlib.sha256(("\n".join(texts) + slug + MESSAGES_VERSION).encode()).hexdigest()[:16]
    path = Path(cache_dir) / f"aptness-messages-{digest}.npy" if cache_dir else None
    if path is not None and path.exists():
        try:
            return np.load(path)
        except (OSError, ValueError):
            log.warning("vetores das mensagens avaliadas ilegíveis em %s: refeitos", path)
    if digest in _EMBEDDED:  # embedded once per process, whatever the index (another data dir, the same texts)
        vectors = _EMBEDDED[digest]
    else:
        vectors = _EMBEDDED[digest] = np.asarray(embed([prepare(t) for t in texts]), dtype=np.float32)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
            np.save(tmp, vectors)
            tmp.replace(path)
        except OSError as error:
            log.warning("não foi possível guardar os vetores das mensagens avaliadas em %s: %s", path, error)
    return vectors
