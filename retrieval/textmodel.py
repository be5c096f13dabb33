"""Linear text classifiers over a sentence embedding beside character n-grams (message intent, crisis screening)."""

from __future__ import annotations

import json
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


class _LazyHashing:
    """One vectorizer for every prediction (it keeps no state; building it costs more than using it)."""

    _vectorizer = None

    def transform(self, texts):
        if self._vectorizer is None:
            _LazyHashing._vectorizer = hashing()
        return self._vectorizer.transform(texts)


_HASHING = _LazyHashing()


def folded(texts: Sequence[str]) -> list[str]:
    """The n-grams' text: folded, but with laughter and chat spelling kept (they tell a joke from a plea)."""
    return [fold(t) for t in texts]


def idf_of(counts) -> np.ndarray:
    documents = counts.shape[0]
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    return np.log((1 + documents) / (1 + df)) + 1.0


def features(counts, idf: np.ndarray, vectors: np.ndarray):
    """Sublinear tf-idf of the n-gram counts, L2-normalised, beside the weighted embedding."""
    from scipy.sparse import csr_matrix, diags, hstack
    from sklearn.preprocessing import normalize as l2

    tf = counts.copy().astype(np.float64)
    tf.data = np.log(tf.data) + 1.0
    weighted = l2(tf @ diags(idf))
    return hstack([weighted, csr_matrix(vectors * EMBEDDING_WEIGHT)]).tocsr()


@dataclass(frozen=True)
class LinearTextModel:
    """A multinomial logistic regression over n-grams and the embedding."""

    classes: tuple[str, ...]
    coef: np.ndarray  # (classes, N_FEATURES + dims)
    intercept: np.ndarray  # (classes,)
    idf: np.ndarray  # (N_FEATURES,)

    def probabilities(self, texts: Sequence[str], vectors: np.ndarray) -> np.ndarray:
        from sklearn.preprocessing import normalize as l2

        tf = _HASHING.transform(folded(texts)).astype(np.float64)
        tf.data = np.log(tf.data) + 1.0
        tf = l2(tf.multiply(self.idf).tocsr())  # the same features as `features`, without stacking the matrix
        logits = np.asarray(tf @ self.coef[:, :N_FEATURES].T) + (vectors * EMBEDDING_WEIGHT) @ \
            self.coef[:, N_FEATURES:].T + self.intercept
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        return exp / exp.sum(axis=1, keepdims=True)

    def save(self, path: Path, **extra) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npz")
        np.savez(tmp, classes=np.array(self.classes), coef=self.coef, intercept=self.intercept, idf=self.idf,
                 extra=np.array(json.dumps(extra)))
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> tuple[LinearTextModel, dict]:
        with np.load(path, allow_pickle=False) as data:
            model = cls(tuple(str(c) for c in data["classes"]), data["coef"], data["intercept"], data["idf"])
            return model, json.loads(str(data["extra"]))


def fit(texts: Sequence[str], vectors: np.ndarray, labels: Sequence[str], c: float = 16.0,
        balanced: bool = True) -> LinearTextModel:
    from sklearn.linear_model import LogisticRegression

    counts = hashing().transform(folded(texts)).tocsr()
    idf = idf_of(counts)
    model = LogisticRegression(C=c, max_iter=3000, class_weight="balanced" if balanced else None)
    model.fit(features(counts, idf, vectors), np.asarray(labels))
    return LinearTextModel(tuple(str(c) for c in model.classes_), model.coef_, model.intercept_, idf)
