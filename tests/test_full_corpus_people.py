"""The full-corpus check for Bible people: someone named, described, a namesake or a relative, on the real index
(the `full` fixture is in conftest)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def test_a_namesake_the_question_describes_is_the_one_answered(full):
    described = full.search("Gamaliel, o fariseu mestre da lei que aconselhou o Sinédrio a deixar os apóstolos em "
                            "paz, quem era?")
    assert described.mode == "pessoa" and described.hits[0].id == "ACT.5.34", [h.id for h in described.hits[:3]]
    bare = full.search("quem foi Gamaliel?")  # nothing said of him: the one the Bible speaks of most
    assert bare.mode == "pessoa" and bare.hits[0].id.startswith("NUM."), [h.id for h in bare.hits[:3]]


@pytest.mark.parametrize("question", [
    "o filho do rei davi q se virou contra o pai e morreu enganchado pelo cabelo numa arvore, qual era o nome dele?",
    "o filho do davi que liderou uma revolta contra o pai e ficou preso pelo cabelo numa arvore, qual o nome dele?"])
def test_the_relative_a_question_describes_is_the_one_it_asks_for(full, question):
    # "o filho do Davi…" opens with a relative: the one the askers' descriptions name (was Salomão, the best known)
    result = full.search(question)
    assert result.mode == "pessoa" and result.named == "Absalão", result.as_dict()


@pytest.mark.parametrize(("question", "named"), [
    ("como se chamava o servo do sacerdote que o Pedro feriu com a espada?", "Pedro"),
    ("quem era o profeta que o rei Acabe chamava de perturbador de Israel?", "Acabe"),
    ("qual era o nome do gigante que o jovem Davi enfrentou?", "Davi")])
def test_someone_named_inside_a_description_is_never_whom_it_asks_for(full, question, named):
    # each brought the person named after "que" (the descriptions of Pedro, Acabe and Davi are the nearest)
    assert full.search(question).named != named


def test_a_description_the_asking_gate_reads_is_answered_by_it_first(full):
    # the verses found speak of Satanás entering Judas; the gate reads the descriptions of Matias (was Satanás)
    result = full.search("como se chamava o apóstolo sorteado pra substituir Judas?")
    assert result.mode == "pessoa" and result.named == "Matias", result.as_dict()


def test_a_name_several_people_share_carries_who_they_are(full):
    tiago = full.search("quem foi Tiago?").as_dict()
    assert tiago["mode"] == "pessoa" and tiago["hits"][0]["id"] == "MAT.4.21"  # the best known's passages
    assert [h["description"] for h in tiago["homonyms"]] == [
        "Tiago, irmão de João, filho de Zebedeu", "Tiago, irmão de Jesus, filho de José", "Tiago, filho de Alfeu"]
    for question in ("quem foi Davi?", "quem foi Tiago irmão de João?"):
        answer = full.search(question).as_dict()
        assert answer["mode"] == "pessoa" and "homonyms" not in answer, question


def test_what_someone_did_asked_after_the_name_asks_about_them(full):
    result = full.search("o rei ezequias fez oq de bom?")  # as "o que o rei Ezequias fez"
    assert result.mode == "pessoa" and result.hits[0].id.startswith(("2KI.18", "ISA.36")), \
        [h.id for h in result.hits[:3]]


def test_a_name_asked_is_looked_for_among_described_people_even_when_read_as_a_teaching(full):
    question = "como se chamava o homem forçado a carregar a cruz de Jesus?"
    assert full.understand(question).name == "teaching"  # what the intent model reads; the name asked decides
    result = full.search(question)
    assert result.mode == "pessoa" and {"MAT.27.32", "MRK.15.21", "LUK.23.26"} & {h.id for h in result.hits[:3]}
