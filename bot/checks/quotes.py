"""Quotation fidelity: a quotation attached to a verse says what that verse says, word for word.

Quotations are compared without accents, case and punctuation; an ellipsis and a few omitted words
are allowed, a changed or added word is not. A misquotation becomes the verse's own words (or is
removed when no clause of the verse fits); a quotation introduced as Scripture without a reference
gets the reference of the retrieved verse it quotes, or is removed; the person's own words quoted
back are left alone, unless the answer gives them to a verse or to Scripture.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from bot.checks.spans import apply_edits, sentence_span, words
from corpus.bible import Bible
from corpus.references import Reference, find_references, verses_of
from corpus.text import fold

QUOTE = re.compile(r"“([^“”\n]+)”|«([^«»\n]+)»|\"([^\"\n]+)\"|(?<!\w)'([^'\n]+)'(?!\w)")
_ELLIPSIS = re.compile(r"\.{3}|…")
_CLAUSE = re.compile(r"[,;:.!?]")
MIN_WORDS = 3  # shorter quotations ("paz", "Deus é amor") are expressions, not citations
MAX_REPLACEMENT = 500  # characters of a verse put in place of an invented quotation


@dataclass(frozen=True)
class Alignment:
    ok: bool
    coverage: float  # share of the quotation's words found, in order, in the passage
    first: int = -1  # the passage's first and last matched words
    last: int = -1


@dataclass
class QuoteCheck:
    text: str
    corrections: list[dict] = field(default_factory=list)


@cache
def _cues() -> re.Pattern:
    lines = resources.files("bot").joinpath("data/scripture_cues.txt").read_text(encoding="utf-8").splitlines()
    phrases = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    return re.compile(r"\b(?:" + "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True)) + r")\b")


def align(quote: str, passage: str) -> Alignment:
    """How ``quote`` sits in ``passage``: ok when every word is there, in order, with few gaps between."""
    tokens = [w for w, _, _ in words(passage)]
    segments = [[w for w, _, _ in words(part)] for part in _ELLIPSIS.split(quote)]
    segments = [s for s in segments if s]
    total = sum(len(s) for s in segments)
    if not total:
        return Alignment(False, 0.0)
    position, matched, first, last, ok = 0, 0, -1, -1, True
    for segment in segments:
        found, start, end, gaps = _best_window(segment, tokens, position)
        if found == 0:
            ok = False
            continue
        matched += found
        first = start if first < 0 else first
        last, position = end, end + 1
        if gaps > max(2, len(segment) // 4):
            ok = False
    ok = ok and total - matched <= total // 20  # a changed or added word is a misquotation
    return Alignment(ok, matched / total, first, last)


def _best_window(segment: list[str], tokens: list[str], lo: int) -> tuple[int, int, int, int]:
    """(matched, first, last, omitted passage words) for the best window of ``tokens`` from ``lo``."""
    slack = max(2, len(segment) // 4) + 1
    heads = set(segment[:3])
    best = (0, -1, -1, 0)
    for start in range(lo, len(tokens)):
        if tokens[start] not in heads:
            continue
        pairs = _lcs(segment, tokens[start:start + len(segment) + slack])
        if not pairs:
            continue
        first, last = start + pairs[0][1], start + pairs[-1][1]
        gaps = last - first + 1 - len(pairs)
        if (len(pairs), -gaps) > (best[0], -best[3]):
            best = (len(pairs), first, last, gaps)
    return best


def _lcs(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """Index pairs of a longest common subsequence of ``a`` and ``b``."""
    rows = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            rows[i][j] = rows[i + 1][j + 1] + 1 if a[i] == b[j] else max(rows[i + 1][j], rows[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif rows[i + 1][j] >= rows[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def verse_words(passage: str, alignment: Alignment) -> str | None:
    """What the verse really says in place of a misquotation: the clauses it touched, or the whole
    passage when it touched too little; None when that would be too long to quote."""
    if alignment.coverage >= 0.5 and alignment.first >= 0:
        spans = words(passage)
        start, end = spans[alignment.first][1], spans[alignment.last][2]
        before = [m.end() for m in _CLAUSE.finditer(passage, 0, start)]
        after = _CLAUSE.search(passage, end)
        start = before[-1] if before else 0
        end = after.start() if after else len(passage)
        return passage[start:end].strip(" ,;:")
    return passage.strip() if len(passage) <= MAX_REPLACEMENT else None


def check_quotes(text: str, bible: Bible, retrieved: list[str], message: str = "") -> QuoteCheck:
    """Correct misquotations in ``text``; ``retrieved`` holds the verse ids given to the model."""
    refs = find_references(text)
    edits: list[tuple[int, int, str, bool]] = []  # (start, end, new text, whole sentence)
    result = QuoteCheck(text)
    for match in QUOTE.finditer(text):
        group = next(g for g in range(1, 5) if match.group(g) is not None)
        inner, inner_start, inner_end = match.group(group), match.start(group), match.end(group)
        if len(words(inner)) < MIN_WORDS:
            continue
        ref = _attached(text, refs, match.start(), match.end())
        cued = bool(_cues().search(fold(text[sentence_span(text, match.start(), match.end())[0]:match.start()])))
        if ref is None and not cued and message and align(inner, message).ok:
            continue  # the person's words quoted back; given to a verse or to Scripture, they are checked
        if ref is not None:
            passage = _passage(ref, bible)
            alignment = align(inner, passage)
            if alignment.ok:
                continue
            new = verse_words(passage, alignment)
            label = ref.label()
            if new is None:
                edits.append((*sentence_span(text, match.start(), match.end()), "", True))
                result.corrections.append({"reference": label, "quoted": inner, "action": "removed", "now": ""})
            else:
                edits.append((inner_start, inner_end, new, False))
                result.corrections.append({"reference": label, "quoted": inner, "action": "corrected", "now": new})
            continue
        found = _retrieved_match(inner, retrieved, bible)
        if found is not None:
            edits.append((match.end(), match.end(), f" ({found})", False))
            result.corrections.append({"reference": found, "quoted": inner, "action": "referenced", "now": inner})
        elif cued:
            edits.append((*sentence_span(text, match.start(), match.end()), "", True))
            result.corrections.append({"reference": "", "quoted": inner, "action": "removed", "now": ""})
    result.text = apply_edits(text, edits)
    return result


def _attached(text: str, refs: list[Reference], start: int, end: int) -> Reference | None:
    """The reference a quotation is given to: right after it ("” (João 3:16)"), or before it in its sentence."""
    for ref in refs:
        if ref.start >= end and re.fullmatch(r"[\s,(\[—–-]{0,4}", text[end:ref.start]):
            return ref
    before = [r for r in refs if r.end <= start and start - r.end <= 80
              and not re.search(r"[.!?\n“”«»\"]", text[r.end:start])]
    return before[-1] if before else None


def _passage(ref: Reference, bible: Bible) -> str:
    return " ".join(v.text for v in verses_of(ref, bible))


def _retrieved_match(quote: str, retrieved: list[str], bible: Bible) -> str | None:
    """The label of the retrieved verse (or two neighbouring ones) that ``quote`` quotes faithfully."""
    refs = [Reference.from_osis(verse_id) for verse_id in retrieved]
    verses = [v for v in (bible.get(r.book, r.chapter, r.verse) for r in refs) if v is not None]
    candidates = [(Reference(v.book, v.chapter, v.verse), v.text) for v in verses]
    by_key = {(v.book, v.chapter, v.verse): v for v in verses}
    for v in verses:
        following = by_key.get((v.book, v.chapter, v.verse + 1))
        if following is not None:
            candidates.append((Reference(v.book, v.chapter, v.verse, v.chapter, v.verse + 1),
                               f"{v.text} {following.text}"))
    for ref, passage in candidates:
        if align(quote, passage).ok:
            return ref.label()
    return None
