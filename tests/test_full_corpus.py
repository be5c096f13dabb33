"""The full-corpus check: build the real index of the 31,102-verse Bible and measure it (the pastor on the same
index: test_full_corpus_pastor.py; the `full` fixture is in conftest).

Marked slow (about two minutes on 2 cores): it is the end-to-end proof that the
engine meets the dev-set targets on the real corpus, and the issue's own examples.
"""

from __future__ import annotations

import json

import pytest

from retrieval.evaluation import evaluate, evaluate_situations, load_items, merge_grades
from retrieval.results import Status
from tests.conftest import ROOT, SHARED
from tests.fakes.translation import as_another_translation_says

pytestmark = pytest.mark.slow


def test_dev_set_targets(full):
    report = evaluate(full, load_items(SHARED / "eval" / "dev.jsonl"))
    hit5, _, n = report.pooled()
    topic = [v[0] for v in report.ranked["topic"]]
    quote = [v[0] for v in report.ranked["quote"]]
    checks = {name: sum(values) / len(values) for name, values in report.checks.items()}
    assert n == 24 and hit5 >= 0.85
    assert sum(topic) / len(topic) >= 0.80
    assert sum(quote) / len(quote) >= 0.95
    assert checks["referências exatas"] == 1.0 and checks["refs inexistentes"] == 1.0
    assert checks["precisão de escopo"] == 1.0
    assert checks["rejeição off-topic"] >= 0.9 and checks["falsa rejeição"] <= 0.05


def test_questions_are_ordered_by_what_answered_questions_like_them(full):
    """The learned relevance order and the answered questions' memory find more answers than the fused order
    alone on blind questions they never saw (bench/holdout-17.jsonl: 0.39 / 0.26 before the memory, 0.53 / 0.38
    with it), and the ranker adds to the memory's fused order."""
    assert full.relevance is not None, full.relevance_problem
    assert full.answered is not None
    items = load_items(ROOT / "bench" / "holdout-17.jsonl")
    learned = evaluate(full, items).pooled()
    ranker, memory = full.relevance, full.answered
    try:
        full.relevance = None
        full.result_cache.clear()
        remembered = evaluate(full, items).pooled()
        full.answered = None
        full.result_cache.clear()
        fused = evaluate(full, items).pooled()
    finally:
        full.relevance, full.answered = ranker, memory
        full.result_cache.clear()
    assert learned[0] >= fused[0] + 0.1 and learned[1] >= fused[1] + 0.1
    assert learned[0] >= remembered[0] and learned[1] >= remembered[1]


@pytest.mark.parametrize("question, verse", [
    ("tudo posso naquele que me fortalece", "PHP.4.13"),
    ("bem-aventurados os pacificadores", "MAT.5.9"),
    ("o que Jesus disse sobre amar os inimigos?", "MAT.5.44"),
    ("estou com medo do futuro", None),
])
def test_examples_from_the_brief(full, question, verse):
    result = full.search(question, k=5)
    assert result.status == "ok"
    if verse:
        assert verse in result.ranked_ids()[:6]


def test_who_jesus_was_is_asked_of_christ_never_of_a_namesake_or_a_companion(full):
    """Peter's mother-in-law shares her verses with Simão and Jesus; Jesus called Justus shares the name."""
    for question in ("quem foi Jesus?", "tenho vergonha de falar de Jesus pros meus colegas, como evangelizar?"):
        ids = [h.id for h in full.search(question).hits[:5]]
        assert not {"MAT.8.14", "MRK.1.30", "LUK.4.38", "COL.4.11"} & set(ids), (question, ids)
    assert "MAT.16.16" in [i for h in full.search("quem foi Jesus?").hits[:5] for i in h.ids]
    assert all(p.name != "jesus" for p in full.knowledge.people.people)


def test_reference_first_and_off_topic(full):
    result = full.search("explique Filipenses 4:6-7")
    assert result.status == "reference" and [h.id for h in result.hits[:2]] == ["PHP.4.6", "PHP.4.7"]
    for question in ("qual a capital da França?", "receita de bolo de chocolate", "código em python"):
        assert full.search(question).status == "no_evidence", question
    scoped = full.search("o que os Salmos dizem sobre computadores e programação?")
    assert scoped.status == "no_evidence" and scoped.scope.name == "PSA"


def test_life_situations_meet_the_need(full):
    """Pastoral aptness on the dev situations, graded blind (the shared grades, then the blind judges' for the
    verses they do not grade): every verse that reaches the first three must be graded."""
    items = merge_grades(load_items(SHARED / "eval" / "situations-dev.jsonl"),
                         load_items(ROOT / "retrieval" / "data" / "aptness" / "grades-dev.jsonl"))
    report = evaluate_situations(full, items)
    assert report.turned_away == []
    assert report.unjudged == [], "grade the new verses blind (bench/grade_pools.py) into grades-dev.jsonl"
    assert sum(report.harm) == 0
    # blind and strict: 0.57 / 0.70 measured with the ranker alone ordering a life surely told (0.67 / 0.70 with
    # half the search's order, 0.57 / 0.70 without the ranker)
    assert sum(report.first) / len(report.first) >= 0.65
    assert sum(report.apt) / len(report.apt) >= 0.55


@pytest.mark.parametrize("question", ["fomos despejados", "meu cachorro morreu", "reprovei no concurso de novo"])
def test_no_person_is_turned_away(full, question):
    result = full.search(question)
    assert result.status == "ok" and result.mode == "cuidado"


def test_a_life_the_map_does_not_know_is_still_care(full):
    from retrieval.understand.query import plan_query

    life = "sou engenheiro há vinte anos e quero largar tudo pra virar professor de música, minha família acha loucura"
    assert not full.fuse(plan_query(life, full.thesaurus), full.understand(life)).recognised
    assert full.search(life).mode == "cuidado"  # so a model set to choose verses (LLM_CHOOSE_VERSES) chooses here too


def test_a_verse_quoted_in_a_question_about_its_passage_leads_it(full):
    found = full.search("qual salmo diz 'ensina-nos a contar os nossos dias'?")
    assert found.mode == "passagem" and found.hits[0].id == "PSA.90.12"  # Psalm 90 read from the verse quoted


def test_a_line_quoted_in_other_words_leads_its_passage(full):
    found = full.search('onde pedro fala pro coxo "não tenho prata nem ouro, mas o que tenho te dou"?')
    assert found.mode == "passagem" and found.hits[0].id == "ACT.3.6"
    told = full.search("me conta a história do bom samaritano")  # no line quoted: the passage from its start
    assert told.mode == "passagem" and told.hits[0].id == "LUK.10.25"


def test_a_short_fragment_of_a_famous_verse_is_that_verse_and_a_hurt_by_a_pastor_is_care(full):
    found = full.search("Senhor, tu és o meu pastor")  # the map's words "meu pastor" read a person hurt by one
    assert found.mode == "citacao" and found.hits[0].id == "PSA.23.1"
    assert full.search("meu pastor me humilhou na frente da igreja toda").mode == "cuidado"


def test_words_several_verses_hold_are_the_verse_people_remember(full):
    # "o dia que o SENHOR…" opens three narratives word for word; the saying remembered is Psalm 118
    found = full.search("este é o dia que o senhor fez, vamos nos alegrar nele")
    assert found.mode == "citacao" and found.hits[0].id == "PSA.118.24"


def test_the_harm_guard_in_care_and_not_in_teaching(full):
    care = full.search("meu marido bebe demais e eu não sei o que fazer")
    top = [i for hit in care.hits[:3] for i in hit.ids]
    assert not {"1CO.7.3", "1CO.7.4", "PSA.113.9", "JOB.31.15"} & set(top)
    teaching = full.search("o que a Bíblia diz sobre o divórcio?")
    assert teaching.mode == "ensino" and teaching.demoted == []


def test_a_question_inside_a_life_told_gets_nothing_that_would_wound_the_teller(full):
    # the issue's own example: "do not be anxious" to the anxious asking about treatment; the plain question keeps it
    told = full.search("faço tratamento pra ansiedade com remédio e terapia e uma irmã da igreja disse que isso é "
                       "falta de fé. é pecado tomar remédio?")
    asked = full.search("ansiedade é pecado?")
    assert told.mode == asked.mode == "ensino"
    assert "PHP.4.6" not in [i for hit in told.hits[:3] for i in hit.ids]
    assert "PHP.4.6" in [i for hit in asked.hits[:5] for i in hit.ids]


def test_a_choice_in_ones_life_told_in_practical_words_is_cared_for_and_a_practical_request_is_not(full):
    told = full.search("pastor, to pensando em largar meu emprego fixo pra abrir uma oficina de costura com minha "
                       "irma, meu marido acha arriscado")
    asked = full.search("como faço pra registrar uma oficina de costura como MEI e quanto pago de imposto por mes?")
    assert told.status == Status.OK and told.hits
    assert asked.status == Status.NO_EVIDENCE and not asked.hits


@pytest.mark.parametrize("verse, refrain_first", [
    ("PSA.136.10", True),  # a refrain shared by 26 verses, beside the words that pin one
    ("PSA.136.26", False),
    ("MAT.11.28", False),
])
def test_quotations_in_another_translations_words_find_their_verse_first(full, verse, refrain_first):
    book, chapter, number = verse.split(".")
    quotation = as_another_translation_says(full.bible.get(book, int(chapter), int(number)).text, refrain_first)
    assert quotation != full.bible.get(book, int(chapter), int(number)).text
    assert full.search(quotation, k=5).ranked_ids()[0] == verse, quotation
    assert full.search("cansados e oprimidos", k=5).ranked_ids()[0] == "MAT.11.28"


@pytest.mark.parametrize("quotation, verse", [
    ("entrega o teu caminho ao senhor", "PSA.37.5"), ("o senhor pelejara por vos e vos vos calareis", "EXO.14.14")])
def test_a_verse_remembered_in_other_words_is_the_one_most_readers_know(full, quotation, verse):
    """Among the verses near a quotation's words, the one readers voted for most comes first (the famous
    channel: without it, PSA.37.5 came fifth, after EZK.33.17 and PSA.1.6)."""
    assert full.search(quotation, k=5).ranked_ids()[0] == verse


def test_long_chapters_and_whole_books(full):
    psalm = full.search("Salmo 119")
    assert psalm.status == "reference" and psalm.total == 176 and len(psalm.hits) == 176
    genesis = full.search("Gênesis 1-50")
    assert genesis.total == 1533 and len(genesis.hits) == 200
    for question, code in [("o que diz o livro de Salmos?", "PSA"), ("livro de Rute", "RUT"),
                           ("Obadias", "OBA"), ("me fale sobre o livro de Jó", "JOB")]:
        result = full.search(question)
        assert result.status == "ok" and result.mode == "livro", question
        assert result.hits and all(i.startswith(code + ".") for i in result.ranked_ids()), question
    assert "PSA.23.1" in full.search("o que diz o livro de Salmos?").ranked_ids()  # best known, by votes


@pytest.mark.parametrize("question, books", [
    ("alegria em Filipenses", {"PHP"}),
    ("angústia em Jó", {"JOB"}),
    ("desânimo nos Salmos", {"PSA"}),
    ("o que Isaías fala sobre consolo", {"ISA"}),
    ("solidão no Novo Testamento", None),
    ("Eclesiastes sobre a vaidade", {"ECC"}),
    ("o que Rute ensina sobre lealdade", {"RUT"}),
])
def test_a_scope_that_treats_the_theme_is_never_no_evidence(full, question, books):
    result = full.search(question)
    assert result.status == "ok", question
    allowed = books or result.scope.books
    assert all(i.split(".")[0] in allowed for i in result.ranked_ids())


def test_a_life_told_in_a_story_s_imagery_is_cared_for_not_answered_with_the_story(full):
    result = full.search("to enfrentando um gigante, meu filho ta nas drogas")
    assert result.mode == "cuidado" and not any(hit.id.startswith("1SA.17") for hit in result.hits[:3])


def test_famous_verses_typed_from_memory_come_back_first(full):
    """The 1,000 most-voted verses, 7 words from the middle typed loosely in everyday frames (made from the
    corpus at run time): the quoted verse among the first three passages for at least 95% of them."""
    from retrieval.evaluation import famous_verses

    share, misses = famous_verses(full, 1000)
    assert share >= 0.95, misses[:10]


UNDERSTOOD = [json.loads(line) for line in (ROOT / "tests" / "data" / "understood.jsonl").read_text(
    encoding="utf-8").splitlines() if line.strip()]  # {"q", "mode", "expected", "why": the case and what it was}


@pytest.mark.parametrize(("question", "mode", "expected"), [(r["q"], r["mode"], r["expected"]) for r in UNDERSTOOD])
def test_what_is_asked_is_understood(full, question, mode, expected):
    result = full.search(question)
    assert mode is None or result.mode == mode, result.as_dict()
    assert result.mode != "cuidado"
    assert expected is None or expected in [i for hit in result.hits[:3] for i in hit.ids]


def test_a_life_told_in_a_churchs_phrase_is_no_quotation(full):
    # "um homem de Deus, que" is five words of 1 Samuel 9:6, and the person quotes nothing: she asks for care
    result = full.search("Meu marido me humilha na frente dos filhos e todo mundo na igreja diz que ele é um homem "
                         "de Deus, que eu tenho que aguentar calada. Estou cansada e triste.")
    assert result.mode != "citacao" and "1SA.9.6" not in [h.id for h in result.hits[:3]], result.as_dict()


@pytest.mark.parametrize(("question", "first"), [
    ("me conta a história de sansão", "JDG.13.1"),  # the passage named alone: from its start
    ("a mulher samaritana no poço", "JHN.4.1"),  # not from a line of it the message's own words never say
    ("quem foi a rainha ester", "EST.2.4"),  # who she was: from where she comes in (was Xerxes' banquet)
    # a verse typed from memory inside the passage its words name: from that verse (was Psalm 37 from verse 1)
    ("entrega o teu caminho ao senhor, confia nele q ele age. em q salmo ta isso?", "PSA.37.5"),
    ("na história de sansão, como foi quando ele achou mel dentro do leão morto?", "JDG.14.5"),
    ("na história de davi e golias, o que davi disse pro gigante antes de atirar a pedra?", "1SA.17.46"),
    ("na história de sansão, em que versículo ele acha o mel dentro do leão morto?", "JDG.14.8"),  # the verse asked
    # asked for by "verso", among the first verses of the passage (was three verses before it)
    ("na arca de noé, em que verso a pomba volta com a folha de oliveira?", "GEN.8.11")])
def test_a_question_about_one_moment_of_a_long_passage_reads_it_from_there(full, question, first):
    result = full.search(question)
    assert result.mode == "passagem" and result.hits[0].id == first, [h.id for h in result.hits[:3]]


@pytest.mark.parametrize(("question", "first"), [
    ("isaías 6, onde o profeta responde eis-me aqui, envia-me? preciso do número", "ISA.6.8"),  # a line said
    ("em gênesis 22 qual versículo abraão vê um carneiro preso pelos chifres no mato?", "GEN.22.13"),  # a moment
    ("daniel 6 em que versiculo o rei manda jogar daniel na cova dos leões", "DAN.6.16"),  # its passage inside
    ("eu sou o bom pastor, joão 10", "JHN.10.11"),  # a verse typed from memory inside the chapter given
    ("salmo 91 pra minha mãe que tá no hospital", "PSA.91.1"),  # nothing asked of one verse: from the start
    ("me explica romanos 8", "ROM.8.1")])
def test_a_chapter_given_is_read_from_the_verse_the_question_asks_inside_it(full, question, first):
    result = full.search(question)
    assert result.hits[0].id == first, [h.id for h in result.hits[:3]]


def test_a_passage_outside_the_scope_asked_is_never_the_answer(full):
    result = full.search("nos Provérbios, o que se fala sobre o domínio da língua?")
    assert result.mode != "passagem" and result.hits and all(h.id.startswith("PRO.") for h in result.hits)


def test_words_the_corpus_capitalises_out_of_reverence_are_no_places(full):
    people = full.knowledge.people
    assert people.named_in(["nome"]) is None and people.named_in(["reino"]) is None  # "o Nome", "o Reino"
    assert people.named_in(["betel"]) is not None


@pytest.mark.parametrize("life", [
    "tenho 17 anos, minha mãe morreu mês passado e eu não consigo parar de chorar na escola. "
    "o que a bíblia fala sobre isso?",
    "meu marido me traiu com uma colega do trabalho e eu descobri pelo celular. não durmo, não como. "
    "é pecado eu não conseguir perdoar ele agora?"])
def test_a_life_surely_told_is_cared_for_whatever_teaching_it_also_asks(full, life):
    # the teaching words ("o que a bíblia fala sobre", "é pecado") once made it a lesson on grief or on forgiveness
    assert full.search(life).mode != "ensino"
    question = life.rsplit(". ", 1)[1]
    assert full.search(question.replace("isso", "o luto")).mode == "ensino"  # asked alone: a teaching


def test_searches_side_by_side_find_what_each_finds_alone(full):
    """Two conversations at once (the bot's two CPU threads), each search handing its store query and the topic
    names' product to the store threads: every message keeps its own verses, whatever the other one asks."""
    import random
    from concurrent.futures import ThreadPoolExecutor

    questions = [item["q"] for item in load_items(SHARED / "eval" / "dev.jsonl")
                 if item.get("q") and item["kind"] in ("topic", "quote", "scope")]
    questions += ["estou com medo de uma cirurgia amanhã", "quem foi Gamaliel?", "me conta a história de Rute"]

    def ranked(question):
        full.result_cache.clear()  # searched, not read back from the other thread's answer
        return [hit.id for hit in full.search(question, k=10).hits]

    alone = {q: ranked(q) for q in questions}
    shuffled = [random.Random(seed).sample(questions, len(questions)) for seed in (1, 2)]
    assert all(alone.values())
    for _ in range(2):
        full.embedding_cache.clear()
        with ThreadPoolExecutor(2) as pool:
            together = list(pool.map(lambda order: [(q, ranked(q)) for q in order], shuffled))
        assert all(found == alone[q] for run in together for q, found in run)


def test_the_verse_both_the_words_and_the_meaning_put_first_leads_a_question_about_it(full):
    result = full.search("natanael perguntando se de nazaré pode sair alguma coisa boa")  # was second
    assert result.hits[0].id == "JHN.1.46", [h.id for h in result.hits[:3]]


def test_the_agreed_verse_is_none_for_small_talk_or_a_verse_holding_few_of_the_words(full):
    from types import SimpleNamespace

    from retrieval.understand.query import plan_query

    jonah = next(i for i, v in enumerate(full.bible.verses) if v.id == "JON.1.9")
    plan = plan_query("o profeta que disse aos marinheiros que era hebreu e temia o deus do céu", full.thesaurus)
    ranks = {"lexical": {jonah: 1, jonah + 1: 2}, "dense": {jonah: 1}}
    assert full._agreed(plan, SimpleNamespace(intent=None, ranks=ranks)) == jonah
    assert full._agreed(plan, SimpleNamespace(intent=SimpleNamespace(name="smalltalk"), ranks=ranks)) is None
    assert full._agreed(plan, SimpleNamespace(intent=None, ranks={**ranks, "dense": {jonah + 1: 1}})) is None
    few = plan_query("hebreu", full.thesaurus)  # one word of the verse: no line asked about
    assert full._agreed(few, SimpleNamespace(intent=None, ranks=ranks)) is None


def test_a_verse_the_teller_asks_where_it_is_leads_the_care_of_a_life_told(full):
    asked = full.search("minha mae morreu ontem. ela sempre dizia tudo posso naquele que me fortalece. de onde é isso?")
    assert asked.mode == "cuidado" and asked.hits[0].id == "PHP.4.13", [h.id for h in asked.hits[:3]]
    told = full.search("minha mae morreu ontem. ela sempre dizia tudo posso naquele que me fortalece. to sem chao")
    assert told.mode == "cuidado" and told.hits[0].id != "PHP.4.13"  # nothing asked of the verse: care first
