"""Crisis care parts: the lexicon and care files, the person's country, the semantic model, the guard."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from bot.safety.care import CrisisCare
from bot.safety.classifier import (
    Exemplar,
    RiskModel,
    load_exemplars,
    load_kind_exemplars,
    small_talk_exemplars,
    train,
    trained_model,
)
from bot.safety.country import country_of, country_of_language, country_of_number
from bot.safety.lexicon import Lexicon, LexiconError
from bot.safety.responder import CrisisResponder
from bot.safety.screening import Screener
from bot.store.inbox import Inbound
from corpus.verse import Verse
from retrieval.results import Hit, SearchResult, Status


def test_country_from_whatsapp_number_and_telegram_language():
    assert country_of_number("5511987654321") == "BR" and country_of_number("351912345678") == "PT"
    assert country_of_number("12025550123") == "US" and country_of_number("999") is None
    assert country_of_language("pt-br") == "BR" and country_of_language("pt_PT") == "PT"
    assert country_of_language("pt") is None
    assert country_of(Inbound("whatsapp", "351912345678", "m1", "text")) == "PT"
    assert country_of(Inbound("telegram", "42", "m1", "text", meta={"language": "pt-br"})) == "BR"
    assert country_of(Inbound("telegram", "42", "m1", "text")) is None


@pytest.mark.parametrize(("kind", "country", "expected", "absent"), [
    ("suicide-indirect", "BR", ["188", "190"], ["180"]),
    ("domestic-violence", "BR", ["180", "190"], ["188"]),
    ("overdose-now", "BR", ["192", "0800 722 6001"], ["180"]),
    ("child-abuse", "BR", ["Disque 100", "190"], ["188"]),
    ("elder-abuse", "PT", ["112", "116 006"], ["188", "190"]),
    ("suicide-direct", "PT", ["808 24 24 24", "112"], ["188"]),
])
def test_each_kind_names_the_help_that_fits_it(kind, country, expected, absent):
    text = CrisisCare().reply_text(kind, country)
    assert all(number in text for number in expected), text
    assert not any(number in text for number in absent), text


def test_the_replies_never_speak_to_the_reader_in_the_masculine():
    """A frightened girl reads "Não fique sem ninguém por perto", not "Não fique sozinho" (the speaker's own
    "Obrigado" is the pastor's voice, not the reader's)."""
    care = CrisisCare()
    masculine = re.compile(r"\b(sozinho|corajoso|ferido|machucado|acompanhado|preparado|assustado|envergonhado)\b",
                           re.I)
    texts = [text for value in care.texts.values() for text in (value if isinstance(value, list) else [value])]
    texts += [care.reply_text(kind, "BR") for kind in care.kinds]
    assert texts and not [t for t in texts if masculine.search(t)]


def test_a_second_kind_adds_its_help_after_the_first_kinds():
    care = CrisisCare()
    both = care.reply_text("suicide-direct", "BR", also="child-abuse")
    assert "188" in both and "Disque 100" in both and both.index("188") < both.index("Disque 100")
    assert "Disque 100" not in care.reply_text("suicide-direct", "BR")
    assert both.count("190 (polícia)") == care.reply_text("suicide-direct", "BR").count("190 (polícia)")  # once


def test_unknown_country_gets_local_emergency_and_the_church_never_another_country():
    care = CrisisCare(church_contacts="Pr. João (11) 5555-0000")
    text = care.reply_text("suicide-direct", "GB")
    assert "emergência local" in text and "188" not in text and "Pr. João (11) 5555-0000" in text
    only_church = CrisisCare(church_contacts="Pr. João (11) 5555-0000", church_only=True).reply_text(
        "suicide-direct", "BR")
    assert "188" not in only_church and "Pr. João" in only_church


def test_no_country_uses_the_configured_default():
    assert "112" in CrisisCare(default_country="PT").reply_text("suicide-direct", None)
    assert "188" in CrisisCare().reply_text("suicide-direct", None)


def test_every_listed_service_says_where_its_number_comes_from(tmp_path):
    broken = tmp_path / "services.toml"
    broken.write_text('[BR]\nnome = "Brasil"\nemergencia_texto = "190"\n[[BR.servico]]\nnome = "X"\n'
                      'contato = "123"\nfuncoes = ["suicidio"]\n', encoding="utf-8")
    with pytest.raises(LexiconError, match="fonte"):
        CrisisCare(services_path=broken)


def test_a_broken_pattern_file_names_itself(tmp_path):
    broken = tmp_path / "patterns.toml"
    broken.write_text('[[tipo]]\nnome = "x"\nnivel = "imminent"\npadroes = ["(unclosed"]\n', encoding="utf-8")
    with pytest.raises(LexiconError, match="patterns.toml"):
        Lexicon.load(broken)


@pytest.mark.parametrize(("answer", "affirms", "safe"), [
    ("sim, hoje à noite", True, False), ("Sim.", True, False), ("já tomei", True, False),
    ("não estou segura", True, False), ("tenho medo, preciso de paz", False, False),
    ("to segura agora, minha irmã chegou", False, True), ("já liguei pro CVV, estou mais calma", False, True),
])
def test_answers_to_the_safety_question(answer, affirms, safe):
    care = CrisisCare()
    assert care.affirms(answer) is affirms and care.says_safe(answer) is safe


def _verse(book, chapter, number, text):
    return Verse(book, chapter, number, text)


def test_the_guard_keeps_submission_discipline_and_blame_out(mini_retriever):
    responder = CrisisResponder(CrisisCare(), mini_retriever.bible)
    verses = [_verse("EPH", 5, 22, "Vós, mulheres, sede sujeitas a vossos maridos."),
              _verse("PRO", 23, 13, "Não retires a disciplina da criança; se a castigares com a vara, não morrerá."),
              _verse("PSA", 9, 9, "O Senhor abriga quem está aflito e o guarda.")]
    hits = [Hit(f"{v.book}.{v.chapter}.{v.verse}", "x", v.text, 1.0, verse=v) for v in verses]
    guarded = responder.guard(SearchResult("q", Status.OK, hits))
    assert [h.id for h in guarded.hits] == ["PSA.9.9"]
    assert responder.guard(SearchResult("q", Status.OK, hits[:2])).status == Status.NO_EVIDENCE


BANK = [  # a made-up miniature bank: the maths, not the product's data
    *(Exemplar(t, "risk", "suicide-passive") for t in (
        "queria dormir e nunca mais acordar", "pedi pra Deus me levar essa noite", "cansei de existir de verdade",
        "se um carro me pegar tanto faz", "nao quero mais estar aqui nesse mundo", "seria um alivio nao acordar")),
    *(Exemplar(t, "risk", "domestic-violence") for t in (
        "meu marido me empurrou na escada de novo", "ele me enforcou ontem e disse que era pra me corrigir",
        "to trancada no banheiro ele quebrou a porta", "meu companheiro me bate quando bebe",
        "ele pegou a faca e me ameacou", "apanho toda semana do meu esposo")),
    *(Exemplar(t, "safe", "ordinary") for t in (
        "bom dia pastor tudo bem", "qual o horario do culto de domingo", "obrigada pela oracao de ontem",
        "quem foi o rei Davi", "me indica um salmo de louvor", "minha filha passou no vestibular gloria a Deus",
        "estou triste porque meu time perdeu kkk", "morri de rir com o video do culto",
        "vou matar a saudade da minha vo", "o que a biblia diz sobre o perdao", "amanha tem ensaio do coral",
        "to com fome depois do culto")),
]


@pytest.fixture(scope="module")
def bank_vectors(use_embedder):
    return np.asarray(use_embedder.embed([e.text for e in BANK]), dtype=np.float32)


def test_threshold_comes_from_held_out_folds(bank_vectors):
    model = train(BANK, bank_vectors, max_false_alarms=0.1, folds=3)
    assert set(model.classes) == {"safe", "suicide-passive", "domestic-violence"}
    assert model.report["exemplars"] == len(BANK) and model.report["false_alarms_all_safe"] <= 0.1
    score, kind = model.risk("queria nao acordar amanha", bank_vectors[0])
    assert kind == "suicide-passive" and 0.0 <= score <= 1.0


def test_model_file_round_trips_and_the_cache_skips_training(tmp_path, bank_vectors, use_embedder):
    model = train(BANK, bank_vectors, folds=3)
    model.save(tmp_path / "m.npz")
    loaded = RiskModel.load(tmp_path / "m.npz")
    assert loaded.classes == model.classes and loaded.threshold == model.threshold
    assert np.allclose(loaded.coef, model.coef) and loaded.report == model.report
    first = trained_model(use_embedder.embed, "use", tmp_path, BANK)

    def refuse(_texts):
        raise AssertionError("the cached model must not embed the bank again")

    again = trained_model(refuse, "use", tmp_path, BANK)
    assert again.threshold == first.threshold


KINDS = [  # made up: who is hurt tells the kind; these never move the line between risk and safe
    *(Exemplar(t, "risk", "child-abuse") for t in (
        "tenho 10 anos e o namorado da minha mae me bate", "meu padrasto me tranca no quarto sem comida",
        "minha mae me queima com o ferro quando eu erro")),
    *(Exemplar(t, "risk", "suicide-passive") for t in (
        "tenho 15 anos e queria sumir pra sempre", "to no 8 ano e pedi pra Deus me levar")),
]


def test_the_kind_bank_tells_the_kind_and_leaves_the_threshold_alone(tmp_path, bank_vectors, use_embedder):
    kind_vectors = np.asarray(use_embedder.embed([e.text for e in KINDS]), dtype=np.float32)
    plain = train(BANK, bank_vectors, folds=3)
    model = train(BANK, bank_vectors, folds=3, kind_exemplars=KINDS, kind_vectors=kind_vectors)
    assert model.threshold == plain.threshold and np.allclose(model.coef, plain.coef)
    assert set(model.kinds.classes) == {"suicide-passive", "domestic-violence", "child-abuse"}
    vector = np.asarray(use_embedder.embed(["tenho 9 anos e meu padrasto me bate com cinto"]), dtype=np.float32)[0]
    assert plain.risk("tenho 9 anos e meu padrasto me bate com cinto", vector)[1] != "child-abuse"  # unknown
    assert model.risk("tenho 9 anos e meu padrasto me bate com cinto", vector)[1] == "child-abuse"
    model.save(tmp_path / "k.npz")
    loaded = RiskModel.load(tmp_path / "k.npz")
    assert loaded.kinds.classes == model.kinds.classes and np.allclose(loaded.kinds.coef, model.kinds.coef)
    first = trained_model(use_embedder.embed, "use", tmp_path, BANK, KINDS[:3])
    assert trained_model(use_embedder.embed, "use", tmp_path, BANK, KINDS) is not first  # another bank, another key
    assert len(list(tmp_path.glob("risk-*.npz"))) == 2


def _kind_model(probabilities: dict[str, float], dims: int = 4) -> RiskModel:
    """A model whose kind layer gives every message these probabilities (intercepts only)."""
    from retrieval.understand.textmodel import N_FEATURES, LinearTextModel

    classes = tuple(probabilities)
    kinds = LinearTextModel(classes, np.zeros((len(classes), N_FEATURES + dims)),
                            np.log(np.array([probabilities[c] for c in classes])), np.ones(N_FEATURES))
    return RiskModel(("safe", "psychosis-danger"), np.zeros((2, N_FEATURES + dims)), np.zeros(2),
                     np.ones(N_FEATURES), 0.5, {}, kinds)


def test_the_three_kinds_of_suicide_risk_are_weighed_together_against_other_kinds():
    model = _kind_model({"psychosis-danger": 0.4, "suicide-direct": 0.3, "suicide-indirect": 0.25,
                         "child-abuse": 0.05})
    ranked = [kind for kind, _ in model.kinds_of("tanto faz", np.zeros(4))]
    assert ranked == ["suicide-direct", "suicide-indirect", "psychosis-danger", "child-abuse"]
    assert model.risk("tanto faz", np.zeros(4))[1] == "suicide-direct"
    screener = Screener(model=model, embed=lambda texts: np.zeros((len(texts), 4)))
    # the other help named too is psychosis care (0.4 of the suicide help's 0.55), never a second suicide kind
    assert screener._also("tanto faz", np.zeros(4), "suicide-direct") == "psychosis-danger"
    alone = _kind_model({"suicide-passive": 0.5, "suicide-direct": 0.45, "child-abuse": 0.05})
    assert Screener(model=alone, embed=screener.embed)._also("tanto faz", np.zeros(4), "suicide-passive") is None


def test_the_bank_is_well_formed_and_covers_every_kind():
    bank = load_exemplars()
    kinds = {e.kind for e in bank if e.label == "risk"}
    assert {"suicide-direct", "suicide-passive", "suicide-indirect", "self-harm", "overdose-now",
            "domestic-violence", "child-abuse", "sexual-violence", "threat-from-other", "elder-abuse",
            "psychosis-danger"} <= kinds
    assert sum(e.label == "safe" for e in bank) >= 500 and sum(e.label == "risk" for e in bank) >= 500
    assert len({e.text.lower() for e in bank}) == len(bank)
    care = CrisisCare()
    assert kinds <= set(care.kinds)  # every kind the model can name has a reply
    kind_bank = load_kind_exemplars()
    assert len(kind_bank) >= 200 and {e.kind for e in kind_bank} <= kinds
    assert not {e.text.lower() for e in kind_bank} & {e.text.lower() for e in bank}


def test_the_screenings_small_talk_is_its_own_and_safe_only(tmp_path):
    """Teaching the intent model more small talk never moves the triage: the screening keeps its own copy."""
    own = small_talk_exemplars()
    assert len(own) >= 500 and {(e.label, e.kind) for e in own} == {("safe", "smalltalk")}
    assert not {e.text.lower() for e in own} & {e.text.lower() for e in load_exemplars() if e.label == "risk"}
    path = tmp_path / "small_talk.jsonl"
    path.write_text(json.dumps({"text": "bom dia", "label": "safe", "kind": "smalltalk"}) + "\n"
                    + json.dumps({"text": "vou sumir", "label": "risk", "kind": "suicide-indirect"}) + "\n",
                    encoding="utf-8")
    assert [e.text for e in small_talk_exemplars(path)] == ["bom dia"]  # a risk line there is no small talk


def test_a_malformed_bank_line_is_named(tmp_path):
    path = tmp_path / "bank.jsonl"
    path.write_text(json.dumps({"text": "oi", "label": "risk", "kind": "x"}) + "\n{not json}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bank.jsonl:2"):
        load_exemplars(path)


@pytest.fixture(scope="session")
def semantic(semantic_screener):
    """Both layers with the product's bank and the real embedder: the model `python -m bot` trains (conftest)."""
    return semantic_screener


# Written for this test, never in the bank: people who never say the word, and look-alikes.
AT_RISK = [
    ("deixei a chave do carro e o cartao com a minha irma, ela vai saber o que fazer depois. obrigado por tudo",
     "suicide-indirect"),
    ("juntei os comprimidos da minha avo numa latinha, ta escondida no guarda roupa", "suicide-indirect"),
    ("to no ultimo andar do predio do trabalho olhando pra baixo faz meia hora", "suicide-indirect"),
    ("se eu nao acordasse amanha acho que seria um descanso", "suicide-passive"),
    ("meu padrasto disse que se eu contar pra minha mae ele me bate de novo, eu tenho 12 anos", "child-abuse"),
    ("minha filha de 2 anos engoliu uns comprimidos que tavam na mesa agora pouco", "overdose-now"),
]
LOOK_ALIKES = [
    "kkkkk vou matar meu irmao, comeu meu pedaco de bolo",
    "por que Judas se enforcou depois de trair Jesus? estudo da celula de hoje",
    "vi no jornal que um homem agrediu a mulher no centro, que tristeza, oremos",
    "me jogo de cabeca nesse projeto novo do ministerio infantil!",
    "minha avo faleceu em paz aos 92 anos, sinto saudade mas sei que ela esta com o Senhor",
]


@pytest.mark.parametrize(("text", "kind"), AT_RISK)
def test_meaning_recognises_risk_without_the_words(semantic, text, kind):
    screening = semantic.screen(text)
    assert screening.crisis, (text, screening)
    assert screening.kind in {kind, "suicide-indirect", "suicide-passive", "suicide-direct"} | {kind}


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_not_alarms(semantic, text):
    assert not semantic.screen(text).crisis, text


def test_a_joke_with_the_words_of_a_crisis_is_overruled_by_its_meaning(semantic):
    joke = semantic.screen("quero morrer kkkkk mandei a foto errada no grupo da igreja 😂😂")
    assert not joke.crisis and joke.layer == "vetoed"
    plea = semantic.screen("quero morrer, nao aguento mais essa dor")
    assert plea.crisis and plea.layer == "lexical"


def test_the_meaning_tells_who_is_hurt_but_never_turns_a_plan_against_oneself_into_abuse(semantic):
    """A child's age pulls the meaning towards abuse; the words say what the person will do to themselves."""
    plan = semantic.screen("tenho 14 anos e hj a noite vou me enforcar no meu quarto")
    assert plan.kind == "suicide-direct" and plan.layer == "lexical", plan
    hit = semantic.screen("o namorado da minha mae me bate com cinto, tenho 11 anos")
    assert hit.kind == "child-abuse", hit  # "me bate" is read as a partner's; the meaning says a child
    assert Lexicon.default().by_others("child-abuse") and not Lexicon.default().by_others("suicide-direct")


@pytest.mark.parametrize("text, kind", [
    ("meu marido bebe todo dia, alcoolatra mesmo, ontem quebrou a porta e disse q da proxima vez quebra minha cara",
     "domestic-violence"),
    ("meu filho é dependente quimico e roubou o dinheiro da minha aposentadoria, tenho 79 anos e ele me tranca em casa",
     "elder-abuse"),
])
def test_words_of_an_addiction_never_hide_the_violence_the_message_tells(semantic, text, kind):
    """Addiction is a concern (answered as usual); the person hurt by the one who drinks needs the crisis help."""
    screening = semantic.screen(text)
    assert screening.level != "concern" and screening.kind == kind, screening


def test_when_the_meaning_hesitates_between_two_kinds_both_helps_are_named(semantic):
    """A beaten child who no longer wants to live: the CVV for the words, Disque 100 for who is hurt."""
    screening = semantic.screen("tenho 13 anos, meu padrasto me bate e eu nao quero mais viver")
    assert (screening.kind, screening.also) == ("suicide-direct", "child-abuse"), screening
    assert semantic.screen("quero morrer, nao aguento mais essa dor").also != "child-abuse"


def test_asking_for_the_means_to_die_is_never_vetoed_as_a_question(semantic):
    """Method questions are firm patterns: neither a joking tone nor a question form overrules them."""
    for text in ("qual a forma mais indolor de tirar a propria vida? pergunta seria",
                 "quantos comprimidos de paracetamol precisa pra nao acordar kkk"):
        screening = semantic.screen(text)
        assert screening.crisis and screening.layer == "lexical" and screening.kind == "suicide-direct", text
    doctrine = Lexicon.default().match("o que a biblia diz sobre quem tira a propria vida")
    assert doctrine is None or not doctrine[2]  # a doctrinal question is never firm: the meaning may read it


def test_abuse_of_a_child_of_the_family_is_never_read_away(semantic):
    """A parent who tells that someone abuses their child is heard, whatever the meaning layer scores; the same
    verb of patience, trust or doctrine is no alarm."""
    for text, kind in (("descobri hj q meu cunhado abusava da minha filha de 8 anos, o q eu faço", "child-abuse"),
                       ("o tio abusou da minha sobrinha e a familia quer abafar", "child-abuse"),
                       ("meu padrasto me abusa quando minha mae sai", "child-abuse")):  # the meaning tells the child
        screening = semantic.screen(text)
        assert screening.crisis and screening.layer == "lexical" and screening.kind == kind, text
    for text in ("meu filho abusa da minha paciencia kkk", "o que a biblia diz sobre quem abusa de criancas?"):
        assert Lexicon.default().match(text) is None, text


def test_a_small_child_who_swallowed_medicine_or_poison_is_an_emergency(semantic):
    for text in ("meu filho de 3 anos tomou o xarope todo do irmao, oq eu faço",
                 "a bebe engoliu uma pilha agora pouco"):
        screening = semantic.screen(text)
        assert screening.crisis and screening.kind == "overdose-now", text
    assert Lexicon.default().match("meu filho tomou a vacina ontem e ta com febre baixa") is None


def test_a_count_of_pills_no_dose_has_taken_now_is_an_emergency(semantic):
    """The meaning layer scored "30 paracetamol" just under its line; a count of pills taken is an overdose."""
    for text in ("tomei uns 30 paracetamol agr pouco. nao sinto nada ainda, sera q fez efeito?",
                 "engoli umas vinte pilulas de rivotril"):
        screening = semantic.screen(text)
        assert screening.crisis and screening.kind == "overdose-now", text
    for text in ("tomei 2 paracetamol pra dor de cabeca, posso tomar mais?", "tomei 10 pontos na cabeca ontem"):
        assert Lexicon.default().match(text) is None, text
