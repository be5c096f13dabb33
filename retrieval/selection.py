"""The hits of `Retriever` (its base): the top verses chosen from a fusion, neighbours merged into one
passage, harsh tones set aside, each hit carried with its context; a whole book by its best-known verses."""

from __future__ import annotations

import numpy as np

from corpus.canon import BY_CODE
from corpus.verse import Verse
from retrieval.results import OK, Hit, SearchResult
from retrieval.understand.pastoral import NeedRanking
from retrieval.understand.query import QueryPlan


def label(verse: Verse) -> str:
    return f"{BY_CODE[verse.book].name} {verse.chapter}:{verse.verse}"


class HitSelection:
    """Reads what `Retriever` holds: its Bible, tone labels and params."""

    def _select(self, fused, ranks, similarity, k: int, need: NeedRanking | None = None,
                guarded: bool = False, asked: frozenset[str] = frozenset(),
                unfit: frozenset[int] = frozenset()) -> tuple[list[Hit], list[Hit]]:
        """Top ``k`` hits; a verse next to one already chosen merges into it instead of taking a slot.

        With the harm guard on, a verse of a harsh tone (understand/tone.py) that the pastoral map did not choose
        is set aside: it neither takes a slot nor joins a passage. A tone the question names in its own
        words (``asked``) is not set aside. A verse the harm model finds unfit for this reader (``unfit``)
        is set aside too, whoever chose it.
        """
        chosen: list[tuple[int, float, dict, list[int]]] = []
        demoted: list[Hit] = []
        for position, score in fused:
            harsh = self._harsh(position, need) - asked if guarded else frozenset()
            if position in unfit:
                harsh = harsh | {"leitor"}
            if harsh:
                if len(demoted) < k:
                    demoted.append(self._hit(position, score, self._ranks(ranks, position), similarity.get(position),
                                             why={"guarda": sorted(harsh)}))
                continue
            if self.params.merge_adjacent:
                host = next((c for c in chosen if self._adjacent(c[0], c[3], position)), None)
                if host is not None:
                    host[3].append(position)
                    continue
            if len(chosen) == k:
                break
            chosen.append((position, score, self._ranks(ranks, position), []))
        hits = [self._hit(p, s, r, similarity.get(p), merged, self._why(p, need)) for p, s, r, merged in chosen]
        return hits, demoted

    def _book_overview(self, plan: QueryPlan, k: int) -> SearchResult:
        """A book as a whole: its best-known verses (most voted across topics), else its opening verses."""
        (code,) = plan.scope.books
        positions = np.flatnonzero(self.book_of == code)
        chosen = self.topics.best_known(positions.tolist(), min(k, 5)) if self.topics is not None else []
        if not chosen:
            chosen = [int(p) for p in positions[:3]]
        ranks = {"livro": {p: i + 1 for i, p in enumerate(chosen)}}
        fused = [(p, 1.0 / (i + 1)) for i, p in enumerate(chosen)]
        hits, _ = self._select(fused, ranks, {}, k)
        return SearchResult(plan.original, OK, hits, plan.scope, mode="livro")

    @staticmethod
    def _ranks(ranks: dict, position: int) -> dict:
        return {n: r[position] for n, r in ranks.items() if position in r}

    def _harsh(self, position: int, need: NeedRanking | None) -> frozenset[str]:
        if need is not None and position in need.curated:
            return frozenset()
        return self.tones.of(position)

    @staticmethod
    def _why(position: int, need: NeedRanking | None) -> dict:
        if need is None or position not in need.reasons:
            return {}
        return {"necessidade": need.reasons[position]}

    def _adjacent(self, position: int, merged: list[int], other: int) -> bool:
        span = [position, *merged]
        if not (min(span) - 1 <= other <= max(span) + 1):
            return False
        a, b = self.bible.verses[position], self.bible.verses[other]
        return a.book == b.book and a.chapter == b.chapter

    def _hit(self, position: int, score: float, ranks: dict, similarity: float | None = None,
             merged: list[int] | None = None, why: dict | None = None) -> Hit:
        verse = self.bible.verses[position]
        merged_verses = tuple(self.bible.verses[p] for p in sorted(merged or ()))
        span = [position, *(merged or ())]
        context = tuple(self.bible.verses[p] for p in range(min(span) - self.params.context,
                                                             max(span) + self.params.context + 1)
                        if 0 <= p < len(self.bible.verses) and p not in span
                        and self.bible.verses[p].book == verse.book and self.bible.verses[p].chapter == verse.chapter)
        return Hit(verse.id, label(verse), verse.text, score, ranks, verse, similarity, merged_verses, context,
                   why or {})
