"""Homonyms among Bible people: the well-known people a name said alone may mean, and what tells each apart."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from retrieval.index.lexical import STOPWORDS
from retrieval.knowledge.passages import words_of

if TYPE_CHECKING:
    from retrieval.knowledge.people import Person

KINSHIP_FILE = Path(__file__).resolve().parent.parent / "data" / "kinship.toml"
EVENT_WEIGHT = 3  # an event told of a person weighs as much as this many verses listing them
MIN_WEIGHT = 8  # a homonym known by less (verses, events) is not one a person asks about
MIN_SHARE = 0.1  # nor one with less of the name's weight
DOMINANT = 0.75  # a person with this share of the name's weight is the one meant ("Davi", "José"): no question
SAME_LIST = 0.5  # sharing this much of a better-known homonym's verses: one list of names, not two people
SIBLINGS = ("siblings", "halfSiblingsSameMother", "halfSiblingsSameFather")  # told with their father
FAMILY = ("father", "mother", "partners", "children", *SIBLINGS)  # Theographic's family columns
MIN_WRITTEN = 2  # a word written after a name this often is what the person is called by


def weight(person: Person) -> float:
    """How much the Bible speaks of a person: the verses listing them and the events told of them."""
    return len(person.positions) + EVENT_WEIGHT * len(person.events)


def prominent(candidates: list[Person]) -> list[Person]:
    """The well-known people who share a name, best known first; empty when one of them is the one meant."""
    total = sum(weight(p) for p in candidates)
    ranked = sorted(candidates, key=lambda p: (-weight(p), -len(p.positions)))
    if not total or weight(ranked[0]) >= DOMINANT * total:
        return []
    chosen: list[Person] = []
    for person in ranked:
        if weight(person) < max(MIN_WEIGHT, MIN_SHARE * total):
            break
        verses = set(person.positions)
        if not any(len(verses.intersection(other.positions)) > SAME_LIST * len(verses) for other in chosen):
            chosen.append(person)
    return chosen if len(chosen) > 1 else []


@cache
def kinship(path: Path = KINSHIP_FILE) -> dict:
    """The words of each family relation (data/kinship.toml)."""
    return tomllib.loads(path.read_text(encoding="utf-8"))


@cache
def asked_kinship(path: Path = KINSHIP_FILE) -> dict[str, tuple[tuple[tuple[str, ...], ...], str]]:
    """A word of kinship in a question, folded -> (the FAMILY columns of each step from the person named to the
    relative, the relative's gender when the word tells it): "neto" is a child's child ([perguntas] in the file)."""
    data = kinship(path)
    groups = {name: tuple(columns) for name, columns in data.get("grupos", {}).items()}
    words = {}
    for word, entry in data.get("perguntas", {}).items():
        steps = tuple(groups.get(step, (step,)) for step in entry.get("passos", ()))
        gender = entry.get("sexo", "")
        unknown = [c for step in steps for c in step if c not in FAMILY]
        if not steps or unknown or gender not in ("", "Male", "Female"):
            raise ValueError(f"{path}: parentesco '{word}' inválido (passos {entry.get('passos')}, sexo {gender!r})")
        words[word] = (steps, gender)
    return words


def describe(person: Person, others: list[Person], spelled: dict[str, str], where: str,
             people_names=frozenset(), words: dict | None = None) -> str:
    """"Tiago, irmão de João, filho de Zebedeu": the best-known relative none of the others has (a sibling with
    the father); else a word written beside the name that names no one ("Maria Madalena"); else where."""
    words = words or kinship()
    theirs = {name for other in others if other is not person for _, name, _ in other.relatives}
    own = sorted((r for r in person.relatives if r[1] not in theirs), key=lambda r: (-r[2], r[0] != "father"))
    if own:
        chosen = [own[0], *(r for r in own[1:] if r[0] == "father" and own[0][0] in SIBLINGS)][:2]
        gender = "feminino" if person.gender == "Female" else "masculino"
        phrases = [words[c][gender].format(parente=spelled.get(name, name.capitalize())) for c, name, _ in chosen]
        return words["formato"].format(nome=person.display, relacao=", ".join(phrases))
    epithet = next((w for w in person.also if w not in people_names and w in spelled), None)
    if epithet is not None:
        return f"{person.display} {spelled[epithet]}"
    return words["sozinho"].format(nome=person.display, onde=where)


def listed_together(aligned) -> set[str]:
    """People whose Portuguese name may be a companion's: another person of that name is listed in most of the
    same verses ("Lebbaeus" aligned to Bartolomeu beside Bartholomew); the better known, if by far, keeps it."""
    holders: dict[str, list[tuple[str, frozenset[int]]]] = {}
    for row, positions, names in aligned:
        holders.setdefault(names[0], []).append((row["personLookup"], frozenset(positions)))
    doubtful = set()
    for group in holders.values():
        for i, (one, verses) in enumerate(group):
            for other, theirs in group[i + 1:]:
                small, large = sorted((len(verses), len(theirs)))
                if len(verses & theirs) > SAME_LIST * small:
                    doubtful |= {one, other} if large < 2 * small else {one if len(verses) == small else other}
    return doubtful


def written_after(people: list[Person], verses, proper: set[str]) -> dict[str, set[str]]:
    """For people who share a name, the proper words written right after it in their verses and in no other's
    ("João Batista", "Judas Iscariotes", "Simão, o Zelote"): said in a question, they choose."""
    groups: dict[str, list[Person]] = {}
    for person in people:
        groups.setdefault(person.name, []).append(person)
    out: dict[str, set[str]] = {}
    folded: dict[int, list[str]] = {}  # homonyms share verses: each is read once

    def words_at(position: int) -> list[str]:
        if position not in folded:
            folded[position] = words_of(verses[position].text).split()
        return folded[position]

    for name, group in groups.items():
        if len(group) < 2:
            continue
        following = {p.id: _following(name, map(words_at, p.positions)) for p in group}
        for person in group:
            others = set().union(*(words for pid, words in following.items() if pid != person.id))
            own = {w for w, n in following[person.id].items() if n >= MIN_WRITTEN and w in proper and w not in others}
            if own:
                out[person.id] = own
    return out


def _following(name: str, verses) -> dict[str, int]:
    """How often each word follows the name (past an article) in these verses' folded words."""
    counts: dict[str, int] = {}
    for words in verses:
        for i, word in enumerate(words[:-1]):
            if word == name:
                nxt = words[i + 2] if words[i + 1] in ("o", "a") and i + 2 < len(words) else words[i + 1]
                if nxt not in STOPWORDS and len(nxt) > 2:
                    counts[nxt] = counts.get(nxt, 0) + 1
    return counts
