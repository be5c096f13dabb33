"""The relevance ranker's parts on tiny inline data: the exported trees, which questions it orders, and its model
file (the full-corpus measure is in test_full_corpus.py)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from retrieval.relevance.features import FEATURES
from retrieval.relevance.model import RelevanceModel, RelevanceModelError, orders
from retrieval.relevance.trees import TreeEnsemble, export
from retrieval.understand.intent import KNOWLEDGE, SITUATION, TEACHING, Intent


def fitted_trees(seed: int = 0) -> tuple[HistGradientBoostingClassifier, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(600, 5))
    y = (x[:, 0] + 0.5 * x[:, 1] * x[:, 2] > 0.3) | (x[:, 4] > 1.2)
    model = HistGradientBoostingClassifier(max_iter=30, max_depth=4, early_stopping=False, random_state=0)
    return model.fit(x, y), rng.normal(size=(50, 5))


def test_exported_trees_score_exactly_as_scikit_learn():
    model, x = fitted_trees()
    trees = export(model)
    assert np.allclose(trees.raw(x), model.decision_function(x), atol=1e-9)
    assert np.allclose(trees.probability(x), model.predict_proba(x)[:, 1], atol=1e-9)


def test_exported_trees_survive_their_json():
    model, x = fitted_trees(seed=3)
    again = TreeEnsemble.from_dict(json.loads(json.dumps(export(model).as_dict())))
    assert np.allclose(again.raw(x), model.decision_function(x), atol=1e-9)


def fusion(intent: str | None = TEACHING, **flags) -> SimpleNamespace:
    read = Intent(intent, 0.9, {intent: 0.9}) if intent else None
    values = dict(care=False, quote=False, turned_away=False, fused=[(1, 0.5)], intent=read, told=None)
    return SimpleNamespace(**{**values, **flags})


@pytest.mark.parametrize("case, ordered", [
    (fusion(), True),
    (fusion(None), True),
    (fusion(care=True), False),
    (fusion(quote=True), False),
    (fusion(turned_away=True), False),
    (fusion(fused=[]), False),
    (fusion(SITUATION), False),
    (fusion(KNOWLEDGE), False),
    (fusion(told=3), False),  # a story retold: its verses lead, in the passage's own order
])
def test_the_ranker_orders_questions_not_lives_quotations_or_stories(case, ordered):
    assert orders(case) is ordered


def test_a_model_file_of_other_features_is_a_clear_error(tmp_path):
    model, _ = fitted_trees()
    path = tmp_path / "model.json"
    RelevanceModel(export(model), "use-m3").save(path)
    assert RelevanceModel.load(path).embedder == "use-m3"
    data = json.loads(path.read_text())
    data["features"] = list(FEATURES[:-1])
    path.write_text(json.dumps(data))
    with pytest.raises(RelevanceModelError, match="train-relevance"):
        RelevanceModel.load(path)
    with pytest.raises(RelevanceModelError, match="ilegível"):
        RelevanceModel.load(tmp_path / "absent.json")


def test_the_repositorys_model_was_trained_on_the_repositorys_questions():
    from retrieval.relevance.train import data_sha, load_questions, training_files

    files = training_files()
    assert len(files) >= 5
    assert RelevanceModel.load().data_sha == data_sha(load_questions(files))


def test_a_malformed_question_names_its_file_and_line(tmp_path):
    from retrieval.relevance.train import load_questions

    path = tmp_path / "train-x.jsonl"
    path.write_text('{"q": "o que a biblia diz sobre o perdão?", "relevant": ["MAT.6.14"]}\n{"q": ""}\n')
    with pytest.raises(ValueError, match="train-x.jsonl:2"):
        load_questions([path])
