"""Bible people and events (Theographic Bible Metadata, CC BY-SA 4.0), with Portuguese names aligned from
the corpus: the capitalised word that the verses listing a person share far more than the rest of the Bible."""

from __future__ import annotations

import csv
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from pathlib import Path

import numpy as np

from corpus.canon import BY_CODE, BY_OSIS
from corpus.text import fold
from retrieval.index.lexical import STOPWORDS
from retrieval.knowledge.homonyms import FAMILY, asked_kinship, describe, listed_together, prominent, written_after
from retrieval.knowledge.relatives import relative_asked
from retrieval.knowledge.retellings import unit
from retrieval.knowledge.spelling import NameSpelling, spoken_words

_CAPITALISED = re.compile(r"\b[A-ZÀ-Ý][a-zà-ÿ]+\b")  # "Jó" and "Ló" too
_IN_SENTENCE = re.compile(r"(?<=[^\W\d_] )[a-zà-ÿ]{2,}\b")  # a lower-case word right after another word
_ANY_LOWER = re.compile(r"\b[a-zà-ÿ]{2,}\b")
PLAIN_VERSES = 3  # a lower-case word the Bible writes in this many verses is a word, never a name typed off
ORDINARY_VERSES = 10  # a name written in lower case in this many verses, more than it names its person, is a word
PLAIN_NAME_WORDS = 2  # a plain word is a name only in a question saying little else ("quem foi Ela?")
RARE_PERSON = 2  # verses naming someone so rarely asked about that a plain word with their name is a word
SPOKEN_NAME_VERSES = 12  # … and a word Brazilians say often ("sala", "data", "tema") with a name this rarely listed
_LOWER = re.compile(r"(?<![\w.!?] )(?<!^)\b[a-z]{2,}\b")
DIVINE = ("god_", "jesus_905", "holy_spirit_")  # asked of as doctrine ("quem é o Espírito Santo?"), not as people
SHORT_NAME_VERSES = 10  # verses listing someone whose name has two letters ("Jó") for the name to be theirs
NAMESAKE_MARGIN = 0.05  # how much nearer another namesake's verses must be than the best known's
BARE_NAME_VERSES = 2  # verses naming someone whose name, typed alone as the Bible writes it, asks for them ("zaqueu")
MAX_PLACE_VERSES = 400  # a name written more often ("Israel", "Senhor") tells no place apart
DENSE = 5  # verses of one chapter that make it a chapter about the person (where their story begins)
MIN_COVERAGE = 0.3  # share of a person's verses that must hold the aligned name
OWN_SPELLING = 0.8  # a name spelled this much like the English one is the person's own, never a companion's
CREDIT = "Pessoas e eventos bíblicos © Theographic Bible Metadata (Robert Rouse), CC BY-SA 4.0"


class PeopleError(RuntimeError):
    """The Theographic files cannot be read."""


@dataclass(frozen=True)
class Person:
    id: str  # "david_994"
    english: str  # "David"
    name: str  # "davi", folded
    display: str  # "Davi", as the corpus spells it
    qualifiers: frozenset[str]  # other words that tell this person apart ("madalena", "batista")
    positions: tuple[int, ...]  # corpus positions of the verses listing the person
    events: tuple[tuple[str, tuple[int, ...]], ...]  # (title, positions) of the events the person takes part in
    gender: str = ""  # "Male" or "Female"
    # (FAMILY column, folded name, their verses): ("father", "zebedeu", 11); none whose name may be another's
    relatives: tuple[tuple[str, str, int], ...] = ()
    also: tuple[str, ...] = ()  # the other words aligned to the person's verses ("madalena"), best first
    called: tuple[str, ...] = ()  # other names the person is asked by: "israel" for Jacob, titled "Jacob (Israel)"


@dataclass(frozen=True)
class Event:
    title: str  # English, for matching only ("David Kills Goliath")
    positions: tuple[int, ...]


def _positions(bible, osis_ids: str) -> tuple[int, ...]:
    out = []
    for osis in osis_ids.split(","):
        parts = osis.strip().split(".")
        if len(parts) != 3 or parts[0].lower() not in BY_OSIS:
            continue
        position = bible.position(BY_OSIS[parts[0].lower()].code, int(parts[1]), int(parts[2]))
        if position is not None:
            out.append(position)
    return tuple(sorted(set(out)))


class PeopleIndex:
    """People found by their Portuguese name in a question; their key passages; events by their verses."""

    def __init__(self, people: list[Person], events: list[Event], chapter_of: list[tuple[str, int]] | None = None,
                 names: dict[str, tuple[int, ...]] | None = None):
        self.people = people
        self.names = names or {}  # proper names of places and peoples -> the verses that write them
        self.spelled: dict[str, str] = {}  # folded proper name -> as the corpus writes it
        self.ordinary: frozenset[str] = frozenset()  # names that are plain words more often ("ela", "boa")
        self.plain: frozenset[str] = frozenset()  # words the Bible writes in lower case, never a name mistyped
        self.titled: frozenset[str] = frozenset()  # words it writes capitalised that name no one ("Cristo")
        self._chapter = chapter_of or []
        self.events = events
        self.by_name: dict[str, list[Person]] = {}
        for person in sorted(people, key=lambda p: -len(p.positions)):
            for name in (person.name, *person.called):
                self.by_name.setdefault(name, []).append(person)
        joined = {}  # a name the corpus writes in two words ("Bate-Seba") typed as one ("bateseba", "batseba")
        for person in people:
            for second in person.also[:1]:
                for name in (person.name + second, second + person.name):
                    if name not in self.by_name:
                        joined.setdefault(name, []).append(person)
        self.by_name.update(joined)
        self.spelling = NameSpelling(self.by_name)

    @classmethod
    def load(cls, directory: Path, bible) -> PeopleIndex:
        asked_kinship()  # a broken kinship file stops the start, naming the file
        try:
            with open(directory / "People.csv", encoding="utf-8-sig", newline="") as f:
                people_rows = list(csv.DictReader(f))
            with open(directory / "Events.csv", encoding="utf-8-sig", newline="") as f:
                event_rows = list(csv.DictReader(f))
        except (OSError, csv.Error, UnicodeDecodeError) as error:
            raise PeopleError(f"dados de pessoas e eventos ilegíveis em {directory}: {error}") from error
        events = [Event(row["title"], _positions(bible, row.get("verses", ""))) for row in event_rows]
        by_participant: dict[str, list[Event]] = {}
        for row, event in zip(event_rows, events):
            for pid in set(filter(None, (row.get("participants") or "").split(","))):
                by_participant.setdefault(pid.strip(), []).append(event)
        spelled: dict[str, str] = {}
        capitalised = []
        for verse in bible.verses:
            words = _CAPITALISED.findall(verse.text)
            for word in words:
                spelled.setdefault(fold(word), word)
            capitalised.append(frozenset(fold(w) for w in words))
        df = Counter(w for words in capitalised for w in words)
        lower = Counter(w for v in bible.verses for w in set(_LOWER.findall(fold(v.text))) if w in df)
        # a proper name is written capitalised inside a sentence somewhere ("Vai ter com..." starts one only)
        proper = {fold(m.group(0)) for v in bible.verses for m in _CAPITALISED.finditer(v.text)
                  if m.start() > 0 and v.text[:m.start()].rstrip()[-1:] not in ".!?:;«“\"—"}
        written = Counter(fold(w) for v in bible.verses for w in set(_ANY_LOWER.findall(v.text)))
        aligned = []
        for row in people_rows:
            positions = _positions(bible, row.get("verses", ""))
            names = _aligned(_known_as(row), positions, capitalised, df, len(bible.verses)) if positions else []
            # "Erã" folds to "era": a word; a name of two letters is one only for someone the Bible speaks of
            # often and never a plain word too ("Jó", not "Só" nor Ur beside "Ur dos caldeus")
            names = [n for n in names if lower[n] < df[n] and n in proper
                     and (len(n) > 2 or not written[n] and len(positions) >= SHORT_NAME_VERSES)]
            if names:
                aligned.append((row, positions, names))
        # a name already carried by a more prominent person of another English name is a companion's
        # ("James" always beside "João"): the next candidate is this person's own
        owner: dict[str, tuple[int, str]] = {}
        for row, positions, names in aligned:
            if len(positions) > owner.get(names[0], (0, ""))[0]:
                owner[names[0]] = (len(positions), row["name"])
        primary: dict[str, str] = {}
        for row, positions, names in aligned:
            while names and (holder := owner.get(names[0])) and holder[1] != row["name"] \
                    and holder[0] > len(positions) and _likeness(row["name"], names[0]) < OWN_SPELLING:
                names[:] = names[1:]  # "Joses" is "José", beside Joseph; a mother-in-law is no Simão
            if names:
                primary[row["personLookup"]] = names[0]
        aligned = [(row, positions, names) for row, positions, names in aligned if names]
        _same_english_same_name(aligned, primary, capitalised)
        known = {row["personLookup"]: len(positions) for row, positions, _ in aligned}
        doubtful = listed_together(aligned)
        people = []
        divine = {names[0] for row, _, names in aligned if row["personLookup"].startswith(DIVINE)}
        for row, positions, names in aligned:
            if row["personLookup"].startswith(DIVINE) or names[0] in divine:
                continue  # "quem foi Jesus?" is asked of Christ, never of Jesus called Justus
            # the family tells homonyms apart: "Tiago, irmão de Jesus", "José, marido de Maria"
            relatives = [(column, primary[pid], known[pid], pid) for column in FAMILY
                         for pid in map(str.strip, (row.get(column) or "").split(","))
                         if pid in primary and primary[pid] != names[0]]
            own = by_participant.get(row["personLookup"], [])
            people.append(Person(row["personLookup"], row["name"], names[0], spelled[names[0]],
                                 frozenset(names[1:]) | {r[1] for r in relatives}, positions,
                                 tuple((e.title, e.positions) for e in own if e.positions), row.get("gender") or "",
                                 tuple(r[:3] for r in relatives if r[3] not in doubtful), tuple(names[1:]),
                                 _also_called(row, names[1:])))
        places = {}  # every proper name the corpus writes, with the verses that write it ("betel", "getsemani")
        # a word written in lower case inside sentences as often as capitalised is no place ("o Nome", "o Reino")
        written_low = Counter(fold(w) for v in bible.verses for w in set(_IN_SENTENCE.findall(v.text)))
        for position, words in enumerate(capitalised):
            for word in words & proper:
                # "Que" opens a quoted sentence; two letters ("Ai", "Ur") are no place a question names
                if len(word) > 2 and lower[word] < df[word] and written_low[word] < df[word]:
                    places.setdefault(word, []).append(position)
        # "João Batista": a proper word written after the name in the Baptist's verses only chooses him
        after = written_after(people, bible.verses, {w for w in proper if lower[w] < df[w]})
        people = [replace(p, qualifiers=p.qualifiers | after[p.id]) if p.id in after else p for p in people]
        index = cls(people, [e for e in events if e.positions], [(v.book, v.chapter) for v in bible.verses],
                    {w: tuple(ps) for w, ps in places.items() if len(ps) <= MAX_PLACE_VERSES})
        index.spelled = spelled
        # a name the corpus writes more often as a plain word ("Ela", "Boã", "Tomé"/"tome") is only asked for when
        # the question names nobody else ("Boa noite… quem foi Moisés?")
        # ... and so is the name of someone the Bible names once or twice that it writes more often as a word
        # ("judia", "velha": "a moça judia que virou rainha" asks for Ester, not for Jeudias)
        # ... and so is a word Brazilians say every day that names someone the Bible lists rarely ("sou a menor da
        # sala": a room, not Salá; "marca uma data": not Datã)
        spoken = spoken_words()
        index.ordinary = frozenset(n for n, found in index.by_name.items()
                                   if written[n] > len(found[0].positions) and (
                                       written[n] >= ORDINARY_VERSES or len(found[0].positions) <= RARE_PERSON)
                                   or n in spoken and len(found[0].positions) <= SPOKEN_NAME_VERSES)
        index.plain = frozenset(w for w, n in written.items() if n >= PLAIN_VERSES and w not in index.by_name) | \
            frozenset(w for w in spoken if w not in index.by_name)
        index.titled = frozenset(w for w, n in df.items() if n >= PLAIN_VERSES and w not in index.by_name)
        return index

    def meant(self, word: str, by_ear_only: bool = False) -> str:
        """The name a word typed one letter off or by ear was meant to be ("mefiboset", "zakeu"); a plain word
        stays itself ("aquela" is no Áquila)."""
        if word in self.plain:
            return word
        found = self.spelling.by_ear(word) if by_ear_only else self.spelling.nearest(word)
        if word in self.titled and found in self.by_name and len(self.by_name[found][0].positions) <= RARE_PERSON:
            return word  # a word the Bible writes capitalised ("Cristo") is no rare name typed off (Crispo)
        return found

    def find(self, folded_words: list[str], written: str = "") -> Person | None:
        """The person the question names: a qualifier said beside the name chooses among homonyms,
        else the one the Bible speaks of most (``written``: the message as typed, its capitals)."""
        candidates = self._candidates(folded_words, written)
        qualified = [p for p in candidates if p.qualifiers & set(folded_words)]
        if not qualified:
            return candidates[0] if candidates else None
        beside = {b for a, b in zip(folded_words, folded_words[1:]) if a in self.by_name}  # "Maria Madalena"
        return max(qualified, key=lambda p: bool(p.qualifiers & beside))  # the first of the best known on a tie

    def names_someone(self, word: str) -> bool:
        """Whether the word, said alone, names someone: as the Bible writes the name ("zaqueu"), or by ear the
        name of someone it speaks of often ("noé"); never a plain word (nor one letter off a name: "abraço")."""
        exact = word in self.by_name
        name = word if exact else self.meant(word, by_ear_only=True)
        needed = BARE_NAME_VERSES if exact and len(word) > 2 else SHORT_NAME_VERSES
        return name in self.by_name and name not in self.ordinary and len(self.by_name[name][0].positions) >= needed

    def names_anyone(self, folded_words: list[str]) -> bool:
        """Whether the words name someone: as written, typed one letter off or by ear; never a plain word."""
        return bool(self.everyone_named(folded_words))

    def everyone_named(self, folded_words: list[str]) -> frozenset[str]:
        """The ids of everyone called by a name the words say, as written or typed one letter off (never a plain
        word)."""
        names = {w if w in self.by_name else self.meant(w) for w in folded_words if w not in self.ordinary}
        return frozenset(p.id for name in names if name in self.by_name for p in self.by_name[name])

    def relative(self, person: Person, folded_words: list[str]) -> Person | None:
        """The relative the question asks for instead of the person named (retrieval/knowledge/relatives.py)."""
        return relative_asked(person, folded_words, self._related)

    def _related(self, person: Person, columns: tuple[str, ...], gender: str) -> list[Person]:
        """The person's relatives in these FAMILY columns (of this gender, when given)."""
        return [p for column, name, count in person.relatives if column in columns
                for p in self.by_name.get(name, ()) if len(p.positions) == count and (not gender or p.gender == gender)]

    def homonyms(self, folded_words: list[str], written: str = "") -> list[tuple[Person, str]]:
        """The well-known people the name said may mean, each with what tells them apart, when nothing said
        chooses among them (the one to answer first); empty when one person is meant."""
        candidates = self._candidates(folded_words, written)
        if any(p.qualifiers & set(folded_words) for p in candidates):
            return []
        chosen = prominent(candidates)
        described = {}  # two told apart by nothing the data knows are offered once
        for person in chosen:
            described.setdefault(describe(person, chosen, self.spelled, self._where(person), self.by_name), person)
        return [(p, d) for d, p in described.items()] if len(described) > 1 else []

    def namesake_described(self, folded_words: list[str], written: str, verse_vectors,
                           vector: Callable[[], np.ndarray]) -> Person | None:
        """Of the people called by the name said, none qualified by what is said, the one whose verses are clearly
        nearest the message (NAMESAKE_MARGIN of cosine above the best known's), or None; ``vector`` is made only
        when the name is shared."""
        candidates = self._candidates(folded_words, written)
        if len(candidates) < 2 or any(p.qualifiers & set(folded_words) for p in candidates):
            return None
        message = unit(vector())
        nearest = [float(np.max(unit(np.asarray(verse_vectors[sorted(p.positions)], np.float32)) @ message))
                   if p.positions else -1.0 for p in candidates]
        best = int(np.argmax(nearest))
        return candidates[best] if nearest[best] >= nearest[0] + NAMESAKE_MARGIN else None

    def _candidates(self, folded_words: list[str], written: str = "") -> list[Person]:
        """Everyone called by the first name the question says, best known first: a name said as it is, then a
        name typed one letter off ("jezebel"), then a plain word that is also a name ("ela", "boa"), then a
        plain word one letter off a name ("escola")."""
        said = [w for w in folded_words if w in self.by_name]
        beside = {w: {*folded_words[max(0, i - 1):i], *folded_words[i + 1:i + 2]} for i, w in enumerate(folded_words)}
        named = next((w for w in said if w not in self.ordinary or beside[w] & set(self.by_name[w][0].also)), None)
        if named is not None:
            return self.by_name[named]
        spelled = [self.meant(w) for w in folded_words if w not in self.by_name]
        typed = next((n for n in spelled if n in self.by_name and n not in self.ordinary), None)
        if typed is not None:  # "pq chamam de jezebel? quem foi ela": Jezabel, not King Elah
            return self.by_name[typed]
        plain = [w for w in folded_words if w not in STOPWORDS]
        capitalised = {fold(m.group(0)) for m in _CAPITALISED.finditer(written)
                       if m.start() > 0 and written[:m.start()].rstrip()[-1:] not in ".!?"}
        if len(plain) > PLAIN_NAME_WORDS and not capitalised.intersection(said):
            return []  # "a nora que não quis largar a sogra": a verb, not Kish; "por que Tomé duvidou?": Tomé
        if said:
            return self.by_name[said[0]]
        return next((self.by_name[n] for n in spelled if n in self.by_name), [])

    def _where(self, person: Person) -> str:
        """The chapter that speaks of the person most ("Atos 8")."""
        chapters = Counter(self._chapter[p] for p in person.positions)
        book, chapter = max(chapters, key=lambda c: (chapters[c], -person.positions.index(
            next(p for p in person.positions if self._chapter[p] == c))))
        return f"{BY_CODE[book].name} {chapter}"

    def named_in(self, folded_words: list[str]) -> tuple[str, tuple[int, ...]] | None:
        """A proper name of the corpus that the question says (a place: "Betel", "Getsêmani") and its verses."""
        for word in folded_words:
            if word in self.names and word not in self.by_name:
                return self.spelled.get(word, word), self.names[word]
        return None

    def introduction(self, person: Person) -> int:
        """The person's first verse in the first chapter that speaks of them at length, else their first."""
        chapters = Counter(self._chapter[p] for p in person.positions)
        return next((p for p in person.positions if chapters[self._chapter[p]] >= DENSE), person.positions[0])

    def key_passages(self, person: Person, votes=None, limit: int = 6) -> list[int]:
        """Where the person is introduced, their longest events, and (for the Old Testament's people) the
        most-read verse of the New Testament that names them; else their most-read verses."""
        chosen: list[int] = [self.introduction(person), person.positions[0]]
        named = set(person.positions)
        for _, positions in sorted(person.events, key=lambda e: (-len(e[1]), e[1][0]))[:limit]:
            chosen.append(next((p for p in positions if p in named), positions[0]))  # where the event names them
        if votes is not None:
            chosen += votes(list(person.positions), limit)
        return list(dict.fromkeys(chosen))[:limit]


def _likeness(english: str, folded: str) -> float:
    return SequenceMatcher(None, fold(english), folded).ratio()


def _same_english_same_name(aligned, primary: dict[str, str], capitalised) -> None:
    """A person aligned to a companion's name ("James, son of Alphaeus" listed beside Matthew and Alphaeus)
    takes the Portuguese name most people of the same English name have, when their verses write it."""
    votes: dict[str, Counter] = {}
    english_of: dict[str, set[str]] = {}
    for row, positions, names in aligned:
        votes.setdefault(row["name"], Counter())[names[0]] += 1 + len(positions) / 1e6  # ties: the better known
        english_of.setdefault(names[0], set()).add(row["name"])
    for row, positions, names in aligned:
        shared = votes[row["name"]].most_common(1)[0][0]
        if shared == names[0] or not english_of[names[0]] - {row["name"]}:
            continue  # already the shared name, or a name no one of another English name is known by
        if sum(shared in capitalised[p] for p in positions) >= MIN_COVERAGE * len(positions):
            names[:] = [shared, *(n for n in names if n != shared)]
            primary[row["personLookup"]] = shared


def _known_as(row: dict) -> str:
    """The English name a person is best known by: "Jacob" for the row named "Israel", titled "Jacob (Israel)"."""
    title, name = (row.get("displayTitle") or "").strip(), row["name"]
    return title[:-len(name) - 3].strip() if title.endswith(f" ({name})") and len(title) > len(name) + 3 else name


def _also_called(row: dict, others: list[str]) -> tuple[str, ...]:
    """The other aligned names that spell the row's own name, when the person is best known by another ("israel",
    for the patriarch titled "Jacob (Israel)")."""
    if _known_as(row) == row["name"]:
        return ()
    return tuple(n for n in others if _likeness(row["name"], n) >= OWN_SPELLING)


def _aligned(english: str, positions, capitalised, df: Counter, total: int) -> list[str]:
    """The folded Portuguese name (and qualifiers) of a person: frequent in their verses, rare elsewhere,
    spelled like the English name when several qualify."""
    counts = Counter(w for p in positions for w in capitalised[p])
    target = fold(english)
    scored = []
    for word, n in counts.items():
        coverage = n / len(positions)
        lift = coverage / (df[word] / total)
        if coverage < MIN_COVERAGE or lift < 3:
            continue
        similarity = SequenceMatcher(None, target, word).ratio()
        scored.append((coverage * math.log(lift) * (0.5 + similarity), word))
    scored.sort(reverse=True)
    return [w for s, w in scored[:3] if s >= 0.5 * scored[0][0]] if scored else []
