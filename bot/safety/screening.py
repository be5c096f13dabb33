"""Crisis screening (with levels) and questions that ask for medical advice."""

from __future__ import annotations

import re
from dataclasses import dataclass

from corpus.text import fold
from retrieval.chat import normalize_chat

IMMINENT = "imminent"
DANGER = "danger"
CONCERN = "concern"

# Hyperbole that only looks like danger: "morri de rir", "to morrendo de fome".
_HYPERBOLE = re.compile(
    r"\b(?:morr\w*|mat\w*) (?:de|d) (?:rir|riso|vergonha|saudade|fome|sono|tedio|calor|frio|cansaco|vontade|"
    r"inveja|curiosidade|medo de prova|trabalhar)\b"
    r"|\bmata(?:r)? (?:a|essa|minha) (?:saudade|fome|sede|curiosidade|vontade)\b"
    r"|\b(?:me|nos|ta|esta|tá) matando\b(?! de verdade)"
    r"|\bmatar (?:a )?aula\b|\bmatar (?:o )?tempo\b"
)
_LEVELS = [
    # someone else threatening to kill: checked before "me matar" reads as self-harm
    (DANGER, [r"(?:vai|vao|quer|querem|ameacou|ameaca|ameacaram|tentou|tentaram|prometeu) me matar"]),
    (IMMINENT, [
        r"suicid\w*", r"(?:vou|quero|vontade de|penso em|pensando em|pensei em|tentei) me matar",
        r"me matar", r"tirar (?:a )?(?:minha )?(?:propria )?vida", r"acabar com (?:a )?minha vida",
        r"(?:quero|queria|prefiro|preferia|vontade de) morrer", r"(?:nao )?quero mais viver",
        r"nao (?:aguento|suporto|consigo) mais viver", r"(?:quero|queria|vontade de) (?:sumir|desaparecer)(?: (?:pra sempre|de vez|do mundo))?",
        r"(?:sem|nao vejo|nao tenho|nao ha) (?:mais )?(?:razao|motivo|sentido|porque) (?:pra|para|de) (?:continuar|viver)",
        r"melhor (?:sem mim|se eu (?:nao existisse|morresse|sumisse))", r"dar fim (?:a|na|em) (?:minha )?vida",
        r"me (?:cortar|cortando|cortei|machucar de proposito|mutilar)", r"automutil\w*", r"me (?:jogar|atirar) (?:da|do|de|na frente)",
        r"tomei (?:varios|muitos|um monte de|todos os|uma caixa de) (?:remedios|comprimidos|calmantes)", r"overdose",
        r"(?:vou|quero) (?:pular|me enforcar)", r"nao vale (?:mais )?a pena viver",
    ]),
    (DANGER, [
        r"violencia (?:domestica|em casa|do meu|da minha)", r"sofr\w* violencia", r"(?:me|nos) (?:bate|batem|agride|agridem|espanca|espancam|machuca|machucam)",
        r"apanh\w* (?:do|da|de) (?:meu|minha)", r"(?:estou|estava|to) apanhando", r"abus\w* sexual", r"abusad[oa]",
        r"estupr\w*", r"ameac\w* de morte", r"medo (?:de|do) (?:meu|minha) (?:marido|esposo|namorado|companheiro|pai|mae)",
        r"(?:marido|esposo|namorado|companheiro|ex) (?:me )?(?:ameaca|ameacou|agrediu|bateu)",
    ]),
    (CONCERN, [
        r"viciad[oa]", r"vicio (?:em|de|no|na)", r"nao consigo parar de (?:beber|usar|fumar|jogar|apostar)",
        r"(?:usando|uso|usei) (?:drogas|crack|cocaina|maconha)", r"alcoolatra", r"recaida", r"dependente quimic\w*",
        r"(?:tomando|tomo|tomei) (?:remedio|calmante|remedios|calmantes) (?:demais|sem receita|escondido)",
        r"abus\w* de (?:remedio|medicamento|calmante)", r"crise de (?:panico|ansiedade)", r"ataque de panico", r"surto",
    ]),
]
_COMPILED = [(level, re.compile(r"\b(?:" + "|".join(patterns) + r")\b")) for level, patterns in _LEVELS]
_MEDICAL = re.compile(
    r"\b(?:devo|posso|preciso|seria bom|e bom|tenho que) (?:parar|largar|suspender|tirar|trocar|diminuir|aumentar|"
    r"deixar|continuar)(?: de)?(?: tomar| usar)? (?:o |a |os |as |meu |minha |meus |minhas )?(?:remedio|medicamento|"
    r"medicacao|antidepressivo|tratamento|insulina|dose|quimio\w*|calmante|rivotril|comprimido)"
    r"|\b(?:qual|que) (?:remedio|medicamento) (?:tomar|devo|posso|e bom)"
    r"|\bposso tomar (?:remedio|medicamento|\w+ com)"
    r"|\b(?:qual|que) (?:a )?doenca (?:eu )?tenho\b|\bsera que (?:eu )?tenho (?:depressao|cancer|ansiedade|diabetes)"
)


@dataclass(frozen=True)
class Screening:
    level: str | None  # IMMINENT, DANGER, CONCERN or None
    medical: bool  # asks for medication or diagnosis advice
    signal: str = ""  # the words that matched

    @property
    def crisis(self) -> bool:
        return self.level is not None


def screen(text: str) -> Screening:
    """Crisis level and medical-advice flag for a message (chat spelling and accents handled)."""
    folded = fold(normalize_chat(text))
    cleaned = _HYPERBOLE.sub(" ", folded)
    for level, pattern in _COMPILED:
        match = pattern.search(cleaned)
        if match:
            return Screening(level, bool(_MEDICAL.search(folded)), match.group())
    return Screening(None, bool(_MEDICAL.search(folded)))
