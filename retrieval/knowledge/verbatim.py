"""Runs of words a verse holds, over the whole Bible: a message quoting a verse word for word finds it."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

import numpy as np

from retrieval.index.lexical import STOPWORDS
from retrieval.knowledge.passages import ARTICLES, words_of

log = logging.getLogger(__name__)
VERSION = 3  # part of the cache key: bump when runs are made differently
RUN = 5  # this many words of a verse in a row (articles aside) make a message a quotation of it
RARE = 4  # a run more verses hold than this is a formula of narration, not one verse
MIN_CONTENT = 2  # words of a run that are not stopwords
_BASE = np.int64(1_000_003)
RECENT = 256  # messages whose quotations are remembered
_SENTENCE_END = re.compile(r"[.!?;:\n…]+")  # the message's sentences, and a line said after a colon ("ele disse:")


def bare_words(text: str) -> list[str]:
    """Folded words without articles, which translations and memory add or drop ("o teu povo será…")."""
    return [w for w in words_of(text).split() if w not in ARTICLES]


def _sequences(text: str) -> tuple[list[str], list[str]]:
    """The words as typed and without articles: a run of either is a quotation ("a alegria do Senhor é…")."""
    words = words_of(text).split()
    return words, [w for w in words if w not in ARTICLES]


def quoted_runs(text: str, min_content: int = 0) -> set[tuple[str, ...]]:
    """The runs of a text's words, as typed and without articles."""
    return {run for sequence in _sequences(text) for run in runs(sequence, min_content=min_content)}


def shares_run(text: str, verse: str, n: int) -> bool:
    """Whether ``text`` holds a run of ``n`` of ``verse``'s words in a row (as typed or without articles)."""
    held = {run for sequence in _sequences(verse) for run in runs(sequence, n, 0)}
    return any(run in held for sequence in _sequences(text) for run in runs(sequence, n, 0))


def runs(words: list[str], n: int = RUN, min_content: int = MIN_CONTENT) -> list[tuple[str, ...]]:
    """Every run of ``n`` consecutive words holding at least ``min_content`` words that are not stopwords."""
    every = (tuple(words[i:i + n]) for i in range(len(words) - n + 1))
    return [run for run in every if sum(w not in STOPWORDS for w in run) >= min_content]


def _run_hashes(ids: np.ndarray, content: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each run's hash (word ids in order) and where it starts, for runs inside one group with enough content."""
    if len(ids) < RUN:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    starts = np.arange(len(ids) - RUN + 1)
    hashes = np.zeros(len(starts), np.int64)
    with np.errstate(over="ignore"):
        for offset in range(RUN):
            hashes = hashes * _BASE + ids[starts + offset]
    kept = (group[starts] == group[starts + RUN - 1]) & (ids[starts] >= 0)
    for offset in range(RUN):
        kept &= ids[starts + offset] >= 0  # a word the Bible never uses is in no verse's run
    counts = np.convolve(content.astype(np.int64), np.ones(RUN, np.int64), "valid")
    kept &= counts >= MIN_CONTENT
    return hashes[kept], starts[kept]


class VerbatimIndex:
    """Hashes of every verse's runs, sorted, beside the verse each came from (a few MB for a whole Bible)."""

    def __init__(self, vocabulary: list[str], hashes: np.ndarray, positions: np.ndarray,
                 short: dict[str, tuple[int, ...]] | None = None):
        self._short = short or {}  # whole verses shorter than a run ("orai sem cessar"), by their bare words
        self._ids = {word: i for i, word in enumerate(vocabulary)}
        self._content = np.asarray([w not in STOPWORDS for w in vocabulary], bool)
        self._hashes, self._positions = hashes, positions
        self._vocabulary = vocabulary
        self._recent: dict[str, tuple[int, ...]] = {}

    @classmethod
    def build(cls, texts: list[str]) -> VerbatimIndex:
        ids_of: dict[str, int] = {}
        words, group = [], []
        for position, text in enumerate(texts):
            for n, sequence in enumerate(_sequences(text)):  # each sequence its own group: no run spans two
                words.extend(ids_of.setdefault(w, len(ids_of)) for w in sequence)
                group.extend([2 * position + n] * len(sequence))
        vocabulary = list(ids_of)
        ids, groups = np.asarray(words, np.int64), np.asarray(group, np.int64)
        content = np.asarray([w not in STOPWORDS for w in vocabulary], bool)
        hashes, starts = _run_hashes(ids, content[ids] if len(ids) else np.empty(0, bool), groups)
        pairs = np.unique(np.stack([hashes, groups[starts] // 2], axis=1), axis=0)  # a run twice in a verse: once
        short: dict[str, tuple[int, ...]] = {}
        for position, text in enumerate(texts):
            bare = bare_words(text)
            if len(bare) < RUN and sum(w not in STOPWORDS for w in bare) >= MIN_CONTENT:
                short[" ".join(bare)] = (*short.get(" ".join(bare), ()), position)
        return cls(vocabulary, pairs[:, 0].copy(), pairs[:, 1].astype(np.int32), short)

    @classmethod
    def cached(cls, texts: list[str], corpus_sha: str, directory: Path) -> VerbatimIndex:
        """`build`, kept in ``directory`` under the corpus's hash (restarts skip ~1 s)."""
        path = Path(directory) / f"verbatim-v{VERSION}-{corpus_sha[:16]}.npz"
        if corpus_sha and path.exists():
            try:
                with np.load(path, allow_pickle=False) as data:
                    short: dict[str, tuple[int, ...]] = {}
                    for key, position in zip(data["short_keys"].tolist(), data["short_positions"].tolist()):
                        short[key] = (*short.get(key, ()), position)
                    return cls(data["vocabulary"].tolist(), data["hashes"], data["positions"], short)
            except (OSError, ValueError, KeyError) as error:
                log.warning("índice de citações literais ilegível (%s): refeito", error)
        index = cls.build(texts)
        if corpus_sha:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
                keys = [(key, position) for key, positions in index._short.items() for position in positions]
                np.savez(tmp, vocabulary=np.asarray(index._vocabulary), hashes=index._hashes,
                         positions=index._positions, short_keys=np.asarray([k for k, _ in keys], dtype=str),
                         short_positions=np.asarray([p for _, p in keys], np.int64))
                tmp.replace(path)
                for stale in Path(directory).glob("verbatim-v*.npz"):  # another version's or corpus's
                    if stale != path:
                        stale.unlink(missing_ok=True)
            except OSError as error:
                log.warning("não foi possível guardar o índice de citações literais em %s: %s", path, error)
        return index

    def quoted(self, text: str, mask: np.ndarray | None = None) -> list[int]:
        """Verses a sentence of the message says whole ("orai sem cessar… de onde é?"), then verses holding a rare
        run of the message's words, those holding most runs first."""
        return [p for p in self._quoted(text) if mask is None or mask[p]]

    def _quoted(self, text: str) -> tuple[int, ...]:
        """`quoted` in the whole Bible, remembered for the last messages (a search asks up to three times)."""
        found = self._recent.get(text)
        if found is not None:
            return found
        keys: set[int] = set()
        for sequence in _sequences(text):
            ids = np.asarray([self._ids.get(w, -1) for w in sequence], np.int64)
            content = np.asarray([i >= 0 and self._content[i] for i in ids.tolist()], bool)
            keys.update(_run_hashes(ids, content, np.zeros(len(ids), np.int64))[0].tolist())
        counts: dict[int, int] = {}
        for key in keys:
            start = int(np.searchsorted(self._hashes, key, side="left"))
            end = int(np.searchsorted(self._hashes, key, side="right"))
            if 0 < end - start <= RARE:
                for position in self._positions[start:end].tolist():
                    counts[position] = counts.get(position, 0) + 1
        whole = [p for part in _SENTENCE_END.split(text) for p in self._short.get(" ".join(bare_words(part)), ())]
        if len(self._recent) >= RECENT:
            self._recent.clear()
        self._recent[text] = found = tuple(dict.fromkeys([*whole, *sorted(counts, key=lambda p: (-counts[p], p))]))
        return found
