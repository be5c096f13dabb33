"""`python -m retrieval train-ranker`: the aptness and harm models from the graded pairs, cross-validated by
situation (no situation in both the training and the test fold), written to retrieval/data/aptness/model.json."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from retrieval.aptness.grades import GradedPair, position_of
from retrieval.aptness.memory import GradeMemory, VerseVectors
from retrieval.aptness.ranker import (
    APT_FEATURES,
    CANDIDATES,
    FEATURES,
    HARM_FEATURES,
    MODEL_FILE,
    AptnessFeatures,
    AptnessModel,
    AptnessRanker,
    LinearModel,
    blended,
)
from retrieval.understand.query import plan_query

FOLDS = 5
C_APT, C_HARM = 0.5, 0.3
BANK = "harm-bank"
SEARCH_WEIGHT = 1.0  # the search's order in the blend: keeps the taught answers to topic questions near the top
MAX_APT_VETOED = 0.03  # the harm threshold may set aside at most this share of the verses judged apt


@dataclass
class Examples:
    x: np.ndarray
    grade: np.ndarray
    situation: np.ndarray  # index into ``names``
    names: list[str]
    order: np.ndarray  # the fused rank (ties and ungraded: how the search alone would order)


def data_sha(pairs: list[GradedPair]) -> str:
    rows = sorted(f"{p.situation}\t{p.q}\t{p.verse}\t{p.grade}" for p in pairs)
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16]


def examples(retriever, pairs: list[GradedPair], features: AptnessFeatures, memory: GradeMemory,
             log: Callable[[str], None] = print) -> Examples:
    """Feature rows of every graded verse that the search puts among a situation's candidates."""
    by_situation: dict[str, list[GradedPair]] = defaultdict(list)
    for pair in pairs:
        if pair.set != BANK:  # the bank's pairs are no pool of candidates: they teach the harm model only
            by_situation[pair.situation].append(pair)
    names = sorted(by_situation)
    xs, grades, situations, orders = [], [], [], []
    for n, name in enumerate(names):
        graded = {p.verse: p.grade for p in by_situation[name]}
        q = by_situation[name][0].q
        plan = plan_query(q, retriever.thesaurus)
        fusion = retriever.fuse(plan, retriever.understand(q), exclude=name)
        positions = [p for p, _ in fusion.fused[:CANDIDATES] if retriever.bible.verses[p].id in graded]
        if not positions:
            continue
        xs.append(features.rows(fusion, positions, exclude=memory.situations.get(name)))
        grades += [graded[retriever.bible.verses[p].id] for p in positions]
        rank = {p: i for i, (p, _) in enumerate(fusion.fused)}
        orders += [rank[p] for p in positions]
        situations += [n] * len(positions)
        if (n + 1) % 100 == 0:
            log(f"características: {n + 1}/{len(names)} situações")
    return Examples(np.vstack(xs), np.array(grades), np.array(situations), names, np.array(orders))


def harm_examples(pairs: list[GradedPair], features: AptnessFeatures, memory: GradeMemory,
                  position_of_verse) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of every graded pair, brought by the search or not (the harm model learns from all -1 grades and
    the bank), with each pair's grade and situation."""
    by_situation: dict[str, list[GradedPair]] = defaultdict(list)
    for pair in pairs:
        if position_of_verse(pair.verse) is not None:
            by_situation[pair.situation].append(pair)
    xs, grades, situations = [], [], []
    for name, rows in sorted(by_situation.items()):
        vector = memory.messages[memory.texts[rows[0].q]]
        xs.append(features.pair_rows(vector, [position_of_verse(p.verse) for p in rows], memory.situations.get(name)))
        grades += [p.grade for p in rows]
        situations += [name] * len(rows)
    return np.vstack(xs), np.array(grades), np.array(situations)


def fit(x: np.ndarray, y: np.ndarray, c: float, features: tuple[str, ...] = FEATURES) -> LinearModel:
    x = x[:, [FEATURES.index(name) for name in features]]
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale < 1e-6, 1.0, scale)
    model = LogisticRegression(C=c, max_iter=2000, class_weight="balanced")
    model.fit((x - mean) / scale, y)
    return LinearModel(mean.astype(np.float32), scale.astype(np.float32), model.coef_[0].astype(np.float32),
                       float(model.intercept_[0]), features)


def folds(situations: np.ndarray, k: int = FOLDS) -> list[np.ndarray]:
    """Each row's fold, by situation (a situation's rows never split)."""
    unique = np.unique(situations)
    rng = np.random.default_rng(11)
    assignment = dict(zip(unique, rng.permutation(len(unique)) % k))
    return np.array([assignment[s] for s in situations])


def out_of_fold(data: Examples, harm_data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """P(apt) and P(harm) for every candidate row from models that never saw its situation."""
    fold = folds(data.situation)
    harm_x, harm_grade, harm_situation = harm_data
    apt, harm = np.zeros(len(data.grade)), np.zeros(len(data.grade))
    for f in range(FOLDS):
        train, test = fold != f, fold == f
        apt[test] = fit(data.x[train], data.grade[train] == 2, C_APT, APT_FEATURES).probability(data.x[test])
        held = {data.names[s] for s in np.unique(data.situation[test])}
        keep = ~np.isin(harm_situation, sorted(held))
        harm[test] = fit(harm_x[keep], harm_grade[keep] == -1, C_HARM, HARM_FEATURES).probability(data.x[test])
    return apt, harm


def harm_threshold(harm: np.ndarray, grade: np.ndarray) -> float:
    """The lowest threshold that vetoes at most MAX_APT_VETOED of the apt verses."""
    apt = np.sort(harm[grade == 2])[::-1]
    allowed = int(len(apt) * MAX_APT_VETOED)
    return float(apt[allowed]) + 1e-6 if len(apt) > allowed else 0.5


def situation_metrics(data: Examples, score: np.ndarray, vetoed: np.ndarray | None = None,
                      search_weight: float | None = None, lead: np.ndarray | None = None) -> dict[str, float]:
    """apt@3, first-apt and harm@3 over the graded candidates, ordered by ``score`` (vetoed rows last; blended
    with the search's order when ``search_weight`` is given; the first three by ``lead`` when given, as
    `ranker.led` orders them)."""
    apt3, first, harm3 = [], [], []
    for s in np.unique(data.situation):
        rows = np.flatnonzero(data.situation == s)
        rows = rows[np.argsort(data.order[rows], kind="stable")]
        key = score[rows] if search_weight is None else blended(score[rows], search_weight)
        key = key - (10.0 * vetoed[rows] if vetoed is not None else 0.0)
        chosen = rows[np.argsort(-key, kind="stable")][:3]
        if lead is not None:
            chosen = chosen[np.argsort(-lead[chosen], kind="stable")]
        top = data.grade[chosen]
        apt3.append(float(np.sum(top == 2)) / 3)
        first.append(float(top[0] == 2))
        harm3.append(float(-1 in top))
    return {"apt@3": float(np.mean(apt3)), "first-apt": float(np.mean(first)), "harm@3": float(np.mean(harm3))}


def memory_of(retriever, pairs: list[GradedPair], index_dir: Path, cache_dir: Path) -> GradeMemory:
    """The graded pairs as vectors: verses from the index's embedding cache, messages embedded once and kept."""
    bible = retriever.bible
    slug = retriever.embedder.identity.slug
    verses = VerseVectors.from_cache([v.text for v in bible.verses], index_dir / "embeddings" / f"{slug}.npz")
    return GradeMemory.build(pairs, lambda vid: position_of(bible, vid), retriever.embedder.embed, verses,
                             cache_dir, slug, lambda q: plan_query(q, retriever.thesaurus).search_text)


def train(retriever, pairs: list[GradedPair], index_dir: Path, cache_dir: Path, out: Path = MODEL_FILE,
          log: Callable[[str], None] = print, search_weight: float = SEARCH_WEIGHT) -> AptnessModel:
    memory = memory_of(retriever, pairs, index_dir, cache_dir)
    features = AptnessFeatures(retriever.bible, memory.verses, memory, retriever.topics, retriever.tones)
    retriever.aptness = AptnessRanker(None, features)  # the memory channel, without an order yet
    retriever.result_cache.clear()
    data = examples(retriever, pairs, features, memory, log)
    harm_data = harm_examples(pairs, features, memory, lambda vid: position_of(retriever.bible, vid))
    apt, harm = out_of_fold(data, harm_data)
    threshold = harm_threshold(harm, data.grade)
    weight = 1.0
    vetoed = harm >= threshold
    search = situation_metrics(data, -data.order.astype(float))
    ranked = situation_metrics(data, apt - weight * harm, vetoed, search_weight, lead=apt)
    alone = situation_metrics(data, apt - weight * harm, vetoed)
    log(f"{len(data.names)} situações, {len(data.grade)} pares entre os candidatos "
        f"({int(np.sum(data.grade == 2))} aptos, {int(np.sum(data.grade == -1))} nocivos)")
    log("validação cruzada por situação (só os versículos avaliados): busca " + _fmt(search)
        + " → ranqueador " + _fmt(ranked) + f" (sem a ordem da busca: {_fmt(alone)})")
    log(f"modelo de dano: limiar {threshold:.3f}; afasta {np.mean(vetoed[data.grade == -1]):.2f} dos nocivos "
        f"e {np.mean(vetoed[data.grade == 2]):.2f} dos aptos")
    harm_model = fit(harm_data[0], harm_data[1] == -1, C_HARM, HARM_FEATURES)
    apt_model = fit(data.x, data.grade == 2, C_APT, APT_FEATURES)
    model = AptnessModel(apt_model, harm_model, round(threshold, 6), weight, search_weight, data_sha(pairs),
                         frozenset(p.situation for p in pairs))
    model.save(out, embedder=retriever.embedder.identity.slug,
               cross_validation={"search": _round(search), "ranker": _round(ranked)})
    log(f"modelo gravado em {out}")
    return model


def _round(metrics: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 3) for k, v in metrics.items()}


def _fmt(metrics: dict[str, float]) -> str:
    return " ".join(f"{k} {v:.2f}" for k, v in metrics.items())
