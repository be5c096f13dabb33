"""The intent classifier: what it reads in messages it never saw, its bank, and how sure a life told must be."""

from __future__ import annotations

import pytest

from retrieval.understand.intent import (
    QUOTATION,
    SITUATION,
    SMALLTALK,
    Intent,
    intent_model,
    life_surely_told,
    life_told_too,
    load_bank,
)
from tests.conftest import write


@pytest.fixture(scope="module")
def intents(tmp_path_factory, use_embedder):
    return intent_model(use_embedder.embed, use_embedder.identity.slug, tmp_path_factory.mktemp("intents"))


@pytest.mark.parametrize(("message", "expected"), [
    ("boa tarde, tudo em paz?", SMALLTALK), ("muito obrigada pela palavra de hoje", SMALLTALK),
    ("quem foi Gideão na Bíblia?", "knowledge"), ("me conta a história da rainha de Sabá", "knowledge"),
    ("o que a bíblia ensina sobre o jejum?", "teaching"),
    ("meu pai foi internado hoje e to com muito medo de perder ele", SITUATION),
    ("qual o preço do dólar hoje?", "offtopic"),
    # a choice in one's own life, told in practical words, beside a practical request on the same ground
    ("pensando em largar o concurso pra tocar a padaria do meu sogro, minha mulher ta com medo", SITUATION),
    ("quais documentos preciso pra abrir uma padaria como MEI?", "offtopic"),
    ("aquele versiculo que fala q o choro dura uma noite e de manha vem a alegria", QUOTATION),
    ("alguém mais lê o que eu escrevo aqui?", SMALLTALK),  # about the bot itself
    ("vc lê as conversas de todo mundo?", SMALLTALK),
])
def test_the_intent_of_messages_not_in_the_bank(intents, use_embedder, message, expected):
    assert message not in {text for text, _ in load_bank()}
    assert intents.classify(message, use_embedder.embed([message])[0]).name == expected


def test_a_teaching_read_almost_as_much_as_a_life_told_is_cared_for():
    def read(teaching, situation):
        return Intent("teaching", teaching, {"teaching": teaching, "situation": situation})

    assert life_told_too(read(0.50, 0.48))  # "o psiquiatra passou remédio: tomar é falta de fé?"
    assert not life_told_too(read(0.70, 0.30))  # a question of doctrine
    assert not life_told_too(read(0.60, 0.40))  # clearly more a question than a life


def test_only_a_life_read_almost_for_certain_outweighs_the_teaching_words_it_holds():
    def life(situation):
        return Intent("situation", situation, {"situation": situation, "teaching": 1 - situation})

    assert life_surely_told(life(0.97))  # "tenho 16 anos e me acho horrível… oq a bíblia fala sobre isso?"
    assert not life_surely_told(life(0.74))  # "cobro 20% ao mês dos vizinhos, é pecado?": a moral question
    assert not life_surely_told(Intent("teaching", 0.97, {"teaching": 0.97})) and not life_surely_told(None)


def test_the_bank_has_every_intent_typed_as_people_type():
    bank = load_bank()
    counts = {intent: sum(1 for _, i in bank if i == intent) for _, intent in bank}
    assert len(counts) == 6 and min(counts.values()) >= 200  # quotations also come from the corpus at run time


def test_a_malformed_bank_line_names_the_file_and_line(tmp_path):
    path = write(tmp_path, "intents.jsonl", '{"text": "oi", "intent": "smalltalk"}\n{"text": "x", "intent": "?"}\n')
    with pytest.raises(ValueError, match=r"intents.jsonl:2"):
        load_bank(path)


def test_a_message_is_scored_as_by_its_stacked_features():
    """The contiguous coefficient blocks are a shortcut: the product of the stacked features, to rounding."""
    import numpy as np

    from retrieval.understand.textmodel import (
        _WORD_HASHING,
        N_FEATURES,
        LinearTextModel,
        features,
        folded,
        ngram_counts,
    )

    texts = ["a paz do Senhor, irmão", "kkk", "Não temas!!", "quem foi Davi?", "😀"]
    rng = np.random.default_rng(3)
    idf = rng.uniform(1.0, 8.0, N_FEATURES)
    vectors = rng.normal(size=(len(texts), 4)).astype(np.float32)
    words = rng.uniform(1.0, 8.0, N_FEATURES)
    model = LinearTextModel(("a", "b", "c"), rng.normal(size=(3, 2 * N_FEATURES + 4)), rng.normal(size=3), idf,
                            words, 0.5)
    for i, text in enumerate(texts):
        stacked = features(ngram_counts([text]), idf, vectors[i:i + 1], _WORD_HASHING.transform(folded([text])),
                           words, 0.5)
        logits = np.asarray(stacked @ model.coef.T).ravel() + model.intercept
        expected = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
        assert np.allclose(model.probabilities([text], vectors[i:i + 1])[0], expected, rtol=1e-12, atol=0)
