"""Find Bible references in free Portuguese text, validate them and format them back."""

from __future__ import annotations

import re
from dataclasses import dataclass

from corpus import booknames as names
from corpus.bible import Bible
from corpus.canon import BY_CODE
from corpus.text import fold, normalize
from corpus.verse import Verse

_HAS_DIGIT = re.compile(r"\d")
_TOKEN = re.compile(r"(\d+)(?:[oa]\.?(?![^\W_]))?|[^\W\d_]+|[:.,;-]")
_CHAPTER_WORDS = frozenset("cap capitulo capitulos c".split())
_VERSE_WORDS = frozenset("v vv vs ver vers versiculo versiculos verso".split())
_RANGE_WORDS = frozenset("a ao ate".split())
_LEAD_WORDS = frozenset("do no nos dos o os".split())  # before a verse word: "do versículo 3"
_LIST_WORDS = frozenset({"e"})
_MAX_NUMBER = 200


@dataclass(frozen=True, slots=True)
class Reference:
    """A passage: one verse, a verse range, a whole chapter or a chapter range."""

    book: str
    chapter: int
    verse: int | None = None
    end_chapter: int | None = None
    end_verse: int | None = None
    start: int = 0  # span in the normalised text
    end: int = 0

    @property
    def is_range(self) -> bool:
        return self.end_chapter is not None

    @property
    def last_chapter(self) -> int:
        return self.end_chapter if self.end_chapter is not None else self.chapter

    @classmethod
    def from_osis(cls, osis: str) -> Reference:
        """Inverse of `osis()`: "JHN.3.16", "1CO.13.4-1CO.13.7", "PSA.23", "GEN.1-GEN.2"."""
        first, _, last = osis.partition("-")
        book, chapter, *verse = first.split(".")
        start = cls(book, int(chapter), int(verse[0]) if verse else None)
        if not last:
            return start
        _, end_chapter, *end_verse = last.split(".")
        return cls(book, start.chapter, start.verse, int(end_chapter), int(end_verse[0]) if end_verse else None)

    def osis(self) -> str:
        """OSIS-style id: "JHN.3.16", "1CO.13.4-1CO.13.7", "PSA.23", "GEN.1-GEN.2"."""
        first = f"{self.book}.{self.chapter}" + (f".{self.verse}" if self.verse else "")
        if not self.is_range:
            return first
        last = f"{self.book}.{self.end_chapter}" + (f".{self.end_verse}" if self.end_verse else "")
        return f"{first}-{last}"

    def label(self) -> str:
        """Portuguese form: "João 3:16", "1 Coríntios 13:4-7", "Salmos 23", "João 3:16-4:2"."""
        text = f"{BY_CODE[self.book].name} {self.chapter}" + (f":{self.verse}" if self.verse else "")
        if not self.is_range:
            return text
        if self.verse is None:
            return f"{text}-{self.end_chapter}"
        if self.end_chapter == self.chapter:
            return f"{text}-{self.end_verse}"
        return f"{text}-{self.end_chapter}:{self.end_verse}"


def find_references(text: str) -> list[Reference]:
    """Every well-formed reference in ``text``, in order of appearance (not validated)."""
    if not _HAS_DIGIT.search(text):
        return []
    normal = normalize(text)
    return _Parser(normal).parse()


def parse_reference(text: str) -> Reference | None:
    """The first reference in ``text``, or None."""
    found = find_references(text)
    return found[0] if found else None


def exists(ref: Reference, bible: Bible | None = None) -> bool:
    """True if every endpoint of ``ref`` is in ``bible`` (or, without one, in the canon's chapters)."""
    if bible is None:
        book = BY_CODE[ref.book]
        return 1 <= ref.chapter <= ref.last_chapter <= book.chapters and _ordered(ref)
    if ref.verse is None:
        return bible.has_chapter(ref.book, ref.chapter) and bible.has_chapter(ref.book, ref.last_chapter) \
            and ref.chapter <= ref.last_chapter
    first = bible.position(ref.book, ref.chapter, ref.verse)
    if first is None:
        return False
    if not ref.is_range:
        return True
    last = bible.position(ref.book, ref.last_chapter, ref.end_verse or 0)
    return last is not None and last >= first


def verses_of(ref: Reference, bible: Bible) -> list[Verse]:
    """The verses a reference covers, in canonical order ([] if it does not exist)."""
    if not exists(ref, bible):
        return []
    if ref.verse is None:
        first = bible.position(ref.book, ref.chapter, min(_verse_numbers(bible, ref.book, ref.chapter)))
        last_chapter = ref.last_chapter
        last = bible.position(ref.book, last_chapter, bible.chapters(ref.book)[last_chapter])
    else:
        first = bible.position(ref.book, ref.chapter, ref.verse)
        last = first if not ref.is_range else bible.position(ref.book, ref.last_chapter, ref.end_verse or 0)
    return list(bible.verses[first: last + 1])


def _verse_numbers(bible: Bible, book: str, chapter: int) -> list[int]:
    return [n for n in range(1, bible.chapters(book)[chapter] + 1) if bible.position(book, chapter, n) is not None]


def _ordered(ref: Reference) -> bool:
    if ref.is_range and ref.end_chapter == ref.chapter and ref.verse and ref.end_verse:
        return ref.end_verse >= ref.verse
    return True


class _Parser:
    """A small recursive-descent parser over the tokens of one normalised message."""

    def __init__(self, normal: str):
        self.text = normal
        folded = fold(normal.replace("º", " ").replace("ª", " "))  # "1ºCo": the ordinal mark splits
        self.kinds: list[str] = []  # "n" number, "w" word, or the punctuation itself
        self.values: list[str] = []
        self.spans: list[tuple[int, int]] = []
        for m in _TOKEN.finditer(folded):
            number = m.group(1)
            self.kinds.append("n" if number else ("w" if m.group()[0].isalpha() else m.group()))
            self.values.append(number or m.group())
            self.spans.append(m.span())
        self.refs: list[Reference] = []

    # -- token helpers ----------------------------------------------------------
    def kind(self, i: int) -> str:
        return self.kinds[i] if i < len(self.kinds) else ""

    def word(self, i: int) -> str:
        return self.values[i] if self.kind(i) == "w" else ""

    def number(self, i: int) -> int | None:
        if self.kind(i) != "n" or len(self.values[i]) > 3:
            return None
        value = int(self.values[i])
        return value if value <= _MAX_NUMBER else None

    # -- grammar ------------------------------------------------------------------
    def parse(self) -> list[Reference]:
        i = 0
        while i < len(self.kinds):
            book = self.book_at(i)
            nxt = self.passage(book[0], i, book[1], book[2]) if book else None
            i = nxt if nxt is not None else i + 1
        return self.refs

    def book_at(self, i: int) -> tuple[str, int, bool] | None:
        """(code, index after the name, ambiguous?) for a book name starting at token i."""
        ordinal = None
        if self.kind(i) == "n" and self.values[i] in ("1", "2", "3", "4"):
            ordinal, i = int(self.values[i]), i + 1 + (self.kind(i + 1) == ".")
        elif self.word(i) in names.ORDINALS:
            ordinal, i = names.ORDINALS[self.values[i]], i + 1
        if self.word(i) in names.INTRO_WORDS:
            j = i + 1
            while (self.word(j) in names.CONNECTOR_WORDS or self.kind(j) == ".") and j - i <= names.MAX_CONNECTORS + 1:
                j += 1
            found = self._name_at(j, ordinal)
            if found:
                return found
        elif ordinal is not None:  # "Primeira aos Coríntios", "1ª de Pedro"
            j = i
            while (self.word(j) in names.CONNECTOR_WORDS or self.kind(j) == ".") and j - i < names.MAX_CONNECTORS + 1:
                j += 1
            return self._name_at(j, ordinal)
        return self._name_at(i, ordinal)

    def _name_at(self, i: int, ordinal: int | None) -> tuple[str, int, bool] | None:
        if self.word(i) not in names.FIRST_TOKENS:
            return None
        for size in range(min(names.MAX_FORM_TOKENS, len(self.kinds) - i), 0, -1):
            form = tuple(self.values[i: i + size])
            if any(k != "w" for k in self.kinds[i: i + size]):
                continue
            end = i + size
            if ordinal is None and form in names.PLAIN_FORMS:
                code = names.PLAIN_FORMS[form]
                if code == "JOB" and form == ("jo",) and not self._accented(i):
                    code = "JHN"
                elif code == "JHN" and form == ("jo",) and self._accented(i):
                    code = "JOB"
                return code, end, self._needs_verse(form, i)
            if ordinal is not None and form in names.NUMBERED_FORMS:
                codes = names.NUMBERED_FORMS[form]
                if ordinal <= len(codes) and codes[ordinal - 1]:
                    return codes[ordinal - 1], end, self._needs_verse(form, i)
                return None
        return None

    def _needs_verse(self, form: tuple[str, ...], i: int) -> bool:
        """True for forms that are everyday words: only "chapter:verse" makes them a book."""
        if len(form) != 1:
            return False
        if form[0] in names.SHORTHAND:
            return not self.text[self.spans[i][0]].isupper()
        return form[0] in names.AMBIGUOUS

    def _accented(self, i: int) -> bool:
        start, end = self.spans[i]
        return any(ord(c) > 127 for c in self.text[start:end])

    def passage(self, code: str, first: int, i: int, ambiguous: bool) -> int | None:
        """Parse "3:16-18, 20; 4:1" after a book name; record references; index after them."""
        if self.kind(i) == ".":
            i += 1
        if self.kind(i) == ",":
            i += 1
        explicit_chapter = self.word(i) in _CHAPTER_WORDS
        if explicit_chapter:
            i += 1
            if self.kind(i) == ".":
                i += 1
        parsed = self.chapter_and_verses(code, i, explicit_chapter)
        if parsed is None:
            return None
        ref, i, separator = parsed
        if ambiguous and ref.verse is None:
            return None
        self.add(ref, first, i)
        while True:  # lists: "16,18" "; 4:1" "e 18"
            kind = self.kind(i)
            if kind in (",", ";") or self.word(i) in _LIST_WORDS:
                if self.number(i + 1) is None or self._starts_book(i + 1) or self._counts_something(i + 1):
                    break
                cross_chapter = self.kind(i + 2) in (":", ".") and self.number(i + 3) is not None
                if kind == ";" or cross_chapter or ref.verse is None:
                    parsed = self.chapter_and_verses(code, i + 1, explicit_chapter)
                elif separator != ",":
                    parsed = self.verses_in_chapter(code, ref.last_chapter, i + 1) + (separator,)
                else:
                    break
                if parsed is None:
                    break
                ref, end, _ = parsed
                self.add(ref, i + 1, end)
                i = end
            else:
                break
        return i

    def chapter_and_verses(self, code: str, i: int, explicit_chapter: bool):
        chapter = self.number(i)
        if chapter is None:
            return None
        i += 1
        separator = self.kind(i)
        # "3,16" is chapter and verse; "23, 91" a list of chapters, but "21, 4" (a smaller number) a verse
        if separator in (":", ".", ",") and self.number(i + 1) is not None \
                and not (separator == "," and not self._tight(i) and self.number(i + 1) >= chapter):
            return self.verses_in_chapter(code, chapter, i + 1) + (separator,)
        if self.number(i) is not None and not self._starts_book(i) and not self._counts_something(i):
            return self.verses_in_chapter(code, chapter, i) + (":",)  # "jo 14 6": typed without the colon
        j = i + (self.kind(i) == ",")
        if self.word(j) in _LEAD_WORDS and self.word(j + 1) in _VERSE_WORDS:  # "capítulo 5, do versículo 3 ao 10"
            j += 1
        if self.word(j) in _VERSE_WORDS:
            j += 1 + (self.kind(j + 1) == ".")
            if self.number(j) is not None:
                return self.verses_in_chapter(code, chapter, j) + (":",)
        single_chapter_book = BY_CODE[code].chapters == 1 and not explicit_chapter
        end = self._range_end(i)
        if single_chapter_book and (chapter != 1 or end is not None):
            return self.verses_in_chapter(code, 1, i - 1) + (":",)
        if end is not None:
            last, i = end
            return Reference(code, chapter, None, last), i, ""
        return Reference(code, chapter), i, ""

    def verses_in_chapter(self, code: str, chapter: int, i: int):
        verse = self.number(i)
        i += 1
        end = self._range_end(i)
        if end is None:
            return Reference(code, chapter, verse), i
        last, i = end
        if self.kind(i) in (":", ".") and self.number(i + 1) is not None and not self._starts_book(i + 1):
            return Reference(code, chapter, verse, last, self.number(i + 1)), i + 2
        return Reference(code, chapter, verse, chapter, last), i

    def _range_end(self, i: int) -> tuple[int, int] | None:
        if self.kind(i) == "-" or self.word(i) in _RANGE_WORDS:
            last = self.number(i + 1)
            if last is not None and not self._starts_book(i + 1):
                return last, i + 2
        return None

    def _tight(self, i: int) -> bool:
        """True when token i touches both neighbours ("3,16" is chapter and verse; "23, 91" a list)."""
        return self.spans[i - 1][1] == self.spans[i][0] and self.spans[i][1] == self.spans[i + 1][0]

    def _counts_something(self, i: int) -> bool:
        """True when the number at i counts a noun ("e 2 pessoas"), so it is no verse."""
        nxt = self.word(i + 1)
        return bool(nxt) and nxt not in _RANGE_WORDS and nxt not in _LIST_WORDS

    def _starts_book(self, i: int) -> bool:
        """True when the number at i is the ordinal of a following book name ("2 Co")."""
        return self.kind(i) == "n" and self.kind(i + 1) == "w" and self.book_at(i) is not None

    def add(self, ref: Reference, first: int, after: int) -> None:
        start, end = self.spans[first][0], self.spans[after - 1][1]
        self.refs.append(Reference(ref.book, ref.chapter, ref.verse, ref.end_chapter, ref.end_verse, start, end))
