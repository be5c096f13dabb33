"""Linear text classifiers over a sentence embedding beside character n-grams (message intent, crisis screening)."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from corpus.text import fold

N_FEATURES = 2**16  # hashed character n-grams (2-5, within words) of the folded message
EMBEDDING_WEIGHT = 0.5  # the sentence embedding's columns, scaled against the n-grams'


Row = TypeVar("Row")


def read_bank(path: Path, parse: Callable[[dict], Row], valid: Callable[[Row], bool], rule: str) -> list[Row]:
    """An exemplar bank (JSONL); a malformed line or one ``valid`` refuses is an error naming the file, the
    line and ``rule``."""
    out = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = parse(json.loads(line))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"{path}:{number}: exemplo inválido ({error})") from error
        if not valid(row):
            raise ValueError(f"{path}:{number}: {rule}")
        out.append(row)
    return out


def hashing():
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(analyzer="char_wb", ngram_range=(2, 5), n_features=N_FEATURES, alternate_sign=False,
                             norm=None)


def word_hashing():
    """Hashed word unigrams and bigrams (an optional block: the guard reads "pare de tomar" as a phrase)."""
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(analyzer="word", ngram_range=(1, 2), n_features=N_FEATURES, alternate_sign=False,
                             norm=None)


class _LazyHashing:
    """One vectorizer for every prediction (it keeps no state; building it costs more than using it)."""

    def __init__(self, build):
        self._build, self._vectorizer = build, None

    def transform(self, texts):
        if self._vectorizer is None:
            self._vectorizer = self._build()
        return self._vectorizer.transform(texts)


_HASHING = _LazyHashing(hashing)
_WORD_HASHING = _LazyHashing(word_hashing)


def folded(texts: Sequence[str]) -> list[str]:
    """The n-grams' text: folded, but with laughter and chat spelling kept (they tell a joke from a plea)."""
    return [fold(t) for t in texts]


def idf_of(counts) -> np.ndarray:
    documents = counts.shape[0]
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    return np.log((1 + documents) / (1 + df)) + 1.0


def tfidf(counts, idf: np.ndarray):
    """Sublinear tf-idf of hashed counts, L2-normalised (row by row, as sklearn's `normalize`; computed on the
    sparse data directly: a message is one short row, and the validation around `normalize` cost more)."""
    tf = counts.astype(np.float64).tocsr(copy=True)
    tf.sum_duplicates()
    tf.data = (np.log(tf.data) + 1.0) * idf[tf.indices]
    rows = np.repeat(np.arange(tf.shape[0]), np.diff(tf.indptr))
    norms = np.sqrt(np.bincount(rows, weights=tf.data ** 2, minlength=tf.shape[0]))
    tf.data /= np.where(norms == 0.0, 1.0, norms)[rows]
    tf.eliminate_zeros()
    return tf


def ngram_counts(texts: Sequence[str]):
    """The texts' hashed character n-gram counts (`tfidf` weighs them); one message's, counted once however
    many models read it (the intent model, the retellings, the verses remembered)."""
    if len(texts) == 1:
        return _one_message_counts(texts[0])
    return _HASHING.transform(folded(texts))


@functools.lru_cache(maxsize=64)
def _one_message_counts(text: str):
    counts = _HASHING.transform(folded([text]))
    counts.data.flags.writeable = False  # shared: `tfidf` copies before weighing
    return counts


def features(counts, idf: np.ndarray, vectors: np.ndarray, words=None, word_idf=None, word_weight: float = 0.0):
    """Sublinear tf-idf of the n-gram counts, L2-normalised, beside the weighted embedding (and, with
    ``word_weight``, the weighted tf-idf of the word n-grams)."""
    from scipy.sparse import csr_matrix, hstack

    blocks = [tfidf(counts, idf), csr_matrix(vectors * EMBEDDING_WEIGHT)]
    if word_weight:
        blocks.append(tfidf(words, word_idf) * word_weight)
    return hstack(blocks).tocsr()


@dataclass(frozen=True)
class LinearTextModel:
    """A multinomial logistic regression over n-grams and the embedding."""

    classes: tuple[str, ...]
    coef: np.ndarray  # (classes, N_FEATURES + dims)
    intercept: np.ndarray  # (classes,)
    idf: np.ndarray  # (N_FEATURES,)
    word_idf: np.ndarray | None = None  # (N_FEATURES,) when the word n-grams are a block (after the embedding)
    word_weight: float = 0.0

    @functools.cached_property
    def _by_column(self) -> tuple[np.ndarray, np.ndarray | None]:
        """The n-gram blocks' coefficients, a row per column, contiguous: a sparse product with the strided view
        copied them on every message (3 MB for the intent model)."""
        chars = np.ascontiguousarray(self.coef[:, :N_FEATURES].T)
        words = None if self.word_idf is None else \
            np.ascontiguousarray(self.coef[:, self.coef.shape[1] - N_FEATURES:].T)
        return chars, words

    def probabilities(self, texts: Sequence[str], vectors: np.ndarray) -> np.ndarray:
        chars = tfidf(ngram_counts(texts), self.idf)  # `features`, without stacking the matrix
        dims = vectors.shape[1]
        by_chars, by_words = self._by_column
        logits = np.asarray(chars @ by_chars) + (vectors * EMBEDDING_WEIGHT) @ \
            self.coef[:, N_FEATURES:N_FEATURES + dims].T + self.intercept
        if by_words is not None:
            words = tfidf(_WORD_HASHING.transform(folded(texts)), self.word_idf) * self.word_weight
            logits += np.asarray(words @ by_words)
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)

    def save(self, path: Path, **extra) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp.npz")
        words = {} if self.word_idf is None else {"word_idf": self.word_idf, "word_weight": self.word_weight}
        np.savez(tmp, classes=np.array(self.classes), coef=self.coef, intercept=self.intercept, idf=self.idf,
                 extra=np.array(json.dumps(extra)), **words)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> tuple[LinearTextModel, dict]:
        with np.load(path, allow_pickle=False) as data:
            words = (data["word_idf"], float(data["word_weight"])) if "word_idf" in data.files else (None, 0.0)
            model = cls(tuple(str(c) for c in data["classes"]), data["coef"], data["intercept"], data["idf"], *words)
            return model, json.loads(str(data["extra"]))


def fit(texts: Sequence[str], vectors: np.ndarray, labels: Sequence[str], c: float = 16.0,
        balanced: bool = True, word_weight: float = 0.0, compact: bool = False) -> LinearTextModel:
    """A logistic regression over the features; ``word_weight`` > 0 adds the word n-grams' block. ``compact``:
    fitted on one thread over the columns the texts use only (the same model; measured 32 s -> 4 s on 2 busy
    cores, where two BLAS threads fight over L-BFGS's 650,000 coefficients)."""
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    counts = hashing().transform(folded(texts)).tocsr()
    idf = idf_of(counts)
    words = word_hashing().transform(folded(texts)).tocsr() if word_weight else None
    word_idf = idf_of(words) if word_weight else None
    model = LogisticRegression(C=c, max_iter=3000, class_weight="balanced" if balanced else None)
    x = features(counts, idf, vectors, words, word_idf, word_weight)
    if not compact:
        model.fit(x, np.asarray(labels))
        return LinearTextModel(tuple(str(c) for c in model.classes_), *_per_class(model.coef_, model.intercept_),
                               idf, word_idf, word_weight)
    used = np.flatnonzero(np.diff(x.tocsc().indptr))  # an unused column's coefficient stays 0 under L2
    with threadpool_limits(1):
        model.fit(x[:, used], np.asarray(labels))
    coef = np.zeros((model.coef_.shape[0], x.shape[1]))
    coef[:, used] = model.coef_
    return LinearTextModel(tuple(str(c) for c in model.classes_), *_per_class(coef, model.intercept_), idf, word_idf,
                           word_weight)


def _per_class(coef: np.ndarray, intercept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A row of logits per class: two classes fit one row (the second class's logit against 0), which the
    softmax of (0, z) turns into the same sigmoid."""
    if coef.shape[0] > 1:
        return coef, intercept
    return np.vstack([np.zeros_like(coef), coef]), np.concatenate([[0.0], intercept])
