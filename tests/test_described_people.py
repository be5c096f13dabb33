"""Someone asked for by what they did: the person the verses found speak of, when they clearly do (inline
people, no index)."""

from retrieval.knowledge.described import (
    Mentions,
    asks_for_someone_described,
    described_settings,
    described_without_asking,
    gender_asked,
)
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
    assert asks_for_someone_described("quem eram priscila e aquila?") is None  # named: "eram" is no deed
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


def test_the_first_of_a_kind_and_a_name_asked_without_se_ask_for_someone():
    assert asks_for_someone_described("quem foi o primeiro cristao a morrer apedrejado") == ["o", "primeiro", "cristao"]
    assert asks_for_someone_described("como chamava o gigante que davi derrubou") == []
    assert asks_for_someone_described("quem foi o primeiro rei") == ["o", "primeiro", "rei"]
    assert asks_for_someone_described("foi o primeiro dia de aula") is None


def test_a_kind_of_person_and_their_deed_told_without_a_question():
    kinds = SETTINGS.kinds
    assert described_without_asking("o soldado q pegou coisa proibida de jerico", kinds) == ["soldado"]
    assert described_without_asking("o profeta chorao, q jogaram no poço", kinds) == ["profeta", "chorao"]
    # whose they are is not who they are; a name said before "que" is the person asked about
    assert described_without_asking("a esposa daquele fazendeiro grosso q negou comida", kinds) == ["esposa"]
    assert described_without_asking("o rei davi que dançou", kinds) == ["rei", "davi"]
    assert described_without_asking("o profeta que disse eis-me aqui", kinds) is None  # words said: the verse
    assert described_without_asking("o senhor é meu pastor", kinds) is None  # no deed told
    assert described_without_asking("quero ler sobre o homem que construiu a arca", kinds) is None  # not opening


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


DESCRIBED = [
    ("jonah_1", "quem foi o profeta engolido por um peixe grande"),
    ("jonah_1", "o cara que ficou tres dias na barriga da baleia"),
    ("jonah_1", "aquele que fugiu de deus num navio pra tarsis"),
    ("jethro_1", "quem era o sogro de moises"),
    ("jethro_1", "o sacerdote de midia, pai da esposa de moises"),
    ("jethro_1", "aquele que aconselhou moises a escolher juizes pra ajudar o povo"),
    ("zacchaeus_1", "o baixinho cobrador de impostos que subiu na arvore pra ver jesus"),
    ("zacchaeus_1", "quem foi o publicano rico de jerico que devolveu quatro vezes o que roubou"),
    ("zacchaeus_1", "aquele homem pequeno que subiu no sicomoro"),
    ("nobody_9", "alguém que os dados de pessoas não têm"),
]


def test_a_person_described_is_named_by_the_nearest_descriptions_or_by_the_verses_found(use_embedder, tmp_path,
                                                                                        caplog):
    import logging

    from retrieval.index.lexical import STOPWORDS
    from retrieval.knowledge.described_people import DescribedPeople, load_descriptions

    calls = []

    def embed(texts):
        calls.append(len(texts))
        return use_embedder.embed(texts)

    known = {"jonah_1", "jethro_1", "zacchaeus_1"}
    with caplog.at_level(logging.WARNING):
        people = DescribedPeople.build(DESCRIBED, known, STOPWORDS | SETTINGS.frame, embed, "slug-described", tmp_path)
    assert "nobody_9" in caplog.text  # someone the people data lacks is said, and left out

    def person(message, spoken_of=frozenset()):
        return people.person(message, use_embedder.embed([message])[0], frozenset(spoken_of))

    assert person("qual o nome do cobrador de impostos baixinho que subiu na arvore pra ver jesus") == "zacchaeus_1"
    # fainter: named only when the verses the search found speak of that person
    faint = "como chamava o homem que passou tres dias dentro do peixe?"
    assert person(faint) is None and person(faint, {"jonah_1", "jethro_1"}) == "jonah_1"
    assert person("qual o horário do culto de domingo?", {"jethro_1"}) is None  # near none of them
    # someone the message names is never whom it asks for, however near their descriptions are
    zacchaeus = "qual o nome do cobrador de impostos baixinho que subiu na arvore pra ver jesus"
    assert people.person(zacchaeus, use_embedder.embed([zacchaeus])[0], named=frozenset({"zacchaeus_1"})) != \
        "zacchaeus_1"
    DescribedPeople.build(DESCRIBED, known, STOPWORDS, embed, "slug-described", tmp_path)
    assert len(calls) == 1  # the descriptions' vectors are kept beside the index: a restart embeds nothing
    path = tmp_path / "described.jsonl"
    path.write_text('{"person": "jonah_1", "q": "o profeta do peixe"}\n{"person": "", "q": "sem pessoa"}\n')
    try:
        load_descriptions(path)
    except ValueError as error:
        assert "described.jsonl:2" in str(error)
    else:
        raise AssertionError("a description without a person must be refused")


OTHERS = ["oi pastor, tudo bem?", "perdi meu emprego e to com medo do futuro", "o que a biblia fala sobre perdao?",
          "como faço bolo de cenoura", "obrigado pela palavra de hoje", "minha mae ta doente e eu to sem forças",
          "qual o horário do culto de domingo?", "me indica um salmo pra dormir"]
NAMED = ["quem foi jonas?", "me fala de jetro", "o que zaqueu fez depois que jesus foi na casa dele?",
         "moises ouviu o conselho de jetro?", "jonas obedeceu deus depois do peixe?", "zaqueu era rico?"]


def test_the_asking_gate_names_someone_described_and_leaves_a_name_asked_for(use_embedder, tmp_path):
    from retrieval.index.lexical import STOPWORDS
    from retrieval.knowledge.described_people import DescribedPeople

    calls = []

    def embed(texts):
        calls.append(len(texts))
        return use_embedder.embed(texts)

    def gated():
        people = DescribedPeople.build(DESCRIBED, {"jonah_1", "jethro_1", "zacchaeus_1"}, STOPWORDS | SETTINGS.frame,
                                       embed, "slug-asked", tmp_path)
        return people.gated(OTHERS, NAMED, embed, "slug-asked", tmp_path)

    people = gated()

    def asked(message, named=frozenset()):
        return people.asked(message, use_embedder.embed([message])[0], frozenset(named))

    described = "quem era o cobrador de impostos baixinho que subiu na arvore pra ver jesus passar?"
    assert asked(described) == "zacchaeus_1"
    assert asked(described, {"jesus_905"}) == "zacchaeus_1"  # a name said beside the one described
    # one of the nearest descriptions is of someone the message names: that one is asked for by name
    assert asked(described, {"zacchaeus_1"}) is None
    assert asked("qual o horário do culto de domingo?") is None  # a message of another kind
    assert asked("o que jonas pregou em ninive?") is None  # someone asked about by name
    before = sum(calls)
    assert gated().asked(described, use_embedder.embed([described])[0]) == "zacchaeus_1"
    assert sum(calls) == before  # the gate is kept beside the index: a restart embeds and trains nothing


def test_the_shipped_descriptions_name_known_people_never_by_their_own_name(blivre):
    import json
    import re

    from corpus.text import fold
    from retrieval.knowledge.described_people import DESCRIPTIONS_FILE, load_descriptions, load_named

    descriptions, named = load_descriptions(), load_named()
    assert len(named) >= 500 and len({fold(q) for q in named}) == len(named)  # questions about someone named
    assert len(descriptions) >= 2000 and len({who for who, _ in descriptions}) >= 300
    assert len({fold(text) for _, text in descriptions}) == len(descriptions)  # none twice
    rows = [json.loads(line) for line in DESCRIPTIONS_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert all(set(row) == {"person", "q"} for row in rows)

    def words(text):
        return re.findall(r"\w+", fold(text).lower())

    run = 6  # never a copy of the Bible's own text
    bible = {tuple(w[i:i + run]) for v in blivre.verses for w in [words(v.text)] for i in range(len(w) - run + 1)}
    assert [t for t in [*(t for _, t in descriptions), *named] for w in [words(t)]
            if any(tuple(w[i:i + run]) in bible for i in range(len(w) - run + 1))] == []


def test_someone_described_first_then_asked_for_is_asked_for():
    assert asks_for_someone_described("tinha uma mulher q vendia purpura e recebeu paulo, quem era?",
                                      SETTINGS.kinds) == ["tinha", "uma", "mulher"]
    assert asks_for_someone_described("tem um homem antes do diluvio que andava com deus. quem é ele?",
                                      SETTINGS.kinds) == ["tem", "um", "homem"]
    assert asks_for_someone_described("jefte é aquele q sacrificou a filha? quem era ele",
                                      SETTINGS.kinds) == ["jefte", "e", "aquele"]  # named first: told apart later
    assert asks_for_someone_described("meu pai q morreu, quem era ele pra voce", SETTINGS.kinds) is None  # no close
    assert asks_for_someone_described("tinha uma mulher na minha rua que vendia bolo", SETTINGS.kinds) is None


def test_one_description_far_nearer_than_any_other_persons_names_them_alone(use_embedder, tmp_path):
    from retrieval.index.lexical import STOPWORDS
    from retrieval.knowledge.described_people import DescribedPeople

    described = [("cain_1", "quem foi o primeiro assassino da biblia"),
                 ("abel_1", "o pastor de ovelhas cuja oferta deus aceitou"),
                 ("seth_1", "o filho que adao e eva tiveram depois da tragedia"),
                 ("seth_1", "o terceiro filho de adao, pai de enos")]
    people = DescribedPeople.build(described, {"cain_1", "abel_1", "seth_1"}, STOPWORDS | SETTINGS.frame,
                                   use_embedder.embed, "slug-one-fact", tmp_path)

    def person(message):
        return people.person(message, use_embedder.embed([message])[0])

    # the two other nearest are someone else's, yet the one fact is told far more nearly than anything else
    assert person("qm foi o primeiro assassino da história?") == "cain_1"
    assert person("qual o horário do culto de domingo?") is None  # near none of them


def test_a_description_naming_others_than_the_message_names_tells_another_fact():
    from retrieval.knowledge.described_people import DescribedPeople

    people = DescribedPeople(("absalom_1", "solomon_1", "saul_1"), None, None, None,
                             names=(frozenset({"david_1", "amnon_1"}), frozenset({"david_1", "adonijah_1"}),
                                    frozenset({"kish_1", "israel_1"})))
    # "qual filho de Davi mandou matar o irmão Amnom?": Salomão's fact is of Davi too, but names Adonias, whom it
    # does not say; Absalão's names only people it says; Saul's names no one it says: nothing to tell apart
    assert people.other_facts(frozenset({"david_1", "amnon_1"})) == {1}
    # "quem foi o primeiro rei de Israel?": Saul's fact says Israel and no one the message names is left out of it
    assert people.other_facts(frozenset({"israel_1"})) == frozenset()
    assert people.other_facts(frozenset()) == frozenset()
