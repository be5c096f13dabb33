"""Someone asked for by what they did: the person the verses found speak of, when they clearly do (inline
people, no index)."""

from retrieval.knowledge.described import Mentions, asks_for_someone_described, described_settings, gender_asked
from retrieval.knowledge.people import Person

SETTINGS = described_settings()
PEDRO = Person("peter_1", "Peter", "pedro", "Pedro", frozenset(), (1, 2, 3, 9), (), "Male")
JOAO = Person("john_1", "John", "joao", "João", frozenset(), (3, 4), (), "Male")
JESUS = Person("jesus_905", "Jesus", "jesus", "Jesus", frozenset(), (1, 2, 3, 4, 5), (), "Male")
MARIA = Person("mary_1", "Mary", "maria", "Maria", frozenset(), (5, 6, 7), (), "Female")
MENTIONS = Mentions([PEDRO, JOAO, JESUS, MARIA])


def test_a_question_for_someone_described_is_told_from_one_about_someone_named():
    assert asks_for_someone_described("quem negou Jesus três vezes?") == []
    assert asks_for_someone_described("quem foi aquele que traiu jesus") == ["aquele"]
    assert asks_for_someone_described("boa noite. quem era a mulher q vendia púrpura?") == ["a", "mulher"]
    assert asks_for_someone_described("como se chamava o gigante") == []
    assert asks_for_someone_described("minha filha perguntou quem ajudou jesus a carregar a cruz") == ["minha", "filha",
                                                                                                     "perguntou"]
    assert asks_for_someone_described("quem foi pedro que negou jesus") == ["pedro"]  # named: told apart later
    assert asks_for_someone_described("judas quem era aquele que beijou jesus") == ["judas", "aquele"]  # named first
    assert asks_for_someone_described("quem foi davi") is None
    assert asks_for_someone_described("quem foi judas e por que ele traiu") is None  # "por que" asks why
    assert asks_for_someone_described("quem sabe amanhã") is None  # an idiom, not a deed
    assert asks_for_someone_described("quem disse 'eis-me aqui, envia-me'?") is None  # the verse answers
    assert asks_for_someone_described("jesus compara quem escuta e faz com a casa na rocha") is None  # whoever
    # which one of a kind of person (described.toml's words) did it; "qual é…" and "qual livro…" ask no one
    assert asks_for_someone_described("qual rei pediu sabedoria em vez de riqueza", SETTINGS.kinds) == ["rei"]
    assert asks_for_someone_described("pastor qual a mulher que tocou na roupa de jesus", SETTINGS.kinds) == ["mulher"]
    assert asks_for_someone_described("qual é o salmo do pastor", SETTINGS.kinds) is None
    assert asks_for_someone_described("qual livro fala de amor", SETTINGS.kinds) is None
    # "o rei de…" asks which king, not who did something
    assert asks_for_someone_described("qual era o rei de israel quando jesus nasceu", SETTINGS.kinds) is None


def test_the_gender_asked_is_the_first_word_that_tells_it_after_who():
    assert gender_asked("quem era a mulher que lavou os pes do homem", SETTINGS) == "Female"
    assert gender_asked("quem foi o rei que teve sete mulheres", SETTINGS) == "Male"
    assert gender_asked("quem negou jesus", SETTINGS) == ""


def test_the_person_most_spoken_of_wins_only_when_clearly_ahead():
    # Pedro in the first two verses, Jesus everywhere but never the answer (divine), nor anyone the message names
    assert MENTIONS.most_spoken_of([1, 2, 4], {"quem", "negou", "jesus"}, "", SETTINGS) is PEDRO
    assert MENTIONS.most_spoken_of([1, 2, 4], {"quem", "negou", "pedro"}, "", SETTINGS) is None  # João, one verse
    assert MENTIONS.most_spoken_of([3, 4, 9], {"quem"}, "", SETTINGS) is None  # Pedro and João neck and neck
    assert MENTIONS.most_spoken_of([5, 6, 1], {"quem"}, "Female", SETTINGS) is MARIA  # a woman asked for
    assert MENTIONS.most_spoken_of([5, 6, 1], {"quem"}, "Male", SETTINGS) is None  # no man in two verses
    assert MENTIONS.most_spoken_of([1], {"quem"}, "", SETTINGS) is None  # one verse is not enough
