"""The pastor-editable data files: loaded once, and a broken one is named with its line."""

from __future__ import annotations

import pytest

from bot.safety.lexicon import Lexicon, LexiconError
from corpus.datafiles import DataFileError
from retrieval.understand.chat import SHORTHAND, load_shorthand, normalize_chat


def test_the_shipped_shorthand_expands_chat_spelling():
    assert SHORTHAND["vc"] == "você" and SHORTHAND["pqp"] == ""
    assert normalize_chat("to mto ansioso c/ a prova amanha") == "estou muito ansioso com a prova amanhã"


@pytest.mark.parametrize(("text", "line", "problem"), [
    ("# comentário\nvc = você\nsem sinal de igual\n", 3, "esperado"),
    ("vc = você\n\nvc = vocês\n", 3, "mais de uma vez"),
    ("duas palavras = algo\n", 1, "esperado"),
    ("vc = você\nVCS = vocês\n", 2, "minúsculas"),
])
def test_a_broken_shorthand_file_names_the_file_and_line(tmp_path, text, line, problem):
    broken = tmp_path / "chat_shorthand.txt"
    broken.write_text(text, encoding="utf-8")
    with pytest.raises(DataFileError, match=rf"chat_shorthand.txt, linha {line}: .*{problem}"):
        load_shorthand(broken)


def test_a_missing_shorthand_file_is_named(tmp_path):
    with pytest.raises(DataFileError, match="nada.txt"):
        load_shorthand(tmp_path / "nada.txt")


def test_crisis_patterns_load_once():
    assert Lexicon.default() is Lexicon.default()
    assert Lexicon.default().rules


def test_a_bad_regex_names_the_pattern_file_and_line(tmp_path):
    broken = tmp_path / "patterns.toml"
    broken.write_text('[hiperbole]\npadroes = []\n\n[[tipo]]\nnome = "x"\nnivel = "imminent"\n'
                      "padroes = [\n  'quero \\w+',\n  '(unclosed',\n]\n", encoding="utf-8")
    with pytest.raises(LexiconError, match=r"patterns.toml, linha 9: padrão inválido em x"):
        Lexicon.load(broken)


def test_a_toml_syntax_error_names_the_pattern_file_and_line(tmp_path):
    broken = tmp_path / "patterns.toml"
    broken.write_text('[[tipo]]\nnome = "x"\nnivel = imminent\n', encoding="utf-8")
    with pytest.raises(LexiconError, match=r"patterns.toml, linha 3: TOML inválido"):
        Lexicon.load(broken)


def test_a_kind_without_a_level_is_named_with_its_line(tmp_path):
    broken = tmp_path / "patterns.toml"
    broken.write_text('[[tipo]]\nnome = "abc"\nnivel = "grave"\n', encoding="utf-8")
    with pytest.raises(LexiconError, match=r"patterns.toml, linha 2: tipo 'abc'"):
        Lexicon.load(broken)
