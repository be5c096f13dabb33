"""How far re-ordering can carry pastoral aptness: over the graded verses among each situation's candidates, the
best possible order (every apt verse first), the search's order, the linear ranker and gradient-boosted trees,
all cross-validated by situation as `python -m retrieval train-ranker` does.

    python bench/aptness_ceiling.py

The ceiling counts only verses the judges graded; a verse nobody graded counts as not apt."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retrieval.__main__ import _config, ready_retriever
from retrieval.aptness import train as T
from retrieval.aptness.grades import grade_files, load_all, position_of
from retrieval.aptness.ranker import CANDIDATES, AptnessFeatures, AptnessRanker


def trees(x_train, grade, x_test):
    model = HistGradientBoostingClassifier(max_iter=300, learning_rate=0.05, max_leaf_nodes=7, random_state=0)
    return model.fit(x_train, grade == 2).predict_proba(x_test)[:, 1]


def linear(x_train, grade, x_test):
    return T.fit(x_train, grade == 2, T.C_APT, T.APT_FEATURES).probability(x_test)


def main() -> int:
    config = _config(argparse.Namespace())
    retriever = ready_retriever(config, build=False)
    pairs = load_all(grade_files())
    cache = config.intent_model_dir or config.index_dir / "understanding"
    memory = T.memory_of(retriever, pairs, config.index_dir, cache)
    features = AptnessFeatures(retriever.bible, memory.verses, memory, retriever.topics, retriever.tones)
    retriever.aptness = AptnessRanker(None, features)
    retriever.result_cache.clear()
    data = T.examples(retriever, pairs, features, memory, log=lambda _: None)
    harm_x, harm_grade, harm_situation = T.harm_examples(pairs, features, memory,
                                                         lambda vid: position_of(retriever.bible, vid))
    situations = np.unique(data.situation)
    any_apt = np.mean([(data.grade[data.situation == s] == 2).any() for s in situations])
    best = np.mean([min(3, int(np.sum(data.grade[data.situation == s] == 2))) / 3 for s in situations])
    print(f"{len(situations)} situações, {len(data.grade)} versículos avaliados entre os {CANDIDATES} candidatos")
    print(f"com algum versículo adequado entre os candidatos: {any_apt:.2f}; "
          f"apt@3 da melhor ordem possível: {best:.2f}")
    print("ordem da busca: " + T._fmt(T.situation_metrics(data, -data.order.astype(float))))
    fold = T.folds(data.situation)
    for name, model in (("linear", linear), ("árvores", trees)):
        apt, harm = np.zeros(len(data.grade)), np.zeros(len(data.grade))
        for f in range(T.FOLDS):
            train, test = fold != f, fold == f
            apt[test] = model(data.x[train], data.grade[train], data.x[test])
            held = sorted({data.names[s] for s in np.unique(data.situation[test])})
            keep = ~np.isin(harm_situation, held)
            harm[test] = T.fit(harm_x[keep], harm_grade[keep] == -1, T.C_HARM, T.HARM_FEATURES).probability(
                data.x[test])
        vetoed = harm >= T.harm_threshold(harm, data.grade)
        for weight in (None, T.SEARCH_WEIGHT):
            label = "só o ranqueador" if weight is None else f"com a ordem da busca (peso {weight})"
            print(f"{name}, {label}: " + T._fmt(T.situation_metrics(data, apt - harm, vetoed, weight)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
