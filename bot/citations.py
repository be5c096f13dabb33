"""Validate an answer's citations against the verses actually retrieved; remove what is not."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from bot import texts
from corpus.bible import Bible
from corpus.references import Reference, exists, find_references, verses_of

_MARKER = re.compile(r"\s*[\[(]\s*fontes?\s*(\d+)\s*[\])]", re.IGNORECASE)
_BARE_MARKER = re.compile(r"\bFONTES?\s*\d+\b:?\s*")
_CLEANUP = [
    (re.compile(r"\(\s*(?:[,;]|\be\b|\s)*\)"), ""),  # "( )", "(; )", "(e)"
    (re.compile(r"\(\s*[,;]\s*"), "("),
    (re.compile(r"\s*[,;]\s*\)"), ")"),
    (re.compile(r"\b(?:em|de|conforme|segundo|cf\.?|veja|vide|lemos em|como diz|como está em|citado em)\s*"
                r"(?=[,.;:!?)]|$)", re.IGNORECASE | re.MULTILINE), ""),
    (re.compile(r"\s+(?:e|ou)\s*(?=[,.;:!?)]|$)", re.MULTILINE), ""),
    (re.compile(r"[ \t]+([,.;:!?)])"), r"\1"),
    (re.compile(r"([(\[])[ \t]+"), r"\1"),
    (re.compile(r",\s*,"), ","),
    (re.compile(r"([.!?])\s*[,;]"), r"\1"),
    (re.compile(r"(?<!\.)([.!?])[ \t]*\.(?!\.)"), r"\1"),  # "remédio. Veja." with "Veja" gone
    (re.compile(r"(^|\n)\s*[,;:]\s*"), r"\1"),
    (re.compile(r"^[ \t]*[-*•][ \t]*$\n?", re.MULTILINE), ""),
    (re.compile(r"[ \t]{2,}"), " "),
    (re.compile(r"[ \t]+$", re.MULTILINE), ""),
    (re.compile(r"\n{3,}"), "\n\n"),
]


_SENTENCE_START = re.compile(r"(^|[.!?]\s+|\n)([a-zà-ÿ])")


@dataclass
class ValidatedAnswer:
    text: str
    kept: list[str] = field(default_factory=list)  # "João 3:16", as now written in the text
    removed: list[str] = field(default_factory=list)  # as the model wrote them
    trimmed: list[str] = field(default_factory=list)  # "Filipenses 4:6-8 -> Filipenses 4:6-7"

    @property
    def anchored(self) -> bool:
        return bool(self.kept)


def validate(answer: str, retrieved: list[str], bible: Bible, note: bool = True) -> ValidatedAnswer:
    """Keep citations whose every verse was retrieved, trim ranges to the retrieved run, drop the rest.

    Rule for ranges and chapters: a citation is kept when all its verses were
    retrieved; when only some were and they form one unbroken run, it is trimmed
    to that run; otherwise it is removed. ``retrieved`` holds verse ids
    ("JHN.3.16") in the order the sources were given ([FONTE 1] first). With ``note``, an answer
    left without any citation ends with the fixed unanchored note.
    """
    text = unicodedata.normalize("NFC", answer)
    text = _replace_markers(text, retrieved, bible)
    have = set(retrieved)
    result = ValidatedAnswer(text)
    edits: list[tuple[int, int, str]] = []
    for ref in find_references(text):
        written = text[ref.start:ref.end]
        replacement = _supported(ref, have, bible)
        if replacement is None:
            result.removed.append(written)
            edits.append((ref.start, ref.end, ""))
        else:
            if replacement.osis() != ref.osis():
                result.trimmed.append(f"{written} -> {replacement.label()}")
            result.kept.append(replacement.label())
            edits.append((ref.start, ref.end, replacement.label()))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    if result.removed:
        for pattern, repl in _CLEANUP:
            text = pattern.sub(repl, text)
        text = _SENTENCE_START.sub(lambda m: m.group(1) + m.group(2).upper(), text.strip())
    text = text.strip()
    result.kept = list(dict.fromkeys(result.kept))
    if note and not result.kept:
        text = f"{text}\n\n{texts.UNANCHORED_NOTE}" if text else texts.UNANCHORED_NOTE
    result.text = text
    return result


def _supported(ref: Reference, have: set[str], bible: Bible) -> Reference | None:
    if not exists(ref, bible):
        return None
    verses = verses_of(ref, bible)
    flags = [v.id in have for v in verses]
    if all(flags):
        return ref
    runs, start = [], None
    for i, flag in enumerate(flags + [False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            runs.append((start, i - 1))
            start = None
    if len(runs) != 1:
        return None
    first, last = verses[runs[0][0]], verses[runs[0][1]]
    if first.key == last.key:
        return Reference(first.book, first.chapter, first.verse)
    return Reference(first.book, first.chapter, first.verse, last.chapter, last.verse)


def _replace_markers(text: str, retrieved: list[str], bible: Bible) -> str:
    """"[FONTE 2]" becomes "(Salmos 23:1)", or nothing when that reference was just written."""

    def label_of(number: int) -> str:
        if not 1 <= number <= len(retrieved):
            return ""
        book, chapter, verse = retrieved[number - 1].split(".")
        found = bible.get(book, int(chapter), int(verse))
        return Reference(found.book, found.chapter, found.verse).label() if found else ""

    def replace(match: re.Match) -> str:
        label = label_of(int(match.group(1)))
        before = text[max(0, match.start() - 60):match.start()]
        if not label or label in before:
            return ""
        return f" ({label})"

    text = _MARKER.sub(replace, text)
    return _BARE_MARKER.sub("", text)
