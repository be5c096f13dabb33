"""The precise layer of crisis screening (bot/data/crisis/patterns.toml) read alone: what is firm, whatever the
meaning layer would say, and what look-alikes it never reads (made-up messages)."""

from __future__ import annotations

from bot.safety.lexicon import Lexicon
from corpus.text import fold
from retrieval.understand.chat import normalize_chat


def lexicon_reads(text: str):
    """The precise layer's reading of a message as it arrives (folded, chat spelling expanded)."""
    return Lexicon.default().match(fold(normalize_chat(text)))


def read_as(kind: str, texts: tuple[str, ...], firm: bool = True) -> None:
    """Each message is read as this kind (and firmly, unless ``firm`` is False)."""
    for text in texts:
        rule, _, is_firm = lexicon_reads(text)
        assert rule.kind == kind and (is_firm or not firm), text


def never_read(texts: tuple[str, ...]) -> None:
    for text in texts:
        assert lexicon_reads(text) is None, text


def test_firm_patterns_are_read_from_the_data_file(tmp_path):
    path = tmp_path / "patterns.toml"
    path.write_text('[[tipo]]\nnome = "suicide-direct"\nnivel = "imminent"\nfirmes = ["jeito de sumir pra sempre"]\n',
                    encoding="utf-8")
    rule, words, firm = Lexicon.load(path).match("qual o jeito de sumir pra sempre")
    assert (rule.kind, words, firm) == ("suicide-direct", "jeito de sumir pra sempre", True)


def test_asking_how_much_of_a_medicine_or_poison_kills_is_firm_however_worded():
    """The amount that kills, or how long a poison takes in a person, asked in any order of words; a parent's dose
    by weight, a pharmacy exam or a garden's pest is no alarm."""
    read_as("suicide-direct", ("quanto de dipirona seria letal pra mim, tenho 50 quilos",
                               "qual seria a dose do clonazepam que é mortal",
                               "o chumbinho leva quanto tempo pra agir numa pessoa de 60kg?",
                               "quanto tempo demora o raticida numa pessoa adulta"))
    never_read(("quantos ml de dipirona pra uma criança de 18 kg com febre?",
                "tenho prova de farmacologia sobre dose letal amanha, ora por mim",
                "qual veneno de formiga posso usar na horta sem matar as abelhas"))


def test_thoughts_of_suicide_had_now_are_firm_however_politely_framed():
    """A person's own suicidal thoughts, present, are never vetoed as a doctrinal question; denied, past or
    asked about in the abstract, they are no firm reading."""
    read_as("suicide-direct", ("Com licença, desculpe o incômodo, mas tenho tido ideias suicidas e não sei a quem "
                               "recorrer.", "boa tarde irmão, ando com uns pensamentos de suicídio muito fortes",
                               "to pensando seriamente em suicidio"))
    for text in ("não penso em suicídio, só ando cansada do trabalho",
                 "tive pensamentos suicidas na adolescência e Deus me curou",
                 "quem tem pensamentos suicidas vai pro inferno?"):
        reading = lexicon_reads(text)
        assert reading is None or not reading[2], text


def test_a_poison_swallowed_by_the_person_is_an_emergency_whatever_they_ask_next():
    read_as("overdose-now", ("bebi um pouco do veneno de rato q tinha no quintal. quanto tempo demora pra fazer "
                             "efeito?",
                             "tomei agua sanitaria faz 10 min, vou ficar bem?"))
    never_read(("tomei um refri que e puro veneno kkk", "o veneno de rato q comprei nao funcionou, os ratos voltaram"))


def test_what_amount_makes_the_heart_stop_is_asking_for_the_means_to_die():
    read_as("suicide-direct", ("qual remedio de pressao em quantidade grande faz o coração parar?",))
    never_read(("o remedio da pressao do meu pai deixa o coracao lento?",))


def test_hiding_marks_made_with_a_blade_is_self_harm_whatever_the_meaning_reads():
    read_as("self-harm", ("como disfarço as marcas da lamina antes da consulta", "base cobre cicatriz de gilete?",
                          "tem jeito de esconder os riscos do pulso pra ir na praia"))
    never_read(("como esconder a cicatriz da cesarea no biquini", "qual corretivo cobre marcas de espinha?"))


def test_something_taken_and_a_body_in_danger_now_is_an_emergency():
    """What someone took or used, then a body that convulses, foams or will not wake, is an overdose now (made-up
    messages); a seizure or a deep sleep told without anything taken is left to the meaning layer."""
    read_as("overdose-now", ("meu primo usou umas coisa na balada e agora ta convulsionando no carro",
                             "minha colega engoliu os remedio da avó dela e ta desmaiada no banheiro"), firm=False)
    never_read(("meu filho teve convulsao ano passado por febre, ainda fico com medo",
                "tomei cha de camomila e dormi tao bem que nao acordei pro culto kkk"))
