"""The candidate verses of one question and what the relevance model reads of each: where every channel put
it, how near it is in meaning, how well the OpenBible topics nearest the question vote for it, how known and
long it is, and what the intent classifier read of the question."""

from __future__ import annotations

import math

import numpy as np

from retrieval.understand.intent import INTENTS
from retrieval.understand.topic_meaning import MARGIN

POOL = 30  # candidates taken from each channel (and from the fused order)
TOPICS = 8  # topics nearest the question in meaning, whatever their distance
CHANNELS = ("lexical", "dense", "topical", "temas", "need", "memory", "respondidas", "near_topics")
FEATURES = (*(f"rr_{c}" for c in CHANNELS), "fused_rr", "fused_log_rank", "cosine", "cosine_gap", "topic_fit",
            "topic_sum", "votes", "words", "lexical_share",
            *(f"p_{i}" for i in INTENTS), "care", "teaching", "recognised", "terms")


def _unit(vector: np.ndarray) -> np.ndarray:
    vector = np.asarray(vector, np.float32)
    return vector / max(float(np.linalg.norm(vector)), 1e-12)


class CandidateFeatures:
    """Reads the retriever's parts; `rows` gives the pool of one fused question and its feature matrix."""

    def __init__(self, retriever, verses):
        self.retriever = retriever
        self.verses = verses  # VerseVectors: isolated-verse vectors by corpus position
        topics, meanings = retriever.topics, retriever.topic_meanings
        self.usable = np.flatnonzero(meanings.sizes >= 3)
        self.meanings = meanings
        self.topic_frames = meanings.frame_similarity[self.usable]  # how near each name is to a bare question
        bible = retriever.bible
        self.topic_verses = [(np.array([p for p, _ in topics.topics[meanings.names[i]]], np.int64),
                              np.array([share for _, share in topics.topics[meanings.names[i]]], np.float32))
                             for i in self.usable]  # each topic's verses and their vote shares
        self.size = len(bible.verses)
        votes = topics.verse_votes
        self.votes = np.array([math.log1p(votes.get(p, 0.0)) for p in range(len(bible.verses))], np.float32)
        self.words = np.array([math.log1p(len(v.text.split())) for v in bible.verses], np.float32)

    def topic_votes(self, vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per verse, over the topics nearest the question (nearer it than its bare frame): the best and the
        summed vote share, each weighted by the topic's nearness."""
        similarity = self.meanings.similarity(vector)[self.usable]
        about = np.flatnonzero(similarity - self.topic_frames >= MARGIN)
        nearest = about[np.argsort(-similarity[about], kind="stable")][:TOPICS]
        best = np.zeros(self.size, np.float32)
        total = np.zeros(self.size, np.float32)
        for topic in nearest:
            positions, shares = self.topic_verses[topic]
            np.maximum.at(best, positions, shares * similarity[topic])
            np.add.at(total, positions, shares * similarity[topic])
        return best, total

    def rows(self, plan, fusion) -> tuple[list[int], np.ndarray]:
        """(candidate positions, one feature row each) for a question already fused."""
        r = self.retriever
        vector = _unit(fusion.vector)
        ranks = {c: fusion.ranks.get(c, {}) for c in CHANNELS}
        fit, total = self.topic_votes(fusion.vector)  # unit length there, as the topics channel reads it
        voted = np.flatnonzero(total > 0)
        if plan.scope is not None:
            voted = voted[np.isin(r.book_of[voted], list(plan.scope.books))]
        voted = voted[np.lexsort((voted, -total[voted]))][:POOL]
        ranks["near_topics"] = {int(p): i + 1 for i, p in enumerate(voted)}
        pool = [p for c in CHANNELS for p in sorted(ranks[c], key=ranks[c].get)[:POOL]]
        pool = list(dict.fromkeys([*pool, *(p for p, _ in fusion.fused[:POOL])]))
        if not pool:
            return [], np.zeros((0, len(FEATURES)), np.float32)
        fused_rank = {p: i + 1 for i, (p, _) in enumerate(fusion.fused)}
        lexical = fusion.lexical_scores
        top_lexical = float(lexical.max()) if lexical is not None and lexical.size else 0.0
        cosine = self.verses[pool] @ vector
        x = np.zeros((len(pool), len(FEATURES)), np.float32)
        for j, channel in enumerate(CHANNELS):
            x[:, j] = [1.0 / ranks[channel][p] if p in ranks[channel] else 0.0 for p in pool]
        c = len(CHANNELS)
        rank = np.array([fused_rank.get(p, len(fusion.fused) + 1) for p in pool], np.float32)
        x[:, c] = 1.0 / rank
        x[:, c + 1] = np.log(rank)
        x[:, c + 2] = cosine
        x[:, c + 3] = cosine - cosine.max()
        x[:, c + 4] = fit[pool]
        x[:, c + 5] = total[pool]
        x[:, c + 6] = self.votes[pool]
        x[:, c + 7] = self.words[pool]
        x[:, c + 8] = lexical[pool] / top_lexical if top_lexical > 0 else 0.0
        probabilities = fusion.intent.probabilities if fusion.intent is not None else {}
        question = [probabilities.get(name, 0.0) for name in INTENTS] + [
            float(fusion.care), float(fusion.teaching), float(bool(fusion.recognised)),
            float(fusion.signals.lexical_terms)]
        x[:, c + 9:] = question
        return pool, x
