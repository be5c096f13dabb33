"""Crisis replies for the pipeline: the kind's fixed care text, the help of the person's country and vetted
verses; and the guard that keeps harsh verses from anyone in care mode."""

from __future__ import annotations

import logging
from dataclasses import replace

from bot.reply import CRISIS, Reply, Source
from bot.safety.care import CrisisCare
from bot.safety.screening import DANGER, IMMINENT
from corpus.bible import Bible
from corpus.references import parse_reference, verses_of
from retrieval.results import SearchResult, Status
from retrieval.retriever import label
from retrieval.understand.tone import ToneLabels

log = logging.getLogger("pastor.safety")


class CrisisResponder:
    """Composes what a person at risk reads; nothing here is generated or retrieved by similarity."""

    def __init__(self, care: CrisisCare, bible: Bible, tones: ToneLabels | None = None):
        self.care, self.bible, self.tones = care, bible, tones
        self._vetted = {kind: self._sources(kind) for kind in care.kinds}

        missing = sorted({w for kind in care.kinds for w in care.kinds[kind].verses} -
                         {w for kind in care.kinds for w in care.kinds[kind].verses if self._lookup(w)})
        if missing:
            log.warning("versículos da lista de crise ausentes deste texto bíblico: %s", ", ".join(missing))

    def _lookup(self, written: str) -> list[Source]:
        ref = parse_reference(written)
        return [Source(v.id, label(v), v.text) for v in (verses_of(ref, self.bible) if ref is not None else [])]

    def _sources(self, kind: str) -> list[Source]:
        return [source for written in self.care.kinds[kind].verses for source in self._lookup(written)]

    def verses(self, kind: str | None) -> list[Source]:
        return list(self._vetted.get(kind or "", self._vetted.get("suicide-direct", [])))

    def comfort(self, kind: str | None) -> tuple[str, list[Source], list[str]]:
        """The kind's vetted verses as a short block: (text, sources, citations)."""
        sources = self.verses(kind)
        passages = self._passages(sources)
        text = "\n\n".join([self.care.texts["versiculos_intro"], *(f"“{t}” ({w})" for t, w in passages)])
        return text, sources, [where for _, where in passages]

    def reply(self, message: str, kind: str | None, level: str, country: str | None,
              also: str | None = None) -> Reply:
        """Care first (question, what to do now, the help that fits, ``also``'s too), then a few vetted verses."""
        verses, sources, cited = self.comfort(kind)
        care = self.care.reply_text(kind, country, also)
        text = "\n\n".join([care, verses] if sources else [care])
        return Reply(text, CRISIS, sources, cited, [], False, level, message, crisis_kind=kind, crisis_also=also,
                     offer_care=level in (IMMINENT, DANGER))

    @staticmethod
    def _passages(sources: list[Source]) -> list[tuple[str, str]]:
        """(text, reference) with consecutive verses joined as one passage ("Lamentações 3:22-23")."""
        groups: list[list[Source]] = []
        for source in sources:
            book, chapter, verse = source.id.split(".")
            last = groups[-1][-1].id.split(".") if groups else None
            if last is not None and last[:2] == [book, chapter] and int(last[2]) + 1 == int(verse):
                groups[-1].append(source)
            else:
                groups.append([source])
        return [(" ".join(s.text for s in group), group[0].reference if len(group) == 1 else
                 f"{group[0].reference}-{group[-1].id.rsplit('.', 1)[1]}") for group in groups]

    def harsh(self, verse) -> bool:
        """A verse of a harsh tone (tones.toml) or of the crisis guard (care.toml)."""
        position = self.bible.position(verse.book, verse.chapter, verse.verse)
        if self.tones is not None and position is not None and self.tones.of(position):
            return True
        return self.care.forbidden(verse.text)

    def guard(self, result: SearchResult) -> SearchResult:
        """The search without any passage holding a harsh verse (care mode); no evidence when none is left."""
        if result.status != Status.OK:
            return result
        kept = [hit for hit in result.hits if not any(self.harsh(v) for v in (hit.verse, *hit.merged) if v)]
        if len(kept) == len(result.hits):
            return result
        return replace(result, hits=kept, status=Status.OK if kept else Status.NO_EVIDENCE)

