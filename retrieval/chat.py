"""Brazilian chat shorthand expanded before both channels see the question."""

from __future__ import annotations

import re

from corpus.text import normalize

# Written forms people type in chat apps -> the words they stand for. Matched as
# whole words, case-insensitively; accents are folded later by each channel.
SHORTHAND = {
    "vc": "você", "vcs": "vocês", "voce": "você", "q": "que", "oq": "o que", "oque": "o que",
    "pq": "por que", "pqp": "", "porq": "por que", "xq": "por que", "tb": "também", "tbm": "também",
    "to": "estou", "tô": "estou", "tou": "estou", "ta": "está", "tá": "está", "tava": "estava",
    "tamo": "estamos", "tão": "estão", "mto": "muito", "mt": "muito", "mta": "muita", "mtos": "muitos",
    "mtas": "muitas", "muuito": "muito", "n": "não", "ñ": "não", "nao": "não", "naum": "não",
    "nd": "nada", "ngm": "ninguém", "ninguem": "ninguém", "cmg": "comigo", "ctg": "contigo",
    "td": "tudo", "tds": "todos", "hj": "hoje", "amanha": "amanhã", "agr": "agora", "dps": "depois",
    "qdo": "quando", "qnd": "quando", "qndo": "quando", "cmo": "como", "eh": "é", "msm": "mesmo",
    "vdd": "verdade", "sla": "sei lá", "dnv": "de novo", "vlw": "valeu", "obg": "obrigado",
    "obgd": "obrigado", "obgda": "obrigada", "brigado": "obrigado", "brigada": "obrigada", "pfv": "por favor",
    "pf": "por favor", "pls": "por favor", "mds": "meu Deus", "sdds": "saudades", "sdd": "saudade",
    "fds": "fim de semana", "kd": "cadê", "blz": "beleza", "flw": "falou", "tmj": "estamos juntos",
    "bjs": "beijos", "abs": "abraços", "p": "para", "pra": "para", "pro": "para o", "pros": "para os",
    "prum": "para um", "c": "com", "s": "sem", "cm": "com", "sm": "sim", "ss": "sim",
    "qm": "quem", "aq": "aqui", "ai": "aí", "entao": "então", "ent": "então",
    "tlg": "tá ligado", "mlk": "moleque", "fzr": "fazer", "fazê": "fazer", "perdao": "perdão",
    "bíblia": "Bíblia", "biblia": "Bíblia", "d": "de", "dms": "demais", "demaaais": "demais",
    "msg": "mensagem", "nmrd": "namorado", "namo": "namorado", "qro": "quero", "qr": "quero", "kero": "quero",
    "qria": "queria", "keria": "queria", "aguentu": "aguento", "vo": "vou", "cê": "você", "ce": "você", "neh": "né",
    "vô": "vou", "qlq": "qualquer", "hrs": "horas",
}
_WORD = re.compile(r"\w+", re.UNICODE)
_SLASHED = re.compile(r"(?<!\w)([cps])/", re.IGNORECASE)  # "c/ a prova", "p/ mim"
_REPEATS = re.compile(r"(\w)\1{2,}", re.UNICODE)  # "muuuito" -> "muito"
_LAUGH = re.compile(r"\b(?:k{3,}|(?:ha){2,}|(?:rs)+|(?:he){2,})\b", re.IGNORECASE)
_SLASH_WORDS = {"c": "com", "p": "para", "s": "sem"}
# "vô" is "vou" ("vô lá"), except after a possessive or article: "meu vô" is a grandfather
_GRANDFATHER = re.compile(r"\b(meu|seu|teu|nosso|o|do|pro|pelo|ao)\s+v[oô]\b", re.IGNORECASE)
_GRANDMOTHER = re.compile(r"\b(minha|sua|tua|nossa|a|da|pra|pela|à)\s+v[oó]\b", re.IGNORECASE)


def normalize_chat(text: str) -> str:
    """Expand chat shorthand ("to mto ansioso c/ a prova") into plain Portuguese words."""
    text = normalize(text)
    text = _SLASHED.sub(lambda m: _SLASH_WORDS[m.group(1).lower()] + " ", text)
    text = _LAUGH.sub(" ", text)
    text = _REPEATS.sub(r"\1", text)
    text = _GRANDMOTHER.sub(r"\1 avó", _GRANDFATHER.sub(r"\1 avô", text))

    def expand(match: re.Match) -> str:
        word = match.group()
        replacement = SHORTHAND.get(word.lower())
        return word if replacement is None else replacement

    return " ".join(_WORD.sub(expand, text).split())
