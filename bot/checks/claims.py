"""Unquoted claims about a verse: "Isaías 41:10 diz que ...", "Isaías 41:10 — ...", "Segundo Isaías 41:10, ...".

Words presented as the content of a cited verse must share the verse's meaning words (stemmed, the names of
God aside): a paraphrase passes, an invented content becomes the verse's own words in quotation marks (or
goes with its sentence when the passage is too long to quote), as quotes.py does with quotations.
"""

from __future__ import annotations

import re
from functools import cache

from bot.checks.quotes import MAX_REPLACEMENT, QUOTE, QuoteCheck
from bot.checks.spans import apply_edits, sentence_span
from corpus.bible import Bible
from corpus.references import Reference, find_references, verses_of
from corpus.text import fold

MIN_SHARE = 0.5  # share of the claim's meaning words that the verse must hold
MIN_WORDS = 2  # claims with fewer meaning words are too short to judge ("fala de paz")
COMMON = frozenset({"deus", "senhor", "jesus", "cristo", "pai", "espirit", "sant", "biblia", "palavr", "vers"})

_SPEAKER = r"(?:(?:deus|jesus|o senhor|cristo|paulo|davi|o salmista|a biblia|a palavra|ele)\s+)?"
_VERB = (r"(?:nos\s+|me\s+|te\s+|lhe\s+)?(?:diz|disse|afirma|declara|ensina|promete|garante|mostra|lembra|revela"
         r"|assegura|explica|fala|lemos|vemos|aprendemos|encontramos|esta escrito|estar escrito|se le)")
# after the reference: a verb of saying with "que" or a colon, or a dash or colon right after it
_SAYS = re.compile(rf"\s*,?\s*{_SPEAKER}{_VERB}\s*(?P<join>\bque\b|:)\s*", re.IGNORECASE)
_DASH = re.compile(r"\s*(?P<join>[—–:]|\s-)\s*")
_LEAD = re.compile(r"(?:segundo|conforme|de acordo com|como (?:diz|ensina|afirma|lemos em|vemos em|mostra))\s+$")
_OPENING = re.compile(r"\s*(?:[-*•]\s*)?(?:(?:em|no|na|como|segundo|conforme)\s+)?$", re.IGNORECASE)
_CLAUSE_END = re.compile(r"[;,]|\s(?:mas|porque|pois|entao|portanto|por isso|e por isso)\s")
_WORD = re.compile(r"[^\W\d_]+")


@cache
def _analyzer():
    from retrieval.index.lexical import analyzer

    return analyzer("snowball-pt")


def meaning_words(text: str) -> set[str]:
    """Stemmed content words of ``text``, the names of God aside."""
    return {w for w in _analyzer()(text) if w not in COMMON}


def faithful(claim: str, passage: str) -> bool:
    """True when the claim's first clause (or the whole claim, when that is short) shares the verse's words."""
    folded = fold(claim)
    cut = _CLAUSE_END.search(folded)
    said = meaning_words(folded[:cut.start()] if cut else folded)
    if len(said) < MIN_WORDS:
        said = meaning_words(folded)
    if len(said) < MIN_WORDS:
        return True
    return len(said & meaning_words(passage)) / len(said) >= MIN_SHARE


def check_claims(text: str, bible: Bible, result: QuoteCheck | None = None) -> QuoteCheck:
    """Correct unquoted claims about the cited verses of ``text`` (``result``: the quotations' check, extended)."""
    result = result or QuoteCheck(text)
    refs = find_references(text)
    edits: list[tuple[int, int, str, bool]] = []
    for i, ref in enumerate(refs):
        found = _claim(text, ref, refs[i + 1].start if i + 1 < len(refs) else len(text))
        if found is None:
            continue
        start, end, claim, colon = found
        passage = " ".join(v.text for v in verses_of(ref, bible)).strip()
        if not passage or faithful(claim, passage):
            continue
        label = ref.label()
        if len(passage) > MAX_REPLACEMENT:
            edits.append((*sentence_span(text, ref.start, end), "", True))
            result.corrections.append({"reference": label, "quoted": claim, "action": "removed", "now": ""})
            continue
        words = passage.rstrip(" .;,:")
        edits.append((start, end, f": “{words}”" if colon else f"“{words}”", False))
        if text[end:end + 1] == "…":
            edits.append((end, end + 1, ".", False))
        result.corrections.append({"reference": label, "quoted": claim, "action": "corrected", "now": words})
    result.text = apply_edits(text, edits)
    return result


def _claim(text: str, ref: Reference, limit: int) -> tuple[int, int, str, bool] | None:
    """(start, end, claim, needs a colon) of what the sentence gives as ``ref``'s content, or None."""
    begin, finish = sentence_span(text, ref.start, ref.end)
    finish = min(finish, limit)
    while finish > ref.end and text[finish - 1] in ".!?…\n ":
        finish -= 1
    before, folded_after = fold(text[begin:ref.start]), fold(text[ref.end:finish])
    says, dash = _SAYS.match(folded_after), _DASH.match(folded_after)
    if says:
        start, colon = ref.end + len(folded_after[:says.start("join")].rstrip()), True  # "diz que X" -> "diz: “V”"
        claim_from = ref.end + says.end()
        if says.group("join") == ":":
            start, colon = claim_from, False
    elif dash and _OPENING.fullmatch(before):
        start = claim_from = ref.end + dash.end()
        colon = False
    elif _LEAD.search(before) and folded_after.startswith(","):
        start = claim_from = ref.end + len(folded_after) - len(folded_after[1:].lstrip())
        colon = False
    else:
        return None
    claim = text[claim_from:finish]
    if not claim.strip() or QUOTE.search(claim) or not _WORD.search(claim):
        return None  # a quotation is quotes.py's to check
    return start, finish, claim.strip(), colon
