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
