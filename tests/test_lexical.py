"""Portuguese analysis, stemmers with their guard, and bm25s over isolated verses."""

import numpy as np
import pytest

from retrieval.index.lexical import LexicalIndex, analyzer
from retrieval.index.stemmers import RslpStemmer, SnowballStemmer

DOCS = [
    "Amai os vossos inimigos e orai também por quem vos maltrata.",  # 0
    "Jesus disse aos discípulos que fossem ao mar.",  # 1
    "Deus é o nosso refúgio e fortaleza.",  # 2
    "Não temas, porque eu sou contigo.",  # 3
    "O preguiçoso não lavra por causa do inverno.",  # 4
    "Jesus disse: eu sou o caminho.",  # 5
]


@pytest.mark.parametrize("stemmer", [SnowballStemmer(), RslpStemmer()])
def test_minimum_stem_guard(stemmer):
    assert stemmer("deus") == "deus"
    assert stemmer("mar") == "mar"
    assert stemmer("paz") == "paz"
    assert len(stemmer("amar")) >= 2


def test_verb_forms_meet():
    rslp = RslpStemmer()
    assert rslp("amar") == rslp("amai") == rslp("amaras")
    assert rslp("inimigos") == rslp("inimigo")
    snow = SnowballStemmer()
    assert snow("amaras") == snow("amar")
    assert snow("consolados") == snow("consolo")


def test_known_collision_is_real():
    assert SnowballStemmer()("luto") == SnowballStemmer()("lutavam")


def test_analyzer_folds_accents_and_drops_stopwords():
    an = analyzer("snowball-pt")
    assert an.words("Não TEMAS, porque Eu sou contigo!") == ["temas", "contigo"]
    assert an("preocupação") == an("preocupacao")


@pytest.mark.parametrize("stemmer", ["snowball-pt", "rslp-lite"])
def test_bm25_isolated_verses_exact_ranking(stemmer, tmp_path):
    index = LexicalIndex.build(DOCS, analyzer(stemmer))
    query = "o que Jesus disse sobre amar os inimigos?" if stemmer == "rslp-lite" else "orar pelos inimigos"
    assert int(np.argmax(index.scores(query))) == 0
    assert index.scores("refúgio")[2] > 0 and np.count_nonzero(index.scores("refugio")) == 1
    assert not index.scores("xyzzy").any()
    mask = np.array([False, True, True, True, True, True])
    assert index.scores("amar inimigos jesus", mask)[0] == 0
    index.save(tmp_path)
    again = LexicalIndex.load(tmp_path)
    assert again.analyzer.name == stemmer
    assert np.allclose(again.scores("preguiçoso inverno"), index.scores("preguiçoso inverno"))


REFRAIN = "porque o seu cuidado fica para sempre"  # made up: one line many verses end with
REFRAIN_DOCS = [
    *(f"Cantai ao rei da colina {n}; {REFRAIN}." for n in range(8)),  # 0-7: the refrain alone
    *("Feriu, feriu os rebanhos, os rebanhos!" for _ in range(3)),  # 8-10: the rarer words, repeated
    "Ao que feriu os pastores do vale em seus rebanhos; " + REFRAIN + ".",  # 11: the refrain and the pin
]


def test_coordination_counts_word_groups_with_their_equivalents():
    index = LexicalIndex.build(REFRAIN_DOCS, analyzer("snowball-pt"))
    groups = [("feriu",), ("rebanhos", "ovelhas"), ("cuidado", "zelo"), ("sempre",)]
    assert index.coordination(groups).tolist() == [2] * 8 + [2] * 3 + [4]
    assert index.coordination([("ovelhas", "rebanhos")]).tolist() == [0] * 8 + [1] * 4
    mask = np.array([True] * 11 + [False])
    assert index.coordination(groups, mask).tolist() == [2] * 11 + [0]
    assert [index.groups_in(groups, text) for text in REFRAIN_DOCS] == index.coordination(groups).tolist()


def test_a_quotation_finds_the_verse_that_holds_the_refrain_and_the_pin():
    """BM25 alone prefers the verse that repeats one rare word; coordination puts the pinned verse first."""
    index = LexicalIndex.build(REFRAIN_DOCS, analyzer("snowball-pt"))
    groups = [(w,) for w in "feriu os rebanhos porque o seu cuidado fica para sempre".split()]
    scores = index.grouped_scores(groups, 0.9)
    assert 11 not in np.argsort(-scores)[:3]
    assert index.by_coordination(groups, scores, limit=3) == [11, 0, 1]  # then the refrain (3 words)
    assert 11 not in index.by_coordination(groups, scores, limit=20, mask=np.array([True] * 11 + [False]))
