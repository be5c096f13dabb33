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
