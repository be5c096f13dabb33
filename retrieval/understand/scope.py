"""Scopes: the set of books a search is restricted to."""

from __future__ import annotations

from dataclasses import dataclass

from corpus.canon import BOOKS, BY_CODE


@dataclass(frozen=True)
class Scope:
    """A named set of books, e.g. ("NT", "Novo Testamento", {...27 codes})."""

    name: str
    label: str
    books: frozenset[str]

    def where(self) -> dict:
        """The metadata filter for the vector store."""
        if len(self.books) == 1:
            return {"book": next(iter(self.books))}
        return {"book": {"$in": sorted(self.books, key=lambda c: BY_CODE[c].number)}}

    def as_dict(self) -> dict:
        return {"name": self.name, "label": self.label,
                "books": sorted(self.books, key=lambda c: BY_CODE[c].number)}


def testament(code: str) -> Scope:
    label = "Antigo Testamento" if code == "AT" else "Novo Testamento"
    return Scope("OT" if code == "AT" else "NT", label, frozenset(b.code for b in BOOKS if b.testament == code))


def group(name: str, scope_name: str | None = None) -> Scope:
    books = frozenset(b.code for b in BOOKS if b.group == name)
    if not books:
        raise KeyError(name)
    return Scope(scope_name or name, name, books)


def book(code: str) -> Scope:
    b = BY_CODE[code]
    return Scope(code, b.name, frozenset({code}))


def named(name: str) -> Scope:
    """Scope by the short names the evaluation and CLI use: OT, NT, GOSPELS, PAUL or a USFM code."""
    upper = name.upper()
    if upper in ("OT", "AT"):
        return testament("AT")
    if upper == "NT":
        return testament("NT")
    if upper == "GOSPELS":
        return group("Evangelhos", "GOSPELS")
    if upper == "PAUL":
        return group("Cartas Paulinas", "PAUL")
    if upper in BY_CODE:
        return book(upper)
    raise KeyError(f"escopo desconhecido: {name}")


# ---- scope named in a question ---------------------------------------------------
import re  # noqa: E402

from corpus import booknames  # noqa: E402
from corpus.text import fold, normalize  # noqa: E402

_GROUP_PHRASES = [
    # a follow-up that only names who else to hear ("e Paulo?", "e o que Jesus disse?" is below)
    (r"(?:^|\be )(?:o )?(?:apostolo )?paulo(?=\W*$)", lambda: group("Cartas Paulinas", "PAUL")),
    (r"(?:^|\be )(?:o )?jesus(?=\W*$)", lambda: group("Evangelhos", "GOSPELS")),
    (r"(?:antigo|velho) testamento", lambda: testament("AT")),
    (r"novo testamento", lambda: testament("NT")),
    (r"(?:cartas|epistolas|escritos) (?:de|do apostolo|do) paulo|cartas paulinas|epistolas paulinas"
     r"|(?:o )?(?:apostolo )?paulo (?:escreveu|escreve|disse|diz|ensinou|ensina|fala|falou)",
     lambda: group("Cartas Paulinas", "PAUL")),
    (r"(?:cartas|epistolas) (?:gerais|catolicas|universais)", lambda: group("Cartas Gerais")),
    (r"(?:nos|os|dos|pelos) evangelhos|palavras de jesus|jesus (?:disse|diz|ensinou|ensina|falou|fala)",
     lambda: group("Evangelhos", "GOSPELS")),
    (r"profetas maiores", lambda: group("Profetas Maiores")),
    (r"profetas menores", lambda: group("Profetas Menores")),
    # the books, not prophets as people: "falsos profetas", "os profetas de Baal", "filhos dos profetas"
    (r"(?<!falsos )(?<!filhos )(?<!filhos dos )(?:nos |os |dos |pelos )?(?:livros )?(?:profetas|profeticos)"
     r"(?! (?:de|do|da|dos|das) (?!antigo|velho))",
     lambda: Scope("PROPHETS", "Profetas", group("Profetas Maiores").books | group("Profetas Menores").books)),
    (r"livros (?:poeticos|de sabedoria|sapienciais)|literatura sapiencial", lambda: group("Poéticos")),
    (r"pentateuco|livros da lei|tora|livros de moises", lambda: group("Lei")),
    (r"livros historicos", lambda: group("Históricos")),
]
_GROUPS = [(re.compile(rf"\b(?:{pattern})\b"), make) for pattern, make in _GROUP_PHRASES]
_TESTAMENT_ABBREVIATION = re.compile(r"(?<!\w)(AT|NT|VT)(?!\w)")
# A book named as a place to look: "nos Salmos", "em Provérbios", "no livro de Jó",
# "o evangelho de João". Full names only (never abbreviations such as "Os" or "Am").
_FULL_NAMES = {" ".join(form): code for form, code in booknames.PLAIN_FORMS.items() if len(" ".join(form)) >= 4}
_FULL_NAMES["jo"] = "JOB"  # only after "livro de"/"em"...: "Jo" alone is an abbreviation of João
del _FULL_NAMES["juiz"]  # an abbreviation of Juízes when cited ("Juiz 6:12"), but "o saco do juiz" is a judge
for _form, _codes in booknames.NUMBERED_FORMS.items():  # "1 joao", "segunda corintios"; not "i joao"
    _numbers = [*((str(n), n) for n in range(1, len(_codes) + 1)),
                *((w, n) for w, n in booknames.ORDINALS.items() if len(w) > 3 and n <= len(_codes))]
    for _word, _n in _numbers if len(" ".join(_form)) >= 4 else ():
        _FULL_NAMES[f"{_word} {' '.join(_form)}"] = _codes[_n - 1]
# books named after someone: "do Judas", "da Ester", "a cabeça de João Batista" speak of the person; the
# book is "em Judas", "de Judas", "no livro de Ester", "o evangelho de João"
PERSON_BOOKS = frozenset({"JOS", "RUT", "EZR", "NEH", "EST", "JOB", "ISA", "JER", "EZK", "DAN", "HOS", "JOL", "AMO",
                          "OBA", "JON", "MIC", "NAM", "HAB", "ZEP", "HAG", "ZEC", "MAL", "MAT", "MRK", "LUK", "JHN",
                          "JAS", "JUD", "TIT", "PHM"})


def _names(person: bool | None = None) -> str:
    """The books' full names as one alternation, longest first (only those named after someone, or only not)."""
    return "|".join(re.escape(n) for n in sorted(_FULL_NAMES, key=len, reverse=True)
                    if person is None or (_FULL_NAMES[n] in PERSON_BOOKS and not n[0].isdigit()) == person)


_BOOK = re.compile(
    r"\b(?:(?:(?:no |do |pelo )?livro (?:de |do |dos |das |da )?|(?:no |do )?evangelho (?:de |segundo )(?:sao )?"
    r"|(?:em|de) )(?P<name>" + _names() + r")|(?:no|na|nos|nas|do|da|dos|das) (?P<thing>" + _names(False) + r"))\b"
    r"(?! (?:dele|dela|deles|delas|meus|minhas|seus|suas|nossos|nossas)\b)"  # "nos atos dele": deeds, not Acts
    r"(?! (?:batista|iscariotes?)\b)"  # "de João Batista": the Baptist
)
_PLURAL_BOOKS = re.compile(r"\b(?:os|pelos) (?P<name>salmos|proverbios)\b")
# a psalm or a proverb asked for by what it is about: "salmos pra quando to triste", "quero um salmo de louvor",
# "tem salmo de arrependimento?" (never "o salmo do bom pastor": a passage's name)
_ASKED_KIND = re.compile(r"\b(?:(?P<name>salmos|proverbios)(?= (?:pra|para|de|sobre|que|quando|contra)\b)"
                         r"|(?:um|uns|algum|alguns|tem|outro|outros) (?P<one>salmos?|proverbios?)\b)")
_KIND_BOOK = {"salmo": "PSA", "salmos": "PSA", "proverbio": "PRO", "proverbios": "PRO"}
_SPEAKS = r" (?:diz|dizem|ensina|ensinam|fala|falam|afirma|afirmam|sobre)\b"
_NAMES_NOT_JO = "|".join(n for n in _names().split("|") if n != "jo")
_BOOK_SPEAKS = re.compile(rf"\b(?P<name>{_NAMES_NOT_JO}){_SPEAKS}")  # "o que Tiago diz", "Eclesiastes sobre"
_BOOK_ALONE = re.compile(rf"^\W*(?P<name>{_NAMES_NOT_JO})\W*$")  # only a book's name: "Rute", "Eclesiastes?"
_JOB_SPEAKS = re.compile(r"\b(?P<name>jó)(?:" + _SPEAKS + r"|\W*$)")  # with its accent Jó is never João's "Jo"


# a book guessed, not chosen: "acho que é de Salmos", "é de Romanos?", "é em Isaías, né?", "não sei se é de Jó"
_HEDGED = re.compile(r"\b(?:acho (?:que|q)|sera (?:que|q)|nao sei se|talvez|se nao me engano|creio (?:que|q))"
                     r"(?: (?:e|eh|seja|fica|ta|esta|era))? $")
_ASKED_IS = re.compile(r"\b(?:e|eh|fica|ta) $")  # "… é de Romanos?": a guess when a question or "né" follows
_ASKED_AFTER = re.compile(r"^\W*(?:\?|,? ?(?:ne|neh|nao|certo|acho|sera)\b)")


def guessed(folded: str, match: re.Match) -> bool:
    """The book is the person's guess of where a verse is ("acho que é de Salmos", "é de Romanos?")."""
    before = folded[:match.start()]
    before = before if before.endswith(" ") else before + " "
    if _HEDGED.search(before):
        return True
    return bool(_ASKED_IS.search(before) and _ASKED_AFTER.search(folded[match.end():]))


def detect_scope(text: str) -> tuple[Scope | None, str]:
    """The scope a question names, and the question without those words."""
    normal = normalize(text)
    folded = fold(normal)
    match = _TESTAMENT_ABBREVIATION.search(normal)
    if match:
        scope = testament("NT" if match.group(1) == "NT" else "AT")
        return scope, _cut(normal, match.span())
    for pattern, make in _GROUPS:
        match = pattern.search(folded)
        if match:
            return make(), _cut(normal, match.span())
    for pattern in (_BOOK, _PLURAL_BOOKS, _BOOK_SPEAKS, _BOOK_ALONE):
        match = pattern.search(folded)
        if match:
            if guessed(folded, match):  # "…, acho que é de Salmos": memory's guess, no place to look
                return None, _cut(normal, match.span())
            return book(_FULL_NAMES[_name(match)]), _cut(normal, match.span())
    match = _ASKED_KIND.search(folded)
    if match:
        return book(_KIND_BOOK[match.group("name") or match.group("one")]), _cut(normal, match.span())
    match = _JOB_SPEAKS.search(normal.lower())
    if match:
        return book("JOB"), _cut(normal, match.span())
    return None, normal


def _name(match: re.Match) -> str:
    named = match.groupdict()
    return named.get("name") or named["thing"]


def _cut(text: str, span: tuple[int, int]) -> str:
    return " ".join((text[: span[0]] + " " + text[span[1]:]).split())
