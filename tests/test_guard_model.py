"""The guard model's pure parts: the nearest exemplars' similarities and the compact fit, on tiny inline examples."""

from __future__ import annotations

import numpy as np

from bot.checks.guard_model import KINDS, NEIGHBOURS, SAFE, inputs, neighbours
from retrieval.understand.textmodel import fit


def unit(*rows) -> np.ndarray:
    v = np.array(rows, dtype=np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_neighbours_are_the_mean_similarity_to_the_nearest_of_each_label():
    bank = unit(*([[1, 0]] * NEIGHBOURS), *([[0, 1]] * NEIGHBOURS))
    labels = np.array([KINDS[0]] * NEIGHBOURS + [SAFE] * NEIGHBOURS)
    near = neighbours(unit([1, 0], [0, 1]), bank, labels)
    assert near.shape == (2, len(KINDS) + 1)
    assert np.allclose(near[0], [1, 0, 0, 0, 0]) and np.allclose(near[1], [0, 0, 0, 0, 1])  # absent kinds: 0


def test_a_bank_sentence_is_not_its_own_neighbour():
    bank = unit([1, 0], [0.8, 0.6], [0, 1])
    labels = np.array([KINDS[1], KINDS[1], SAFE])
    own = neighbours(bank, bank, labels, itself=True)[:, KINDS.index(KINDS[1])]
    assert np.allclose(own, [0.8, 0.8, 0.6])  # the nearest other one: never itself
    assert inputs(bank, bank, labels).shape == (3, 2 + len(KINDS) + 1)


def test_the_compact_fit_is_the_same_model():
    texts = ["pare o remedio agora", "continue o remedio", "largue a terapia", "siga a terapia",
             "nao tome o comprimido", "tome o comprimido receitado"]
    labels = ["treatment", SAFE] * 3
    vectors = unit(*[[1, 0.1 * i] for i in range(6)])
    full = fit(texts, vectors, labels, 4.0, word_weight=1.0)
    compact = fit(texts, vectors, labels, 4.0, word_weight=1.0, compact=True)
    probe = ["pare a terapia", "siga o remedio"]
    assert np.allclose(full.probabilities(probe, vectors[:2]), compact.probabilities(probe, vectors[:2]), atol=1e-3)
    assert compact.coef.shape == full.coef.shape
