"""Someone asked for by what they did, not by name ("quem foi aquele que negou Jesus três vezes?"): the person
the verses that answer the description speak of, when they speak of one far more than of anyone else."""

from __future__ import annotations

import re
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from retrieval.knowledge.passages import words_of
from retrieval.knowledge.people import DIVINE, Person

DESCRIBED_FILE = Path(__file__).resolve().parent.parent / "data" / "described.toml"

# who did something, at a sentence's start or asked on ("quem negou Jesus", "ela perguntou quem ajudou Jesus a
# carregar a cruz"), never who said or wrote words (the verse that says them answers: "quem disse 'eis-me aqui'")
# nor whoever does something ("Jesus compara quem escuta e faz…")
_WHO_DID = re.compile(r"(?:^|\b(?:perguntou|pergunta|sabe|saber|lembro|lembra|diz|fala|conta|explica) )quem "
                      r"(?!(?:foi|era|eram|e|eh|sao|foram|sou|somos|es|me|te|nos|vos|sabe|dera|diria|ama|vai|nao|se|"
                      r"ela|ele|elas|eles|voce|isso|disse|falou|fala|escreveu|perguntou|respondeu|diz|dizia|declarou|pediu|"
                      r"gritou)\b)\w+")
_WHO_WAS_THE_ONE = re.compile(r"\bquem (?:foi|era|e|eh) (?:\w+ ){1,4}?(?<!\bpor )(?:que|q)\b"
                              r"(?! (?:disse|falou|escreveu|perguntou|respondeu)\b)")
NAME_ASKED = r"\b(?:como (?:se )?chamava|qual (?:era |e )?o nome d[aeo])\b"  # "como (se) chamava", "qual o nome do"
CALLED = re.compile(NAME_ASKED)  # a name asked for: "como se chamava…"
# the first, last or only one of a kind ("quem foi o primeiro cristão a morrer apedrejado")
_WHO_WAS_FIRST = re.compile(r"\bquem (?:foi|era|e|eh) (?:o|a) (?:primeir|ultim|unic)[oa] \w+")
# a kind of person and what they did, said without a question word ("o profeta q contou pro rei davi a história
# da ovelhinha", "aquele soldado que escondeu…"): the kind (described.toml's gendered words) opens the message,
# after an article and a word at most, and "que" follows within a few words
_OPENING = frozenset({"aquele", "aquela", "o", "a", "um", "uma", "esse", "essa", "e", "tipo"})
_THAT = frozenset({"q", "que"})
_SAID = frozenset({"disse", "falou", "escreveu", "diz", "fala"})
_WHOSE = frozenset({"de", "do", "da", "dos", "das", "daquele", "daquela", "desse", "dessa", "dele", "dela"})
THAT_WITHIN = 12  # words after the kind
# which one of a kind of person did something ("qual rei pediu sabedoria", "qual profeta foi engolido…"): the
# kind is one of the gendered words of described.toml, the next word no "é"/"era" (which asks what, not who)
_WHICH_ONE = re.compile(r"^(?:\w+ ){0,3}?qual (?:foi |era )?(?:o |a )?(?P<kind>\w+) (?:q |que )?"
                        r"(?!(?:e|era|eh|o|a|de|da|do)\b)\w+")
# someone described first, then asked for ("tinha uma mulher q vendia púrpura…, qm era?", "sabe o homem que… ? quem
# é ele"): a kind of person near the start (`_described_then_asked`), "quem era" closing the message
_THEN_WHO = re.compile(r" quem (?:era|e|eh|foi|sao|eram)(?: (?:ela|ele|elas|eles|essa|esse|mesmo|mesma|entao))?$")
KIND_WITHIN = 5  # words before the kind
_SENTENCES = re.compile(r"[.?!;:]+")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class DescribedSettings:
    share: float  # of the votes, the person's at least
    verses: int  # verses that speak of the person, at least
    ahead: float  # times the votes of the next person, at least
    female: frozenset[str]  # words that say the one asked about is a woman ("mulher", "rainha", "aquela")
    male: frozenset[str]
    deed_words: int = 2  # words beyond the name and the frame that ask for a deed of someone named
    frame: frozenset[str] = frozenset()  # words that only frame a question about someone ("quem", "foi")
    verse_frame: frozenset[str] = frozenset()  # words that only frame asking for a verse ("capítulo", "onde")
    verse_asked: frozenset[str] = frozenset()  # words that ask for the verse itself ("versículo", "parte")
    line_asked: frozenset[str] = frozenset()  # words that ask for a line said ("disse", "falou"): read from it

    @property
    def kinds(self) -> frozenset[str]:
        """The words that name a kind of person ("rei", "profeta", "mulher"): the gendered ones."""
        return self.female | self.male


def described_settings(path: Path = DESCRIBED_FILE) -> DescribedSettings:
    """The file's thresholds and gendered words; a broken file is an error that names it."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return DescribedSettings(float(data["parcela"]), int(data["versiculos"]),
                                 float(data["a_frente"]),
                                 frozenset(data["sexo"]["feminino"]), frozenset(data["sexo"]["masculino"]),
                                 int(data["palavras_do_feito"]), frozenset(data["moldura"]),
                                 frozenset(data["moldura_do_versiculo"]), frozenset(data["pedem_o_versiculo"]),
                                 frozenset(data["pedem_a_fala"]))
    except (OSError, KeyError, ValueError, TypeError) as error:
        raise ValueError(f"{path}: {error}") from error


def asks_for_someone_described(text: str, kinds: frozenset[str] = frozenset()) -> list[str] | None:
    """The words that say who is asked for, when the message (chat spelling normalised) asks who did or was
    something in one of its sentences ("quem foi aquele que…": ["aquele"]; "quem negou…": [], with the words
    before "quem": "Judas, quem era aquele que…" names Judas first; ``kinds`` of person asked which one of: "qual
    rei pediu…": ["rei"]); None when it does not ask."""
    for sentence in _SENTENCES.split(text):
        said = words_of(sentence)
        words = said.split()
        before = words[:words.index("quem")] if "quem" in words else []
        one = _WHO_WAS_THE_ONE.search(said)
        if one is not None:
            return before + one.group().split()[2:-1]
        if _WHO_DID.search(said) or CALLED.search(said):
            return before
        first = _WHO_WAS_FIRST.search(said)
        if first is not None:
            return before + first.group().split()[2:]
        which = _WHICH_ONE.search(said)
        if which is not None and which.group("kind") in kinds:
            return [which.group("kind")]
    return _described_then_asked(words_of(text), kinds)


def _described_then_asked(said: str, kinds: frozenset[str]) -> list[str] | None:
    """The words up to a kind of person that opens the message ("jefte é aquele…" names Jefté first), when "que"
    follows it within a few words and "quem era" ends the message."""
    if not _THEN_WHO.search(said):
        return None
    words = said.split()
    at = next((i for i, w in enumerate(words[:KIND_WITHIN + 1]) if w in kinds), None)
    if at is None or not _THAT.intersection(words[at + 1:at + 1 + KIND_WITHIN]):
        return None
    return words[:at + 1]


def described_without_asking(text: str, kinds: frozenset[str]) -> list[str] | None:
    """The kind of person a message names at its start with what they did, without asking who ("o profeta q
    contou pro rei davi a história da ovelhinha": ["profeta"]); None otherwise. Weaker than a question: only
    the descriptions askers wrote may answer it (``Knowledge.described_person``)."""
    words = words_of(_SENTENCES.split(text.strip())[0] if text.strip() else "").split()
    start = 1 if words and words[0] in _OPENING else 0
    for at in (start, start + 1):
        if at < len(words) and words[at] in kinds:
            after = words[at + 1:at + 1 + THAT_WITHIN]
            that = next((i for i, w in enumerate(after) if w in _THAT), None)
            said = that is not None and that + 1 < len(after) and after[that + 1] in _SAID
            if that is None or said:
                return None
            own = after[:that]  # the words that say who, before whose they are ("o rei davi q…" names Davi)
            own = own[:next((i for i, w in enumerate(own) if w in _WHOSE), len(own))]
            return [words[at], *own]
    return None


def gender_asked(said: str, settings: DescribedSettings) -> str:
    """ "Female" or "Male" by the first word that tells it after "quem" ("quem era a mulher que…"), else ""."""
    start = re.search(r"\bquem\b|\bchamava\b|\bnome\b", said)
    for word in _WORD.findall(said[start.end() if start else 0:]):
        if word in settings.female:
            return "Female"
        if word in settings.male:
            return "Male"
    return ""


class Mentions:
    """Who each verse speaks of (Theographic's people by verse)."""

    def __init__(self, people: list[Person]):
        self._at: dict[int, list[Person]] = defaultdict(list)
        for person in people:
            for position in person.positions:
                self._at[position].append(person)

    def at(self, position: int) -> list[Person]:
        return self._at.get(position, [])

    def most_spoken_of(self, positions: list[int], said_words: set[str], gender: str,
                       settings: DescribedSettings) -> Person | None:
        """The person the verses (best first) speak of, each verse's vote weighted by its rank, leaving out
        God, Jesus and whoever the message names (by any name: "Israel" for Jacob); None unless one holds
        ``share`` of the votes over at least ``verses`` verses, ``ahead`` times the next one's."""
        votes: dict[str, float] = defaultdict(float)
        seen: dict[str, int] = defaultdict(int)
        by_id: dict[str, Person] = {}
        for rank, position in enumerate(positions):
            for person in {p.id: p for p in self.at(position)}.values():
                named = person.name in said_words or said_words.intersection(person.called)
                if person.id.startswith(DIVINE) or named or gender and person.gender and person.gender != gender:
                    continue
                votes[person.id] += 1.0 / (rank + 3)
                seen[person.id] += 1
                by_id[person.id] = person
        if not votes:
            return None
        best, *others = sorted(votes, key=votes.get, reverse=True)
        sure = votes[best] >= settings.share * sum(votes.values()) and seen[best] >= settings.verses and \
            all(votes[best] >= settings.ahead * votes[other] for other in others[:1])
        return by_id[best] if sure else None
