"""A whole translation in memory, loaded all-or-nothing from a Bible file."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from corpus.canon import BY_CODE
from corpus.loaders import open_reader
from corpus.loaders.errors import CorpusError
from corpus.verse import Verse


@dataclass(frozen=True)
class Bible:
    """The verses of one translation in canonical order, indexed by (book, chapter, verse)."""

    name: str
    format: str
    path: str
    verses: tuple[Verse, ...]
    skipped_books: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()
    _index: dict[tuple[str, int, int], int] = field(default_factory=dict, repr=False)
    _chapters: dict[str, dict[int, int]] = field(default_factory=dict, repr=False)

    @classmethod
    def from_verses(cls, verses: Iterable[Verse], name: str = "", format: str = "", path: str = "",
                    skipped_books: Iterable[str] = ()) -> Bible:
        """Build from verses in any order; a repeated verse keeps its first text."""
        unique: dict[tuple[str, int, int], Verse] = {}
        duplicates = []
        for verse in verses:
            if verse.key in unique:
                duplicates.append(verse.id)
            else:
                unique[verse.key] = verse
        ordered = sorted(unique.values(), key=lambda v: (BY_CODE[v.book].number, v.chapter, v.verse))
        chapters: dict[str, dict[int, int]] = {}
        for verse in ordered:
            book = chapters.setdefault(verse.book, {})
            book[verse.chapter] = max(book.get(verse.chapter, 0), verse.verse)
        return cls(
            name=name, format=format, path=path, verses=tuple(ordered),
            skipped_books=tuple(skipped_books), duplicates=tuple(duplicates),
            _index={v.key: i for i, v in enumerate(ordered)}, _chapters=chapters,
        )

    def __len__(self) -> int:
        return len(self.verses)

    def get(self, book: str, chapter: int, verse: int) -> Verse | None:
        index = self._index.get((book, chapter, verse))
        return None if index is None else self.verses[index]

    def position(self, book: str, chapter: int, verse: int) -> int | None:
        """Index of a verse in canonical order, or None."""
        return self._index.get((book, chapter, verse))

    def books(self) -> list[str]:
        """USFM codes of the books present, in canonical order."""
        return list(self._chapters)

    def chapters(self, book: str) -> dict[int, int]:
        """Chapter number -> highest verse number, for one book ({} if absent)."""
        return self._chapters.get(book, {})

    def has_chapter(self, book: str, chapter: int) -> bool:
        return chapter in self._chapters.get(book, {})


def load(path: str | Path) -> Bible:
    """Read a whole Bible file; raises CorpusError, and never returns a partial Bible."""
    reader = open_reader(path)
    verses = list(reader)
    if not verses:
        raise CorpusError(path, f"nenhum versículo encontrado no arquivo {reader.format_name}")
    name = " ".join((reader.title or "").split()) or Path(path).stem
    return Bible.from_verses(verses, name=name, format=reader.format_name, path=str(path),
                             skipped_books=reader.skipped_books)


def sha256_of(path: str | Path) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
