"""The lexical channel: Portuguese analysis and a bm25s index of isolated verses."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

import bm25s
import numpy as np
from bm25s.stopwords import STOPWORDS_PORTUGUESE

from corpus.text import fold, normalize
from retrieval.index.stemmers import STEMMERS, WordStemmer

_WORD = re.compile(r"[^\W\d_]+")
STOPWORDS = frozenset(fold(w) for w in STOPWORDS_PORTUGUESE) | frozenset(
    "ai ate entao la onde porque pra pro pois sobre tao toda todas todo todos tudo vai vou".split()
)


class Analyzer:
    """Text -> stemmed content words (case and accents folded, stopwords removed)."""

    def __init__(self, stemmer: WordStemmer):
        self.stemmer = stemmer

    @property
    def name(self) -> str:
        return self.stemmer.name

    def words(self, text: str) -> list[str]:
        """Folded content words, before stemming."""
        return [w for w in _WORD.findall(fold(normalize(text))) if w not in STOPWORDS and len(w) > 1]

    def __call__(self, text: str) -> list[str]:
        stem = self.stemmer
        return [stem(w) for w in self.words(text)]


def analyzer(name: str) -> Analyzer:
    """The analyzer for a stemmer name ("snowball-pt", "rslp-lite")."""
    return Analyzer(STEMMERS[name]())


class LexicalIndex:
    """BM25 over one document per verse, aligned with the corpus order."""

    def __init__(self, bm25: bm25s.BM25, analyzer: Analyzer):
        self.bm25 = bm25
        self.analyzer = analyzer
        self._vocab: dict[str, int] = bm25.vocab_dict

    @classmethod
    def build(cls, texts: Sequence[str], analyzer: Analyzer) -> LexicalIndex:
        bm25 = bm25s.BM25()
        bm25.index([analyzer(t) or [""] for t in texts], show_progress=False)
        return cls(bm25, analyzer)

    @property
    def documents(self) -> int:
        return int(self.bm25.scores["num_docs"])

    def save(self, directory: Path) -> None:
        self.bm25.save(str(directory), show_progress=False)
        (directory / "analyzer.json").write_text(json.dumps({"stemmer": self.analyzer.name}))

    @classmethod
    def load(cls, directory: Path) -> LexicalIndex:
        stemmer = json.loads((directory / "analyzer.json").read_text())["stemmer"]
        bm25 = bm25s.BM25.load(str(directory), mmap=False)
        return cls(bm25, analyzer(stemmer))

    def query_terms(self, query: str) -> list[str]:
        """The query's stems that occur in the corpus."""
        return [t for t in dict.fromkeys(self.analyzer(query)) if t in self._vocab]

    def grouped_scores(self, groups, alternative_weight: float, mask: np.ndarray | None = None) -> np.ndarray:
        """Sum over word groups of the best score among the word and its alternatives.

        ``groups`` holds, per question word, the word first and then its equivalents;
        an equivalent counts ``alternative_weight`` of the word itself.
        """
        total = np.zeros(self.documents, dtype=np.float32)
        for own, alternatives in self._stem_groups(groups):
            best = self._term_scores(own)
            for stem in alternatives:
                best = np.maximum(best, alternative_weight * self._term_scores(stem))
            total += best
        if mask is not None:
            total = np.where(mask, total, 0.0)
        return total

    def coordination(self, groups, mask: np.ndarray | None = None) -> np.ndarray:
        """For every verse, how many of the question's word groups it holds (a word or an equivalent)."""
        counts = np.zeros(self.documents, dtype=np.int32)
        for own, alternatives in self._stem_groups(groups):
            present = self._term_scores(own) > 0
            for stem in alternatives:
                present |= self._term_scores(stem) > 0
            counts += present
        if mask is not None:
            counts = np.where(mask, counts, 0)
        return counts

    def groups_in(self, groups, text: str) -> int:
        """How many of the question's word groups (a word or an equivalent) one text holds."""
        terms = set(self.analyzer(text))
        return sum(1 for own, others in self._stem_groups(groups) if own in terms or terms.intersection(others))

    def by_coordination(self, groups, scores: np.ndarray, limit: int, mask: np.ndarray | None = None) -> list[int]:
        """A quotation's ranking: verses holding more of its word groups first, then by ``scores``
        (its `grouped_scores`).

        Counted over every verse (in ``mask``), so a refrain shared by many verses cannot crowd
        the one verse that also holds the quotation's rarer words out of the first ``limit``.
        """
        counts = self.coordination(groups, mask)
        holding = np.flatnonzero(counts)
        order = np.lexsort((-scores[holding], -counts[holding]))[:limit]
        return [int(p) for p in holding[order]]

    def _stem_groups(self, groups) -> list[tuple[str, list[str]]]:
        """Each content word's stem with its equivalents' stems that occur in the corpus, once per stem."""
        stem = self.analyzer.stemmer
        out, seen = [], set()
        for word, *alternatives in groups:
            if word in STOPWORDS or len(word) < 2:
                continue
            own = stem(word)
            if own in seen:
                continue
            seen.add(own)
            others = [s for s in dict.fromkeys(stem(a) for a in alternatives) if s != own and s in self._vocab]
            out.append((own, others))
        return out

    def _term_scores(self, stem: str) -> np.ndarray:
        if stem not in self._vocab:
            return np.zeros(self.documents, dtype=np.float32)
        return self.bm25.get_scores_from_ids([self._vocab[stem]])

    def scores(self, query: str, mask: np.ndarray | None = None) -> np.ndarray:
        """BM25 score of every verse for ``query`` (zeros where ``mask`` is False)."""
        terms = self.query_terms(query)
        if not terms:
            return np.zeros(self.documents, dtype=np.float32)
        ids = [self._vocab[t] for t in terms]
        scores = self.bm25.get_scores_from_ids(ids)
        if mask is not None:
            scores = np.where(mask, scores, 0.0)
        return scores
