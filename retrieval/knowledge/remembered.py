"""Well-known verses as people type them from memory, in their own words ("deus amou tanto o mundo q deu o filho
dele…"): a message remembered like the sayings in retrieval/data/verses_remembered.jsonl names that verse, when
the gate reads it as a verse remembered and its nearest sayings agree (`Retellings`, no floor by nearness alone:
a story retold or a life told may come as near)."""

from __future__ import annotations

import hashlib
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from retrieval.index.text_vectors import remembered
from retrieval.knowledge.retellings import CONTRAST, RIVAL, Retellings, cached_retellings, unit

log = logging.getLogger(__name__)

SAYINGS_FILE = Path(__file__).resolve().parent.parent / "data" / "verses_remembered.jsonl"
VERSION = 1  # part of the cache key: bump when the way sayings are read changes
NEAR_FLOOR = 0.55  # a message (not a life surely told) this near a saying (n-grams beside meaning) remembers its verse,
NEAR_MARGIN = 0.20  # when this much nearer it than any message of another kind (lives, chat, teaching, stories)
NEAR_AGREEING = 2  # and this many of its three nearest sayings are of that verse

Embed = Callable[[Sequence[str]], np.ndarray]


def load_sayings(path: Path = SAYINGS_FILE) -> list[tuple[tuple[str, ...], str]]:
    """((the verse id, and the next ones a saying spans), the saying) pairs (JSONL: "verse", "q", optional
    "also"); a malformed line is an error naming the file and the line."""
    from retrieval.understand.textmodel import read_bank

    return read_bank(path, lambda row: ((str(row["verse"]), *(str(v) for v in row.get("also", ()))),
                                        str(row["q"]).strip()),
                     lambda row: all(v.count(".") == 2 for v in row[0]) and bool(row[1]),
                     "versículo como LIVRO.CAP.VERS e texto obrigatórios")


@dataclass(frozen=True)
class RememberedVerses:
    """The verses remembered, a row each (their corpus positions), and the sayings beside other kinds."""

    positions: tuple[tuple[int, ...], ...]
    retellings: Retellings

    def verses(self, text: str, vector: np.ndarray, mask: np.ndarray | None = None, near: bool = False) -> list[int]:
        """The positions of the verse the message remembers (with the next ones its saying spans), or []. A
        message read by an intent model (``near``) may also name it by nearness: far nearer its sayings than any
        message of another kind, two of the three nearest agreeing."""
        floor, margin = (NEAR_FLOOR, NEAR_MARGIN) if near else (math.inf, 0.0)
        found = self.retellings.telling(text, vector, floor=floor, margin=margin, agreeing=NEAR_AGREEING)
        if found is None:
            return []
        return [p for p in self.positions[found[0]] if mask is None or mask[p]]

    @classmethod
    def cached(cls, bible, sayings: Sequence[tuple[tuple[str, ...], str]], others: Sequence[str],
               contrasts: Sequence[str], embed: Embed, embedder_slug: str,
               directory: Path | None) -> RememberedVerses | None:
        """The sayings of the verses this Bible holds, kept in ``directory`` under a key of every text and the
        embedder; None without any. A saying of a verse the Bible lacks is said in the log."""
        from retrieval.understand.intent import embedding_text

        def position(verse_id: str) -> int | None:
            book, chapter, verse = verse_id.split(".")
            return bible.position(book, int(chapter), int(verse)) if chapter.isdigit() and verse.isdigit() else None

        spans = {ids: tuple(position(v) for v in ids) for ids, _ in sayings}
        if missing := sorted({ids[0] for ids, found in spans.items() if None in found}):
            log.warning("versículos lembrados que esta Bíblia não tem (ignorados): %s", ", ".join(missing))
        kept = [(spans[ids], text) for ids, text in sayings if None not in spans[ids]]
        if not kept:
            return None
        rows_of = list(dict.fromkeys(span[0] for span, _ in kept))  # one row per verse, whatever it spans
        positions = {span[0]: span for span, _ in sorted(kept, key=lambda k: len(k[0]))}
        texts = [*(text for _, text in kept), *others, *contrasts]
        rows = np.array([*(rows_of.index(span[0]) for span, _ in kept), *([RIVAL] * len(others)),
                         *([CONTRAST] * len(contrasts))], dtype=np.int32)
        key = hashlib.sha256("\n".join([f"{VERSION}|{embedder_slug}|{len(bible.verses)}", *map(str, rows_of), "",
                                        *texts]).encode()).hexdigest()[:16]
        if key in _BUILT:  # one build per process for the same sayings and embedder, whatever the index
            return _BUILT[key]
        path = Path(directory) / f"remembered-{key}.npz" if directory is not None else None
        spanned = tuple(positions[first] for first in rows_of)
        retellings = cached_retellings(path, texts, rows, lambda: unit(remembered(embed, embedder_slug, directory)(
            [embedding_text(t) for t in texts])), "os versículos lembrados")
        _BUILT[key] = cls(spanned, retellings)
        return _BUILT[key]


_BUILT: dict[str, RememberedVerses] = {}
