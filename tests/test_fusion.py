"""Retrieval maths on tiny inline inputs with exact expected ids."""

import pytest

from retrieval.fusion import ahead, min_max, rrf


def test_rrf_exact_scores_and_order():
    fused = rrf({"lexical": ["a", "b", "c"], "dense": ["c", "a", "d"]}, k=60)
    assert [doc for doc, _ in fused] == ["a", "c", "b", "d"]
    scores = dict(fused)
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 61)
    assert scores["b"] == pytest.approx(1 / 62)
    assert scores["d"] == pytest.approx(1 / 63)


def test_rrf_weights_change_the_winner():
    rankings = {"lexical": ["x", "y"], "dense": ["y", "x"]}
    assert rrf(rankings, {"lexical": 2.0, "dense": 1.0})[0][0] == "x"
    assert rrf(rankings, {"lexical": 1.0, "dense": 2.0})[0][0] == "y"
    assert [d for d, _ in rrf(rankings, {"lexical": 0.0, "dense": 1.0})] == ["y", "x"]


def test_rrf_channel_k_makes_that_channel_order_count_more():
    rankings = {"need": ["x", "y"], "words": ["y", "x"]}
    assert [d for d, _ in rrf(rankings)] == ["x", "y"]  # a tie: first seen wins
    fused = rrf(rankings, {"need": 1.0, "words": 1.0}, ks={"need": 10})
    assert [d for d, _ in fused] == ["x", "y"]
    assert dict(fused)["x"] == pytest.approx(1 / 11 + 1 / 62)
    assert [d for d, _ in rrf(rankings, {"need": 1.0, "words": 1.2}, ks={"need": 60})] == ["y", "x"]
    assert [d for d, _ in rrf(rankings, {"need": 1.0, "words": 1.2}, ks={"need": 10})] == ["x", "y"]


def test_rrf_ties_keep_first_seen_order_and_empty_channels():
    assert [d for d, _ in rrf({"a": ["p"], "b": ["q"]})] == ["p", "q"]
    assert rrf({"a": [], "b": []}) == []


def test_min_max():
    assert min_max([2.0, 4.0, 3.0]) == [0.0, 1.0, 0.5]
    assert min_max([5.0, 5.0]) == [1.0, 1.0]
    assert min_max([]) == []


def test_ahead_puts_the_chosen_first_in_their_order_and_keeps_the_rest_once():
    fused = [("a", 0.5), ("b", 0.4), ("c", 0.3)]
    assert [d for d, _ in ahead(fused, ["c", "x"])] == ["c", "x", "a", "b"]
    scores = [s for _, s in ahead(fused, ["c", "x"])]
    assert scores[0] > scores[1] > 0.5 and scores[2:] == [0.5, 0.4]
    assert ahead([], ["a"]) == [("a", 2.0)] and ahead(fused, []) == fused
