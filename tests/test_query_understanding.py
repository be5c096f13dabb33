"""Chat language, scope from the question, pastoral concepts, translation equivalents."""

import pytest

from retrieval.understand.chat import normalize_chat
from retrieval.understand.message import after_opener, quoted_line, sentences, verse_then_remark
from retrieval.understand.query import plan_query
from retrieval.understand.scope import detect_scope, named
from retrieval.understand.thesaurus import Equivalences, Thesaurus, parse_table


@pytest.mark.parametrize("typed, plain", [
    ("to mto ansioso c/ a prova amanha", "estou muito ansioso com a prova amanhã"),
    ("n consigo dormir", "não consigo dormir"),
    ("pq Deus deixa", "por que Deus deixa"),
    ("vc acha q ele me ouve", "você acha que ele me ouve"),
    ("oq a biblia fala sobre fofoca", "o que a Bíblia fala sobre fofoca"),
    ("kkkk to muuuito feliz p/ vcs", "estou muito feliz para vocês"),
    ("Jo 3:16", "Jo 3:16"),
    ("meu vô ta internado", "meu avô está internado"),  # after a possessive "vô" is a grandfather...
    ("minha vó morreu", "minha avó morreu"),
    ("vô lá amanhã", "vou lá amanhã"),  # ... elsewhere it is "vou"
])
def test_chat_shorthand(typed, plain):
    assert normalize_chat(typed) == plain


@pytest.mark.parametrize("question, scope, rest", [
    ("o que os Provérbios dizem sobre a preguiça?", "PRO", "o que dizem sobre a preguiça?"),
    ("no Antigo Testamento, o que se diz sobre a viúva?", "OT", "no , o que se diz sobre a viúva?"),
    ("e no Velho Testamento?", "OT", None),
    ("o que o NT diz sobre perdão", "NT", None),
    ("nas cartas de Paulo, o que se fala sobre alegria?", "PAUL", None),
    ("nas epístolas paulinas", "PAUL", None),
    ("o que Jesus ensinou sobre o perdão?", "GOSPELS", None),
    ("nos evangelhos", "GOSPELS", None),
    ("o que os profetas dizem sobre justiça", "PROPHETS", None),
    ("elias contra os profetas de baal no monte carmelo", None, None),  # prophets as people, not the books
    ("o que a bíblia diz sobre falsos profetas?", None, None),
    ("os filhos dos profetas e Eliseu", None, None),
    ("nos livros poéticos", "Poéticos", None),
    ("nos Salmos, algo sobre medo", "PSA", None),
    ("no livro de Jó", "JOB", None),
    ("em Romanos", "ROM", None),
    ("o evangelho de João fala de amor", "JHN", None),
    ("o que Tiago diz sobre a fé", "JAS", None),
    ("o que 1 João diz sobre o amor", "1JN", "o que sobre o amor"),
    ("na segunda Coríntios, consolo", "2CO", None),
    ("o que Jó fala sobre o sofrimento", "JOB", "o que sobre o sofrimento"),
    ("Eclesiastes sobre a vaidade", "ECC", "a vaidade"),
    ("Rute", "RUT", ""),
    ("Obadias?", "OBA", ""),
    ("Jó", "JOB", ""),
    ("o que Jo fala", None, None),  # "Jo" without its accent is João's abbreviation
    ("salmos pra quando to triste", "PSA", "pra quando to triste"),
    ("quero um salmo de louvor", "PSA", None),
    ("tem proverbio sobre preguiça?", "PRO", None),
    ("me manda o salmo do bom pastor", None, None),  # a passage's name, not where to look
    ("e Paulo?", "PAUL", "?"), ("Jesus falou sobre o casamento? e o apóstolo Paulo?", "PAUL", None),
    ("e Jesus?", "GOSPELS", "?"), ("quem foi Paulo", None, None),
    ("meu nome é Ester", None, None),
    ("Jó sofreu muito", None, None),
    ("estou com medo do futuro", None, None),
    # a book guessed from memory is no place to look: the verse may be elsewhere
    ("tudo posso naquele que me fortalece, é de salmos né?", None, None),
    ("o amor é paciente, o amor é bondoso. Acho que é em Efésios, qual é?", None, None),
    ("aquele de confessar e ser perdoado, é de romanos?", None, None),
    ("não sei se é de provérbios, mas fala do cordão de três dobras", None, None),
    ("o que é dito em Romanos sobre a lei?", "ROM", None),
    ("em Isaías, acho que tem algo sobre consolo", "ISA", None),
    ("os números da loteria", None, None),
    # a book's abbreviation or name that is also a common noun, used as one
    ("a viúva que enchia o saco do juiz até ele resolver", None, None),
    ("Deus vê o coração e não só os atos dele", None, None),
    ("no livro de Juízes, quem foi Gideão?", "JDG", None),
    ("o que diz em Atos sobre o Espírito", "ACT", None),
    # a book named after someone, said with an article or as someone's full name, is the person
    ("quem pediu a cabeça de João Batista num prato?", None, None),
    ("quem ficou no lugar do Judas nos doze?", None, None),
    ("a história do Daniel na cova dos leões", None, None),
    ("o que diz em Judas sobre os anjos", "JUD", None),
    ("no livro de Ester", "EST", None),
    ("no Gênesis, como foi a criação", "GEN", None),
])
def test_scope_from_the_question(question, scope, rest):
    found, remainder = detect_scope(question)
    assert (found.name if found else None) == scope
    if rest is not None:
        assert remainder == rest


@pytest.mark.parametrize("text", ["o que a Bíblia diz sobre hospitalidade?", "saiu depressa de casa",
                                  "o que é apostasia?", "os magos do oriente", "quem era o impostor?",
                                  "o possuidor da terra", "o fogo consumiu o altar"])
def test_a_prefix_never_catches_a_word_of_another_meaning(text):
    """"hospital*" is no illness in "hospitalidade", "depress*" no sadness in "depressa"."""
    assert Thesaurus().match(normalize_chat(text)) == []


def test_concepts_by_word_prefix_and_phrase():
    thesaurus = Thesaurus()
    names = lambda text: [c.name for c in thesaurus.match(normalize_chat(text))]  # noqa: E731
    assert "medo" in names("estou assustada com tudo")  # prefix assust*
    assert "luto" in names("perdi minha mãe ontem")  # phrase
    assert "luto" not in names("perdi meu emprego")
    assert "provisao" in names("perdi meu emprego")
    assert names("como configurar o roteador") == []  # "confi*" would have matched
    assert "perdao de deus" in names("vc acha q Deus me perdoa?")
    assert "ansiedade" in names("to mto preocupado")


@pytest.mark.parametrize(("text", "guilt"), [
    ("é pecado ler horóscopo?", False), ("crente beber cerveja eh pecado ou nao", False),
    ("tatuagem seria um pecado?", False), ("me sinto culpado pelos meus pecados", True),
    ("pequei de novo e tenho vergonha", True), ("como vencer o pecado que me domina", True),
])
def test_asking_whether_something_is_sin_tells_no_guilt(text, guilt):
    assert ("culpa" in [c.name for c in Thesaurus().match(normalize_chat(text))]) is guilt


def test_thesaurus_table_is_well_formed():
    concepts = parse_table()
    assert len(concepts) >= 60
    assert len({c.name for c in concepts}) == len(concepts)
    for concept in concepts:
        assert concept.topics and concept.vocabulary, concept.name
        assert concept.words or concept.prefixes or concept.phrases, concept.name
        assert all(len(p) >= 3 for p in concept.prefixes), concept.name


def test_every_topic_named_exists_in_the_open_data(shared_dir):
    import csv

    with (shared_dir / "data" / "openbible-topic-votes.tsv").open(encoding="utf-8") as handle:
        topics = {row[0].strip().lower() for row in csv.reader(handle, delimiter="\t")}
    named = {t for c in parse_table() for t in c.topics}
    assert not {t for t in named if t.lower() not in topics}


def test_translation_equivalents_as_alternatives():
    groups = Equivalences().alternatives("bem-aventurados os pacificadores")
    alternatives = dict((group[0], group[1:]) for group in groups)
    assert "pacificos" in alternatives["pacificadores"]
    assert any("benditos" in group for group in groups)  # the phrase "bem-aventurados" brings its group
    phrase = Equivalences().alternatives("os que promovem a paz")
    assert any("pacificos" in group for group in phrase)


def test_query_plan():
    plan = plan_query("'coisa alguma poderá afastar-nos do amor de Deus'", Thesaurus())
    assert plan.quoted and plan.scope is None
    plan = plan_query("nos Salmos, to com mto medo", Thesaurus())
    assert plan.scope.name == "PSA" and plan.text == "nos Salmos, estou com muito medo"
    assert [c.name for c in plan.concepts] == ["medo"] and "temas" in plan.expansion.split()
    assert "Salmos" not in plan.search_text


@pytest.mark.parametrize("question, whole", [
    ("livro de Rute", True),
    ("o que diz o livro de Salmos?", True),
    ("me fale sobre o livro de Jó", True),
    ("resumo de Gênesis", True),
    ("Obadias", True),
    ("o que Provérbios ensina sobre a preguiça?", False),
    ("medo nos Salmos", False),
    ("o que diz o Novo Testamento?", False),  # a testament is not one book
])
def test_a_question_about_a_whole_book(question, whole):
    assert plan_query(question, Thesaurus()).whole_book is whole
    assert not plan_query(question, Thesaurus(), scope=named("NT")).whole_book  # a scope given, not asked


def test_other_translations_words_for_hesed_and_thanks():
    alternatives = dict((g[0], g[1:]) for g in Equivalences().alternatives("a sua misericórdia dura para sempre"))
    assert {"bondade", "benignidade"} <= set(alternatives["misericordia"])
    assert any("agradecei" in g for g in Equivalences().alternatives("rendei graças ao Senhor"))


@pytest.mark.parametrize(("message", "rest"), [
    ("obg! tem alguma oração pra fazer antes de viajar?", "tem alguma oração pra fazer antes de viajar?"),
    ("brigadão, e tem algum versículo sobre perdão?", "e tem algum versículo sobre perdão?"),
    ("oi pastor bom dia, meu filho tá usando drogas", "meu filho tá usando drogas"),
    ("bom dia pastor, tudo bem?", None),  # nothing of substance after the greeting
    ("amém, obrigada", None),
    ("até amanhã se Deus quiser", None),  # one clause
    ("meu marido saiu de casa ontem e levou as crianças, não sei o que fazer", None),  # no greeting: too long
])
def test_what_follows_a_greeting_or_thanks(message, rest):
    assert after_opener(message) == rest


def test_a_message_of_several_sentences_is_read_one_sentence_at_a_time_too():
    said = "to afogada em divida, o cobrador liga todo dia. lembrei da viuva que o credor ia levar os filhos! onde é?"
    assert sentences(said) == ["to afogada em divida, o cobrador liga todo dia",
                               "lembrei da viuva que o credor ia levar os filhos"]  # "onde é?" says too little
    assert sentences("o menino que derrubou o gigante com uma pedra") == []  # one sentence: the message itself
    assert sentences("") == []


def test_a_verse_said_before_a_short_remark_is_told_apart_from_a_life_told():
    assert verse_then_remark("o choro pode durar uma noite inteira mas a alegria vem de manha. preciso dessa palavra") \
        == "o choro pode durar uma noite inteira mas a alegria vem de manha"
    assert verse_then_remark("Deus é fiel. perdi o emprego hoje") is None  # too short to be a verse remembered
    assert verse_then_remark("o senhor é meu pastor e nada me faltará") is None  # one sentence: the message itself
    long_life = "tudo posso naquele que me fortalece, dizem. mas perdi o emprego, minha mãe adoeceu e o aluguel venceu"
    assert verse_then_remark(long_life) is None  # what follows tells a life, not a word about the verse


def test_the_line_a_message_quotes_in_marks():
    assert quoted_line("onde Pedro fala pro coxo 'não tenho prata nem ouro'?") == "não tenho prata nem ouro"
    two = 'aquela parte “quem sabe se não foi pra isso” e o “eis-me aqui”'
    assert quoted_line(two) == "quem sabe se não foi pra isso"
    assert quoted_line('o pastor falou "graça" domingo') is None  # one word: no line
    assert quoted_line("pedi um copo d'água e o garçom disse que não tinha") is None  # an apostrophe is no mark
    assert quoted_line("onde Jesus fala da videira?") is None
