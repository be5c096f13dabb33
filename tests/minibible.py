"""A tiny made-up Bible (our own sentences, not any translation) for index and pipeline tests."""

from __future__ import annotations

# A tiny made-up Bible (our own sentences, not any translation) for index tests.
MINI_BIBLE = {
    ("PSA", 23): [
        "O Senhor cuida de mim como um pastor cuida das ovelhas.",
        "Ele me leva a descansar junto de águas tranquilas.",
        "Mesmo no vale escuro não terei medo, porque ele está comigo.",
    ],
    ("PSA", 56): [
        "Quando sinto temor, eu confio em ti.",
        "Em Deus confio e não temerei o que me possam fazer.",
    ],
    ("PRO", 6): [
        "Vai ter com a formiga, ó preguiçoso, e aprende com ela.",
        "O preguiçoso dorme enquanto a colheita se perde.",
    ],
    ("MAT", 5): [
        "Felizes os que promovem a paz entre as pessoas.",
        "Amai os vossos inimigos e orai também por quem vos maltrata.",
        "Sede perfeitos como o vosso Pai celestial é perfeito.",
    ],
    ("JHN", 14): [
        "Não se turbe o vosso coração; crede em Deus.",
        "Deixo-vos a paz, a minha paz vos dou; não tenhais medo.",
    ],
    ("ROM", 8): [
        "Todas as coisas cooperam para o bem dos que amam a Deus.",
        "Coisa alguma poderá afastar-nos do amor de Deus.",
    ],
}


def mini_usfx(changes: dict[tuple[str, int, int], str] | None = None) -> str:
    """The made-up Bible as USFX, with optional verse texts replaced."""
    changes = changes or {}
    parts = ['<?xml version="1.0" encoding="utf-8"?>\n<usfx>']
    books: dict[str, list] = {}
    for (book, chapter), verses in MINI_BIBLE.items():
        books.setdefault(book, []).append((chapter, verses))
    for book, chapters in books.items():
        parts.append(f'<book id="{book}">')
        for chapter, verses in chapters:
            parts.append(f'<c id="{chapter}"/><p>')
            for n, text in enumerate(verses, start=1):
                parts.append(f'<v id="{n}"/>{changes.get((book, chapter, n), text)}<ve/>')
            parts.append("</p>")
        parts.append("</book>")
    parts.append("</usfx>\n")
    return "\n".join(parts)


MINI_VERSES = sum(len(v) for v in MINI_BIBLE.values())
