"""OSIS 2.1.1 loader: container and milestone verses, notes dropped, titles as headings."""

from __future__ import annotations

from corpus.canon import BY_OSIS
from corpus.loaders.xmlreader import XmlBibleReader

DROPPED = frozenset("note header rdg catchWord figure milestone".split())
BLOCKS = frozenset("p l lg lb item list div row cell table q".split())


def parse_osis_id(osis_id: str) -> tuple[str, int, int] | None:
    """("Matt.1.1" -> ("MAT", 1, 1)); None for ids outside the canon or malformed."""
    parts = osis_id.split("!")[0].split(".")
    if len(parts) != 3:
        return None
    book = BY_OSIS.get(parts[0].lower())
    if book is None or not (parts[1].isdigit() and parts[2].isdigit()):
        return None
    return book.code, int(parts[1]), int(parts[2])


class OsisReader(XmlBibleReader):
    """Streams the verses of an OSIS file."""

    format_name = "OSIS"

    def __init__(self, path):
        super().__init__(path)
        self._verse_stack: list[bool] = []  # per open <verse>: True if it is a container
        self._in_work_title = False
        self._work_depth = 0

    def start(self, name: str, attrs: dict[str, str]) -> None:
        c = self.collector
        if name == "verse":
            container = "sID" not in attrs and "eID" not in attrs
            self._verse_stack.append(container)
            if "eID" in attrs:
                c.end()
            else:
                self._begin_verse(attrs.get("osisID") or attrs.get("sID", ""))
        elif name == "div" and attrs.get("type") == "book":
            c.end()
            c.heading = None
            c.space()
        elif name == "work":
            self._work_depth += 1
        elif name == "title" and self._work_depth and self.title is None:
            self._in_work_title = True
        elif name in DROPPED:
            self.begin_drop()
        elif name == "title":
            if c.in_verse and self._verse_stack and self._verse_stack[-1]:
                self.begin_drop()  # a title inside a container verse is not verse text
            else:
                self.begin_heading()
        elif name in BLOCKS:
            c.space()

    def end(self, name: str) -> None:
        c = self.collector
        if name == "verse":
            if self._verse_stack and self._verse_stack.pop():
                c.end()
        elif name == "work":
            self._work_depth -= 1
        elif name == "title" and self._in_work_title:
            self._in_work_title = False
        elif name in DROPPED:
            self.end_drop()
        elif name == "title":
            if c.in_verse and self._verse_stack and self._verse_stack[-1]:
                self.end_drop()
            else:
                self.end_heading()
        elif name in BLOCKS:
            c.space()
        elif name == "osis":
            c.end()

    def _on_text(self, data: str) -> None:
        if self._in_work_title:
            self.title = (self.title or "") + data
            return
        super()._on_text(data)

    def _begin_verse(self, osis_ids: str) -> None:
        c = self.collector
        first = osis_ids.split()[0] if osis_ids.split() else ""
        parsed = parse_osis_id(first)
        if parsed is None:
            c.end()
            if first:
                book = first.split(".")[0]
                if book not in self.skipped_books and book.lower() not in BY_OSIS:
                    self.skipped_books.append(book)
            return
        book, chapter, verse = parsed
        if c.book != book:
            c.end()
            c.book = book
        c.begin(chapter, verse)
