"""The relative a question asks for instead of the person it names: "quem era o pai de João Batista?",
"Isaque casou com quem?", "Moisés tinha irmãos?" (the words of kinship in retrieval/data/kinship.toml)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from retrieval.knowledge.homonyms import asked_kinship

if TYPE_CHECKING:
    from retrieval.knowledge.people import Person

MARRIED = frozenset({"casou", "casado", "casada", "casaram", "casar"})  # beside a name: the spouse is asked
HAD = frozenset({"tinha", "teve", "tem"})  # "Moisés tinha irmãos?": the relative is asked
KIN_PLURAL = {"irmaos": "irmao", "irmas": "irma", "filhos": "filho", "filhas": "filha"}

Related = Callable[["Person", tuple[str, ...], str], list["Person"]]  # a person's relatives in FAMILY columns


def relative_asked(person: Person, words: list[str], related: Related) -> Person | None:
    """The relative asked for: one relative of that kind in the data, or one far better known (Sara, of
    Abraão's wives); None when no kinship is asked or the data cannot tell which."""
    kind = asked_kinship().get(kinship_asked(person, words) or "")
    if kind is None:
        return None
    steps, gender = kind
    found = {person.id: person}
    for n, columns in enumerate(steps):  # the gender the word tells is the last relative's
        found = {p.id: p for q in found.values() for p in related(q, columns, gender if n == len(steps) - 1 else "")}
    ranked = sorted(found.values(), key=lambda p: -len(p.positions))
    if len(ranked) == 1 or len(ranked) > 1 and len(ranked[0].positions) >= 2 * len(ranked[1].positions):
        return ranked[0]
    return None


def kinship_asked(person: Person, words: list[str]) -> str | None:
    """The word of kinship asked of the person: said right before the name ("o pai de João"), a marriage said
    beside it ("com quem Isaque casou": the spouse), or had ("Moisés tinha irmãos?")."""
    names = {person.name, *person.also}
    for i, word in enumerate(words[:-2]):
        if word in asked_kinship() and words[i + 1] in ("de", "do", "da") and names.intersection(words[i + 2:i + 4]):
            return word
    for i, word in enumerate(words):
        if word not in names:
            continue
        if MARRIED.intersection(words[max(0, i - 3):i + 4]):
            return "esposa" if person.gender == "Male" else "marido" if person.gender == "Female" else None
        after = words[i + 1:i + 4]
        if after and after[0] in HAD:
            return next((KIN_PLURAL.get(w, w) for w in after[1:] if KIN_PLURAL.get(w, w) in asked_kinship()), None)
    return None
