"""Named passages by meaning: the blend and the floor as pure functions, then the real embedder on the mini Bible."""

import numpy as np
import pytest

from corpus.bible import load
from retrieval.aptness.memory import VerseVectors
from retrieval.knowledge import stories as stories_module
from retrieval.knowledge.passages import NamedPassages
from retrieval.knowledge.stories import SURE, StoryMeanings, meanings, nearest
from retrieval.understand.topic_meaning import read_frames
from tests.conftest import write

PASSAGES = """
[[passagem]]
nome = "O Salmo do pastor"
variantes = ["o senhor e meu pastor", "salmo do bom pastor"]
trecho = "Salmos 23"
tipo = "salmo"

[[passagem]]
nome = "A formiga e o preguiçoso"
variantes = ["vai ter com a formiga"]
trecho = "Provérbios 6:1-2"
tipo = "texto"

[[passagem]]
nome = "Amai os inimigos"
variantes = ["amar os inimigos", "orar por quem nos persegue"]
trecho = "Mateus 5:2"
tipo = "sermao"
"""


def test_a_passage_means_its_names_more_than_its_verses_and_stays_a_unit_vector():
    names = np.array([[1.0, 0.0], [0.0, 2.0]])
    verses = np.array([[0.0, 3.0], [0.0, 1.0]])
    blended = meanings(names, verses, name_share=0.7)
    assert np.allclose(np.linalg.norm(blended, axis=1), 1.0)
    assert blended[0, 0] > blended[0, 1] > 0  # mostly its name, a little its verses
    assert np.allclose(blended[1], [0.0, 1.0])  # name and verses agree


def test_only_a_passage_near_enough_and_nearer_than_a_bare_question_is_told():
    frames = np.array([0.1, 0.1, 0.1])
    assert nearest(np.array([0.2, 0.55, 0.5]), frames, floor=0.4, margin=0.05, tie=0.03) == [1]
    assert nearest(np.array([0.2, 0.55, 0.53]), frames, floor=0.4, margin=0.05, tie=0.03) == [1, 2]  # as near
    assert nearest(np.array([0.2, 0.35, 0.3]), frames, floor=0.4, margin=0.05) == []
    # the Bereans "examined the Scriptures": as near "o que a Bíblia diz?" as the message, so never told
    assert nearest(np.array([0.2, 0.55, 0.5]), np.array([0.1, 0.52, 0.1]), floor=0.4, margin=0.05) == [2]
    assert nearest(np.array([]), np.array([]), floor=0.4) == []


@pytest.fixture()
def stories(tmp_path, mini_index, use_embedder):
    bible = load(mini_index.corpus_path)
    passages = NamedPassages.load(bible, write(tmp_path, "passages.toml", PASSAGES))
    return bible, passages, VerseVectors(use_embedder.embed([v.text for v in bible.verses]))


def test_a_story_told_in_other_words_reaches_its_passage_and_its_verses_nearest_first(stories, use_embedder):
    bible, passages, verses = stories
    meaning = StoryMeanings.build(passages, bible, verses, use_embedder.embed, read_frames())

    def told(text):
        rows = meaning.about(use_embedder.embed([text])[0]).rows
        return meaning.names[rows[0]] if rows else None

    assert told("a história da formiga que ensina o preguiçoso") == "A formiga e o preguiçoso"
    assert told("jesus mandou amar quem nos odeia") == "Amai os inimigos"
    assert told("o salmo que diz que Deus é como um pastor") == "O Salmo do pastor"
    assert told("qual o preço da gasolina hoje?") is None
    vector = use_embedder.embed(["o preguiçoso que dorme e perde a colheita"])[0]
    row = meaning.names.index("A formiga e o preguiçoso")
    first = meaning.verses([row], vector, None, 5)
    assert [bible.verses[p].id for p in first] == ["PRO.6.2", "PRO.6.1"]
    mask = np.zeros(len(bible.verses), dtype=bool)
    mask[first[1]] = True
    assert meaning.verses([row], vector, mask, 5) == [first[1]]  # a scope keeps only its own verses
    both = meaning.verses([row, meaning.names.index("Amai os inimigos")], vector, None, 5)
    assert [bible.verses[p].id for p in both] == ["PRO.6.2", "MAT.5.2", "PRO.6.1"]  # one of each in turn


@pytest.fixture()
def counted(use_embedder):
    """The real embedder, with the size of each call it gets."""
    calls: list[int] = []

    def embed(texts):
        calls.append(len(texts))
        return use_embedder.embed(texts)

    return embed, calls


def test_the_meanings_are_embedded_once_and_a_changed_passage_is_made_again_from_kept_vectors(
        stories, use_embedder, tmp_path, counted):
    bible, passages, verses = stories
    embed, calls = counted
    frames = ["o que a bíblia diz sobre isso?"]
    first = StoryMeanings.cached(passages, bible, verses, embed, use_embedder.identity.slug, tmp_path, frames)
    again = StoryMeanings.cached(passages, bible, verses, embed, use_embedder.identity.slug, tmp_path, frames)
    assert calls == [3, 1] and np.allclose(first.vectors, again.vectors)
    assert np.allclose(first.frame_similarity, again.frame_similarity)
    changed = NamedPassages(passages.passages[:2], {k: v for k, v in passages.phrases.items()
                                                    if v in passages.passages[:2]})
    remade = StoryMeanings.cached(changed, bible, verses, embed, use_embedder.identity.slug, tmp_path, frames)
    assert len(remade.names) == 2 and len(list(tmp_path.glob("story-meanings-*.npz"))) == 2
    assert calls == [3, 1]  # its names and frames were embedded before: their vectors are kept beside the cache


def test_a_cache_that_cannot_be_written_is_said_and_nothing_half_written_stays(tmp_path, caplog):
    from retrieval.arrays import save_arrays

    assert save_arrays(tmp_path / "a" / "x.npz", "os vetores", v=np.ones(3))
    assert np.allclose(np.load(tmp_path / "a" / "x.npz")["v"], 1.0)
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert not save_arrays(blocked / "x.npz", "os vetores", v=np.ones(3))
    assert "não foi possível guardar os vetores" in caplog.text
    assert not list(tmp_path.glob("**/*.tmp.npz"))


def test_the_retellings_file_names_a_passage_on_every_line(tmp_path):
    from retrieval.knowledge.stories import load_exemplars

    passages = write(tmp_path, "passages.toml", PASSAGES)
    good = '{"passage": "Mateus 5:2", "q": "jesus falou de gostar de quem nos quer mal"}\n'
    assert load_exemplars(write(tmp_path, "ok.jsonl", good), passages) == [
        ("Amai os inimigos", "jesus falou de gostar de quem nos quer mal")]  # the passage the reference names
    assert load_exemplars(write(tmp_path, "abbr.jsonl", good.replace("Mateus", "Mt")), passages)[0][0] == \
        "Amai os inimigos"
    with pytest.raises(ValueError, match="bad.jsonl:2: trecho desconhecido"):
        load_exemplars(write(tmp_path, "bad.jsonl", good + '{"passage": "Mateus 5:3", "q": "x"}\n'), passages)
    with pytest.raises(ValueError, match="broken.jsonl:1"):
        load_exemplars(write(tmp_path, "broken.jsonl", '{"passage": \n'), passages)


def test_the_shipped_retellings_name_known_passages_and_cover_nearly_all_of_them():
    from retrieval.knowledge.stories import load_exemplars

    retellings = load_exemplars()
    named = {name for name, _ in retellings}
    assert len(retellings) >= 2000 and len(named) >= 340
    assert len({text for _, text in retellings}) == len(retellings)  # no retelling twice


def test_a_message_names_the_story_of_its_nearest_retelling_only_when_no_other_kind_is_as_near():
    from retrieval.knowledge.retellings import Retellings

    texts = ["o gigante derrubado por um menino com uma pedra", "a festa em que a água virou vinho",
             "estou triste porque perdi meu emprego"]
    vectors = np.eye(3, 4, dtype=np.float32)  # three meanings far apart: the n-grams decide
    retellings = Retellings.build(texts, np.array([0, 1, -1]), vectors)
    assert retellings.told("o menino que derrubou o gigante com uma pedra", np.eye(1, 4, 0)[0]) == 0
    assert retellings.told("a água que virou vinho na festa", np.eye(1, 4, 1)[0]) == 1
    assert retellings.told("perdi meu emprego e estou triste", np.eye(1, 4, 2)[0]) is None  # a life, not a story
    assert retellings.told("qual o preço da gasolina?", np.eye(1, 4, 3)[0]) is None  # near nothing
    assert Retellings.build(texts[2:], np.array([-1]), vectors[2:]).told("o gigante", vectors[0]) is None
    message = "o menino que derrubou o gigante com uma pedra"
    row, ahead, like = retellings.telling(message, np.eye(1, 4, 0)[0])
    assert 0.0 <= like <= 1.0 and row == 0
    assert ahead == pytest.approx(retellings.cosines(message, np.eye(1, 4, 0)[0])[[0, 2]] @ [1, -1])


def test_only_a_narrative_passage_retold_far_ahead_of_other_kinds_is_clearly_told():
    from retrieval.knowledge.stories import CLEARLY_TOLD, LIKE_CLEARLY, TOLD_MARGIN, StoryGuess

    assert StoryGuess([3], 0.5, 3, CLEARLY_TOLD, narrative=True).clearly_told
    assert not StoryGuess([3], 0.5, 3, CLEARLY_TOLD - 0.01, narrative=True).clearly_told  # a life may sound so
    assert not StoryGuess([3], 0.5, 3, 0.4, narrative=False).clearly_told  # a verse or a psalm, not a story
    assert not StoryGuess([3], 0.5).clearly_told
    # read by the gate as a story retold, surely: a smaller lead is enough
    assert StoryGuess([3], 0.5, 3, TOLD_MARGIN, narrative=True, likeness=LIKE_CLEARLY).clearly_told
    assert not StoryGuess([3], 0.5, 3, TOLD_MARGIN, narrative=True, likeness=LIKE_CLEARLY - 0.05).clearly_told
    assert not StoryGuess([3], 0.5, 3, TOLD_MARGIN - 0.01, narrative=True, likeness=1.0).clearly_told
    # a few words a verse holds make a quotation, unless the story is retold far ahead and the gate reads a story
    assert StoryGuess([3], 0.5, 3, CLEARLY_TOLD, narrative=True, likeness=0.6).retold_plainly
    assert not StoryGuess([3], 0.5, 3, CLEARLY_TOLD, narrative=True, likeness=0.1).retold_plainly  # "tem uma parte…"


def test_the_gate_learns_a_story_retold_from_messages_of_other_kinds():
    from retrieval.knowledge.retellings import Retellings

    stories = ["aquela do menino que derrubou o gigante", "aquela da festa em que a água virou vinho",
               "tem a história do homem engolido pelo peixe", "aquela do barco com os bichos de dois em dois",
               "tem uma história do cego que voltou a ver", "aquela da mulher que virou estátua de sal"]
    others = ["perdi meu emprego e estou triste", "bom dia pastor", "estou com medo do exame amanhã",
              "qual o horário do culto?", "minha mãe está doente e eu não durmo", "obrigado pela oração"]
    vectors = np.zeros((12, 4), np.float32)
    vectors[:, 0] = 1.0  # one meaning for all: the n-grams decide
    retellings = Retellings.build([*stories, *others], np.array([*range(6), *[-1] * 6]), vectors)
    assert retellings.gate is not None and retellings.gate.shape == (2 ** 16 + 4 + 1,)
    assert retellings._read("tem a história do menino que venceu o gigante", vectors[0]).like > 0.5 > \
        retellings._read("estou triste e com medo, perdi tudo", vectors[0]).like
    again = Retellings.from_arrays(retellings.arrays())  # kept beside the index with the rest
    assert np.array_equal(again.gate, retellings.gate)


def test_a_fainter_retelling_names_its_story_only_when_the_gate_is_sure_and_the_nearest_agree():
    from dataclasses import replace

    from retrieval.knowledge.retellings import Retellings

    texts = ["o gigante derrubado por um menino com uma pedra", "o menino pastor venceu o gigante com a funda",
             "a festa em que a água virou vinho", "estou triste porque perdi meu emprego"]
    vectors = np.eye(4, 4, dtype=np.float32)
    built = Retellings.build(texts, np.array([0, 0, 1, -1]), vectors)
    message, vector = "o menino e o gigante", np.eye(1, 4, 0)[0]
    bias = np.zeros_like(built.gate)
    sure, unsure = replace(built, gate=bias + np.eye(1, len(bias), len(bias) - 1)[0] * 20), \
        replace(built, gate=bias - np.eye(1, len(bias), len(bias) - 1)[0] * 20)
    assert sure.told(message, vector, floor=0.99) == 0  # too faint for the floor; two of the three nearest agree
    assert unsure.told(message, vector, floor=0.99) is None  # the gate reads no story
    lone = replace(sure, rows=np.array([0, 2, 1, -1]))  # the nearest retellings name two passages
    assert lone.told(message, vector, floor=0.99) is None


def test_a_contrast_teaches_the_gate_but_is_no_rival():
    from retrieval.knowledge.retellings import CONTRAST, RIVAL, Retellings

    texts = ["o gigante derrubado por um menino com uma pedra", "o menino e o gigante, onde ta isso na biblia",
             "estou triste porque perdi meu emprego"]
    vectors = np.eye(3, 4, dtype=np.float32)
    message, vector = "o menino que derrubou o gigante com uma pedra", np.eye(1, 4, 0)[0]
    contrasted = Retellings.build(texts, np.array([0, CONTRAST, RIVAL]), vectors)
    rivalled = Retellings.build(texts, np.array([0, RIVAL, RIVAL]), vectors)
    cosine = rivalled.cosines(message, vector)
    margin = (cosine[0] - cosine[1] + cosine[0] - cosine[2]) / 2  # the contrast is nearer than the rival
    assert contrasted.rows.tolist() == [0, RIVAL]  # kept for the gate only: no message is compared with it
    assert contrasted.told(message, vector, margin=margin) == 0
    assert rivalled.told(message, vector, margin=margin) is None


def test_a_story_retold_in_other_words_is_told_first_and_surely(stories, use_embedder):
    bible, passages, verses = stories
    retellings = [("A formiga e o preguiçoso", "o bichinho que trabalha no verão guardando comida sem ter chefe"),
                  ("A formiga e o preguiçoso", "aquele inseto pequeno que junta o alimento na colheita"),
                  ("Nenhuma passagem desta Bíblia", "uma passagem que o texto bíblico carregado não tem")]
    others = ["perdi meu emprego e estou com medo", "bom dia pastor", "qual o horário do culto?"]
    plain = StoryMeanings.build(passages, bible, verses, use_embedder.embed, read_frames())
    taught = StoryMeanings.build(passages, bible, verses, use_embedder.embed, read_frames(), exemplars=retellings,
                                 others=others)
    text = "o bichinho que guarda comida no verao sem ninguem mandar"
    vector = use_embedder.embed([text])[0]
    row = taught.names.index("A formiga e o preguiçoso")
    assert plain.about(vector, text).rows != [row] and plain.about(vector, text).told is None
    guess = taught.about(vector, text)
    assert guess.rows[0] == row and guess.nearness >= SURE and guess.told == row
    assert not guess.narrative and not guess.clearly_told  # a proverb is no story: it never leads a life's answer
    assert taught.retellings.rows.tolist().count(row) == 3  # its name and its two retellings; the absent one left out
    for message in ("perdi meu emprego e estou com muito medo", "qual o preço da gasolina hoje?"):
        assert taught.about(use_embedder.embed([message])[0], message) == plain.about(use_embedder.embed([message])[0])


def test_the_retellings_are_embedded_once_per_process_whatever_the_data_dir(stories, tmp_path, counted):
    bible, passages, verses = stories
    embed, calls = counted
    retellings = [("Amai os inimigos", "jesus mandou gostar de quem nos quer mal e rezar por ele")]
    for folder in ("a", "b"):
        StoryMeanings.cached(passages, bible, verses, embed, "slug-retellings", tmp_path / folder, ["e isso?"],
                             retellings, ["bom dia pastor"])
    # names, frames, the retellings' new texts (1 retelling, 1 other); then, in another folder, no retellings
    assert calls == [3, 1, 2, 3, 1]
    stories_module._BUILT.clear()  # a restart: read from the cache beside the index, nothing embedded
    again = StoryMeanings.cached(passages, bible, verses, embed, "slug-retellings", tmp_path / "a", ["e isso?"],
                                 retellings, ["bom dia pastor"])
    assert calls == [3, 1, 2, 3, 1] and len(again.retellings.rows) == 5


def test_a_life_told_like_the_lives_judges_graded_is_no_retold_story(use_embedder):
    """A retelling that opens with a life ("saí de um relacionamento…") pulls lives like it towards its story; the
    graded lives (retrieval/data/aptness) stand among the other kinds, so such a life stays a life."""
    from retrieval.knowledge.retellings import Retellings
    from retrieval.knowledge.stories import other_kinds
    from retrieval.understand.intent import embedding_text

    story = "saí de um relacionamento ruim e minha líder falou da mulher que olhou pra trás e virou estátua de sal"
    lives = ["saí de um relacionamento abusivo há um ano e ainda me pego pedindo desculpa por tudo",
             "meu ex me humilhava, hoje estou segura mas ainda tenho medo de tudo"]
    message = "saí de um relacionamento ruim faz um ano e ainda peço desculpa por tudo"

    def retellings(others):
        texts = [story, "bom dia pastor, tudo bem?", *others]
        rows = np.array([0] + [-1] * (len(texts) - 1), dtype=np.int32)
        return Retellings.build(texts, rows, use_embedder.embed([embedding_text(t) for t in texts]))

    vector = use_embedder.embed([embedding_text(message)])[0]
    assert retellings([]).told(message, vector) == 0  # nothing like it among the other kinds: read as the story
    assert retellings(lives).told(message, vector) is None
    assert retellings(lives).told("a mulher que olhou pra trás e virou estátua de sal", use_embedder.embed(
        [embedding_text("a mulher que olhou pra trás e virou estátua de sal")])[0]) == 0
    graded = other_kinds()
    assert len(graded) > 4000 and len(set(graded)) == len(graded)  # the intent bank's and the graded lives, once


def test_only_the_graded_sets_the_gate_weighs_stand_among_its_other_kinds(tmp_path):
    from retrieval.aptness.grades import grade_files, load_all
    from retrieval.knowledge.stories import gate_sets, other_kinds

    listed = tmp_path / "gate.txt"
    listed.write_text("# comentário\ntrain-a  # uma rodada\n\nharm-bank\n", encoding="utf-8")
    assert gate_sets(listed) == {"train-a", "harm-bank"}
    pairs = load_all(grade_files())
    weighed = gate_sets()
    inside = {p.q for p in pairs if p.set in weighed}
    outside = {p.q for p in pairs if p.set not in weighed} - inside
    assert len(outside) >= 1000 and inside  # the former tests and the later rounds teach the ranker only
    others = set(other_kinds())
    assert inside <= others
    assert not outside & others


def test_banks_that_hold_the_same_rivals_read_them_once_with_the_same_cosines():
    from retrieval.knowledge.retellings import RIVAL, Retellings

    others = ["perdi meu emprego e estou triste", "bom dia pastor", "qual o horário do culto?"]
    rng = np.random.default_rng(7)
    rival_vectors = rng.normal(size=(3, 8)).astype(np.float32)
    stories = Retellings.build(["aquela do menino que derrubou o gigante", *others], np.array([0, *[RIVAL] * 3]),
                               np.vstack([rng.normal(size=(1, 8)), rival_vectors]))
    verses = Retellings.build(["um pastor que guarda as ovelhas", "a força vem de quem nos sustenta",
                               *others], np.array([0, 1, *[RIVAL] * 3]), np.vstack([rng.normal(size=(2, 8)),
                                                                                     rival_vectors]))
    rivals = stories.trailing_rivals()
    shared = [bank.sharing(rivals) for bank in (stories, verses)]
    assert all(bank.rivals is rivals for bank in shared)
    assert len(shared[1].vectors) == 2  # a bank that reads its rivals through another's keeps no copy of them
    message = rng.normal(size=8).astype(np.float32)
    for before, after in zip((stories, verses), shared):
        assert np.allclose(before.cosines("o gigante derrubado", message),
                           after.cosines("o gigante derrubado", message), atol=1e-6)
    other = Retellings.build(["aquela do barco", "outra coisa qualquer"], np.array([0, RIVAL]),
                             rng.normal(size=(2, 8)).astype(np.float32))
    assert other.sharing(rivals) is other  # rivals that are not exactly these rows are read as before


def test_a_bank_read_through_its_bounds_tells_what_the_whole_product_tells():
    from dataclasses import replace

    from retrieval.arrays import BoundedRows
    from retrieval.knowledge.retellings import RIVAL, Retellings

    rng = np.random.default_rng(11)
    words = ["gigante", "pedra", "barco", "chuva", "leão", "cova", "peixe", "mar", "emprego", "medo", "culto",
             "oração", "mãe", "doente", "sal", "estátua"]
    texts = [" ".join(rng.choice(words, 4)) for _ in range(400)]
    rows = np.where(np.arange(400) < 250, np.arange(400) % 40, RIVAL)
    leaning = rng.normal(size=(1, 24))
    vectors = (leaning + 0.4 * rng.normal(size=(400, 24))).astype(np.float32)
    whole = Retellings.build(texts, rows, vectors)
    assert whole.meanings.axes is None  # fewer rows than are worth bounding
    bounded = replace(whole, meanings=BoundedRows(whole.vectors, axes=4, whole_below=0))
    shared = bounded.sharing(bounded.trailing_rivals())
    assert shared.rivals is not None and len(shared.meanings) == 250
    story, other, exact = rows >= 0, rows == RIVAL, []
    for _ in range(40):
        message = " ".join(rng.choice(words, 3))
        vector = (leaning[0] + 0.6 * rng.normal(size=24)).astype(np.float32)
        expected = whole.telling(message, vector, floor=0.0, margin=-1.0)
        for bank in (bounded, shared):
            assert bank.telling(message, vector, floor=0.0, margin=-1.0) == pytest.approx(expected, abs=1e-6)
        assert np.allclose(shared.cosines(message, vector), whole.cosines(message, vector), atol=1e-6)
        reading = shared._read(message, vector)
        exact.append(np.mean(reading.nearest(story, other) != reading.low))
    assert np.median(exact) < 0.5  # most rows are left at their bounds
