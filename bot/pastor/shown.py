"""What an answer shows of the retrieval: its sources, the verses themselves without a model, what is missing."""

from __future__ import annotations

from bot import texts
from bot.reply import Source
from corpus.bible import Bible
from corpus.canon import BY_CODE
from corpus.references import Reference, find_references, verses_of
from retrieval.results import SearchResult, Status
from retrieval.retriever import label


def sources_of(result: SearchResult, max_reference_verses: int, max_sources: int) -> list[Source]:
    """The retrieved verses (each hit with its merged neighbours), in rank order, without repeats."""
    limit = max_reference_verses if result.status == Status.REFERENCE else max_sources
    out, seen = [], set()
    for hit in result.hits:
        for verse in (hit.verse, *hit.merged):
            if verse is not None and verse.id not in seen:
                seen.add(verse.id)
                out.append(Source(verse.id, label(verse), verse.text))
    return out[:limit]


def cited_first(sources: list[Source], citations: list[str], bible: Bible) -> list[Source]:
    """The sources the answer cites first, in the order it cites them; the others after, in rank order."""
    cited = [v.id for label_ in citations for ref in find_references(label_) for v in verses_of(ref, bible)]
    order = {verse_id: i for i, verse_id in enumerate(dict.fromkeys(cited))}
    return sorted(sources, key=lambda s: order.get(s.id, len(order)))


def extractive(result: SearchResult, max_reference_verses: int) -> tuple[str, list[str]]:
    """The `none` provider: the best passages themselves with a short framing, no generation."""
    reference = result.status == Status.REFERENCE
    hits = result.hits[:max_reference_verses] if reference else result.hits[:3]
    if reference:
        passages = [([h.verse], label(h.verse)) for h in hits]
    else:
        passages = []
        for hit in hits:
            verses = sorted((hit.verse, *hit.merged), key=lambda v: v.verse)
            ref = Reference(verses[0].book, verses[0].chapter, verses[0].verse,
                            *((verses[-1].chapter, verses[-1].verse) if len(verses) > 1 else ()))
            passages.append((verses, ref.label()))
    intro = {"livro": texts.EXTRACTIVE_BOOK_INTRO, "ensino": texts.EXTRACTIVE_TEACHING_INTRO,
             "pessoa": texts.EXTRACTIVE_PERSON_INTRO.format(name=result.named),
             "passagem": texts.EXTRACTIVE_PASSAGE_INTRO.format(name=result.named),
             "historia": texts.EXTRACTIVE_STORY_INTRO.format(name=result.named),
             "lugar": texts.EXTRACTIVE_PLACE_INTRO.format(name=result.named)}.get(
        result.mode, texts.EXTRACTIVE_REFERENCE_INTRO if reference else texts.EXTRACTIVE_INTRO)
    quoted = [f"“{' '.join(v.text for v in verses)}” ({where})" for verses, where in passages]
    if result.mode == "citacao" and quoted:  # a verse quoted or half remembered: the one it seems to be, then the
        lines = [texts.EXTRACTIVE_QUOTE_INTRO, quoted[0]]  # others its words are near, said to be others
        lines += [texts.EXTRACTIVE_QUOTE_OTHERS, *quoted[1:]] if len(quoted) > 1 else []
    else:
        lines = [intro, *quoted]
    return "\n\n".join(lines), [where for _, where in passages]


def missing_details(ids: list[str], bible: Bible) -> str:
    """What does exist, without repeating the reference that does not ("Mateus tem 28 capítulos")."""
    out = []
    for osis in ids:
        ref = Reference.from_osis(osis)
        name, chapters = BY_CODE[ref.book].name, bible.chapters(ref.book)
        if not chapters:
            continue
        if ref.chapter in chapters and ref.last_chapter in chapters:
            out.append(texts.CHAPTER_VERSES.format(book=name, chapter=ref.chapter, count=chapters[ref.chapter]))
        else:
            out.append(texts.BOOK_CHAPTERS.format(book=name, count=len(chapters)))
    return "".join(dict.fromkeys(out))
