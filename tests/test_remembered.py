"""Verses typed from memory in one's own words: the bank's format, the nearest sayings with the real embedder on
the real Bible, and the shipped bank checked against the Bible it names (never a copy of its text)."""

import logging
import re

import pytest

from corpus.text import fold
from retrieval.knowledge import remembered as remembered_module
from retrieval.knowledge.remembered import RememberedVerses, load_sayings
from tests.conftest import write

SAYINGS = [
    (("JHN.3.16",), "deus amou tanto o mundo q deu o filho dele pra quem crer nele ter vida eterna"),
    (("JHN.3.16",), "aquele que fala que Deus gostou tanto da gente que mandou o unico filho pra gente nao morrer"),
    (("JHN.3.16",), "qual versiculo diz q deus deu o filho unico por amor ao mundo, pra quem cre viver pra sempre"),
    (("JHN.3.16",), "Deus ama o mundo a ponto de entregar o proprio filho, quem cre nele tem vida eterna, onde ta?"),
    (("PHP.4.6", "PHP.4.7"), "nao fiquem preocupados com nada, levem tudo pra Deus em oração agradecendo"),
    (("PHP.4.6", "PHP.4.7"), "aquele de nao andar ansioso por nada mas apresentar os pedidos a Deus com gratidao"),
    (("PHP.4.6", "PHP.4.7"), "minha avó dizia: nao se inquiete com nada, conta tudo pra Deus na oração e agradece"),
    (("PHP.4.6", "PHP.4.7"), "onde ta escrito pra nao ficar ansioso e fazer os pedidos a Deus em oracao agradecendo"),
    (("ECC.3.1",), "tudo tem seu tempo, tem hora certa pra cada coisa debaixo do ceu"),
    (("ECC.3.1",), "aquele versiculo que diz q existe um tempo pra tudo nessa vida, é eclesiastes?"),
    (("ECC.3.1",), "pra tudo tem uma hora e um momento certo embaixo do céu, qual a referencia"),
    (("ECC.3.1",), "cada coisa no seu tempo, tempo de tudo debaixo do sol, isso ta na biblia?"),
    (("XYZ.1.1",), "um livro que esta Bíblia não tem"),
]
OTHERS = ["perdi meu emprego e to com medo de nao pagar o aluguel", "bom dia pastor, tudo bem?",
          "minha mae ta internada e eu nao consigo dormir", "qual o horario do culto de domingo?",
          "o que a biblia diz sobre o dizimo?", "to muito ansioso com a prova de amanha",
          "brigamos feio eu e meu marido ontem", "obrigado pela oração, pastor"]
RETOLD = ["aquela do menino que derrubou o gigante com uma pedra", "a festa em que a agua virou vinho",
          "o homem que foi engolido por um peixe grande", "a mulher que olhou pra tras e virou estatua de sal"]


def test_a_saying_names_its_verse_and_the_next_ones_it_spans(tmp_path):
    path = write(tmp_path, "sayings.jsonl", '{"verse": "PHP.4.6", "also": ["PHP.4.7"], "q": "nao fiquem ansiosos"}\n'
                                            '{"verse": "ECC.3.1", "q": "tudo tem seu tempo"}\n')
    assert load_sayings(path) == [(("PHP.4.6", "PHP.4.7"), "nao fiquem ansiosos"), (("ECC.3.1",), "tudo tem seu tempo")]
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        load_sayings(write(tmp_path, "bad.jsonl", '{"verse": "ECC.3.1", "q": "x"}\n{"verse": "Ec 3", "q": "y"}\n'))


def test_a_verse_typed_from_memory_is_found_and_a_life_is_not(blivre, use_embedder, tmp_path, caplog):
    calls = []

    def embed(texts):
        calls.append(len(texts))
        return use_embedder.embed(texts)

    with caplog.at_level(logging.WARNING):
        found = RememberedVerses.cached(blivre, SAYINGS, OTHERS, RETOLD, embed, "slug-remembered", tmp_path)
    assert "XYZ.1.1" in caplog.text  # a verse this Bible lacks is said, and left out

    def verses(message):
        return [blivre.verses[p].key for p in found.verses(message, use_embedder.embed([message])[0])]

    assert verses("deus amou o mundo de um jeito q deu o filho unico pra quem crer ter vida eterna") == [("JHN", 3, 16)]
    assert verses("nao fiquem ansiosos por nada, em tudo levem os pedidos a deus com gratidao") == [
        ("PHP", 4, 6), ("PHP", 4, 7)]  # the saying spans both
    assert verses("perdi meu emprego e to com medo do aluguel atrasado") == []  # a life, not a verse
    assert verses("bom dia pastor") == []
    assert verses("o menino que derrubou o gigante com uma pedra") == []  # a story retold
    # the gate doubts these few words; read as a quotation, their nearness to the sayings names the verse
    terse = "ansioso por nada oração gratidao"
    assert verses(terse) == []
    assert [blivre.verses[p].key for p in found.verses(terse, use_embedder.embed([terse])[0], near=True)] == [
        ("PHP", 4, 6), ("PHP", 4, 7)]
    life = "to muito ansioso com a prova de amanha"
    assert found.verses(life, use_embedder.embed([life])[0], near=True) == []  # a life is far nearer its kind
    remembered_module._BUILT.clear()  # a restart
    again = RememberedVerses.cached(blivre, SAYINGS, OTHERS, RETOLD, embed, "slug-remembered", tmp_path)
    assert len(calls) == 1 and again.positions == found.positions  # kept beside the index: nothing embedded again


def test_the_shipped_sayings_name_real_verses_in_people_s_own_words(blivre):
    sayings = load_sayings()
    verses = {ids[0] for ids, _ in sayings}
    assert len(sayings) >= 1100 and len(verses) >= 300
    assert len({fold(text) for _, text in sayings}) == len(sayings)  # no saying twice
    keys = {".".join(map(str, v.key)) for v in blivre.verses}
    assert all(verse in keys for ids, _ in sayings for verse in ids)

    def words(text):
        return re.findall(r"\w+", fold(text).lower())

    run = 6  # never a copy of the Bible's own text
    bible = {tuple(w[i:i + run]) for v in blivre.verses for w in [words(v.text)] for i in range(len(w) - run + 1)}
    copied = [text for _, text in sayings for w in [words(text)]
              if any(tuple(w[i:i + run]) in bible for i in range(len(w) - run + 1))]
    assert copied == []
