"""The aptness ranker's parts on tiny inline data: the judges' memory, the linear models, the re-ordering."""

from __future__ import annotations

import json

import numpy as np
import pytest

from retrieval.aptness.grades import GradedPair, GradesError, as_situations, grade_files, load_all, load_pairs
from retrieval.aptness.memory import MEMORY_FEATURES, GradeMemory, VerseVectors
from retrieval.aptness.ranker import (
    FEATURES,
    HARM_FEATURES,
    AptnessModel,
    AptnessModelError,
    AptnessRanker,
    LinearModel,
    led,
)
from retrieval.aptness.train import data_sha, folds, harm_threshold
from retrieval.results import Fusion


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


# four verses: 0 and 1 alike, 2 and 3 alike; two messages far apart
VERSES = VerseVectors(np.stack([unit(1, 0, 0, 0), unit(0.95, 0.3, 0, 0), unit(0, 0, 1, 0), unit(0, 0, 0.9, 0.4)]))
GRIEF, HUNGER = unit(1, 0.1, 0, 0), unit(0, 0, 0.1, 1)


def memory(pairs: list[tuple[str, np.ndarray, int, int]]) -> GradeMemory:
    """(situation, message vector, verse position, grade) -> a memory, messages deduplicated by situation."""
    names = sorted({s for s, *_ in pairs})
    vectors = np.stack([next(m for s, m, *_ in pairs if s == name) for name in names])
    return GradeMemory(vectors, np.array([names.index(s) for s, *_ in pairs]), np.array([p for *_, p, _ in pairs]),
                       np.array([g for *_, g in pairs], dtype=np.int8), np.array([names.index(s) for s, *_ in pairs]),
                       VERSES, names)


def test_the_memory_offers_what_judges_found_apt_for_close_messages():
    m = memory([("grief", GRIEF, 0, 2), ("grief", GRIEF, 2, 0), ("hunger", HUNGER, 3, 2), ("hunger", HUNGER, 1, -1)])
    assert m.channel(unit(1, 0.15, 0, 0), neighbours=1) == [0]
    assert m.channel(unit(0, 0, 0.1, 1), neighbours=1) == [3]
    assert m.channel(unit(1, 0.15, 0, 0), neighbours=1, exclude=m.situations["grief"]) == [3]
    mask = np.array([False, True, True, True])
    assert m.channel(unit(1, 0.15, 0, 0), neighbours=1, mask=mask) == []


def test_a_verse_judged_tone_deaf_for_a_close_message_is_remembered_as_harm():
    m = memory([("hunger", HUNGER, 1, -1), ("grief", GRIEF, 0, 2)])
    rows = m.features(unit(0, 0, 0.2, 1), [1, 0])
    harm, same_harm = MEMORY_FEATURES.index("knn_harm"), MEMORY_FEATURES.index("same_harm")
    assert rows[0, same_harm] > 0.5 and rows[1, same_harm] == 0.0
    assert rows[0, harm] > rows[1, harm]
    left_out = m.features(unit(0, 0, 0.2, 1), [1], exclude=m.situations["hunger"])
    assert left_out[0, same_harm] == 0.0



def test_the_harm_share_depends_on_the_reader_not_only_the_verse():
    # verse 1 wounds the hungry and helps the grieving: its harm share follows the message, not the verse alone
    m = memory([("hunger", HUNGER, 1, -1), ("hunger", HUNGER, 3, 2), ("grief", GRIEF, 1, 2)])
    share = MEMORY_FEATURES.index("harm_share")
    hungry, grieving = m.features(unit(0, 0, 0.3, 1), [1, 3]), m.features(unit(1, 0.3, 0, 0), [1, 3])
    assert hungry[0, share] > 0.5 > grieving[0, share]
    assert hungry[1, share] < hungry[0, share]
    assert m.features(unit(0, 0, 0.3, 1), [1], exclude=m.situations["hunger"])[0, share] < 0.1



def test_a_verse_judged_tone_deaf_for_many_readers_carries_that_rate_to_any_reader():
    # verse 1 wounded two of its three readers, verse 3 helped both of its own; a new reader far from all of them
    m = memory([("a", HUNGER, 1, -1), ("b", GRIEF, 1, -1), ("c", GRIEF, 1, 2), ("a", HUNGER, 3, 2),
                ("b", GRIEF, 3, 2)])
    apt, harm = MEMORY_FEATURES.index("verse_apt_rate"), MEMORY_FEATURES.index("verse_harm_rate")
    rows = m.features(unit(0, 1, 0, 0), [1, 3, 0])
    assert rows[0, harm] > rows[2, harm] > rows[1, harm]  # the unjudged verse 0 sits at the overall rate
    assert rows[1, apt] > rows[2, apt] > rows[0, apt]
    assert m.features(unit(0, 1, 0, 0), [1], exclude=m.situations["c"])[0, harm] > rows[0, harm]


def model_weighing(feature: str, weight: float, harm_feature: str = "knn_harm") -> AptnessModel:
    def linear(names, name, w):
        weights = np.array([w if n == name else 0.0 for n in names], np.float32)
        return LinearModel(np.zeros(len(names), np.float32), np.ones(len(names), np.float32), weights, 0.0, names)
    return AptnessModel(linear(FEATURES, feature, weight), linear(HARM_FEATURES, harm_feature, 20.0),
                        harm_threshold=0.9, harm_weight=1.0)


class Rows:
    """Feature rows from a table: position -> {feature: value} (the ranker's input, without a corpus)."""

    def __init__(self, table):
        self.table = table

    def rows(self, fusion, positions, exclude=None):
        x = np.zeros((len(positions), len(FEATURES)), np.float32)
        for i, p in enumerate(positions):
            for name, value in self.table.get(p, {}).items():
                x[i, FEATURES.index(name)] = value
        return x


def fusion_of(positions: list[int]) -> Fusion:
    return Fusion([(p, 1.0 / (i + 60)) for i, p in enumerate(positions)], {}, {}, None, [], [], None,
                  np.zeros(4, np.float32), False, False, care=True)


def test_the_ranker_orders_by_aptness_and_sets_aside_what_would_wound():
    features = Rows({7: {"knn_apt": 1.0}, 8: {"knn_apt": 0.5}, 9: {"knn_apt": 0.9, "knn_harm": 0.4}})
    ranker = AptnessRanker(model_weighing("knn_apt", 4.0), features, candidates=3)
    fused, unfit, apt = ranker.rerank("...", fusion_of([9, 8, 7, 5]))
    assert [p for p, _ in fused] == [7, 8, 9, 5]  # 9 is apt but harm lowers it; 5 is past the candidates
    assert unfit == {9}
    assert fused[2][1] > fused[3][1]  # the ordered candidates stay above the rest
    assert set(apt) == {7, 8, 9} and apt[7] > apt[9] > apt[8]  # P(apt) alone, harm aside


def test_of_the_three_shown_the_most_apt_leads_unless_one_was_remembered():
    from retrieval.results import Hit

    hits = [Hit(i, i, "", 0.0) for i in ("A.1.1", "B.1.1", "C.1.1", "D.1.1")]
    apt = {"A.1.1": 0.3, "B.1.1": 0.2, "C.1.1": 0.9, "D.1.1": 1.0}
    assert [h.id for h in led(hits, apt)] == ["C.1.1", "A.1.1", "B.1.1", "D.1.1"]  # D is not among the three
    assert [h.id for h in led(hits, apt, frozenset({"B.1.1"}))] == ["A.1.1", "B.1.1", "C.1.1", "D.1.1"]
    assert led([], apt) == []


def test_a_life_surely_told_is_ordered_by_the_ranker_alone_a_topic_asked_by_the_search_too():
    import dataclasses

    from retrieval.understand.intent import SITUATION, TEACHING, Intent

    features = Rows({7: {"knn_apt": 1.0}, 8: {"knn_apt": 0.9}})  # the ranker barely prefers 7 to 8
    ranker = AptnessRanker(dataclasses.replace(model_weighing("knn_apt", 4.0), search_weight=50.0), features,
                           candidates=4)

    def first(intent):  # the search put 7 last: any share of its order would keep 8 first
        fusion = dataclasses.replace(fusion_of([8, 6, 5, 7]), intent=intent)
        return ranker.rerank("...", fusion)[0][0][0]

    assert first(Intent(SITUATION, 0.9, {})) == 7  # a person telling their pain: what judges found apt
    assert first(Intent(SITUATION, 0.5, {})) == 8  # unsure: the search's order still weighs (a topic asked)
    assert first(Intent(TEACHING, 0.9, {})) == 8


def test_a_question_inside_a_life_told_keeps_its_order_but_not_what_would_wound():
    features = Rows({7: {"knn_apt": 1.0}, 9: {"knn_harm": 0.4}})
    ranker = AptnessRanker(model_weighing("knn_apt", 4.0), features, candidates=3)
    assert ranker.unfit(fusion_of([9, 8, 7, 5])) == {9}
    assert ranker.unfit(fusion_of([])) == frozenset()
    import dataclasses

    said = dataclasses.replace(fusion_of([9, 8, 7, 5]), remembered=(9,))  # the verse the person quotes: asked for
    assert ranker.unfit(said) == frozenset() and ranker.rerank("...", said)[1] == frozenset()


def test_the_graded_messages_are_embedded_once_per_process_whatever_the_data_dir(tmp_path):
    """A second index (another data dir, the same grades and embedder) reuses the vectors instead of embedding
    the graded messages again; another embedder embeds them anew."""
    calls: list[int] = []

    def embed(texts):
        calls.append(len(texts))
        return np.stack([unit(len(t), 1, 0, 0) for t in texts])

    pairs = [GradedPair("s1", "perdi meu pai", "PSA.34.18", 2), GradedPair("s2", "sem comida em casa", "PHP.4.19", -1)]
    first = GradeMemory.build(pairs, lambda vid: 0, embed, VERSES, tmp_path / "a", "slug-x")
    again = GradeMemory.build(pairs, lambda vid: 0, embed, VERSES, tmp_path / "b", "slug-x")
    assert calls == [2] and np.array_equal(first.messages, again.messages)
    assert (tmp_path / "b").is_dir()  # still written beside the index for the next start
    GradeMemory.build(pairs, lambda vid: 0, embed, VERSES, tmp_path / "c", "slug-y")
    assert calls == [2, 2]


def test_models_round_trip_and_refuse_other_features(tmp_path):
    model = model_weighing("votes", 1.0)
    path = tmp_path / "model.json"
    model.save(path, embedder="x")
    again = AptnessModel.load(path)
    x = np.random.default_rng(1).normal(size=(3, len(FEATURES))).astype(np.float32)
    assert np.allclose(again.apt.probability(x), model.apt.probability(x), atol=1e-5)
    data = json.loads(path.read_text())
    data["features"] = data["features"][:-1]
    path.write_text(json.dumps(data))
    with pytest.raises(AptnessModelError, match="train-ranker"):
        AptnessModel.load(path)


def test_a_malformed_grades_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "grades-x.jsonl"
    path.write_text('{"situation": "s1", "q": "perdi meu pai", "verse": "PSA.34.18", "grade": 2}\n'
                    '{"situation": "s1", "q": "perdi meu pai", "verse": "PSA.34.18", "grade": 5}\n')
    with pytest.raises(GradesError, match="grades-x.jsonl:2"):
        load_pairs(path)


def test_pairs_without_a_message_are_filled_from_the_files_that_hold_it(tmp_path):
    path = tmp_path / "grades-dev.jsonl"
    path.write_text('{"situation": "d1", "verse": "PSA.34.18", "grade": 2}\n')
    assert load_all([path]) == []
    (pair,) = load_all([path], {"d1": "meu pai morreu"})
    assert pair.q == "meu pai morreu"
    assert as_situations([pair]) == [{"id": "d1", "kind": "situation", "q": "meu pai morreu",
                                      "grades": {"PSA.34.18": 2}}]


def test_a_situation_id_reused_for_another_message_is_refused(tmp_path):
    first, second = tmp_path / "grades-a.jsonl", tmp_path / "grades-b.jsonl"
    first.write_text(json.dumps({"situation": "g001", "q": "perdi meu pai", "verse": "PSA.34.18", "grade": 2}) + "\n")
    second.write_text(json.dumps({"situation": "g001", "q": "fui demitido", "verse": "PSA.34.18", "grade": 0}) + "\n")
    with pytest.raises(GradesError, match="g001.*grades-a.jsonl"):
        load_all([first, second])
    second.write_text(json.dumps({"situation": "g001", "verse": "JHN.11.35", "grade": 2}) + "\n")  # no message
    assert {p.verse for p in load_all([first, second], {"g001": "perdi meu pai"})} == {"PSA.34.18", "JHN.11.35"}


def test_folds_never_split_a_situation():
    situations = np.array([0, 0, 1, 1, 1, 2, 3, 3, 4, 5, 6, 7])
    fold = folds(situations, k=3)
    for s in np.unique(situations):
        assert len(set(fold[situations == s])) == 1


def test_the_harm_threshold_spares_the_apt():
    harm = np.array([0.1, 0.2, 0.3, 0.95, 0.9, 0.8])
    grade = np.array([2, 2, 2, -1, -1, 0])
    threshold = harm_threshold(harm, grade)
    assert not (harm[grade == 2] >= threshold).any() and (harm[grade == -1] >= threshold).all()


def test_the_shipped_model_was_trained_on_the_grades_in_the_repository():
    pairs = load_all(grade_files())
    assert len(pairs) >= 3000 and len({p.situation for p in pairs}) >= 300
    assert AptnessModel.load().data_sha == data_sha(pairs), "rode `python -m retrieval train-ranker`"
    assert all(isinstance(p, GradedPair) and p.q for p in pairs)
