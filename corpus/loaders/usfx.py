"""USFX loader: milestone verses (<v/> … <ve/>), headings as metadata, notes dropped."""

from __future__ import annotations

from corpus.canon import BY_CODE
from corpus.loaders.xmlreader import XmlBibleReader, leading_int

# Elements whose text is never verse text: notes, cross references, book titles,
# tables of contents, alternate verse numbers and other apparatus.
DROPPED = frozenset(
    "f fe x ef ex h toc id ide rem ca va vp cp cl fig periph sts milestone "
    "languageCode generated restore ref-placeholder".split()
)
# Section headings kept as metadata for the verses that follow.
HEADINGS = frozenset("s ms mr sr d".split())
# Paragraph-like containers: a boundary between words.
BLOCKS = frozenset("p q qs b li tr tc th table mt imt is ip io iot".split())


class UsfxReader(XmlBibleReader):
    """Streams the verses of a USFX file."""

    format_name = "USFX"
    DROPPED, HEADINGS, BLOCKS = DROPPED, HEADINGS, BLOCKS

    def __init__(self, path):
        super().__init__(path)
        self._skipping_book = False

    def start(self, name: str, attrs: dict[str, str]) -> None:
        c = self.collector
        if name == "book":
            c.end()
            code = attrs.get("id", "").upper()
            self._skipping_book = code not in BY_CODE
            if self._skipping_book:
                self.skipped_books.append(code)
            c.book = None if self._skipping_book else code
            c.chapter, c.heading = 0, None
        elif self._skipping_book:
            return
        elif name == "c":
            c.end()
            c.chapter = leading_int(attrs.get("id"))
        elif name == "v":
            verse = leading_int(attrs.get("id"))
            if verse and c.chapter:
                c.begin(c.chapter, verse)
        elif name == "ve":
            c.end()
        else:
            self.markup_start(name)

    def end(self, name: str) -> None:
        c = self.collector
        if name == "book":
            c.end()
            self._skipping_book = False
        elif self._skipping_book:
            return
        elif name == "usfx":
            c.end()
        else:
            self.markup_end(name)

