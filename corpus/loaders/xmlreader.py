"""Streaming expat reader shared by the XML Bible loaders."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from xml.parsers import expat

from corpus.loaders.errors import CorpusError
from corpus.verse import Verse

CHUNK_BYTES = 1 << 16
_LEADING_INT = re.compile(r"\s*(\d+)")


def leading_int(value: str | None) -> int:
    """The number a verse or chapter attribute starts with ("16a" -> 16, "3-4" -> 3); 0 if none."""
    match = _LEADING_INT.match(value or "")
    return int(match.group(1)) if match else 0


def local_name(tag: str) -> str:
    """Element name without a namespace prefix ("osis:verse" -> "verse")."""
    return tag.rpartition(":")[2]


class VerseCollector:
    """Builds verses from text events; the loaders drive it from their element handlers."""

    def __init__(self) -> None:
        self.ready: list[Verse] = []
        self.book: str | None = None
        self.chapter = 0
        self.heading: str | None = None
        self._verse: int | None = None
        self._parts: list[str] = []

    @property
    def in_verse(self) -> bool:
        return self._verse is not None

    def begin(self, chapter: int, verse: int) -> None:
        """Start a verse, closing any open one."""
        self.end()
        self.chapter = chapter
        self._verse = verse

    def text(self, data: str) -> None:
        if self._verse is not None:
            self._parts.append(data)

    def space(self) -> None:
        """Mark a block boundary so words on either side do not run together."""
        if self._verse is not None:
            self._parts.append(" ")

    def end(self) -> None:
        """Close the open verse, if any, normalising its whitespace."""
        if self._verse is None or self.book is None:
            self._verse = None
            self._parts.clear()
            return
        text = " ".join("".join(self._parts).split())
        if text:
            self.ready.append(Verse(self.book, self.chapter, self._verse, text, self.heading))
        self._verse = None
        self._parts.clear()


class XmlBibleReader:
    """Base for a streaming loader: subclasses set handlers on ``self.collector``."""

    format_name = ""
    DROPPED: frozenset[str] = frozenset()  # elements whose text is never verse text (notes...)
    HEADINGS: frozenset[str] = frozenset()  # section headings, kept as metadata
    BLOCKS: frozenset[str] = frozenset()  # paragraph-like elements: a word boundary

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.collector = VerseCollector()
        self.title: str | None = None
        self.skipped_books: list[str] = []
        self._drop_depth = 0
        self._heading_depth = 0
        self._heading_parts: list[str] = []

    # -- hooks for subclasses -------------------------------------------------
    def start(self, name: str, attrs: dict[str, str]) -> None:
        raise NotImplementedError

    def end(self, name: str) -> None:
        raise NotImplementedError

    # -- helpers shared by subclasses ----------------------------------------
    def markup_start(self, name: str) -> None:
        """Notes, headings and block boundaries, the same in every format."""
        if name in self.DROPPED:
            self.begin_drop()
        elif name in self.HEADINGS:
            self.begin_heading()
        elif name in self.BLOCKS:
            self.collector.space()

    def markup_end(self, name: str) -> None:
        if name in self.DROPPED:
            self.end_drop()
        elif name in self.HEADINGS:
            self.end_heading()
        elif name in self.BLOCKS:
            self.collector.space()

    def begin_heading(self) -> None:
        self._heading_depth += 1
        if self._heading_depth == 1:
            self._heading_parts = []

    def end_heading(self) -> None:
        self._heading_depth -= 1
        if self._heading_depth == 0:
            heading = " ".join("".join(self._heading_parts).split())
            self.collector.heading = heading or self.collector.heading

    def begin_drop(self) -> None:
        self._drop_depth += 1

    def end_drop(self) -> None:
        self._drop_depth -= 1

    @property
    def dropping(self) -> bool:
        return self._drop_depth > 0

    # -- expat plumbing -------------------------------------------------------
    def _on_start(self, tag: str, attrs: dict[str, str]) -> None:
        self.start(local_name(tag), attrs)

    def _on_end(self, tag: str) -> None:
        self.end(local_name(tag))

    def _on_text(self, data: str) -> None:
        if self._drop_depth:
            return
        if self._heading_depth:
            self._heading_parts.append(data)
        else:
            self.collector.text(data)

    def __iter__(self) -> Iterator[Verse]:
        parser = expat.ParserCreate()
        parser.buffer_text = True
        parser.StartElementHandler = self._on_start
        parser.EndElementHandler = self._on_end
        parser.CharacterDataHandler = self._on_text
        ready = self.collector.ready
        with self.path.open("rb") as handle:
            while True:
                chunk = handle.read(CHUNK_BYTES)
                self._feed(parser, chunk, final=not chunk)
                yield from ready
                ready.clear()
                if not chunk:
                    break

    def _feed(self, parser, chunk: bytes, final: bool) -> None:
        try:
            parser.Parse(chunk, final)
        except expat.ExpatError as error:
            where = f"linha {error.lineno}, coluna {error.offset}"
            reason = expat.errors.messages[error.code]
            raise CorpusError(self.path, f"XML truncado ou malformado ({reason}, {where})") from None
