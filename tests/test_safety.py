"""Crisis screening: many phrasings, chat spelling, and look-alikes that are not crisis."""

import pytest

from bot.safety import CONCERN, DANGER, IMMINENT, screen

CRISIS = [
    ("não vejo mais razão pra continuar vivendo", IMMINENT),
    ("qro sumir", IMMINENT),
    ("n aguento mais viver", IMMINENT),
    ("quero morrer", IMMINENT),
    ("tô pensando em me matar", IMMINENT),
    ("penso em suicídio todo dia", IMMINENT),
    ("seria melhor sem mim", IMMINENT),
    ("tomei muitos remédios agora", IMMINENT),
    ("eu me corto quando fico assim, me cortei ontem", IMMINENT),
    ("n tenho mais motivo pra viver", IMMINENT),
    ("vou acabar com a minha vida", IMMINENT),
    ("QUERO MORRER", IMMINENT),
    ("estou sofrendo violência em casa", DANGER),
    ("meu marido me bate", DANGER),
    ("tô apanhando do meu pai", DANGER),
    ("fui abusada quando criança e ainda dói", DANGER),
    ("ele disse que vai me matar", DANGER),
    ("sou viciado em jogo", CONCERN),
    ("não consigo parar de beber", CONCERN),
    ("to usando drogas de novo, tive uma recaída", CONCERN),
    ("tomo calmante escondido demais", CONCERN),
]
NOT_CRISIS = [
    "morri de rir com esse vídeo",
    "vem me ver pra matar a saudade",
    "essa prova tá me matando",
    "to morrendo de fome",
    "quero morrer de vergonha kkk",
    "vou me matar de treinar pra maratona",
    "meu pai morreu ano passado e sinto saudade",
    "como matar a fome dos pobres?",
    "estou triste hoje",
    "o que a Bíblia diz sobre a morte?",
    "Jesus morreu por nós?",
]


@pytest.mark.parametrize("text, level", CRISIS)
def test_crisis_levels(text, level):
    assert screen(text).level == level


@pytest.mark.parametrize("text", NOT_CRISIS)
def test_look_alikes_are_not_crisis(text):
    assert screen(text).level is None


@pytest.mark.parametrize("text, medical", [
    ("devo parar meu remédio?", True),
    ("posso parar de tomar o antidepressivo?", True),
    ("qual remédio tomar pra ansiedade?", True),
    ("será que eu tenho depressão?", True),
    ("estou ansioso com a prova", False),
    ("orei pelo remédio da minha mãe", False),
])
def test_medical_advice_requests(text, medical):
    assert screen(text).medical is medical
