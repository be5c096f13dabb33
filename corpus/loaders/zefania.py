"""Zefania XML loader: BIBLEBOOK bnumber, CHAPTER cnumber, VERS vnumber."""

from __future__ import annotations

from corpus.canon import BY_NUMBER
from corpus.loaders.xmlreader import XmlBibleReader, leading_int

DROPPED = frozenset("NOTE DIV XREF PROLOG REMARK MEDIA INFORMATION".split())
HEADINGS = frozenset({"CAPTION"})
BLOCKS = frozenset({"BR"})


class ZefaniaReader(XmlBibleReader):
    """Streams the verses of a Zefania XML file."""

    format_name = "Zefania XML"
    DROPPED, HEADINGS, BLOCKS = DROPPED, HEADINGS, BLOCKS

    def __init__(self, path):
        super().__init__(path)
        self._skipping_book = False
        self._in_title = False

    def start(self, name: str, attrs: dict[str, str]) -> None:
        c = self.collector
        if name == "XMLBIBLE":
            self.title = attrs.get("biblename") or None
        elif name == "BIBLEBOOK":
            c.end()
            number = leading_int(attrs.get("bnumber"))
            book = BY_NUMBER.get(number)
            self._skipping_book = book is None
            if book is None:
                self.skipped_books.append(attrs.get("bname") or str(number))
            c.book = book.code if book else None
            c.chapter, c.heading = 0, None
        elif self._skipping_book:
            return
        elif name == "CHAPTER":
            c.end()
            c.chapter = leading_int(attrs.get("cnumber"))
        elif name == "VERS":
            verse = leading_int(attrs.get("vnumber"))
            if verse and c.chapter:
                c.begin(c.chapter, verse)
        else:
            self.markup_start(name)

    def end(self, name: str) -> None:
        c = self.collector
        if name == "BIBLEBOOK":
            c.end()
            self._skipping_book = False
        elif self._skipping_book:
            return
        elif name == "VERS":
            c.end()
        else:
            self.markup_end(name)

