"""Topics reached by meaning: the choice and the ranking as pure functions, then the real embedder."""

import numpy as np
import pytest

from retrieval.understand.topic_meaning import TopicMeanings, chosen_topics, read_frames, voted_ranking
from retrieval.understand.topics import TopicIndex


def test_a_topic_is_chosen_only_near_the_message_and_nearer_than_any_frame():
    similarity = np.array([0.60, 0.55, 0.50, 0.30, 0.58])
    frames = np.array([0.20, 0.52, 0.10, 0.10, 0.10])  # topic 1 is as near a question with no subject
    sizes = np.array([10, 10, 10, 10, 2])  # topic 4 is two verses: one person's note
    assert chosen_topics(similarity, frames, sizes, nearest=4, floor=0.42, margin=0.05) == [
        (0, pytest.approx(0.60)), (2, pytest.approx(0.50))]
    assert chosen_topics(similarity, frames, sizes, nearest=1, floor=0.42, margin=0.05) == [(0, pytest.approx(0.60))]
    assert chosen_topics(similarity, frames, sizes, floor=0.9) == []


def test_verses_are_ranked_by_vote_share_times_nearness_inside_the_mask():
    near = [(3, 1.0), (5, 0.5)]
    far = [(5, 1.0), (7, 1.0)]
    assert voted_ranking([(near, 0.6), (far, 0.2)], None, 10) == [3, 5, 7]  # 3: 0.6, 5: 0.3 + 0.2, 7: 0.2
    assert voted_ranking([(near, 0.6), (far, 0.4)], None, 10) == [5, 3, 7]  # 5: 0.3 + 0.4
    mask = np.zeros(10, dtype=bool)
    mask[[5, 7]] = True
    assert voted_ranking([(near, 0.6), (far, 0.4)], mask, 1) == [5]


def _index(names: list[str]) -> TopicIndex:
    return TopicIndex({name: [(10 * i + j, 1.0 - j / 10) for j in range(5)] for i, name in enumerate(names)})


NAMES = ["astrology", "reading the bible", "judging others", "jesus coming back", "what heaven is like", "adoption"]


def test_portuguese_messages_reach_english_topics_and_the_question_frame_reaches_none(use_embedder):
    meanings = TopicMeanings.build(_index(NAMES), use_embedder.embed, read_frames())

    def about(text):
        return [name for name, _ in meanings.about(use_embedder.embed([text])[0])]

    assert about("é pecado ler horóscopo?")[:1] == ["astrology"]
    assert about("jesus vai voltar mesmo?")[:1] == ["jesus coming back"]
    assert about("é errado julgar os outros?")[:1] == ["judging others"]
    assert "reading the bible" not in about("o que a Bíblia ensina sobre o trabalho?")
    assert about("qual a capital da austrália?") == []


def test_the_names_are_embedded_once_and_a_new_frame_embeds_them_again(use_embedder, tmp_path):
    calls = []

    def embed(texts):
        calls.append(len(texts))
        return use_embedder.embed(texts)

    index = _index(NAMES)
    first = TopicMeanings.cached(index, embed, use_embedder.identity.slug, tmp_path)
    again = TopicMeanings.cached(index, embed, use_embedder.identity.slug, tmp_path)
    assert len(calls) == 2 and np.allclose(first.vectors, again.vectors)  # names and frames, once
    frames = tmp_path / "frames.txt"
    frames.write_text("# só uma\no que a bíblia diz?\n", encoding="utf-8")
    TopicMeanings.cached(index, embed, use_embedder.identity.slug, tmp_path, frames)
    assert len(calls) == 4 and len(list(tmp_path.glob("topic-meanings-*.npz"))) == 2
    frames.write_text("# nada\n", encoding="utf-8")
    with pytest.raises(ValueError, match="frames.txt"):
        read_frames(frames)
