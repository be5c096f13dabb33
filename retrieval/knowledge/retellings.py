"""Targets as people tell them in their own words (a Bible story retold, later a person described or a verse
typed from memory), beside messages of other kinds: a message names the target of its nearest telling when that
telling is near, or when a learned gate reads the message as such a telling and the nearest tellings agree."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from retrieval.arrays import LastProduct, save_arrays

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
    vectors: np.ndarray  # the meanings, unit length
    idf: np.ndarray
    norms: np.ndarray  # each retelling's length over both blocks
    gate: np.ndarray | None = None  # logit weights of "a story retold" against "a message of another kind":
    # the n-grams' columns, the embedding's, then the bias (learned from the same texts: one idf)
    rivals: LastProduct | None = None  # the trailing rivals' meanings, when another bank holds the same (`sharing`)

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
        return cls(data["told_rows"], ngrams, data["told_vectors"], data["told_idf"], data["told_norms"],
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
        return cls(rows[kept], ngrams[kept].tocsc(), unit(vectors)[kept], idf, norms[kept], gate)

    def sharing(self, rivals: LastProduct) -> Retellings:
        """These retellings reading their trailing rivals' meanings through ``rivals`` (multiplied once a message
        for every bank that holds them), or themselves when their rivals are not exactly those rows."""
        first = len(self.rows) - len(rivals)
        if first < 0 or not (self.rows[first:] == RIVAL).all() or not np.array_equal(self.vectors[first:],
                                                                                      rivals.matrix):
            return self
        if np.shares_memory(self.vectors, rivals.matrix):  # the bank the rivals were read from keeps them
            return replace(self, rivals=rivals)
        return replace(self, rivals=rivals, vectors=self.vectors[:first].copy())  # one copy of the rivals

    def trailing_rivals(self) -> np.ndarray:
        """The meanings of the rivals after the last retelling (a view: rivals come last; before `sharing`)."""
        story = np.flatnonzero(self.rows != RIVAL)
        first = int(story[-1]) + 1 if len(story) else 0
        return self.vectors[first:]

    def cosines(self, text: str, vector: np.ndarray) -> np.ndarray:
        """Cosine of the message to each retelling over both blocks (`textmodel.features`, normalised), computed
        block by block: one sparse and one dense product, no stacked matrix."""
        return self._read(text, vector)[0]

    def _read(self, text: str, vector: np.ndarray) -> tuple[np.ndarray, float]:
        """(the cosines, the gate's P(a story retold)), from one count of the message's n-grams."""
        from retrieval.understand.textmodel import EMBEDDING_WEIGHT, N_FEATURES, ngram_counts, tfidf

        query = tfidf(ngram_counts([text]), self.idf)
        meaning = unit(vector)
        weight = EMBEDDING_WEIGHT ** 2
        dot = self.ngrams[:, query.indices] @ query.data + weight * self._meaning_dot(meaning)
        cosine = dot / (self.norms * np.sqrt(query.data @ query.data + weight))
        if self.gate is None:
            return cosine, 0.0
        logit = float(self.gate[query.indices] @ query.data + EMBEDDING_WEIGHT * (self.gate[N_FEATURES:-1] @ meaning)
                      + self.gate[-1])
        return cosine, float(1.0 / (1.0 + np.exp(-logit)))

    def _meaning_dot(self, meaning: np.ndarray) -> np.ndarray:
        if self.rivals is None:
            return self.vectors @ meaning
        own = self.vectors[:len(self.rows) - len(self.rivals)]
        return np.concatenate([own @ meaning, self.rivals @ meaning])

    def told(self, text: str, vector: np.ndarray, floor: float = TOLD_FLOOR, margin: float = TOLD_MARGIN) -> int | None:
        """The passage row the message retells, or None."""
        found = self.telling(text, vector, floor, margin)
        return found[0] if found is not None else None

    def telling(self, text: str, vector: np.ndarray, floor: float = TOLD_FLOOR, margin: float = TOLD_MARGIN,
                agreeing: int = 1, like_floor: float = LIKE_FLOOR,
                avoid: frozenset[int] = frozenset()) -> tuple[int, float, float] | None:
        """(the passage row the message retells, how much nearer its retelling is than any message of another
        kind, the gate's P(a story retold)), or None: a retelling near enough and far enough ahead (and with
        ``agreeing`` of the three nearest retellings on its passage), or, when the gate reads the message as a
        story retold, a fainter one (``like_floor`` at least) that the nearest retellings agree on; never when one
        of the three nearest retellings is of a row in ``avoid``."""
        story, other = self.rows >= 0, self.rows == RIVAL
        if not story.any():
            return None
        cosine, like = self._read(text, vector)
        stories = np.flatnonzero(story)
        top = np.argpartition(-cosine[stories], min(3, len(stories)) - 1)[:3]
        nearest = stories[top[np.argsort(-cosine[stories][top], kind="stable")]]
        if avoid and avoid.intersection(self.rows[nearest].tolist()):
            return None
        best = int(nearest[0])
        ahead = float(cosine[best]) - (float(cosine[other].max()) if other.any() else 0.0)
        agree = int(np.sum(self.rows[nearest] == self.rows[best]))
        if cosine[best] >= floor and ahead >= margin and agree >= agreeing:
            return int(self.rows[best]), ahead, like
        if like >= LIKE_A_RETELLING and cosine[best] >= like_floor and ahead >= 0 and agree >= LIKE_AGREEING:
            return int(self.rows[best]), ahead, like
        return None


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
