"""People found from what a question says: a relative asked for, a name typed one letter off or by ear (inline
people, no data files)."""

from retrieval.knowledge.people import PeopleIndex, Person
from retrieval.knowledge.spelling import NameSpelling, sound_key, spoken_words


def test_a_relative_asked_for_is_answered_instead_of_the_person_named():
    zacarias = Person("zacarias_1", "Zechariah", "zacarias", "Zacarias", frozenset(), (1, 2, 3), ())
    isabel = Person("isabel_1", "Elizabeth", "isabel", "Isabel", frozenset(), (4, 5), (), "Female")
    joao = Person("joao_1", "John", "joao", "João", frozenset({"batista"}), tuple(range(10, 40)), (), "Male",
                  (("father", "zacarias", 3), ("mother", "isabel", 2)))
    index = PeopleIndex([zacarias, isabel, joao], [])
    assert index.relative(joao, "quem era o pai de joao batista".split()) is zacarias
    assert index.relative(joao, "e a mae do joao".split()) is isabel
    assert index.relative(joao, "quem foi joao batista".split()) is None
    assert index.relative(joao, "quem era o irmao de joao".split()) is None  # none in the data: never a guess


def test_a_name_the_bible_writes_in_two_words_is_found_typed_as_one():
    bate_seba = Person("bathsheba_1", "Bathsheba", "seba", "Sebá", frozenset({"bate"}), (1, 2, 3), (), "Female",
                       also=("bate",))
    ela = Person("elah_1", "Elah", "ela", "Elá", frozenset(), (4, 5), ())
    index = PeopleIndex([bate_seba, ela], [])
    assert index.find("bateseba quem era ela".split()) is bate_seba  # not King Elah, named by the pronoun
    assert index.find("quem foi batseba".split()) is bate_seba  # one letter off the joined name
    assert index.find("quem foi bate seba".split()) is bate_seba


def test_a_name_spelled_by_ear_finds_the_person_and_a_plain_word_never_does():
    assert sound_key("melquisedec") == sound_key("melquisedeque") and sound_key("zakeu") == sound_key("zaqueu")
    melquisedeque = Person("melchizedek_1", "Melchizedek", "melquisedeque", "Melquisedeque", frozenset(), (1, 2), ())
    zaqueu = Person("zacchaeus_1", "Zacchaeus", "zaqueu", "Zaqueu", frozenset(), (3, 4), ())
    gera = Person("gera_1", "Gera", "gera", "Gera", frozenset(), (5,), ())
    hagias = Person("haggiah_1", "Haggiah", "hagias", "Hagias", frozenset(), (6,), ())
    abraao = Person("abraham_1", "Abraham", "abraao", "Abraão", frozenset(), tuple(range(10, 40)), ())
    index = PeopleIndex([melquisedeque, zaqueu, gera, hagias, abraao], [])
    assert index.names_someone("abraao") and index.names_someone("zaqueu")  # said alone, as the Bible writes it
    assert not index.names_someone("zakeu") and not index.names_someone("gera")  # by ear a rare one; named once
    assert not index.names_someone("abraco")  # "fui, abraço": one letter off a name is a word said alone
    assert index.find("quem foi melquisedec".split()) is melquisedeque
    assert index.find("quem era zakeu".split()) is zaqueu
    assert index.find("quem foi a guerra".split()) is None  # a short name is too easily a word by ear
    assert index.find("quem sao as aguias".split()) is None  # by ear, but another first letter


def test_a_relative_two_steps_away_is_found_through_the_one_between():
    saul = Person("saul_1", "Saul", "saul", "Saul", frozenset(), tuple(range(100, 160)), (), "Male",
                  (("children", "jonatas", 20), ("children", "micol", 8)))
    jonatas = Person("jonatan_1", "Jonathan", "jonatas", "Jônatas", frozenset(), tuple(range(20)), (), "Male",
                     (("father", "saul", 60), ("children", "mefibosete", 14)))
    micol = Person("michal_1", "Michal", "micol", "Mical", frozenset(), tuple(range(8)), (), "Female",
                   (("father", "saul", 60),))
    mefibosete = Person("mephibosheth_1", "Mephibosheth", "mefibosete", "Mefibosete", frozenset(),
                        tuple(range(200, 214)), (), "Male", (("father", "jonatas", 20),))
    index = PeopleIndex([saul, jonatas, micol, mefibosete], [])
    assert index.relative(saul, "quem era o neto do saul que era aleijado".split()) is mefibosete
    assert index.relative(saul, "quem era a neta do saul".split()) is None  # no granddaughter: never a guess
    assert index.relative(jonatas, "quem era o sobrinho de jonatas".split()) is None


def test_a_plain_word_one_letter_off_a_name_stays_a_word():
    aquila = Person("aquila_1", "Aquila", "aquila", "Áquila", frozenset(), (1, 2, 3, 4, 5, 6), (), "Male")
    index = PeopleIndex([aquila], [])
    assert index.find("quem foi aquela mulher".split()) is aquila  # no plain words known: one letter off
    index.plain = frozenset({"aquela", "mulher"})  # the Bible writes "aquela" in lower case: a word
    assert index.find("quem foi aquela mulher".split()) is None
    assert not index.names_anyone(["aquela"]) and index.find("quem foi aquilla".split()) is aquila


def test_a_short_name_spelled_the_way_brazilians_spell_theirs_is_found_by_ear():
    spelling = NameSpelling(["rute", "ester", "sara", "gera"])
    assert spelling.by_ear("ruth") == "rute" and spelling.by_ear("esther") == "ester"
    assert spelling.by_ear("sarah") == "sara"
    assert spelling.by_ear("guerra") == "guerra"  # a Portuguese spelling: a short name by ear is too easily a word


def test_words_people_say_often_are_never_a_name_typed_off():
    spoken = spoken_words()
    assert {"escola", "maluco", "acabei", "abraco"} <= spoken  # folded, from the Portuguese frequencies
    assert "mefibozete" not in spoken and "zakeu" not in spoken


def test_a_spouse_or_relatives_asked_beside_the_name_are_the_relative():
    isaque = Person("isaac_1", "Isaac", "isaque", "Isaque", frozenset(), tuple(range(10, 40)), (), "Male",
                    (("partners", "rebeca", 5),))
    rebeca = Person("rebekah_1", "Rebekah", "rebeca", "Rebeca", frozenset(), tuple(range(50, 55)), (), "Female",
                    (("partners", "isaque", 30),))
    moises = Person("moses_1", "Moses", "moises", "Moisés", frozenset(), tuple(range(100, 160)), (), "Male",
                    (("siblings", "arao", 8),))
    arao = Person("aaron_1", "Aaron", "arao", "Arão", frozenset(), tuple(range(200, 208)), (), "Male")
    index = PeopleIndex([isaque, rebeca, moises, arao], [])
    assert index.relative(isaque, "isaque casou com quem".split()) is rebeca
    assert index.relative(isaque, "com quem isaque casou".split()) is rebeca
    assert index.relative(rebeca, "rebeca era casada com quem".split()) is isaque
    assert index.relative(moises, "moises tinha irmaos quem eram".split()) is arao
    assert index.relative(moises, "moises tinha medo de falar".split()) is None  # had no relative: himself
    assert index.relative(isaque, "o que isaque fez".split()) is None
