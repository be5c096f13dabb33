"""Citation validation against the retrieved verses (the default corpus, read at run time)."""

import pytest

from bot import texts
from bot.checks.citations import validate

RETRIEVED = ["JHN.3.16", "PHP.4.6", "PHP.4.7", "PSA.23.1", "PSA.23.2", "PSA.23.3"]


@pytest.mark.parametrize("answer, text, kept, removed", [
    ("Deus te ama (João 3:16). Não invente (Mateus 29:3).",
     "Deus te ama (João 3:16). Não invente.", ["João 3:16"], ["Mateus 29:3"]),
    ("Veja João 3:16 e Romanos 8:28.", "Veja João 3:16.", ["João 3:16"], ["Romanos 8:28"]),
    ("Leia (João 3:16; Hebreus 14:2) com calma.", "Leia (João 3:16) com calma.", ["João 3:16"], ["Hebreus 14:2"]),
    ("Como está em Romanos 8:28, tudo coopera. Jo 3.16 diz mais.",
     "Tudo coopera. João 3:16 diz mais.", ["João 3:16"], ["Romanos 8:28"]),
    ("Em Fp 4:6-7 você encontra paz.", "Em Filipenses 4:6-7 você encontra paz.", ["Filipenses 4:6-7"], []),
    ("- Romanos 8:28\n- João 3:16", "- João 3:16", ["João 3:16"], ["Romanos 8:28"]),
])
def test_unsupported_citations_are_removed_cleanly(blivre, answer, text, kept, removed):
    result = validate(answer, RETRIEVED, blivre)
    assert (result.text, result.kept, result.removed) == (text, kept, removed)


def test_ranges_are_trimmed_to_the_retrieved_run(blivre):
    result = validate("Leia Filipenses 4:6-9 e Salmo 23.", RETRIEVED, blivre)
    assert result.kept == ["Filipenses 4:6-7", "Salmos 23:1-3"]
    assert result.text == "Leia Filipenses 4:6-7 e Salmos 23:1-3."
    gapped = validate("Leia João 3:15-17.", ["JHN.3.15", "JHN.3.17"], blivre)
    assert gapped.removed == ["João 3:15-17"]  # two separate runs: no honest trim


def test_markers_become_references_or_vanish(blivre):
    result = validate("O Senhor é meu pastor [FONTE 4]. Deus amou o mundo, João 3:16 [FONTE 1]. Fim [FONTE 9].",
                      RETRIEVED, blivre)
    assert "FONTE" not in result.text
    assert result.text == "O Senhor é meu pastor (Salmos 23:1). Deus amou o mundo, João 3:16. Fim."


def test_no_supported_citation_appends_the_note(blivre):
    result = validate("Confie em Deus (Hebreus 14:2).", RETRIEVED, blivre)
    assert result.kept == [] and result.text == "Confie em Deus.\n\n" + texts.UNANCHORED_NOTE
    assert validate("Sem citações.", RETRIEVED, blivre).text.endswith(texts.UNANCHORED_NOTE)
