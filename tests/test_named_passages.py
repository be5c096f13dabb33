"""Passages named in a message ("a parábola do semeador", "o salmo do pastor"): found by their names and variants,
in other forms of their words, and told apart when two are named (made-up passage files over the mini corpus)."""

from __future__ import annotations

import json

import pytest

from corpus.bible import load
from corpus.references import find_references
from retrieval.knowledge.passages import NamedPassages, PassagesError
from tests.conftest import write


def _passages_toml(*entries: tuple[str, ...]) -> str:
    """A made-up passages file: (name, variants, range[, kind]) per passage."""
    return "".join(f'[[passagem]]\nnome = "{entry[0]}"\nvariantes = {json.dumps(entry[1], ensure_ascii=False)}\n'
                   f'trecho = "{entry[2]}"\n' + (f'tipo = "{entry[3]}"\n' if len(entry) > 3 else "") + "\n"
                   for entry in entries)


PASSAGES = _passages_toml(
    ("Salmo do pastor", ["o senhor cuida de mim", "pastor", "salmo do bom pastor"], "Salmos 23:1-3", "salmo"),
    ("Não temerei", ["em deus confio"], "Salmos 56:1-2", "texto"),
    ("Um capítulo que o texto não tem", ["capitulo perdido"], "Salmos 99:1-3", "texto"))


def test_a_named_passage_is_found_by_its_longest_name_and_one_word_is_never_a_name(tmp_path, mini_index):
    bible = load(mini_index.corpus_path)
    passages = NamedPassages.load(bible, write(tmp_path, "p.toml", PASSAGES))
    assert [p.name for p in passages.passages] == ["Salmo do pastor", "Não temerei"]  # Salmos 99 is absent
    assert passages.find("me manda o SALMO do bom pastor!").reference.label() == "Salmos 23:1-3"
    assert passages.find("Em Deus confio, diz o salmo").name == "Não temerei"
    assert passages.find("meu pastor me magoou") is None  # "pastor" alone is no passage
    assert passages.find("capitulo perdido") is None
    assert passages.match("o salmo do bom pastor, em deus confio")[1] == 0.5  # the other name is no part of it
    assert passages.match("salmo do bom pastor, o senhor cuida de mim")[1] == 1.0  # one passage named twice
    assert passages.match("onde fica a história do Senhor cuida de mim?")[1] == 1.0  # without its article
    assert passages.match("o salmo do pastor")[2] and not passages.match("o senhor cuida de mim")[2]  # title, verse
    chapter = find_references("salmo do bom pastor, Salmos 23")
    assert passages.within("salmo do bom pastor, Salmos 23", chapter).name == "Salmo do pastor"
    assert passages.within("salmo do bom pastor, Salmos 24", find_references("Salmos 24")) is None


def test_of_two_passages_named_the_one_whose_names_hold_more_of_the_message_wins(tmp_path, mini_index):
    passages = NamedPassages.load(load(mini_index.corpus_path), write(tmp_path, "p.toml", _passages_toml(
        ("Parábola dos dois filhos", ["filho que disse nao e foi"], "Salmos 23:1-3"),
        ("A jumenta que falou", ["jumenta de balaao"], "Salmos 56:1-2"),
        ("Adão e Eva no jardim", ["adao e eva"], "Romanos 8:1-2"),
        ("A queda", ["eva e a serpente", "fruto proibido"], "Mateus 5:2-3"))))
    # the two sons' name in other forms of its words ("filho… disse") and a name said as it is tie: the latter
    assert passages.find("meu filho riu e disse que é mentira. onde está a jumenta que falou?").name == \
        "A jumenta que falou"
    # a longer name said in other forms loses to a passage whose names hold more of what is said
    assert passages.find("como foi a queda de adao e eva, a serpente e o fruto").name == "A queda"
    assert passages.find("adao e eva no jardim").name == "Adão e Eva no jardim"


def test_a_title_of_one_word_after_its_article_is_found_said_alone_and_nowhere_else(tmp_path, mini_index):
    passages = NamedPassages.load(load(mini_index.corpus_path), write(tmp_path, "p.toml", PASSAGES + """
[[passagem]]
nome = "O Confiante"
variantes = ["a confianca"]
trecho = "Salmos 56:1-2"
"""))
    assert passages.find("confiante").name == "O Confiante"  # "pentecostes" for "O Pentecostes"
    assert passages.find("me fala do confiante?").name == "O Confiante"
    assert passages.find("confianca").name == "O Confiante"  # a variant's article too
    assert passages.find("sou uma pessoa confiante") is None  # a word of a sentence is no name
    assert passages.find("pastor") is None  # a variant of one word without an article names nothing


def test_a_passage_name_said_in_other_forms_of_its_words_is_found_and_names_stay_whole(tmp_path, mini_index):
    bible = load(mini_index.corpus_path)
    passages = NamedPassages.load(bible, write(tmp_path, "p.toml", _passages_toml(
        ("A formiga e o preguiçoso", ["preguicoso aprende com a formiga"], "Provérbios 6:1-2", "texto"),
        ("Amar os inimigos", ["amai os inimigos", "perfeitos como o pai"], "Mateus 5:2-3", "sermao"),
        ("Parábola das minas", ["dez minas"], "Romanos 8:1-2", "parabola"))))
    assert passages.find("como o preguiçoso aprendeu com as formigas?").name == "A formiga e o preguiçoso"
    assert passages.match("o preguiçoso aprendeu com as formigas")[1] == 1.0  # every word of it is the name
    assert passages.find("amar nossos inimigos").name == "Amar os inimigos"
    assert "pai" in passages.proper and "formiga" not in passages.proper  # capitalised inside its sentences
    assert passages.find("perfeitos como o paizinho") is None  # a name is never stemmed into another word
    assert passages.find("o inimigo amou") is None  # the name's words in another order are no name
    assert passages.find("bebi agua sanitaria faz uns 10 min") is None  # a short word is only itself
    # one word of the message between the name's words still names it; two do not
    assert passages.find("o preguiçoso aprende sozinho com a formiga").name == "A formiga e o preguiçoso"
    assert passages.find("o preguiçoso aprende sozinho devagar com a formiga") is None


def test_a_misspelt_word_near_two_words_of_the_names_is_read_the_same_in_every_process(tmp_path):
    import subprocess
    import sys

    toml = write(tmp_path, "p.toml", """
[[passagem]]
nome = "O louvor na prisao"
trecho = "Atos 16:25"

[[passagem]]
nome = "O louvar dos anjos"
trecho = "Lucas 2:13"
""")
    code = ("import sys; from retrieval.knowledge.passages import NamedPassages; "
            f"print(NamedPassages.load(None, {str(toml)!r})._corrected('louvxr'))")
    read = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": seed}).stdout.strip() for seed in ("1", "2", "3", "4")}
    assert read == {"louvar"}  # one edit from "louvor" and from "louvar": the first in order, never by chance


def test_how_someone_was_called_never_names_a_calling(tmp_path, mini_index):
    passages = NamedPassages.load(load(mini_index.corpus_path), write(tmp_path, "p.toml", """
[[passagem]]
nome = "O chamado dos primeiros discípulos"
variantes = ["chamado dos discipulos"]
trecho = "Mateus 5:2-3"
tipo = "narrativa"
"""))
    assert passages.find("o chamado dos discípulos").name == "O chamado dos primeiros discípulos"
    assert passages.find("quando Jesus chamou os discípulos") is not None  # the calling, in other forms
    assert passages.find("como se chamava o discípulo que andou sobre a água?") is None  # a name asked, not this


def test_a_broken_passage_file_names_the_entry(tmp_path):
    broken = write(tmp_path, "p.toml", '[[passagem]]\nnome = "Sem trecho"\ntrecho = "nenhum lugar"\n')
    with pytest.raises(PassagesError, match="Sem trecho"):
        NamedPassages.load(None, broken)
