"""The pastoral map, tone labels and the harm guard: data that loads, maths on tiny inputs, care ranking."""

from __future__ import annotations

import pytest

from corpus.bible import Bible
from corpus.text import fold, normalize
from corpus.verse import Verse
from retrieval.evaluation import SituationReport, merge_grades, passage_grades
from retrieval.results import Hit
from retrieval.retriever import Retriever
from retrieval.understand.intent import OFFTOPIC, SITUATION, Intent
from retrieval.understand.message import asks_for_task, asks_for_teaching, says
from retrieval.understand.pastoral import PastoralMap, PastoralMapError, PastoralReader, Recognised
from retrieval.understand.query import plan_query
from retrieval.understand.tone import Tone, ToneLabels, pattern_regex


# -- the shipped map ------------------------------------------------------------------------------
def test_shipped_map_loads_with_every_reference_in_the_default_bible(blivre):
    pastoral_map = PastoralMap.load()
    assert len(pastoral_map.situations) >= 150
    assert {s.tone for s in pastoral_map.situations} == {"aflicao", "direcao", "alegria"}
    assert pastoral_map.problems(blivre) == []
    for situation in pastoral_map.situations:
        assert situation.phrases and all(n in pastoral_map.needs for n in situation.needs)


def _said_by_shipped_words(text: str) -> list[str]:
    folded = fold(normalize(text))
    return [s.id for s in PastoralMap.load().situations if s.words and says(pattern_regex(s.words), folded)]


@pytest.mark.parametrize("text", [
    "dou aula pras crianças na igreja e quero contar a história de Jonas",
    "o pastor pregou domingo sobre Gideão, me conta a história dele",
    "sou líder de jovens e sirvo na igreja, queria um estudo sobre oração",
    "o Senhor é o meu pastor, nada me faltará, de onde é?",
])
def test_a_place_or_a_role_alone_says_no_situation_of_the_shipped_map(text):
    assert _said_by_shipped_words(text) == []


@pytest.mark.parametrize(("text", "situation"), [
    ("fui ferida na igreja e não consigo voltar", "ferida-igreja"),
    ("to magoada com o pastor, ele me expôs no púlpito", "ferida-igreja"),
    ("sou pastor e estou esgotado no ministério", "pastor-esgotado"),
])
def test_the_hurt_or_the_weariness_itself_says_the_church_situations(text, situation):
    assert situation in _said_by_shipped_words(text)


def test_every_topic_named_in_the_data_exists_in_the_openbible_votes(shared_dir, blivre):
    from retrieval.understand.thesaurus import Thesaurus
    from retrieval.understand.tone import load_tones
    from retrieval.understand.topics import TopicIndex

    named = PastoralMap.load().topics | {t for c in Thesaurus().concepts for t in c.topics} | \
        {t for tone in load_tones() for t in tone.topics}
    topics = TopicIndex.load(shared_dir / "data" / "openbible-topic-votes.tsv", blivre, named)
    assert topics.missing(sorted(named)) == []  # a misspelt topic would silently bring nothing


def _write_map(tmp_path, situation_needs: str, tone: str = "aflicao"):
    (tmp_path / "needs.toml").write_text('[paz]\nnome = "paz"\nversiculos = ["Salmos 23:3", "João 14:2"]\n'
                                         'topicos = []\n\n[forca]\nnome = "força"\nversiculos = ["Romanos 8:2"]\n',
                                         encoding="utf-8")
    (tmp_path / "situations.toml").write_text(
        f'[[situacao]]\nid = "medo-noite"\ntom = "{tone}"\nnecessidades = {situation_needs}\n'
        'frases = ["tenho medo do escuro à noite", "não consigo dormir de tanto medo"]\n', encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("needs, tone, message", [
    ('["paz", "coragem"]', "aflicao", "desconhecidas"),
    ("[]", "aflicao", "ausentes"),
    ('["paz"]', "tristeza", "tom deve ser"),
])
def test_a_broken_map_is_refused_with_the_entry_named(tmp_path, needs, tone, message):
    with pytest.raises(PastoralMapError, match=message):
        PastoralMap.load(_write_map(tmp_path, needs, tone))


def test_unknown_reference_is_reported(tmp_path, blivre):
    directory = _write_map(tmp_path, '["paz"]')
    (directory / "needs.toml").write_text('[paz]\nnome = "paz"\nversiculos = ["Salmos 151:1"]\n', encoding="utf-8")
    problems = PastoralMap.load(directory).problems(blivre)
    assert problems == ["necessidade paz: 'Salmos 151:1' não existe em " + blivre.name]


# -- teaching or care ---------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["o que a Bíblia diz sobre divórcio?", "oq a biblia fala sobre bebida",
                                  "versículos sobre o perdão", "é pecado tatuagem?", "o que é a graça?",
                                  "o que Jesus ensinou a respeito do dinheiro", "por que Deus permite o sofrimento"])
def test_questions_about_the_teaching(text):
    assert asks_for_teaching(text)


@pytest.mark.parametrize("text, task", [
    ("escreva um poema sobre o mar para o aniversário dela", True), ("me indica um celular bom", True),
    ("pode me recomendar um filme?", True), ("me ajuda a escrever um currículo", True),
    ("faz 3 meses que perdi meu pai", False), ("me indica um versículo para quem perdeu a mãe", False),
    ("escreve uma oração pro meu pai doente", False), ("meu filho está usando crack", False),
])
def test_a_request_for_a_task_is_no_life_situation(text, task):
    assert asks_for_task(text) is task


@pytest.mark.parametrize("text", ["meu marido bebe demais", "perdi minha mãe", "estou com medo do futuro",
                                  "o que eu faço? meu filho foi preso"])
def test_people_telling_their_lives(text):
    assert not asks_for_teaching(text)


# -- tone labels ----------------------------------------------------------------------------------------
def test_pattern_regex_matches_whole_words_and_prefixes():
    regex = pattern_regex(("ai dos", "maldit*", "esteril"))
    assert regex.search("ai dos que correm sem olhar")
    assert regex.search("malditos sejam")
    assert regex.search("a terra esteril ficou calada")
    assert not regex.search("sai dos montes")  # "ai dos" inside another word
    assert not regex.search("estereis e estereotipos")  # "esteril" is a whole word, not a prefix
    inner = pattern_regex(("mandad* embora",))
    assert inner.search("fui mandado embora hoje") and inner.search("mandada embora")  # a star on any word
    assert not inner.search("mandado de volta")


def _bible(*texts: str) -> Bible:
    return Bible.from_verses([Verse("PSA", 1, n, t) for n, t in enumerate(texts, start=1)], name="mini")


def test_tone_labels_from_words():
    bible = _bible("Uma frase qualquer sobre o campo.", "Ai dos que correm sem olhar!", "A terra estéril ficou calada.",
                   "Malditos os ventos frios.")
    tones = (Tone("juizo", "juízo", ("ai dos", "maldit*"), ()), Tone("esterilidade", "", ("esteril",), ()))
    labels = ToneLabels.build(bible, None, tones)
    assert [sorted(labels.of(p)) for p in range(4)] == [[], ["juizo"], ["esterilidade"], ["juizo"]]


def test_the_tithe_is_blame_for_someone_broke_by_the_shipped_tones():
    bible = _bible("Levai os dízimos da colheita ao celeiro.", "Quem honra ao SENHOR com teus bens canta.",
                   "Partilhai o pão com alegria.")
    labels = ToneLabels.build(bible, None)  # retrieval/data/tones.toml
    assert [sorted(labels.of(p)) for p in range(3)] == [["culpa_pobreza"], ["culpa_pobreza"], []]


def test_tone_labels_from_topic_votes(tmp_path):
    bible = _bible("um", "dois", "tres")
    votes = tmp_path / "votes.tsv"
    votes.write_text("Topic\tStart Verse ID\tEnd Verse ID\tVotes\n"
                     "hell\t19001001\t\t50\n"  # the verse's best topic: labelled
                     "comfort\t19001002\t\t100\nhell\t19001002\t\t12\n"  # a minor share of its votes: not labelled
                     "hell\t19001003\t\t5\n",  # too few votes: not labelled
                     encoding="utf-8")
    labels = ToneLabels.build(bible, votes, (Tone("juizo", "", (), ("hell",)),))
    assert [sorted(labels.of(p)) for p in range(3)] == [["juizo"], [], []]


# -- the need ranking and the guard, on the made-up Bible ---------------------------------------------
@pytest.fixture()
def care_retriever(tmp_path, mini_retriever, use_embedder):
    """The mini index with a two-need map over its own verses and a tone that marks "perfeitos"."""
    pastoral_map = PastoralMap.load(_write_map(tmp_path, '["paz", "forca"]'))
    bible = mini_retriever.bible
    tones = ToneLabels.build(bible, None, (Tone("condicao", "", ("perfeitos",), ()),))
    r = mini_retriever
    return Retriever(bible, r.lexical, r.embedder, r.store, r.manifest, floor=r.floor, thesaurus=r.thesaurus,
                     pastoral=PastoralReader(pastoral_map, bible, use_embedder), tones=tones)


def test_need_ranking_takes_needs_in_turns(care_retriever):
    reader = care_retriever.pastoral
    recognised = reader.recognise(care_retriever.embed_query("tenho muito medo do escuro à noite"))
    assert [r.situation.id for r in recognised] == ["medo-noite"]
    ranking = reader.ranking(recognised)
    ids = [care_retriever.bible.verses[p].id for p in ranking.positions]
    assert ids == ["PSA.23.3", "ROM.8.2", "JHN.14.2"]  # paz #1, força #1, paz #2
    assert ranking.reasons[ranking.positions[1]] == "necessidade: força"


def test_off_topic_message_is_no_situation(care_retriever):
    reader = care_retriever.pastoral
    assert reader.recognise(care_retriever.embed_query("qual a capital da França?")) == []


def test_care_mode_puts_the_need_first_and_the_guard_sets_harsh_verses_aside(care_retriever):
    result = care_retriever.search("tenho pavor do escuro à noite e sinto que devia ser perfeito", k=5)
    assert result.mode == "cuidado"
    assert result.situations[0]["id"] == "medo-noite"
    assert result.hits[0].id == "PSA.23.3"
    assert result.hits[0].why["necessidade"] == "necessidade: paz"
    assert "MAT.5.3" not in result.ranked_ids()
    assert [(h.id, h.why["guarda"]) for h in result.demoted] == [("MAT.5.3", ["condicao"])]
    as_json = result.as_dict()
    assert as_json["demoted"][0]["why"]["guarda"] == ["condicao"]
    assert as_json["hits"][0]["why"]["necessidade"] == "necessidade: paz"


def test_the_evaluation_counts_a_life_cared_for_and_one_that_is_not(care_retriever):
    from retrieval.evaluation import evaluate

    items = [{"kind": "life", "q": "tenho pavor do escuro à noite, dou aula na escola bíblica e nem durmo"},
             {"kind": "life", "q": "qual a capital da França?"}]  # labelled a life on purpose: the check can fail
    assert evaluate(care_retriever, items).checks["vida cuidada"] == [1.0, 0.0]


def test_a_question_about_the_teaching_keeps_every_verse(care_retriever):
    result = care_retriever.search("o que a Bíblia diz sobre ser perfeito?", k=5)
    assert result.mode == "ensino" and not result.situations
    assert result.ranked_ids()[0] == "MAT.5.3"
    assert result.demoted == []


def test_a_life_situation_is_never_turned_away(care_retriever, mini_retriever):
    text = "não consigo dormir de tanto medo do escuro"
    assert care_retriever.search(text).status == "ok"


# -- the situation metrics -------------------------------------------------------------------------------
def _hit(*ids: str) -> Hit:
    first, *rest = ids
    merged = tuple(Verse(i.split(".")[0], int(i.split(".")[1]), int(i.split(".")[2]), "") for i in rest)
    return Hit(first, first, "", 1.0, merged=merged)


def test_passage_grades_take_the_first_verse_or_minus_one_if_any():
    grades = {"A.1.1": 2, "A.1.2": -1, "B.1.1": 1}
    hits = [_hit("A.1.1", "A.1.2"), _hit("B.1.1"), _hit("C.1.1"), _hit("A.1.1")]
    assert passage_grades(hits, grades) == [-1, 1, None]


def test_situation_report_metrics():
    class Result:
        def __init__(self, status, hits):
            self.status, self.hits = status, hits

    report = SituationReport()
    report.add({"id": "s1", "q": "x", "grades": {"A.1.1": 2, "B.1.1": 2, "C.1.1": -1}},
               Result("ok", [_hit("A.1.1"), _hit("B.1.1"), _hit("C.1.1")]))
    report.add({"id": "s2", "q": "y", "grades": {"A.1.1": 2}}, Result("ok", [_hit("A.1.1"), _hit("Z.1.1")]))
    report.add({"id": "s3", "q": "z", "grades": {}}, Result("no_evidence", []))
    assert report.apt == [2 / 3, 1 / 3, 0.0]
    assert report.first == [1.0, 1.0, 0.0]
    assert report.harm == [1.0, 0.0, 0.0]
    assert report.turned_away == ["s3"]
    assert report.unjudged == [("s2", "Z.1.1")]


def test_extra_grades_never_override_the_shared_ones():
    items = [{"id": "d1", "kind": "situation", "q": "q", "grades": {"A.1.1": 2}}, {"kind": "topic", "q": "t"}]
    merged = merge_grades(items, [{"id": "d1", "grades": {"A.1.1": -1, "B.1.1": 1}}])
    assert merged[0]["grades"] == {"A.1.1": 2, "B.1.1": 1}
    assert merged[1] == items[1]


def test_tone_labels_are_cached_and_rebuilt_when_the_topic_data_changes(tmp_path):
    bible = _bible("Ai dos que bebem.", "um", "dois")
    votes = tmp_path / "votes.tsv"
    votes.write_text("Topic\tStart Verse ID\tEnd Verse ID\tVotes\nhell\t19001002\t\t50\n", encoding="utf-8")
    first = ToneLabels.cached(bible, "sha", votes, tmp_path)
    assert (tmp_path / "tones.json").exists() and sorted(first.labels) == [0, 1]
    assert ToneLabels.cached(bible, "sha", votes, tmp_path).labels == first.labels
    votes.write_text("Topic\tStart Verse ID\tEnd Verse ID\tVotes\nhell\t19001003\t\t50\n", encoding="utf-8")
    assert sorted(ToneLabels.cached(bible, "sha", votes, tmp_path).labels) == [0, 2]


# -- recognising situations by words as well as meaning ----------------------------------------------------
def _reader(tmp_path, situations: str, bible, embedder, **options) -> PastoralReader:
    (tmp_path / "needs.toml").write_text('[paz]\nnome = "paz"\nversiculos = ["Salmos 23:3", "João 14:2"]\n\n'
                                         '[forca]\nnome = "força"\nversiculos = ["Salmos 23:3", "Romanos 8:2"]\n',
                                         encoding="utf-8")
    (tmp_path / "situations.toml").write_text(situations, encoding="utf-8")
    return PastoralReader(PastoralMap.load(tmp_path), bible, embedder, **options)


def _situation(sid: str, need: str, words: list[str], phrases: list[str], tone: str = "aflicao", **extra) -> str:
    """One ``[[situacao]]`` entry of a made-up map (extra keys: nao_combinar, exceto, exige_palavras...)."""
    lines = [f'id = "{sid}"', f'tom = "{tone}"', f'necessidades = ["{need}"]', f"palavras = {words!r}",
             f"frases = {phrases!r}"] + [f"{key} = {value!r}".replace("True", "true") for key, value in extra.items()]
    return "[[situacao]]\n" + "\n".join(line.replace("'", '"') for line in lines) + "\n\n"


def _read(reader: PastoralReader, embedder, text: str) -> list[str]:
    return [r.situation.id for r in reader.recognise(embedder.embed([text])[0], text)]


EXAMS = (_situation("aprovado", "paz", ["passei no", "passei na", "fui aprovad*"],
                     ["fui aprovado no vestibular", "passei na prova"], tone="alegria")
         + _situation("reprovado", "forca", ["reprov*", "nao passei", "nao fui aprovad*"],
                      ["não passei no vestibular", "reprovei na prova"]))


@pytest.mark.parametrize("text, expected", [
    ("passei no vestibular!!!", ["aprovado"]),
    ("não passei no vestibular de novo", ["reprovado"]),
    ("nao fui aprovada na prova", ["reprovado"]),  # "aprovada" right after "fui", itself after "não"
    ("fui reprovado no concurso", ["reprovado"]),
])
def test_words_name_the_situation_and_a_negation_unsays_them(tmp_path, mini_retriever, use_embedder, text, expected):
    reader = _reader(tmp_path, EXAMS, mini_retriever.bible, use_embedder)
    recognised = reader.recognise(use_embedder.embed([text])[0], text)
    assert [r.situation.id for r in recognised] == expected
    assert all(r.said for r in recognised)


def test_a_situation_is_never_read_with_one_it_excludes(tmp_path, mini_retriever, use_embedder):
    marriage = _situation("casamento-frio", "forca", ["brigamos"], ["eu e meu marido só brigamos"])
    text = "meu marido me bate quando brigamos"
    for excludes, expected in [(["casamento-frio"], ["violencia"]), ([], ["violencia", "casamento-frio"])]:
        abuse = _situation("violencia", "paz", ["me bate"], ["meu marido me bate"], nao_combinar=excludes)
        reader = _reader(tmp_path, abuse + marriage, mini_retriever.bible, use_embedder, margin=1.0)  # only exclusion
        assert sorted(_read(reader, use_embedder, text)) == sorted(expected)


def test_excluding_an_unknown_situation_is_refused(tmp_path, mini_retriever, use_embedder):
    with pytest.raises(PastoralMapError, match="nao_combinar"):
        _reader(tmp_path, EXAMS + _situation("outra", "paz", ["x"], ["y"], nao_combinar=["reprovada"]),
                mini_retriever.bible, use_embedder)


def test_needs_take_turns_each_bringing_a_verse_not_yet_chosen(tmp_path, mini_retriever, use_embedder):
    reader = _reader(tmp_path, EXAMS.replace('necessidades = ["paz"]', 'necessidades = ["paz", "forca"]'),
                     mini_retriever.bible, use_embedder)
    (aprovado,) = [s for s in reader.map.situations if s.id == "aprovado"]
    ranking = reader.ranking([Recognised(aprovado, 0.9, True)])
    ids = [mini_retriever.bible.verses[p].id for p in ranking.positions]
    # paz #1 (Salmos 23:3), força's first *new* verse (Romanos 8:2: its #1 was taken), then paz #2
    assert ids == ["PSA.23.3", "ROM.8.2", "JHN.14.2"]
    assert ranking.reasons[ranking.positions[1]] == "necessidade: força"


def test_check_map_command_checks_the_shipped_map_against_the_corpus(capsys, shared_dir, monkeypatch):
    from retrieval.__main__ import main

    monkeypatch.setenv("CORPUS_PATH", str(shared_dir / "corpus" / "por-blivre.usfx.xml"))
    monkeypatch.setenv("TOPICS_PATH", str(shared_dir / "data" / "openbible-topic-votes.tsv"))
    assert main(["check-map"]) == 0
    assert "tudo certo" in capsys.readouterr().out


def test_exceto_words_rule_a_situation_out(tmp_path, mini_retriever, use_embedder):
    illness = _situation("doenca", "paz", ["cancer"], ["meu pai está com câncer"], exceto=["morreu", "cancer sumiu"])
    situations = illness + _situation("luto", "forca", ["morreu"], ["meu pai morreu"])
    reader = _reader(tmp_path, situations, mini_retriever.bible, use_embedder, margin=1.0)
    assert _read(reader, use_embedder, "meu pai está com câncer") == ["doenca"]
    assert _read(reader, use_embedder, "meu pai morreu de câncer") == ["luto"]  # no healing verses for the bereaved
    assert "doenca" not in _read(reader, use_embedder, "o médico disse que o câncer sumiu")
    # a negated exceto word counts not
    assert _read(reader, use_embedder, "meu pai está com câncer e não morreu graças a Deus")[0] == "doenca"


def test_a_situation_that_needs_words_is_never_a_guess_by_meaning(tmp_path, mini_retriever, use_embedder):
    grief = _situation("luto-amigo", "paz", ["morreu", "faleceu"], ["minha melhor amiga morreu"], exige_palavras=True)
    reader = _reader(tmp_path, grief, mini_retriever.bible, use_embedder)
    assert _read(reader, use_embedder, "minha melhor amiga se mudou pra longe") == []
    assert _read(reader, use_embedder, "minha melhor amiga faleceu ontem") == ["luto-amigo"]


def test_the_guard_spares_a_harsh_word_the_question_asks_for_but_not_in_care(care_retriever):
    asked = care_retriever.search("os perfeitos", k=5)
    assert asked.mode != "cuidado" and "MAT.5.3" in asked.ranked_ids()
    care = care_retriever.search("tenho pavor do escuro à noite e sinto que todos esperam que sejamos perfeitos", k=5)
    assert care.mode == "cuidado" and "MAT.5.3" not in care.ranked_ids()
    assert [h.id for h in care.demoted] == ["MAT.5.3"]


@pytest.mark.parametrize("text", ["quem foram os apóstolos?", "entra no teu aposento e ora", "sou de Alagoas, e você?",
                                  "Deus é meu refúgio", "meu celular travou", "que droga, perdi o ônibus",
                                  "vamos ao jogo domingo", "como vencer na guerra espiritual?"])
def test_the_shipped_maps_words_never_catch_a_word_of_another_meaning(text):
    """"apost*" is no gambling in "apóstolos", "aposent*" no retirement in the room where one prays."""
    folded = fold(normalize(text))
    assert [s.id for s in PastoralMap.load().situations if s.words and says(pattern_regex(s.words), folded)] == []


def test_a_message_the_classifier_is_sure_is_off_the_subject_is_no_life_by_meaning_alone(care_retriever):
    """The map reads "medo do escuro" by meaning; a sure off-topic reading wins when no map word is said."""
    plan = plan_query("tenho pavor do escuro à noite", care_retriever.thesaurus)
    assert care_retriever.fuse(plan).recognised
    off = Intent(OFFTOPIC, 0.9, {OFFTOPIC: 0.9, SITUATION: 0.1})
    assert care_retriever.fuse(plan, off).recognised == []
    assert care_retriever.fuse(plan, Intent(OFFTOPIC, 0.6, {OFFTOPIC: 0.6, SITUATION: 0.4})).recognised
