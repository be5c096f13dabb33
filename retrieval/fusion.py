"""Rank fusion and score normalisation: pure functions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

RRF_K = 60


def rrf(rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float] | None = None,
        k: int = RRF_K, ks: Mapping[str, int] | None = None) -> list[tuple[str, float]]:
    """Weighted reciprocal rank fusion: score(d) = sum_c w_c / (k_c + rank_c(d)), ranks from 1.

    ``ks`` gives a channel its own k (a smaller k makes the channel's order count more).
    Returns (id, score) best first; ties keep the order in which ids were first seen.
    """
    scores: dict[str, float] = {}
    for channel, ranked in rankings.items():
        weight = 1.0 if weights is None else weights.get(channel, 1.0)
        if weight == 0:
            continue
        channel_k = k if ks is None else ks.get(channel, k)
        for rank, doc in enumerate(ranked, start=1):
            scores[doc] = scores.get(doc, 0.0) + weight / (channel_k + rank)
    order = {doc: i for i, doc in enumerate(scores)}
    return sorted(scores.items(), key=lambda item: (-item[1], order[item[0]]))


def ahead(fused: Sequence[tuple[str, float]], first: Sequence[str]) -> list[tuple[str, float]]:
    """``first`` put before every fused candidate, in its own order, scored above the best; the rest after."""
    top = fused[0][1] if fused else 1.0
    chosen = set(first)
    return [(doc, top + 1.0 / (i + 1)) for i, doc in enumerate(first)] + [f for f in fused if f[0] not in chosen]


def min_max(values: Sequence[float]) -> list[float]:
    """Scale to [0, 1]; all-equal input maps to 1.0."""
    if not values:
        return []
    low, high = min(values), max(values)
    if high == low:
        return [1.0 for _ in values]
    return [(v - low) / (high - low) for v in values]
