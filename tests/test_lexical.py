"""Portuguese analysis, stemmers with their guard, and bm25s over isolated verses."""

import numpy as np
import pytest

from retrieval.lexical import LexicalIndex, analyzer
from retrieval.stemmers import RslpStemmer, SnowballStemmer

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
