"""Understanding before retrieval: the intent classifier, Bible people, quotations word for word, and small talk
answered as a person would (named passages: test_named_passages.py)."""

from __future__ import annotations

import csv
from dataclasses import replace

import pytest

from bot.commands import DAILY, ERASE, PASTOR
from bot.pastor.smalltalk import SmallTalk
from bot.reply import ANSWERED
from bot.texts import NO_EVIDENCE
from corpus.bible import load
from retrieval.evidence import EvidenceSignals
from retrieval.knowledge.passages import words_of
from retrieval.knowledge.people import PeopleIndex, Person
from retrieval.knowledge.questions import _ABOUT_SOMEONE, SMALLTALK_MAX_WORDS, _chat_rather_than_nothing
from retrieval.knowledge.verbatim import VERSION as VERBATIM_VERSION
from retrieval.knowledge.verbatim import VerbatimIndex, bare_words, runs, shares_run
from retrieval.results import OK
from retrieval.understand.intent import (
    OFFTOPIC,
    SITUATION,
    SMALLTALK,
    TEACHING,
    Intent,
)
from retrieval.understand.query import plan_query
from tests.conftest import write


def test_runs_are_consecutive_words_without_articles_holding_two_content_words():
    words = bare_words("O Senhor, cuida de mim agora!")
    assert runs(words) == [("senhor", "cuida", "de", "mim", "agora")]
    assert runs(words, 6) == []
    assert runs(bare_words("e eu e tu e ele")) == []  # stopwords alone are no quotation


def test_the_verbatim_index_finds_a_verse_quoted_from_anywhere_but_not_a_formula_many_verses_share():
    texts = ["No começo o pastor contou as ovelhas do monte.",
             *[f"E disse o mestre ao aprendiz: vai aos campos {n}." for n in range(6)],
             "Tua casa será minha casa, e teu caminho meu caminho."]
    index = VerbatimIndex.build(texts)
    assert index.quoted("a tua casa sera a minha casa e o teu caminho o meu caminho") == [7]  # articles added
    assert index.quoted("tem aquele: no comeco o pastor contou as ovelhas, lembra?") == [0]
    assert index.quoted("e disse o mestre ao aprendiz vai") == []  # six verses hold it: a formula
    mask = [True] * 7 + [False]
    assert index.quoted("tua casa sera minha casa", mask=mask) == []  # outside the scope asked


def test_a_verse_shorter_than_a_run_is_quoted_when_a_sentence_says_it_whole(tmp_path):
    texts = ["Vigiai sempre.", "Então o servo vigiai sempre os portões da cidade de noite.", "Cantai alegres."]
    index = VerbatimIndex.build(texts)
    assert index.quoted("vigiai sempre... de onde é esse? so sei q é curtinho") == [0]
    assert index.quoted("o servo vigiai sempre os portoes da cidade") == [1]  # inside a longer one: its run
    assert index.quoted("e ele disse vigiai sempre os portões") == []  # not a sentence of its own, no run held
    read = VerbatimIndex.cached(texts, "b" * 64, tmp_path) and VerbatimIndex.cached(["not read"], "b" * 64, tmp_path)
    assert read.quoted("cantai alegres! qual salmo?") == [2]  # kept beside the index with the runs


def test_asking_where_a_verse_is_is_told_from_a_lament():
    from retrieval.understand.message import asks_where_a_verse_is

    assert asks_where_a_verse_is("o senhor é o meu pastor, é salmo q número? minha vó repetia")
    assert asks_where_a_verse_is("ela dizia isso sempre. De onde é isso?")
    assert not asks_where_a_verse_is("onde está Deus quando eu sofro?")
    assert not asks_where_a_verse_is("perdi minha mãe e não sei onde fica o cemitério novo")


def test_a_shared_run_is_counted_in_words_in_a_row_with_or_without_articles():
    verse = "Naquela aldeia morava um homem de Deus, que é sábio e manso"  # made up
    said = "disse que eu não devia falar mal de um homem de Deus, que era pra orar"
    assert shares_run(said, verse, 5) and not shares_run(said, verse, 6)
    assert shares_run("a aldeia morava um homem de Deus que é o sábio", verse, 6)  # "o" and "a" aside
    assert not shares_run("", verse, 5)


def test_the_verbatim_index_is_kept_beside_the_index_and_a_stale_one_removed(tmp_path):
    texts = ["Tua casa será minha casa, e teu caminho meu caminho.", "Vem comigo ao monte santo hoje!"]
    (tmp_path / "verbatim-v0-old.npz").write_bytes(b"stale")
    built = VerbatimIndex.cached(texts, "a" * 64, tmp_path)
    assert [p.name for p in tmp_path.glob("verbatim-*.npz")] == [f"verbatim-v{VERBATIM_VERSION}-{'a' * 16}.npz"]
    (tmp_path / "verbatim-v0-old.npz").write_bytes(b"stale")  # a restart reads it back, never rebuilding
    read = VerbatimIndex.cached(["other texts, not read"], "a" * 64, tmp_path)
    assert read.quoted("vem comigo ao monte santo, amigo") == built.quoted("vem comigo ao monte santo") == [1]


def _people_files(tmp_path):
    people = [("elohim_1", "Elohim", "Ps.56.2,John.14.1,Rom.8.1,Rom.8.2"),
              ("ant_2", "Sluggard", "Prov.6.1,Prov.6.2"),  # no capitalised word their verses share
              ("god_3", "God", "Ps.56.2")]
    with open(tmp_path / "People.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["personLookup", "name", "verses"])
        w.writerows(people)
    with open(tmp_path / "Events.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["title", "verses", "participants"])
        w.writerow(["Nothing separates", "Rom.8.1,Rom.8.2", "elohim_1"])
    return tmp_path


def test_a_persons_key_verses_are_where_they_are_introduced_first_named_and_named_in_each_event():
    # chapters of ten verses; chapter 2 speaks of the person at length (their story begins there)
    chapter_of = [("GEN", 1 + p // 10) for p in range(60)]
    person = Person("barnabe_1", "Barnabas", "barnabe", "Barnabé", frozenset(), (3, 21, 22, 23, 24, 25, 47),
                    (("The journey", (40, 41, 42, 43, 44, 45, 46, 47)),))
    index = PeopleIndex([person], [], chapter_of)
    assert index.key_passages(person) == [21, 3, 47]  # the event's first verse that names them, not its first


def test_people_get_the_portuguese_name_their_verses_share(tmp_path, mini_index):
    bible = load(mini_index.corpus_path)
    index = PeopleIndex.load(_people_files(tmp_path), bible)
    by_id = {p.id: p for p in index.people}
    # every verse listing "Elohim" in the made-up Bible says "Deus", and few others do: that is their name here
    assert by_id["elohim_1"].name == "deus" and by_id["elohim_1"].display == "Deus"
    assert "ant_2" not in by_id and "god_3" not in by_id  # God is asked about as doctrine, never as a person
    assert index.find(["quem", "foi", "deus"]).id == "elohim_1"
    assert index.find(["quem", "foi", "golias"]) is None
    person = by_id["elohim_1"]
    assert index.key_passages(person)[:2] == [bible.position("PSA", 56, 2), bible.position("ROM", 8, 1)]


def test_search_tells_the_intent_and_answers_small_talk_without_verses(mini_retriever):
    result = mini_retriever.search("oi, boa noite!")
    assert result.mode == "conversa" and result.hits == [] and result.as_dict()["intent"]["intent"] == SMALLTALK
    laugh = mini_retriever.search("kkkkk")  # nothing to search: a reply, never "the Bible does not address it"
    assert laugh.mode == "conversa" and laugh.status == OK and laugh.hits == []
    asked = mini_retriever.search("o senhor cuida de mim como um pastor")  # a verse of the mini Bible, loosely
    assert asked.mode != "cuidado" and asked.hits[0].id == "PSA.23.1"


def test_a_long_opener_read_as_small_talk_is_welcomed_when_the_search_finds_nothing(mini_retriever):
    opener = "oi oi, tudo bem? sou nova aqui, meu primo falou desse número e resolvi dar um oi pra ver como funciona"
    result = mini_retriever.search(opener)  # too long for the short-chat reply, read as small talk all the same
    assert result.as_dict()["intent"]["intent"] == SMALLTALK and len(opener.split()) > SMALLTALK_MAX_WORDS
    assert (result.mode, result.status, [h.id for h in result.hits]) == ("conversa", OK, [])


@pytest.mark.parametrize(("message", "kind"), [
    ("oi", "cumprimento"), ("bom dia pastor, tudo bem?", "cumprimento"), ("obrigado, Deus te abençoe", "agradecimento"),
    ("vc é um robô?", "identidade"), ("tchau, fica com Deus", "despedida"), ("o que você faz?", "capacidade")])
async def test_small_talk_is_answered_warmly_never_with_the_no_evidence_text(make_pastor, message, kind):
    reply = await make_pastor(None).reply("st", message)
    talk = SmallTalk.load()
    assert reply.status == ANSWERED and reply.text == talk.reply(message) and talk.kind_of(message).name == kind
    assert NO_EVIDENCE not in reply.text and not reply.sources and not reply.llm_called


async def test_small_talk_names_commands_the_way_the_channel_takes_them(make_pastor):
    telegram = await make_pastor(None).reply("st", "vc é um robô?")
    whatsapp = await make_pastor(None).reply("st", "vc é um robô?", command_style="*{}*")
    assert f"/{PASTOR.name}" in telegram.text and f"*{PASTOR.name}*" in whatsapp.text
    assert "{" not in telegram.text + whatsapp.text and f"/{PASTOR.name}" not in whatsapp.text


def test_small_talk_no_pattern_catches_is_answered_by_the_kind_of_its_nearest_example(use_embedder):
    from bot.pastor.smalltalk import SmallTalk

    talk = SmallTalk.load(embed=use_embedder.embed)

    def kind(text):
        return talk.kind_of(text, use_embedder.embed([text])[0]).name

    assert kind("dá pra parar de ganhar o versículo cada manhã?") == "versiculo-do-dia"
    assert kind("vocês são ligados a qual igreja?") == "identidade"
    assert kind("consigo mandar uma foto pra vc?") == "capacidade"
    assert kind("o dia está bonito") == "cumprimento"  # near no example: the greeting
    assert SmallTalk.load().kind_of("vocês são ligados a qual igreja?").name == "cumprimento"  # no embedder
    assert "*diario*" in talk.reply("dá pra parar de ganhar o versículo cada manhã?", "*{}*",
                                        use_embedder.embed(["dá pra parar de ganhar o versículo cada manhã?"])[0])


def test_an_unknown_command_in_a_small_talk_reply_names_the_file(tmp_path):
    path = write(tmp_path, "smalltalk.toml", '[[tipo]]\nnome = "cumprimento"\nresposta = "escreva {fala}"\n')
    with pytest.raises(ValueError, match=r"smalltalk.toml: tipo 1: .*fala"):
        SmallTalk.load(path)


def test_thanks_to_god_is_praise_not_small_talk(mini_retriever):
    assert mini_retriever.search("vlw Deus por tudo q ele fez").mode != "conversa"
    assert mini_retriever.search("obrigado, Deus te abençoe").mode == "conversa"


def test_verses_asked_on_a_theme_that_sounds_like_chat_are_no_small_talk(mini_retriever):
    """"passagens sobre gratidão" asks for verses, though "gratidão" reads like thanks to the intent model."""
    chat = Intent(SMALLTALK, 0.9, {SMALLTALK: 0.9, TEACHING: 0.1})
    for text, small_talk in (("passagens sobre gratidão", False), ("obrigado pastor", True)):
        answered = mini_retriever.knowledge.answer(mini_retriever, plan_query(text, mini_retriever.thesaurus), chat, 5)
        assert (answered is not None and answered.mode == "conversa") is small_talk


@pytest.mark.parametrize(("message", "recognised"), [
    ("to falando com uma inteligencia artificial?", True), ("quem ta por tras desse bot", True),
    ("valeu!", True), ("meu pai morreu ontem e eu não sei o que fazer da vida", False), ("o que é a fé?", False),
    ("como faço pra começar?", True), ("como faço para perdoar meu pai?", False)])
def test_small_talk_words_are_recognised_when_the_search_finds_nothing(message, recognised):
    assert SmallTalk.load().recognises(message) is recognised


def test_a_question_about_a_teaching_unlikely_off_the_subject_is_not_turned_away(mini_retriever):
    """'pra que a gente vive afinal?': a teaching asked, near verses in meaning, though no verse has its words."""
    near = EvidenceSignals(dense_top=0.35, dense_margin=0.1, lexical_terms=3, lexical_best=1, concepts=0,
                           faith_words=0)
    asked = Intent(TEACHING, 0.6, {TEACHING: 0.6, SITUATION: 0.3, OFFTOPIC: 0.1})
    unsure = Intent(TEACHING, 0.45, {TEACHING: 0.45, OFFTOPIC: 0.35, SITUATION: 0.2})
    assert mini_retriever.floor.calibrated
    assert mini_retriever._evidence(near, asked) and not mini_retriever._evidence(near, unsure)
    assert not mini_retriever._evidence(replace(near, dense_top=0.2), asked)  # far from every verse: no evidence


@pytest.mark.parametrize(("text", "about"), [
    ("o q gideao fez na biblia", True), ("Qual era a profissão de Pedro?", True), ("o profeta amos era oq", True),
    ("oq jesus fez em cafarnaum", False),  # where: a place is asked about
    ("o que Paulo ensina sobre a graça?", False)])
def test_what_someone_did_or_was_asks_about_them(text, about):
    assert bool(_ABOUT_SOMEONE.search(words_of(text))) is about


@pytest.mark.parametrize(("message", "kind", "command"), [
    ("vc guarda minhas conversas?", "privacidade", ERASE), ("como apago a conversa", "privacidade", ERASE),
    ("tem como receber um versiculo todo dia?", "versiculo-do-dia", DAILY)])
def test_questions_about_privacy_and_the_daily_word_name_their_command(message, kind, command):
    talk = SmallTalk.load()
    assert talk.recognises(message) and talk.kind_of(message).name == kind
    assert f"*{command.name}*" in talk.reply(message, "*{}*")


def test_a_short_question_about_the_bot_itself_is_small_talk_whatever_verses_hold_its_words():
    talk = SmallTalk.load()
    assert talk.about_the_bot("Qual é o seu nome?") and talk.about_the_bot("você guarda minhas conversas?")
    assert not talk.about_the_bot("o que você pode me dizer sobre a fé?")  # capability words: the search decides
    assert not talk.about_the_bot("qual é o seu nome, perguntou Jesus ao homem que vivia nos sepulcros de Gadara")


@pytest.mark.parametrize(("probabilities", "chat"), [
    ({"smalltalk": 0.8, "teaching": 0.2}, True),
    ({"smalltalk": 0.479, "offtopic": 0.477, "teaching": 0.044}, True),  # "dá pra mandar foto?"
    ({"smalltalk": 0.417, "teaching": 0.383, "offtopic": 0.2}, False),  # "como encontrar paz interior?"
])
def test_unsure_small_talk_is_chat_only_when_the_other_reading_is_off_the_subject(probabilities, chat):
    name = max(probabilities, key=probabilities.get)
    assert _chat_rather_than_nothing(Intent(name, probabilities[name], probabilities)) is chat


def test_the_verse_of_a_passage_nearest_a_question_by_its_words_and_meaning(mini_retriever):
    """Where a question about one moment of a long passage starts reading it."""
    bible = mini_retriever.bible
    positions = list(range(len(bible.verses)))

    def nearest(question):
        return bible.verses[positions[mini_retriever.nearest_within(plan_query(question, mini_retriever.thesaurus),
                                                                     positions)]].id

    assert nearest("o preguiçoso dorme e perde a colheita?") == "PRO.6.2"
    assert nearest("jesus mandou orar por quem nos maltrata") == "MAT.5.2"
    assert nearest("nada vai nos afastar do amor de Deus") == "ROM.8.2"
