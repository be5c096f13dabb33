"""The search channels of `Retriever` (its base): lexical, dense, server-fused and topical rankings, the
quotation a message holds word for word, the story it retells, and the signals the evidence floor reads."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import Future

import numpy as np

from retrieval.ahead import start
from retrieval.evidence import EvidenceSignals, faith_word_count
from retrieval.index.lexical import STOPWORDS
from retrieval.knowledge import stories
from retrieval.knowledge.passages import words_of
from retrieval.knowledge.stories import NO_STORY, StoryGuess
from retrieval.knowledge.verbatim import RARE, quoted_runs
from retrieval.understand.intent import KNOWLEDGE, OFFTOPIC, QUOTATION, SMALLTALK, TEACHING, Intent
from retrieval.understand.message import sentences
from retrieval.understand.query import BOOK_TALK, QueryPlan

NAMED_AROUND = 2  # verses each side of one naming the person that tell the same story ("lava-te no Jordão")
AGREED_WORDS = 3  # of the message's words, that the verse both its words and its meaning put first holds at least


class SearchChannels:
    """Reads what `Retriever` holds: its Bible, lexical index, vector store, topics, people, params and caches."""

    def lexical_verbatim(self, plan: QueryPlan, scores: np.ndarray, dense: list[int], mask=None) -> list[int]:
        """Verses that hold a run of the message's words (``RUN`` in a row, articles aside, typed loosely): a
        quotation, whatever else the message says. Rare runs of content words are looked up in the whole
        Bible; any run (a short saying of common words, a formula of narration) among the best lexical and
        dense candidates."""
        wanted = quoted_runs(plan.text)
        if not wanted:
            return []
        found = self.verbatim.quoted(plan.text, mask)
        held = self.lexical.by_coordination(plan.alternatives, scores, 50, mask)  # most of its words, anywhere
        shared: dict[int, set] = {}
        for position in dict.fromkeys([*held, *_top(scores, 50), *dense[:50]]):
            words = self._verse_runs.get(position)
            if words is None:
                words = self._verse_runs[position] = quoted_runs(self.bible.verses[position].text)
            if position not in found and wanted & words:
                shared[position] = wanted & words
        # a run that many candidates hold is a formula ("que o Senhor teu Deus"), which quotes none of them
        held_by = Counter(run for runs in shared.values() for run in runs)
        return found + [p for p, runs in shared.items() if any(held_by[run] <= RARE for run in runs)]

    def _lexical(self, plan: QueryPlan, scores: np.ndarray, mask) -> tuple[list[int], int]:
        """The lexical ranking from the question's own scores (plus its concepts' words), and how many
        question words (or equivalents) the best verse holds."""
        best = self.bible.verses[int(np.argmax(scores))].text if scores.any() else ""
        best_terms = self.lexical.groups_in(plan.alternatives, best)
        if plan.concepts and self.params.expansion_weight:
            scores = scores + self.params.expansion_weight * self.lexical.scores(plan.expansion, mask)
        return _top(scores, self.params.candidates), best_terms

    def _agreed(self, plan: QueryPlan, fusion) -> int | None:
        """The verse first both by the message's words and by its meaning, holding ``AGREED_WORDS`` of its words: the
        line a question is about ("quem disse pros marinheiros que era hebreu e temia o Deus do céu?": Jonah 1:9),
        however the topics and the answered questions order the rest; None for small talk or a problem elsewhere."""
        if fusion.intent is not None and fusion.intent.name in (SMALLTALK, OFFTOPIC):
            return None
        firsts = [min(ranks, key=ranks.get) for name in ("lexical", "dense") if (ranks := fusion.ranks.get(name))]
        if len(firsts) < 2 or firsts[0] != firsts[1]:
            return None
        held = self.lexical.groups_in(plan.alternatives, self.bible.verses[firsts[0]].text)
        return firsts[0] if held >= AGREED_WORDS else None

    def _ask_store_early(self, plan: QueryPlan) -> None:
        """The store's nearest verses for the message, asked as soon as it is embedded: the store searches on its
        thread while this one reads the intent, a named passage or person, and the words (`fuse` takes the answer).
        A message answered before `fuse` leaves its answer unread (dropped with the oldest, `Ahead`)."""
        if plan.text.strip() and not plan.whole_book:
            self.dense_ahead.put(self._dense_key(plan), self._dense_soon(plan, self.embed_query(plan.search_text)))

    def _dense_soon(self, plan: QueryPlan, vector: np.ndarray) -> Future:
        """The store's nearest verses, asked on another thread: Chroma (and a server store's client) lets go of
        the GIL while it searches, so this thread reads the message's words meanwhile (docs/performance.md).
        Then that thread multiplies the message by the topics' names (kept for this message; a product that
        lets go of the GIL too), which the topics channel and the question ranker read later."""
        answer: Future = Future()
        where = plan.scope.where() if plan.scope else None

        def ask() -> None:
            try:
                answer.set_result(self.store.query(vector, self.params.candidates, where))
            except BaseException as error:  # the store's own error, raised where the search reads the answer
                answer.set_exception(error)
                return
            if self.topic_meanings is not None:
                self.topic_meanings.similarity(vector)

        start(self.store_threads, ask)
        return answer

    @staticmethod
    def _dense_key(plan: QueryPlan) -> tuple:
        """What a store query asked early answers: the text embedded and the scope."""
        return plan.search_text, plan.scope

    def _dense(self, plan: QueryPlan, vector: np.ndarray,
               soon: Future | None = None) -> tuple[list[int], dict[int, float]]:
        """The dense ranking and each verse's similarity (from ``soon``, the query already asked, when given)."""
        matches = soon.result() if soon is not None else \
            self.store.query(vector, self.params.candidates, plan.scope.where() if plan.scope else None)
        ranked = [self._uuid_pos[m.id] for m in matches if m.id in self._uuid_pos]
        similarity = {self._uuid_pos[m.id]: m.similarity for m in matches if m.id in self._uuid_pos}
        return ranked, similarity

    def _server_fused(self, plan: QueryPlan) -> list[int]:
        """Dense plus sparse BM25, fused by the store: the question's stems, then equivalents and concepts."""
        from retrieval.index import sparse

        stem = self.lexical.analyzer.stemmer
        weights: dict[str, float] = {}
        for concept_word in plan.expansion.split() if plan.concepts else ():
            weights[stem(concept_word)] = self.params.expansion_weight
        for word, *alternatives in plan.alternatives:
            if word in STOPWORDS or len(word) < 2:
                continue
            for alternative in alternatives:
                weights[stem(alternative)] = max(weights.get(stem(alternative), 0), self.params.equivalents_weight)
            weights[stem(word)] = 1.0
        vector = self.embed_query(plan.search_text)
        matches = self.store.query_hybrid(vector, sparse.query_vector(weights), self.params.candidates,
                                          plan.scope.where() if plan.scope else None)
        return [self._uuid_pos[m.id] for m in matches if m.id in self._uuid_pos]

    def _topical(self, plan: QueryPlan, mask) -> list[int]:
        if self.topics is None or not plan.concepts:
            return []
        # inside a scope, every voted verse of the topics is considered before filtering: a small book's
        # verses are rarely among the topics' first few hundred
        limit = self.params.candidates * 3 if mask is None else len(mask)
        ranking = self.topics.interleaved([list(c.topics) for c in plan.concepts], limit=limit)
        return [p for p in ranking if mask is None or mask[p]][: self.params.candidates]

    def _named(self, plan: QueryPlan, scores: np.ndarray, mask) -> list[int]:
        """A question about a story of someone the Bible names ("como Elias foi levado ao céu?"): the verses
        around those naming the person or place, by the question's BM25."""
        people = self.knowledge.people
        if people is None:
            return []
        words = [w for w in words_of(plan.text).split() if w not in STOPWORDS]
        person = people.find(words)
        place = people.named_in(words)
        named = set(person.positions if person is not None else ()) | set(place[1] if place is not None else ())
        if not named:
            return []
        verses = self.bible.verses
        around = {q for p in named for q in range(max(0, p - NAMED_AROUND), min(len(verses), p + NAMED_AROUND + 1))
                  if verses[q].chapter == verses[p].chapter and verses[q].book == verses[p].book
                  and (mask is None or mask[q])}
        found = sorted((p for p in around if scores[p] > 0), key=lambda p: (-scores[p], p))
        return found[: self.params.candidates]

    def _story_guess(self, plan: QueryPlan) -> StoryGuess:
        """The named passages the message may tell, by meaning and by the retellings (retrieval/knowledge/)."""
        if self.stories is None or not plan.text.strip():
            return NO_STORY
        key = (plan.text, plan.search_text)
        last = getattr(self, "_last_story", None)  # the understanding asked it already for this message
        if last is not None and last[0] == key:
            return last[1]
        story = self.stories.about(self.embed_query(plan.search_text), plan.text)
        if story.told is None:
            # a story retold in one sentence of a life told: "to afogada em dívida. lembrei da viúva que o credor…"
            parts = [self.stories.about(self.embed_query(part), part) for part in sentences(plan.text)]
            story = max((p for p in parts if p.clearly_told), key=lambda p: p.ahead, default=story)
        self._last_story = (key, story)
        return story

    @staticmethod
    def _told(plan: QueryPlan, intent: Intent | None, story: StoryGuess, verbatim: bool = False) -> int | None:
        """The passage a story retold in one's own words asks for ("o menino pastor que derrubou o gigante com
        uma pedra"): named by a retelling when Scripture is asked about or quoted, or retold so plainly (a
        narrative passage, its retelling clearly nearer than any message of another kind) that the life, the
        question or the greeting around it does not change what is asked. A few words one verse also holds
        ("de dois em dois", "quarenta dias") quote it only when the story is not that plainly retold."""
        if story.told is None or intent is None or plan.quoted or plan.scope is not None or \
                verbatim and not story.retold_plainly:
            return None
        return story.told if intent.name in (KNOWLEDGE, QUOTATION) or story.clearly_told else None

    def _story(self, plan: QueryPlan, intent: Intent | None, vector, story: StoryGuess, care: bool,
               verbatim: bool, mask, told: int | None = None) -> list[int]:
        """The verses of the named passage nearest the message in meaning ("a cobra que enganou a mulher no
        jardim"): when it asks about Scripture, or when (no teaching, no life cared for) it comes very near one.
        The passage's verses come nearest the message first; with two passages as near, one of each in turn."""
        if told is not None:
            return self.stories.verses(story.rows, vector, mask, self.params.candidates)
        if self.stories is None or intent is None or care or verbatim or plan.quoted or plan.scope is not None \
                or intent.name in (SMALLTALK, OFFTOPIC, TEACHING):
            return []
        rows, nearness = story.rows, story.nearness
        if not rows or intent.name != KNOWLEDGE and nearness < stories.SURE:  # a quotation is one verse: surely
            return []
        return self.stories.verses(rows, vector, mask, self.params.candidates)

    def _meant_topics(self, vector, mask) -> list[int]:
        """Verses of the topics whose names are near the message in meaning (none without topic data)."""
        if self.topic_meanings is None or self.topics is None:
            return []
        return self.topic_meanings.ranking(vector, self.topics, mask, self.params.candidates)

    def _signals(self, plan: QueryPlan, lexical_best: int, similarity: dict[int, float],
                 dense: list[int], topical: int, mask) -> EvidenceSignals:
        values = [similarity[p] for p in dense]
        top = values[0] if values else 0.0
        margin = top - values[min(49, len(values) - 1)] if values else 0.0
        return EvidenceSignals(dense_top=round(top, 4), dense_margin=round(margin, 4),
                               lexical_terms=len(self.lexical.query_terms(plan.search_text)),
                               lexical_best=lexical_best, concepts=len(plan.concepts),
                               faith_words=faith_word_count(plan.text), **self._scope_signals(plan, topical, mask))

    def _scope_signals(self, plan: QueryPlan, topical: int, mask) -> dict:
        """Whether the scope's own verses speak of the question's theme (see EvidenceFloor.scope_treats_it)."""
        if plan.scope is None:
            return {}
        theme = [group for group in plan.alternatives if group[0] not in BOOK_TALK]
        words = len(self.lexical.analyzer.words(" ".join(group[0] for group in theme)))
        found = int(self.lexical.coordination(theme, mask).max(initial=0))
        return {"scoped": True, "scope_topics": topical, "theme_words": words, "theme_found": found}


def _top(scores: np.ndarray, n: int) -> list[int]:
    n = min(n, len(scores) - 1)
    top = np.argpartition(-scores, n)[:n]
    return [int(p) for p in top[np.argsort(-scores[top], kind="stable")] if scores[p] > 0]
