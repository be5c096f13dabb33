"""What a question asks for: its plain words, the scope it names and the concepts it touches."""

from __future__ import annotations

import re
from dataclasses import dataclass

from corpus.text import fold
from retrieval.index.lexical import STOPWORDS
from retrieval.understand.chat import normalize_chat
from retrieval.understand.scope import Scope, detect_scope
from retrieval.understand.thesaurus import Concept, Equivalences, Thesaurus


@dataclass(frozen=True)
class QueryPlan:
    original: str
    text: str  # chat shorthand expanded
    search_text: str  # without the words that named the scope
    scope: Scope | None
    concepts: tuple[Concept, ...]
    alternatives: tuple[tuple[str, ...], ...] = ()  # each question word, then other translations' words
    quoted: bool = False  # the question is wrapped in quotation marks
    whole_book: bool = False  # asks about one book as a whole ("livro de Rute", "o que diz Salmos?")

    @property
    def expansion(self) -> str:
        """Biblical vocabulary of the concepts touched, for the lexical channel."""
        return " ".join(dict.fromkeys(word for c in self.concepts for word in c.vocabulary))

    @property
    def topics(self) -> list[str]:
        return list(dict.fromkeys(topic for c in self.concepts for topic in c.topics))


# Words that only frame a question about a book as a whole: "me fale sobre o livro de Rute".
BOOK_TALK = frozenset(
    "diz dizem fala falam fale ensina ensinam afirma sobre resumo resuma resumir explique explica explicar "
    "conte conta contar livro mensagem principal tema temas trata significa leia ler quero queria gostaria "
    "saber entender conhecer mostre mostra inteiro todo historia assunto ensinamento ensinamentos".split()
)
_EQUIVALENCES = Equivalences()
_WORD = re.compile(r"[^\W\d_]+")
_QUOTED = re.compile(r"""^\s*["'“”‘’«].{8,}["'“”‘’»]\s*[?.!]?\s*$""", re.S)


def plan_query(query: str, thesaurus: Thesaurus, scope: Scope | None = None) -> QueryPlan:
    """Normalise chat language, then find the scope (unless given) and the pastoral concepts."""
    text = normalize_chat(query)
    detected, remainder = detect_scope(text)
    if scope is None:
        scope = detected
    search_text = remainder if detected is not None and remainder.strip() else text
    whole_book = detected is not None and detected == scope and len(scope.books) == 1 and not [
        w for w in _WORD.findall(fold(remainder)) if w not in STOPWORDS and w not in BOOK_TALK]
    return QueryPlan(query, text, search_text, scope, tuple(thesaurus.match(text)),
                     tuple(_EQUIVALENCES.alternatives(search_text)), bool(_QUOTED.match(query)), whole_book)
