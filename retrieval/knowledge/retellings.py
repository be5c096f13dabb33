"""Targets as people tell them in their own words (a Bible story retold, later a person described or a verse
typed from memory), beside messages of other kinds: a message names the target of its nearest telling when that
telling is near, or when a learned gate reads the message as such a telling and the nearest tellings agree."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from retrieval.arrays import BoundedRows, save_arrays

log = logging.getLogger(__name__)

TOLD_FLOOR = 0.40  # a retelling at least this near (n-grams beside meaning) names its story
TOLD_MARGIN = 0.05  # and nearer than any message of another kind (the intent bank's lives, chat, teaching...)
LIKE_A_RETELLING = 0.8  # the gate's P(a story retold) from which a fainter retelling names its story, when
LIKE_FLOOR = 0.30  # its nearest retelling is this near, nearer than any message of another kind,
LIKE_AGREEING = 2  # and this many of the three nearest retellings tell the same passage
RIVAL, CONTRAST = -1, -2  # rows of messages of another kind: rivals a telling must be nearer than; contrasts
# only teach the gate what is no telling (a verse quoted "onde ta isso na biblia" is framed like a retelling)


def unit(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype=np.float32)
    return matrix / np.maximum(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12)


@dataclass(frozen=True)
class Retellings:
    """Passages as people retell them, beside messages of other kinds, in the intent model's space (hashed
    character n-grams beside the meaning): a message names the story of its nearest retelling."""

    rows: np.ndarray  # each retelling's passage row; -1 for a message of another kind
    ngrams: object  # sparse tf-idf rows of the character n-grams, unit length (by column: a message has few)
    meanings: BoundedRows  # the meanings, unit length (all rows, or those before the rivals when shared)
    idf: np.ndarray
    norms: np.ndarray  # each retelling's length over both blocks
    gate: np.ndarray | None = None  # logit weights of "a story retold" against "a message of another kind":
    # the n-grams' columns, the embedding's, then the bias (learned from the same texts: one idf)
    rivals: BoundedRows | None = None  # the trailing rivals' meanings, when another bank holds the same (`sharing`)

    @property
    def vectors(self) -> np.ndarray:
        """The meanings this bank keeps (without shared rivals)."""
        return self.meanings.matrix

    def arrays(self) -> dict[str, np.ndarray]:
        """What `from_arrays` needs, for the cache beside the index (the n-grams take seconds to count)."""
        gate = {} if self.gate is None else {"told_gate": self.gate}
        return {"told_rows": self.rows, "told_vectors": self.vectors, "told_idf": self.idf, "told_norms": self.norms,
                "told_data": self.ngrams.data, "told_indices": self.ngrams.indices,
                "told_indptr": self.ngrams.indptr, "told_shape": np.array(self.ngrams.shape), **gate}

    @classmethod
    def from_arrays(cls, data) -> Retellings | None:
        from scipy.sparse import csc_matrix

        if not len(data["told_rows"]):
            return None
        ngrams = csc_matrix((data["told_data"], data["told_indices"], data["told_indptr"]),
                            shape=tuple(data["told_shape"]))
        return cls(data["told_rows"], ngrams, BoundedRows(data["told_vectors"]), data["told_idf"], data["told_norms"],
                   data["told_gate"] if "told_gate" in data else None)

    @classmethod
    def build(cls, texts: Sequence[str], rows: np.ndarray, vectors: np.ndarray) -> Retellings:
        from retrieval.understand.textmodel import EMBEDDING_WEIGHT, idf_of, ngram_counts, tfidf

        counts = ngram_counts(texts)
        idf = idf_of(counts)
        ngrams = tfidf(counts, idf).astype(np.float32)
        norms = np.sqrt(np.asarray(ngrams.multiply(ngrams).sum(axis=1)).ravel() + EMBEDDING_WEIGHT ** 2)
        rows = np.asarray(rows)
        gate = _gate(texts, rows, vectors)
        kept = rows != CONTRAST  # the contrasts taught the gate; no message is compared with them
        return cls(rows[kept], ngrams[kept].tocsc(), BoundedRows(unit(vectors)[kept]), idf, norms[kept], gate)

    def sharing(self, rivals: BoundedRows) -> Retellings:
        """These retellings reading their trailing rivals' meanings through ``rivals`` (bounded once a message for
        every bank that holds them), or themselves when their rivals are not exactly those rows."""
        first = len(self.rows) - len(rivals)
        if first < 0 or not (self.rows[first:] == RIVAL).all() or not np.array_equal(self.vectors[first:],
                                                                                      rivals.matrix):
            return self
        # the bank the rivals were read from keeps them; another keeps one copy of its own rows only
        return replace(self, rivals=rivals,
                       meanings=self.meanings.first(first, copy=not np.shares_memory(self.vectors, rivals.matrix)))

    def trailing_rivals(self) -> BoundedRows:
        """The meanings of the rivals after the last retelling (views on the same axes; before `sharing`)."""
        story = np.flatnonzero(self.rows != RIVAL)
        return self.meanings.after(int(story[-1]) + 1 if len(story) else 0)

    def cosines(self, text: str, vector: np.ndarray) -> np.ndarray:
        """Cosine of the message to each retelling over both blocks (`textmodel.features`, normalised), computed
        block by block: one sparse and one dense product, no stacked matrix; every one exact."""
        reading = self._read(text, vector)
        return reading.exactly(np.arange(len(self.rows)))

    def _read(self, text: str, vector: np.ndarray) -> _Reading:
        """The bounds of the cosines and the gate's P(a story retold), from one count of the message's n-grams."""
        from retrieval.understand.textmodel import EMBEDDING_WEIGHT, N_FEATURES, ngram_counts, tfidf

        query = tfidf(ngram_counts([text]), self.idf)
        meaning = unit(vector)
        banks = (self.meanings,) if self.rivals is None else (self.meanings, self.rivals)
        estimate, slack = (np.concatenate(parts) for parts in zip(*(bank.bounds(meaning) for bank in banks)))
        reading = _Reading(self, meaning, self.ngrams[:, query.indices] @ query.data, estimate, slack,
                           self.norms * np.sqrt(query.data @ query.data + EMBEDDING_WEIGHT ** 2))
        if self.gate is not None:
            logit = float(self.gate[query.indices] @ query.data
                          + EMBEDDING_WEIGHT * (self.gate[N_FEATURES:-1] @ meaning) + self.gate[-1])
            reading.like = float(1.0 / (1.0 + np.exp(-logit)))
        return reading

    def _exact_meanings(self, meaning: np.ndarray, rows: np.ndarray) -> np.ndarray:
        own = len(self.meanings)
        if self.rivals is None or not len(rows) or rows[-1] < own:
            return self.meanings.exact(meaning, rows)
        split = int(np.searchsorted(rows, own))
        return np.concatenate([self.meanings.exact(meaning, rows[:split]),
                               self.rivals.exact(meaning, rows[split:] - own)])

    def told(self, text: str, vector: np.ndarray, floor: float = TOLD_FLOOR, margin: float = TOLD_MARGIN) -> int | None:
        """The passage row the message retells, or None."""
        found = self.telling(text, vector, floor, margin)
        return found[0] if found is not None else None

    def telling(self, text: str, vector: np.ndarray, floor: float = TOLD_FLOOR, margin: float = TOLD_MARGIN,
                agreeing: int = 1, like_floor: float = LIKE_FLOOR,
                avoid: frozenset[int] = frozenset(), drop: frozenset[int] = frozenset()
                ) -> tuple[int, float, float] | None:
        """(the passage row the message retells, how much nearer its retelling is than any message of another
        kind, the gate's P(a story retold)), or None: a retelling near enough and far enough ahead (and with
        ``agreeing`` of the three nearest retellings on its passage), or, when the gate reads the message as a
        story retold, a fainter one (``like_floor`` at least) that the nearest retellings agree on; never when one
        of the three nearest retellings is of a row in ``avoid``. The texts in ``drop`` are left out."""
        story, other = self.rows >= 0, self.rows == RIVAL
        if drop:
            story[np.fromiter(drop, np.intp)] = False
        if not story.any():
            return None
        reading = self._read(text, vector)
        cosine = reading.nearest(story, other)
        stories = np.flatnonzero(story)
        top = np.argpartition(-cosine[stories], min(3, len(stories)) - 1)[:3]
        nearest = stories[top[np.argsort(-cosine[stories][top], kind="stable")]]
        if avoid and avoid.intersection(self.rows[nearest].tolist()):
            return None
        best, like = int(nearest[0]), reading.like
        ahead = float(cosine[best]) - (float(cosine[other].max()) if other.any() else 0.0)
        agree = int(np.sum(self.rows[nearest] == self.rows[best]))
        if cosine[best] >= floor and ahead >= margin and agree >= agreeing:
            return int(self.rows[best]), ahead, like
        if like >= LIKE_A_RETELLING and cosine[best] >= like_floor and ahead >= 0 and agree >= LIKE_AGREEING:
            return int(self.rows[best]), ahead, like
        return None


class _Reading:
    """One message read against a bank: each cosine's bounds, made exact only where asked."""

    def __init__(self, bank: Retellings, meaning, sparse, estimate, slack, scale):
        from retrieval.understand.textmodel import EMBEDDING_WEIGHT

        self.bank, self.meaning, self.sparse, self.scale, self.like = bank, meaning, sparse, scale, 0.0
        self.weight = EMBEDDING_WEIGHT ** 2
        self.low = (sparse + self.weight * (estimate - slack)) / scale
        self.high = (sparse + self.weight * (estimate + slack)) / scale

    def exactly(self, rows: np.ndarray) -> np.ndarray:
        """The exact cosines of ``rows`` (ascending)."""
        dots = self.bank._exact_meanings(self.meaning, rows)
        return (self.sparse[rows] + self.weight * dots) / self.scale[rows]

    def nearest(self, story: np.ndarray, other: np.ndarray) -> np.ndarray:
        """Cosines exact for the three nearest retellings and the nearest message of another kind (every row that
        could be one of them); the others at their lower bound, below those."""
        cosine = self.low.copy()
        doubt = np.zeros(len(cosine), bool)
        for kind, count in ((story, 3), (other, 1)):
            if kind.any():
                low = self.low[kind]
                last = max(len(low) - count, 0)  # the count-th highest lower bound of the kind is the bar
                doubt |= kind & (self.high >= np.partition(low, last)[last])
        rows = np.flatnonzero(doubt)
        cosine[rows] = self.exactly(rows)
        return cosine


def cached_retellings(path: Path | None, texts: Sequence[str], rows: np.ndarray, vectors: Callable[[], np.ndarray],
                      what: str) -> Retellings:
    """The retellings kept at ``path`` (.npz, keyed by the caller) when they hold these rows; else built from
    ``texts`` and their ``vectors`` (made only then) and kept there. An unreadable file is said, naming ``what``."""
    if path is not None and path.exists():
        try:
            with np.load(path, allow_pickle=False) as data:
                kept = Retellings.from_arrays(data)
            if kept is not None and len(kept.rows) == int(np.sum(rows != CONTRAST)):
                return kept
        except (OSError, ValueError, KeyError) as error:
            log.warning("%s em cache ilegíveis (%s): refeitos", what, error)
    built = Retellings.build(texts, rows, vectors())
    if path is not None:
        save_arrays(path, what, **built.arrays())
    return built


def _gate(texts: Sequence[str], rows: np.ndarray, vectors: np.ndarray) -> np.ndarray | None:
    """Logistic regression of a story retold (any passage) against a message of another kind, over the same
    features as the retellings' cosines: the weights (n-grams, embedding, bias), or None without both kinds."""
    from retrieval.understand.textmodel import fit

    labels = ["historia" if row >= 0 else "outra" for row in rows]
    if len(set(labels)) < 2:
        return None
    model = fit(texts, np.asarray(vectors, np.float32), labels, compact=True)
    story = model.classes.index("historia")
    return np.concatenate([model.coef[story] - model.coef[1 - story],
                           [model.intercept[story] - model.intercept[1 - story]]]).astype(np.float32)
