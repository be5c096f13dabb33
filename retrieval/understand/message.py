"""What a message is, by its words: a question about the teaching, a request for a task, a life told
in the first person; and whether a word in it is negated."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from corpus.text import fold, normalize
from retrieval.index.lexical import STOPWORDS

# A question that asks for the teaching itself ("o que a Bíblia diz sobre divórcio?") keeps the
# topical ranking: the person asked for that teaching, not for care.
_TEACHING = re.compile(
    r"\bo ?q(ue)?\b[^?.!]{0,50}\b(diz|dizem|fala|falam|ensina|ensinam|ensinou|disse|escreveu|escreveram|"
    r"condena|permite|proibe)\b[^?.!]{0,12}\b(sobre|a respeito|acerca)\b"
    r"|\b(versiculos?|passagens?|textos? biblicos?|ensinos?|ensinamentos?)\b[^?.!]{0,12}\b(sobre|a respeito|acerca)\b"
    r"|\b(e|eh|seria) pecado\b|\bbiblia (permite|proibe|condena)\b|^\s*o ?q(ue)? (e|eh|significa)\b"
    r"|\bvisao biblica\b|\bsegundo a biblia\b|\bdoutrina\b|\bp(or)? ?q(ue)? deus (deixa|permite)\b")


def asks_for_teaching(text: str) -> bool:
    """The question asks what Scripture teaches about a theme (doctrinal), not for care in a situation."""
    return bool(_TEACHING.search(fold(normalize(text))))


# A request for a task ("escreva um poema para o aniversário dela", "me indica um celular") tells no
# situation of the person's life, even when it names one.
_TASK = re.compile(
    r"^\s*(?:(?:por favor|pf|pfv),?\s+)?(?:(?:me|pode|poderia|voce|vc|tu)\s+){0,3}"
    r"(?:escrev\w*|redij\w*|traduz\w*|resum\w*|calcul\w*|crie\b|gere\b|indic\w*|indiqu\w*|recomend\w*|sugir\w*|"
    r"sugere\b|conta uma piada|passa a\b|ajud[ae] a (?:escrever|fazer|montar|criar))")


_SCRIPTURE_OR_PRAYER = re.compile(r"\b(?:versicul|passage|biblia|salmo|escritura|palavra de deus|oracao|orar|ore\b)")


REFERENCE_ASKED_FILE = Path(__file__).resolve().parent.parent / "data" / "reference_asked.txt"


@functools.lru_cache(maxsize=1)
def _reference_asked() -> re.Pattern:
    lines = [line.strip() for line in REFERENCE_ASKED_FILE.read_text(encoding="utf-8").splitlines()]
    phrases = [re.escape(line) for line in lines if line and not line.startswith("#")]
    if not phrases:
        raise ValueError(f"{REFERENCE_ASKED_FILE}: nenhuma pergunta")
    return re.compile(r"\b(?:" + "|".join(phrases) + r")\b")


def asks_where_a_verse_is(text: str) -> bool:
    """The message asks where a verse is ("é salmo q número?", "de onde é isso?"; data/reference_asked.txt)."""
    return bool(_reference_asked().search(fold(normalize(text))))


def names_scripture_or_prayer(text: str) -> bool:
    """The message speaks of a verse, a psalm, the Bible or a prayer."""
    return bool(_SCRIPTURE_OR_PRAYER.search(fold(normalize(text))))


def asks_for_task(text: str) -> bool:
    """The message asks the bot to do a task (write, translate, recommend...), not to hear a life situation;
    asking for a verse or a prayer is not such a task."""
    folded = fold(normalize(text))
    return bool(_TASK.search(folded)) and not _SCRIPTURE_OR_PRAYER.search(folded)


_NEGATIONS = frozenset({"nao", "nem", "nunca", "jamais"})
# first-person words: someone telling their own life ("fomos despejados", "perdi", "meu cachorro")
_FIRST_PERSON = re.compile(r"\b(?:eu|me|meu|minha|meus|minhas|mim|comigo|nos|nosso|nossa|nossos|nossas|a gente|"
                           r"estou|to|tou|tenho|sou|fui|fomos|estamos|temos|somos|vou|vamos|\w+ei|\w+emos)\b")


def tells_own_life(folded: str) -> bool:
    """A message in the first person, or long enough to tell something (four words or more)."""
    return bool(_FIRST_PERSON.search(folded)) or len(folded.split()) >= 4


def says(regex: re.Pattern, folded: str) -> bool:
    """Whether ``folded`` has a match of ``regex`` that is not negated."""
    return any(not _negated(folded, m) for m in regex.finditer(folded))


def _negated(folded: str, match: re.Match) -> bool:
    """A word said right after a negation ("não passei"), unless the pattern itself begins with it."""
    if match.group(0).split()[0] in _NEGATIONS:
        return False
    return bool(_NEGATIONS.intersection(folded[: match.start()].split()[-1:]))


# a greeting, thanks or reaction before the request: "obg! tem alguma oração pra antes de viajar?",
# "brigadão, e tem algum versículo sobre perdão?"
_OPENER = re.compile(r"^\s*(?P<opener>[^,!.?;:\n]{1,40}?)\s*(?:[,!.?;:\n]+|\s[-–—]\s)\s*(?P<rest>\S.*)$", re.S)
OPENER_WORDS = 4  # an opener longer than this is no greeting: it is part of what is said
REQUEST_WORDS = 3  # words of substance the rest must say to be a request of its own


def after_opener(text: str) -> str | None:
    """What a message says after a short first clause (its possible greeting or thanks), if it says enough."""
    match = _OPENER.match(text)
    if match is None or len(match.group("opener").split()) > OPENER_WORDS:
        return None
    rest = match.group("rest").strip()
    substance = [w for w in re.findall(r"\w+", fold(rest)) if w not in STOPWORDS and len(w) > 2]
    return rest if len(substance) >= REQUEST_WORDS else None


_SENTENCE_END = re.compile(r"[.!?;\n]+")
SENTENCE_WORDS = 5  # a sentence shorter than this tells no story of its own ("onde fica?")


QUOTED_WORDS = 6  # a verse said from memory before a remark is at least this long
REMARK_WORDS = 10  # a remark about the verse just said is at most this long ("tô precisando dessa palavra hoje")


def verse_then_remark(text: str) -> str | None:
    """The first sentence of a message that says a long sentence, then a short remark ("…a alegria vem pela
    manhã. tô precisando muito dessa palavra hj"): the sentence that may be a verse; else None."""
    parts = [p.strip() for p in _SENTENCE_END.split(text) if p.strip()]
    if len(parts) < 2 or len(parts[0].split()) < QUOTED_WORDS:
        return None
    return parts[0] if sum(len(p.split()) for p in parts[1:]) <= REMARK_WORDS else None


_IN_MARKS = re.compile(r"""["“«]([^"“”«»]+)["”»]|(?<!\w)['‘]([^'‘’]+)['’](?!\w)""")
QUOTED_LINE_WORDS = 3  # a line quoted in marks has at least this many words


def quoted_line(text: str) -> str | None:
    """The longest part of a message in quotation marks ("onde Pedro fala 'não tenho prata nem ouro'?"), at least
    ``QUOTED_LINE_WORDS`` long; None without one (an apostrophe inside a word, "d'água", is no mark)."""
    marked = [(m.group(1) or m.group(2)).strip() for m in _IN_MARKS.finditer(text)]
    line = max(marked, key=len, default="")
    return line if len(line.split()) >= QUOTED_LINE_WORDS else None


def sentences(text: str, shortest: int = SENTENCE_WORDS) -> list[str]:
    """The sentences of a message that says more than one, each of ``shortest`` words at least (by default long
    enough to tell something)."""
    parts = [p.strip() for p in _SENTENCE_END.split(text)]
    said = [p for p in parts if p and len(p.split()) >= shortest]
    return said if len([p for p in parts if p]) > 1 else []
