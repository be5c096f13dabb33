"""Bible stories by meaning: a question that tells a story in its own words ("a cobra que enganou a mulher no
jardim", "o homem que construiu um barco e pôs os bichos dentro") reaches the named passage whose names and
verses are nearest it in the embedder's space, with no phrase of it written in passages.toml."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus.references import verses_of
from retrieval.arrays import save_arrays
from retrieval.index.text_vectors import remembered
from retrieval.knowledge.passages import PASSAGES_FILE, NamedPassages
from retrieval.knowledge.retellings import CONTRAST, RIVAL, TOLD_MARGIN, Retellings, unit

log = logging.getLogger(__name__)

EXEMPLARS_FILE = Path(__file__).resolve().parent.parent / "data" / "story_exemplars.jsonl"
GATE_LIVES_FILE = EXEMPLARS_FILE.parent / "story_gate_lives.txt"
VERSION = 3  # part of the cache key: bump when the way passages are embedded changes
NAME_SHARE = 0.7  # a passage's meaning: its names (what people call it) weigh more than its verses' mean
FLOOR = 0.40  # cosine between the message and a passage's meaning, for a question about Scripture
SURE = 0.50  # as near as this, a message of any other intent but chat tells the story too
MARGIN = 0.05  # nearer the message than to any question with no subject ("o que a Bíblia diz?"): the Bereans
NAMES_PER_PASSAGE = 7  # the name and the first variants
TIE = 0.03  # a second passage this close to the first is told too ("a entrada de Jesus em Jerusalém": not only
# the Ascension, whose name is as near)

CLEARLY_TOLD = 0.15  # this much nearer than any of them, a story is told whatever else the message reads as
LIKE_CLEARLY = 0.95  # read as a story retold this surely, a retelling TOLD_MARGIN ahead is clearly told too
NARRATIVE = frozenset({"parabola", "milagre", "evento", "historia"})  # passages that tell what happened
OTHER_KINDS = ("situation", "smalltalk", "teaching", "offtopic")

Embed = Callable[[Sequence[str]], np.ndarray]
_BUILT: dict[str, Retellings] = {}  # retellings embedded and the gate trained once per process, whatever the index


def load_exemplars(path: Path = EXEMPLARS_FILE, passages: Path = PASSAGES_FILE) -> list[tuple[str, str]]:
    """(passage name, a retelling) pairs: how people ask for a passage in their own words (JSONL), each line
    naming its passage by the reference passages.toml gives it ("Lucas 15:11-32"); a malformed line or an
    unknown reference is an error naming the file and the line."""
    from corpus.references import parse_reference
    from retrieval.understand.textmodel import read_bank

    def key(reference):
        return None if reference is None else (reference.book, reference.chapter, reference.verse,
                                               reference.end_chapter, reference.end_verse)

    named: dict[tuple, str] = {}
    for passage in NamedPassages.load(None, passages).passages:  # a reference two names share: the first
        named.setdefault(key(passage.reference), passage.name)
    return read_bank(path, lambda row: (named.get(key(parse_reference(str(row["passage"]))), ""),
                                        str(row["q"]).strip()),
                     lambda row: bool(row[0]) and bool(row[1]), "trecho desconhecido em passages.toml ou texto vazio")


def other_kinds() -> list[str]:
    """Messages that tell no story: the intent bank's lives, chat, teaching and off-topic requests, and the
    lives told whose verses judges graded in the sets the gate weighs (``GATE_LIVES_FILE``): a retelling must be
    nearer than all of them. Other graded sets teach the aptness ranker only: each round added moved the gate."""
    from retrieval.aptness.grades import grade_files, load_all
    from retrieval.understand.intent import load_bank

    weighed = gate_sets()
    bank = [text for text, intent in load_bank() if intent in OTHER_KINDS]
    known = set(bank)
    lives = dict.fromkeys(p.q for p in load_all(grade_files()) if p.set in weighed)
    return [*bank, *(q for q in lives if q not in known)]


def gate_sets(path: Path = GATE_LIVES_FILE) -> frozenset[str]:
    """The graded sets whose lives the story gate weighs (one name a line, # comments)."""
    lines = (line.split("#", 1)[0].strip() for line in Path(path).read_text(encoding="utf-8").splitlines())
    return frozenset(line for line in lines if line)


def quotations() -> list[str]:
    """The intent bank's verses quoted from memory: no story retold, though framed like one ("tem uma parte que
    fala…"), for the gate only (a retelling may say a verse of its story)."""
    from retrieval.understand.intent import QUOTATION, load_bank

    return [text for text, intent in load_bank() if intent == QUOTATION]


@dataclass(frozen=True)
class StoryGuess:
    """The passages a message may tell, how near, and the one a retelling names (with its lead over messages
    of other kinds)."""

    rows: list[int]
    nearness: float = 0.0
    told: int | None = None
    ahead: float = 0.0
    narrative: bool = False  # the told passage tells what happened (a parable, a miracle, an event, a story)
    likeness: float = 0.0  # the gate's P(a story retold)

    @property
    def retold_plainly(self) -> bool:
        """A story retold far nearer than any message of another kind, and read by the gate as a story rather than
        a verse quoted: a few words one verse holds ("de dois em dois") do not make it a quotation."""
        return self.told is not None and self.narrative and self.ahead >= CLEARLY_TOLD and self.likeness >= 0.5

    @property
    def clearly_told(self) -> bool:
        """A story retold so plainly that it is asked for whatever else the message reads as."""
        return self.told is not None and self.narrative and (
            self.ahead >= CLEARLY_TOLD or self.likeness >= LIKE_CLEARLY and self.ahead >= TOLD_MARGIN)


NO_STORY = StoryGuess([])


def meanings(name_vectors: np.ndarray, verse_means: np.ndarray, name_share: float = NAME_SHARE) -> np.ndarray:
    """Each passage's meaning: its names' vector and its verses' mean vector, both unit, blended."""
    return unit(name_share * unit(name_vectors) + (1.0 - name_share) * unit(verse_means))


def nearest(similarity: np.ndarray, frame_similarity: np.ndarray, floor: float = FLOOR,
            margin: float = MARGIN, tie: float = TIE) -> list[int]:
    """The rows of the passages nearest the message, near enough and nearer than to a bare question frame: the
    nearest, and the next when it is as near within ``tie``."""
    fit = np.flatnonzero((similarity >= floor) & (similarity - frame_similarity >= margin))
    ranked = fit[np.argsort(-similarity[fit], kind="stable")][:2]
    return [int(r) for r in ranked if similarity[r] >= similarity[ranked[0]] - tie]


@dataclass(frozen=True)
class StoryMeanings:
    """Every named passage as one unit vector, with the positions of its verses and every verse's vector."""

    names: tuple[str, ...]
    positions: tuple[tuple[int, ...], ...]
    vectors: np.ndarray
    frame_similarity: np.ndarray  # each passage's nearness to a question with no subject
    verse_vectors: object  # the index's verse vectors (VerseVectors): a passage's verses are ordered by them
    retellings: Retellings | None = None
    kinds: tuple[str, ...] = ()  # each passage's kind (passages.toml `tipo`)

    @staticmethod
    def texts(passages: NamedPassages) -> tuple[list[str], list[str]]:
        """(passage names, what each is called: its name and first variants joined)."""
        called: dict[str, list[str]] = {}
        for phrase, passage in passages.phrases.items():
            called.setdefault(passage.name, []).append(phrase)
        names = [p.name for p in passages.passages]
        return names, ["; ".join([name, *called.get(name, [])[:NAMES_PER_PASSAGE - 1]]) for name in names]

    @staticmethod
    def positions_of(passages: NamedPassages, bible) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(bible.position(*v.key) for v in verses_of(p.reference, bible)) for p in passages.passages)

    @classmethod
    def build(cls, passages: NamedPassages, bible, verse_vectors, embed: Embed, frames: Sequence[str] = (),
              positions: tuple[tuple[int, ...], ...] | None = None, exemplars: Sequence[tuple[str, str]] = (),
              others: Sequence[str] = (), embedder_slug: str = "", contrasts: Sequence[str] = ()) -> StoryMeanings:
        names, called = cls.texts(passages)
        positions = positions if positions is not None else cls.positions_of(passages, bible)
        means = np.vstack([unit(np.asarray(verse_vectors[list(ps)], np.float32)).mean(axis=0) for ps in positions])
        vectors = meanings(embed(called), means)
        frame_similarity = (vectors @ unit(embed(list(frames))).T).max(axis=1) if frames else np.zeros(len(names))
        return cls(tuple(names), positions, vectors, frame_similarity.astype(np.float32), verse_vectors,
                   _retellings(names, called, exemplars, others, embed, embedder_slug, contrasts=contrasts),
                   tuple(p.kind for p in passages.passages))

    @classmethod
    def cached(cls, passages: NamedPassages, bible, verse_vectors, embed: Embed, embedder_slug: str,
               directory: Path | None, frames: Sequence[str] = (), exemplars: Sequence[tuple[str, str]] = (),
               others: Sequence[str] = (), contrasts: Sequence[str] = ()) -> StoryMeanings:
        """`build`, kept in ``directory`` under a key of the passages' names and verses, the frames, the
        retellings and the embedder."""
        names, called = cls.texts(passages)
        key_text = "\n".join([f"{VERSION}|{NAME_SHARE}|{embedder_slug}|{len(bible.verses)}", *called,
                              *(repr(p.reference) for p in passages.passages), "", *frames, "",
                              *(f"{name}\t{text}" for name, text in exemplars), "", *others, "", *contrasts])
        key = hashlib.sha256(key_text.encode()).hexdigest()[:16]
        path = Path(directory) / f"story-meanings-{key}.npz" if directory is not None else None
        positions = cls.positions_of(passages, bible)
        embed = remembered(embed, embedder_slug, directory)  # an edited bank embeds only its new lines
        if path is not None and path.exists():
            try:
                with np.load(path, allow_pickle=False) as data:
                    vectors, frame_similarity = data["vectors"], data["frame_similarity"]
                    kept = Retellings.from_arrays(data) if "told_rows" in data.files else False
                    told = data["told_vectors"] if "told_vectors" in data.files else None
                if vectors.shape[0] == len(names):
                    retellings = kept if kept is not False else \
                        _retellings(names, called, exemplars, others, embed, embedder_slug, told, contrasts)
                    return cls(tuple(names), positions, vectors, frame_similarity, verse_vectors, retellings,
                               tuple(p.kind for p in passages.passages))
            except (OSError, ValueError, KeyError) as error:
                log.warning("passagens pelo sentido em cache ilegíveis (%s): refeitas", error)
        stories = cls.build(passages, bible, verse_vectors, embed, frames, positions, exemplars, others,
                            embedder_slug, contrasts)
        if path is not None:
            told = stories.retellings.arrays() if stories.retellings is not None else \
                {"told_rows": np.zeros(0, np.int32), "told_vectors": np.zeros((0, 1), np.float32)}
            save_arrays(path, "as passagens pelo sentido", vectors=stories.vectors,
                        frame_similarity=stories.frame_similarity, **told)
        return stories

    def about(self, vector: np.ndarray, text: str = "") -> StoryGuess:
        """The rows of the passages a message tells (none when no passage is near enough), and how near: the
        best cosine, or SURE at least when the message is retold like one of them (that passage first)."""
        similarity = self.vectors @ unit(vector)
        rows = nearest(similarity, self.frame_similarity)
        nearness = float(similarity[rows[0]]) if rows else 0.0
        told = self.retellings.telling(text, vector) if self.retellings is not None and text else None
        if told is None:
            return StoryGuess(rows, nearness)
        row, ahead, like = told
        narrative = row < len(self.kinds) and self.kinds[row] in NARRATIVE
        return StoryGuess([row, *(r for r in rows if r != row)][:2], max(nearness, SURE), row, ahead, narrative,
                          like)

    def verses(self, rows: list[int], vector: np.ndarray, mask: np.ndarray | None, limit: int) -> list[int]:
        """The verses of the passages ``rows``, nearest the message first, one passage after the other."""
        ranked = []
        for row in rows:
            positions = [p for p in self.positions[row] if mask is None or mask[p]]
            if positions:
                cosine = unit(np.asarray(self.verse_vectors[positions], np.float32)) @ unit(vector)
                ranked.append([positions[i] for i in np.argsort(-cosine, kind="stable")])
        interleaved = [p for group in zip(*ranked) for p in group] + [p for group in ranked for p in group]
        return list(dict.fromkeys(interleaved))[:limit]


def _retellings(names: Sequence[str], called: Sequence[str], exemplars: Sequence[tuple[str, str]],
                others: Sequence[str], embed: Embed, slug: str = "", vectors: np.ndarray | None = None,
                contrasts: Sequence[str] = ()) -> Retellings | None:
    """The retellings of the passages this Bible holds (their names among them), the other kinds' messages and
    the gate's contrasts: ``vectors`` when given (the cache), else embedded once per process (and embedder)."""
    from retrieval.understand.intent import embedding_text

    kept = [(names.index(name), text) for name, text in exemplars if name in names]
    if not kept:
        return None
    texts = [*called, *(text for _, text in kept), *others, *contrasts]
    rows = np.array([*range(len(names)), *(row for row, _ in kept), *([RIVAL] * len(others)),
                     *([CONTRAST] * len(contrasts))], dtype=np.int32)
    key = hashlib.sha256("\n".join([slug, *texts, *map(str, rows)]).encode()).hexdigest()
    if slug and key in _BUILT:
        return _BUILT[key]
    if vectors is None or len(vectors) != len(texts):
        vectors = unit(embed([embedding_text(t) for t in texts]))
    built = Retellings.build(texts, rows, vectors)
    if slug:
        _BUILT[key] = built
    return built

