"""What a reply says around passages: how much of a chapter is shown, a book's size, which person is meant."""

from __future__ import annotations

from bot import texts
from corpus.bible import Bible
from corpus.canon import BY_CODE
from corpus.references import Reference
from corpus.verse import Verse
from retrieval.results import SearchResult, Status


def span(verses: list[Verse]) -> str:
    """ "Salmos 119:1-30" for consecutive verses of one book; "" when they cross books."""
    first, last = verses[0], verses[-1]
    if first.book != last.book:
        return ""
    if first.key == last.key:
        return Reference(first.book, first.chapter, first.verse).label()
    return Reference(first.book, first.chapter, first.verse, last.chapter, last.verse).label()


def continuation(result: SearchResult, shown: int, step: int) -> str:
    """For a reference longer than what is shown: what was shown and the next passage to ask for."""
    if result.status != Status.REFERENCE or result.total <= shown or len(result.hits) <= shown:
        return ""
    seen = [h.verse for h in result.hits[:shown]]
    start = result.hits[shown].verse
    following = [h.verse for h in result.hits[shown: shown + step]
                 if h.verse.book == start.book and h.verse.chapter == start.chapter]
    return texts.LONG_PASSAGE.format(shown=span(seen) or texts.FIRST_VERSES.format(count=shown), count=shown,
                                     total=result.total, next=span(following))


def book_facts(bible: Bible, result: SearchResult) -> tuple[str, str]:
    """For a question about a whole book: its size first, and how to read it after the verses."""
    if result.mode != "livro" or result.scope is None:
        return "", ""
    (code,) = result.scope.books
    name, chapters = BY_CODE[code].name, bible.chapters(code)
    verses = sum(chapters.values())
    size = (texts.BOOK_ONE_CHAPTER.format(book=name, verses=verses) if len(chapters) == 1
            else texts.BOOK_SIZE.format(book=name, chapters=len(chapters), verses=verses))
    first = min(chapters)
    return size, texts.BOOK_READING.format(chapter=f"{name} {first}", passage=f"{name} {first}:1-10")


def which_one(result: SearchResult) -> str:
    """For a name several well-known people share ("quem foi Tiago?"): who they are, and which is meant."""
    if not result.homonyms:
        return ""
    gender = "feminino" if all(h.get("gender") == "Female" for h in result.homonyms) else "masculino"
    descriptions = [h["description"] for h in result.homonyms]
    return texts.HOMONYMS.format(name=result.named, options="; ".join(descriptions), first=descriptions[0],
                                 **texts.HOMONYMS_WORDS[gender])


def asked_which(text: str) -> bool:
    """Whether a reply ended asking which of several people of one name is meant."""
    return any(text.rstrip().endswith(texts.HOMONYMS.format(name="", options="", first="", **words).rsplit(". ", 1)[1])
               for words in texts.HOMONYMS_WORDS.values())
