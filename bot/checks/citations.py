"""Validate an answer's citations against the verses actually retrieved; remove what is not."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from bot import texts
from bot.checks.spans import apply_edits, sentence_span
from corpus.bible import Bible
from corpus.references import Reference, exists, find_references, verses_of

_MARKER = re.compile(r"\s*[\[(]\s*fontes?\s*(\d+)\s*[\])]", re.IGNORECASE)
_BARE_MARKER = re.compile(r"\bFONTES?\s*\d+\b:?\s*")
# what may stand between two references of one list: "A, B", "A; B", "A e B", "A e de B", "A ou em B"
_JOINER = re.compile(r"[ \t]*(?:[,;]|,?[ \t]*\b(?:e|ou)\b)?[ \t]*(?:\b(?:de|em|do|da|no|na)[ \t]+)?")
_OPEN_PAREN = re.compile(r"[ \t]*\([ \t]*(?:(?:cf\.?|veja|vide|ver)[ \t]+)?$", re.IGNORECASE)
_INTRO = (r"(?:como (?:está|esta) (?:escrito )?em|como (?:diz|ensina|lemos em|vemos em|mostra)|conforme|segundo"
          r"|de acordo com|lemos em|vemos em|em|veja|leia|cf\.?)")
_LEAD = re.compile(rf"[ \t]*{_INTRO}[ \t]+$", re.IGNORECASE)  # "Como está em X, tudo coopera.", "Veja X e ore."
_TAIL = re.compile(rf",[ \t]*{_INTRO}[ \t]+$", re.IGNORECASE)  # "Tudo coopera, como está em X."
_DASH = re.compile(r"[ \t]*[—–-][ \t]*$")
_BOUNDARY = re.compile(r"[ \t]*(?:[,;—–]|\s(?:e|ou|mas)\s)")  # where a clause starts or ends
_TIDY = [
    (re.compile(r"[ \t]+([,.;:!?)])"), r"\1"),
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
    refs, labels = find_references(text), []
    for ref in refs:
        written = text[ref.start:ref.end]
        replacement = _supported(ref, have, bible)
        if replacement is None:
            result.removed.append(written)
        else:
            if replacement.osis() != ref.osis():
                result.trimmed.append(f"{written} -> {replacement.label()}")
            result.kept.append(replacement.label())
        labels.append(None if replacement is None else replacement.label())
    text = apply_edits(text, _edits(text, refs, labels))
    if result.removed:
        for pattern, repl in _TIDY:
            text = pattern.sub(repl, text)
        text = _SENTENCE_START.sub(lambda m: m.group(1) + m.group(2).upper(), text.strip())
    text = text.strip()
    result.kept = [label for label in dict.fromkeys(result.kept) if label in text]
    if note and not result.kept:
        text = f"{text}\n\n{texts.UNANCHORED_NOTE}" if text else texts.UNANCHORED_NOTE
    result.text = text
    return result


def _edits(text: str, refs: list[Reference], labels: list[str | None]) -> list[tuple[int, int, str, bool]]:
    """Each list of references rewritten: a removed one leaves the list with its joiner; a list left empty goes
    with its parentheses or dash, or else with its whole sentence (never "Lembre de e de ()")."""
    chains: list[list[int]] = []
    for i, ref in enumerate(refs):
        if chains and _JOINER.fullmatch(text[refs[chains[-1][-1]].end:ref.start]):
            chains[-1].append(i)
        else:
            chains.append([i])
    edits, sentences = [], []
    for chain in chains:
        first, last = refs[chain[0]], refs[chain[-1]]
        kept = [labels[i] for i in chain if labels[i] is not None]
        if kept and len(kept) == len(chain):
            edits += [(refs[i].start, refs[i].end, labels[i], False) for i in chain]
        elif kept:
            joined = "; ".join(kept) if ";" in text[first.start:last.end] else (
                kept[0] if len(kept) == 1 else ", ".join(kept[:-1]) + " e " + kept[-1])
            edits.append((first.start, last.end, joined, False))
        elif (opened := _OPEN_PAREN.search(text, 0, first.start)) and re.match(r"[ \t]*\)", text[last.end:]):
            edits.append((opened.start(), last.end + text[last.end:].index(")") + 1, "", False))
        elif (dash := _DASH.search(text, 0, first.start)) and re.match(r"[ \t]*(?:[.!?]|\n|$)", text[last.end:]):
            edits.append((dash.start(), last.end, "", False))
        elif (_LEAD.match(text, begin := sentence_span(text, first.start, last.end)[0], first.start)
              and (comma := re.match(r"[ \t]*(?:,|\be\b)[ \t]*", text[last.end:]))):
            begin += len(text[begin:first.start]) - len(text[begin:first.start].lstrip())
            edits.append((begin, last.end + comma.end(), "", False))
        elif (tail := _TAIL.search(text, 0, first.start)) and re.match(r"[ \t]*(?:[.!?]|\n|$)", text[last.end:]):
            edits.append((tail.start(), last.end, "", False))
        else:
            clause = _clause(text, refs, labels, first, last)
            if clause is None:
                sentences.append(sentence_span(text, first.start, last.end))
            else:
                edits.append((*clause, "", False))
    inside = [e for e in edits if not any(s <= e[0] and e[1] <= t for s, t in sentences)]
    return inside + [(s, t, "", True) for s, t in sentences]


def _clause(text: str, refs, labels, first: Reference, last: Reference) -> tuple[int, int] | None:
    """The clause of a removed list whose sentence keeps another citation ("Ele te guia (Salmos 23:1) e não
    Mateus 29:3." loses " e não Mateus 29:3"), or None: the whole sentence goes."""
    begin, finish = sentence_span(text, first.start, last.end)
    kept = [r for r, label in zip(refs, labels) if label is not None and begin <= r.start < finish]
    if not kept:
        return None
    lo = max([r.end for r in kept if r.end <= first.start], default=begin)
    hi = min([r.start for r in kept if r.start >= last.end], default=finish)
    while hi > last.end and text[hi - 1] in ".!?…":
        hi -= 1
    left = list(_BOUNDARY.finditer(text, lo, first.start))
    right = _BOUNDARY.search(text, last.end, hi)
    if left:
        return left[-1].start(), right.start() if right else hi
    if lo == begin and right is not None:
        return begin + len(text[begin:first.start]) - len(text[begin:first.start].lstrip()), right.end()
    return None


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
