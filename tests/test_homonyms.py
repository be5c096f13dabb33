"""Homonyms among Bible people: a name said alone that several well-known people share is asked about."""

from __future__ import annotations

import pytest

from retrieval.knowledge.homonyms import KINSHIP_FILE, asked_kinship, describe, prominent
from retrieval.knowledge.passages import words_of
from retrieval.knowledge.people import PeopleIndex, Person

SPELLED = {"joao": "João", "zebedeu": "Zebedeu", "jesus": "Jesus", "jose": "José", "alfeu": "Alfeu",
           "madalena": "Madalena", "marta": "Marta"}


def _person(pid: str, verses, events: int = 0, relatives=(), gender: str = "Male", also=()) -> Person:
    name = pid.split("_")[0]
    verses = tuple(verses)
    return Person(pid, name.title(), name, SPELLED.get(name, name.title()),
                  frozenset(r[1] for r in relatives) | set(also), verses,
                  tuple((f"event {i}", verses[:1]) for i in range(events)), gender, tuple(relatives), tuple(also))


ZEBEDEE = _person("tiago_1", range(0, 18), 3, [("father", "zebedeu", 11), ("siblings", "joao", 35)])
BROTHER = _person("tiago_2", range(100, 115), 4, [("siblings", "jesus", 1800), ("father", "jose", 15)])
ALPHAEUS = _person("tiago_3", range(200, 205), 2, [("father", "alfeu", 4)])


def test_several_well_known_people_of_one_name_are_offered_best_known_first():
    obscure = _person("tiago_4", [300])
    assert prominent([ALPHAEUS, obscure, BROTHER, ZEBEDEE]) == [ZEBEDEE, BROTHER, ALPHAEUS]


def test_a_name_one_person_dominates_asks_nothing():
    david = _person("davi_1", range(0, 900), 20)
    assert prominent([david, _person("davi_2", range(1000, 1010), 1)]) == []
    assert prominent([david]) == []


def test_obscure_homonyms_and_one_list_of_names_ask_nothing():
    assert prominent([_person(f"semaias_{i}", range(10 * i, 10 * i + 4)) for i in range(5)]) == []
    listed = _person("sadraque_1", range(0, 18))  # two people aligned to the names of one list of companions
    assert prominent([listed, _person("sadraque_2", range(0, 18))]) == []


def test_each_is_told_apart_by_what_the_data_knows():
    group = [ZEBEDEE, BROTHER, ALPHAEUS]
    assert [describe(p, group, SPELLED, "") for p in group] == [
        "Tiago, irmão de João, filho de Zebedeu", "Tiago, irmão de Jesus, filho de José", "Tiago, filho de Alfeu"]
    mother = _person("maria_1", range(5), relatives=[("children", "jesus", 1800)], gender="Female")
    magdalene = _person("maria_2", range(5), gender="Female", also=["madalena", "marta"])
    sister = _person("maria_3", range(5), relatives=[("siblings", "marta", 12)], gender="Female")
    marys = [mother, magdalene, sister]
    assert describe(mother, marys, SPELLED, "") == "Maria, mãe de Jesus"
    assert describe(magdalene, marys, SPELLED, "", people_names={"marta"}) == "Maria Madalena"
    assert describe(sister, marys, SPELLED, "") == "Maria, irmã de Marta"
    cousin = _person("tiago_5", range(5), relatives=[("father", "zebedeu", 11)])  # a relative both have tells none
    assert describe(cousin, [ZEBEDEE, cousin], SPELLED, "Atos 12") == "Tiago (Atos 12)"


@pytest.fixture(scope="module")
def people(blivre, shared_dir):
    return PeopleIndex.load(shared_dir / "data" / "theographic", blivre)


def _said(question: str) -> list[str]:
    return words_of(question).split()


def test_tiago_said_alone_is_asked_about_from_the_theographic_data(people):
    homonyms = people.homonyms(_said("quem foi Tiago?"))
    assert [(p.id, d) for p, d in homonyms] == [("james_717", "Tiago, irmão de João, filho de Zebedeu"),
                                                ("james_719", "Tiago, irmão de Jesus, filho de José"),
                                                ("james_718", "Tiago, filho de Alfeu")]
    assert [d for _, d in people.homonyms(_said("quem foi Maria?"))][:2] == ["Maria, mãe de Jesus", "Maria Madalena"]


@pytest.mark.parametrize(("question", "person"), [
    ("quem foi Davi?", "david_994"), ("pastor, quem foi moises?", "moses_2108"),
    ("quem foi Tiago irmão de João?", "james_717"), ("quem foi Tiago, filho de Alfeu?", "james_718"),
    ("tiago irmao de jesus, quem foi ele?", "james_719"), ("quem era joao batista??", "john_1676"),
    ("quem era maria madalena", "mary_1943"), ("quem foi judas iscariotes e pq ele traiu jesus", "judas_1760")])
def test_a_name_the_question_chooses_or_one_person_dominates_asks_nothing(people, question, person):
    assert people.homonyms(_said(question)) == []
    assert people.find(_said(question)).id == person


@pytest.mark.parametrize(("question", "person"), [
    ("Boa noite. Sou catequista, quem foi Moisés?", "moses_2108"),  # "Boa" is a word before it is Boã
    ("minha filha perguntou na escola quem foi golias", "goliath_1327"),  # "escola" is no misspelt Escol
    ("e ela, quem foi? a Abigail", "abigail_26"),
    ("pq chamam mulher maligna de jezebel? quem foi ela", "jezebel_1605"),  # a name typed one letter off, too
    ("quem foi Terá?", None),  # a name that is also a word, said alone, is still the person
])
def test_a_plain_word_that_is_also_a_name_gives_way_to_the_name_said(people, question, person):
    found = people.find(_said(question))
    assert found is not None
    assert found.id == person if person else found.display == "Terá"
    assert {"boa", "ela"} <= people.ordinary and "moises" not in people.ordinary


@pytest.mark.parametrize("question", [
    "quem foi a nora estrangeira que nao quis largar a sogra",  # a verb, not Kish: the question says much else
    "quem foi a moça judia que virou rainha e falou com o rei",  # an adjective, not Jehudijah (named once)
    "quem foi a senhora que riu quando soube que ia ter filho ja velha",  # not Meshullam by the "Old Gate"
    "o governador que lavou as mãos na condenação de cristo, quem era?",  # "Cristo" is no Crispo typed off
])
def test_a_description_in_plain_words_names_no_one(people, question):
    assert people.find(_said(question)) is None


@pytest.mark.parametrize(("question", "person"), [("quem foi Crispo?", "crispus_961"), ("quem foi Ela?", "elah_1045")])
def test_a_rare_name_or_a_plain_word_said_as_the_question_is_still_the_person(people, question, person):
    assert people.find(_said(question)).id == person


@pytest.mark.parametrize("question", [
    "tenho 9 anos e sou a menor da sala e todo mundo me zoa. tem um homem na biblia q era baixinho, quem é ele?",
    "a gente marcou a data do casamento e quero um versiculo, quem na biblia casou feliz?",
    "qual o tema da pregação de domingo? quem pregou foi o pastor",
])
def test_a_word_brazilians_say_every_day_names_no_rarely_listed_person_in_a_longer_message(people, question):
    assert {"sala", "data", "tema"} <= people.ordinary
    assert people.find(_said(question)) is None


@pytest.mark.parametrize(("question", "person"), [
    ("quem foi bate seba", "bathsheba_416"),  # said beside the other half of the name the Bible writes with it
    ("me conta quem foi bate-seba, a mulher de urias, e o que davi fez", "bathsheba_416"),
    ("quem foi Salá?", "salah_2455"),  # said alone as the question, the everyday word is still the name
])
def test_an_everyday_word_is_the_name_said_beside_its_other_half_or_alone(people, question, person):
    assert people.find(_said(question), question).id == person


def test_a_plain_word_written_as_a_name_in_a_longer_question_is_the_person(people):
    question = "Por que Tomé ficou conhecido como o discípulo que duvidou?"
    assert people.find(_said(question), question).id.startswith("thomas_")  # capitalised inside the sentence
    assert people.find(_said(question)) is None  # without the capitals, "tome" is a verb among many words


def test_the_kinship_words_a_question_may_say_are_read_from_the_data_file():
    words = asked_kinship()
    assert words["neto"] == ((("children",), ("children",)), "Male")
    assert words["tio"] == ((("father", "mother"), ("siblings", "halfSiblingsSameMother", "halfSiblingsSameFather")),
                            "Male")
    assert words["sogra"] == ((("partners",), ("mother",)), "")


def test_a_kinship_word_with_an_unknown_column_stops_the_start_naming_the_file(tmp_path):
    broken = tmp_path / "kinship.toml"
    broken.write_text(KINSHIP_FILE.read_text(encoding="utf-8").replace(
        'neto = { passos = ["children", "children"]', 'neto = { passos = ["netos"]'),
        encoding="utf-8")
    with pytest.raises(ValueError, match=r"kinship\.toml: parentesco 'neto'"):
        asked_kinship(broken)


@pytest.mark.parametrize(("question", "person"), [
    ("quem foi Jó?", "job_1639"),  # a name of two letters, of someone the Bible speaks of often
    # never Ló, whose verses name Abrão beside him ("Ló" folds to the word "lo"); by ear, Abraão, as he was first
    ("quem foi Abrão?", "abraham_58"),
    ("quem foi Is-Bosete", "ish-bosheth_622"),
    ("Ur dos caldeus fica onde?", None),  # Ur, named once, is no person the question asks about
    ("só quero saber uma coisa", None),
])
def test_a_name_of_two_letters_is_a_name_only_for_someone_well_known_and_never_a_plain_word(people, question, person):
    found = people.find(_said(question))
    assert (found.id if found else None) == person


@pytest.mark.parametrize("question", ["quem foi jacó?", "quem foi Israel, pai das doze tribos?", "jacó"])
def test_the_patriarch_titled_by_his_best_known_name_is_found_by_both_names(people, question):
    assert people.find(_said(question)).id == "israel_682"  # Theographic's "Jacob (Israel)", not Matthew 1's Jacob


@pytest.mark.parametrize(("word", "named"), [
    ("zaqueu", True), ("nicodemos", True), ("lidia", True), ("estevao", True),  # as the Bible writes them
    ("noe", True),  # by ear, someone the Bible speaks of often
    ("ola", False), ("amem", False), ("abraco", False), ("tome", False),  # words, not names
])
def test_a_name_typed_alone_as_the_bible_writes_it_names_the_person(people, word, named):
    assert people.names_someone(word) is named


def test_a_qualifier_said_beside_the_name_chooses_over_one_said_further_on(people):
    question = "quem foi Maria Madalena na vida de Jesus?"  # Jesus is the son of another Maria
    assert people.find(_said(question), question).id == "mary_1943"
