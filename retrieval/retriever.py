"""Hybrid retrieval: explicit references first, else lexical, dense and topical channels fused by RRF."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from corpus.bible import Bible
from corpus.references import exists, find_references, verses_of
from retrieval.ahead import Ahead
from retrieval.aptness.ranker import led
from retrieval.cache import TTLCache
from retrieval.channels import SearchChannels
from retrieval.conversation import ConversationReading, conversation
from retrieval.evidence import EvidenceFloor, EvidenceSignals
from retrieval.fusion import RRF_K, ahead, rrf
from retrieval.index import documents
from retrieval.index.embedders import Embedder, available_cores
from retrieval.index.lexical import LexicalIndex
from retrieval.index.manifest import Manifest
from retrieval.index.store import VectorStore
from retrieval.knowledge import stories
from retrieval.knowledge.passages import words_of
from retrieval.knowledge.questions import Knowledge
from retrieval.knowledge.stories import StoryGuess
from retrieval.knowledge.verbatim import RUN, VerbatimIndex, shares_run
from retrieval.relevance.answered import FLOOR as ANSWERED_FLOOR
from retrieval.relevance.model import orders
from retrieval.results import NO_EVIDENCE, OK, REFERENCE, REFERENCE_MISSING, Fusion, SearchResult
from retrieval.selection import HitSelection, label  # noqa: F401 (label: the bot imports it from here)
from retrieval.understand.intent import (
    KNOWLEDGE,
    OFFTOPIC,
    QUOTATION,
    SITUATION,
    SMALLTALK,
    TEACHING,
    Intent,
    IntentModel,
    embedding_text,
    life_surely_told,
    life_told_too,
)
from retrieval.understand.message import asks_for_teaching, asks_where_a_verse_is, sentences
from retrieval.understand.pastoral import PastoralReader
from retrieval.understand.query import QueryPlan, plan_query
from retrieval.understand.scope import Scope
from retrieval.understand.thesaurus import Thesaurus
from retrieval.understand.tone import ToneLabels
from retrieval.understand.topic_meaning import TopicMeanings
from retrieval.understand.topics import TopicIndex

MAX_REFERENCE_VERSES = 200
INTENT_SURE = 0.7  # an intent this likely changes what counts as evidence
UNLIKELY_OFFTOPIC = 0.15  # a question about a teaching this unlikely to be off the subject is not turned away
LIFE_SURE_PHRASE = 0.9  # a life told this surely holds a phrase, not a quotation, when it shares just RUN words
STORY_LEAD = 3  # a story retold: this many of its verses (nearest the message) come first


@dataclass(frozen=True)
class RetrievalParams:
    candidates: int = 100  # per channel, before fusion
    lexical_weight: float = 1.0
    dense_weight: float = 1.0
    topical_weight: float = 2.0
    famous_weight: float = 1.0  # a quotation's nearest verses by how many readers voted for them
    famous_pool: int = 20
    named_weight: float = 2.0  # verses around those naming the person or place a story question names
    story_weight: float = 2.0  # the verses of the named passage a story question tells in its own words
    meaning_topics_weight: float = 1.0  # topics whose names are near the message in meaning (topic_meaning.py)
    expansion_weight: float = 0.6  # concepts' biblical vocabulary added to the lexical query
    equivalents_weight: float = 0.9  # another translation's word, relative to the question's own word
    need_weight: float = 4.0  # the pastoral map's verses for the needs of a recognised situation
    care_words_weight: float = 0.5  # in care, the message's words only refine what the need brought
    need_k: int = 30  # RRF k of the need channel: smaller, and the map's order (most urgent need first) counts more
    memory_weight: float = 3.0  # verses blind judges found apt for close messages (retrieval/aptness/memory.py)
    memory_candidates: int = 30
    answered_weight: float = 2.0  # verses chosen for the answered questions nearest a question (relevance/answered.py)
    answered_floor: float = ANSWERED_FLOOR  # cosine below which an answered question is no neighbour
    life_in_question: float = 0.3  # a question this likely to tell a life gets the harm veto for its teller
    context: int = 1  # neighbours each side carried as context
    merge_adjacent: bool = True


def sure_life(intent: Intent | None) -> bool:
    """The intent model reads a life told, ``INTENT_SURE`` at least: cared for without a map entry, and no verse
    remembered in it unless the teller asks where one is (`life_surely_told` is surer: before any teaching)."""
    return intent is not None and intent.name == SITUATION and intent.confidence >= INTENT_SURE


class Retriever(SearchChannels, HitSelection, ConversationReading):
    """Searches one translation; built by `open_retriever` at the wiring point."""

    def __init__(self, bible: Bible, lexical: LexicalIndex, embedder: Embedder, store: VectorStore,
                 manifest: Manifest, topics: TopicIndex | None = None, params: RetrievalParams = RetrievalParams(),
                 floor: EvidenceFloor | None = None, thesaurus: Thesaurus | None = None,
                 pastoral: PastoralReader | None = None, tones: ToneLabels | None = None,
                 intents: IntentModel | None = None, knowledge: Knowledge | None = None, aptness=None,
                 topic_meanings: TopicMeanings | None = None, verbatim: VerbatimIndex | None = None):
        self.bible = bible
        self.lexical = lexical
        self.embedder = embedder
        self.store = store
        self.manifest = manifest
        self.topics = topics
        self.topic_meanings = topic_meanings  # topics reached by the meaning of their names (needs ``topics``)
        self.params = params
        self.floor = floor if floor is not None else EvidenceFloor()
        self.thesaurus = thesaurus or Thesaurus()
        self.pastoral = pastoral
        self.tones = tones
        self.intents = intents
        self.knowledge = knowledge or Knowledge()
        # runs of words every verse holds: a verse quoted word for word, wherever the other channels look
        self.verbatim = verbatim or VerbatimIndex.build([v.text for v in bible.verses])
        self.aptness = aptness  # the learned ranker of care candidates (retrieval/aptness/ranker.py), if trained
        self.aptness_problem = ""  # why the ranker is off, when it is (shown in the status)
        self.relevance = None  # the learned order of a question's candidates (retrieval/relevance/), if trained
        self.relevance_problem = ""  # why it is off, when it is (shown in the status)
        self.answered = None  # the verses chosen for questions answered before (retrieval/relevance/answered.py)
        self.stories = None  # named passages by meaning (retrieval/knowledge/stories.py), with the verse vectors
        self.remembered = None  # verses as people type them from memory (retrieval/knowledge/remembered.py)
        # the dense query of each search runs here, beside the rest of the search (`SearchChannels._dense_soon`)
        self.store_threads = ThreadPoolExecutor(max_workers=available_cores(), thread_name_prefix="dense")
        self.dense_ahead = Ahead()  # the store's answers asked before the intent is read (`_ask_store_early`)
        self.embedding_cache = TTLCache(maxsize=2000, ttl=3600)
        self.result_cache = TTLCache(maxsize=200, ttl=300)
        self._uuid_pos = {documents.verse_uuid(bible.name, *v.key): i for i, v in enumerate(bible.verses)}
        self.book_of = np.array([v.book for v in bible.verses])
        self._verse_runs: dict[int, set[tuple[str, ...]]] = {}
        self.opened_at = time.time()

    # -- public ------------------------------------------------------------------------
    def search(self, query: str, k: int = 10, scope: Scope | None = None, exclude: str | None = None) -> SearchResult:
        """The best ``k`` verses for ``query``; explicit references are answered deterministically. ``exclude``
        leaves one graded situation out of the judges' memory (measuring the ranker on what it was taught)."""
        key = (query, k, scope, exclude)
        cached = self.result_cache.get(key)
        if cached is not None:
            return cached
        refs = find_references(query)
        named = self.knowledge.passages.within(query, refs) if refs and self.knowledge.passages else None
        if named is not None:  # "eu sou o bom pastor, João 10": the passage inside the chapter given
            result = self.knowledge.passage(self, query, named, refs)
        elif refs:
            result = self._references(query, refs)
            chapter = refs[0]
            if len(refs) == 1 and chapter.verse is None and not chapter.is_range and result.status == REFERENCE:
                result = self.knowledge.chapter(self, query, chapter, result)  # "isaías 6, onde fala eis-me aqui?"
        else:
            result = self._understood(plan_query(query, self.thesaurus, scope), k, exclude)
        self.result_cache.put(key, result)
        return result

    def understand(self, text: str) -> Intent | None:
        """The message's intent (None without an intent model); its vector is the crisis screening's."""
        if self.intents is None or not text.strip():
            return None
        return self.intents.classify(text, self.embed_query(embedding_text(text)))

    def _understood(self, plan: QueryPlan, k: int, exclude: str | None = None) -> SearchResult:
        """Small talk, a named passage or a person first; the hybrid search for everything else."""
        self._ask_store_early(plan)
        intent = self.understand(plan.original)
        plan, intent = self._request_after_small_talk(plan, intent)
        if plan.original.strip() and not plan.text.strip():  # "kkk", "👍", "...": nothing to search, a reply
            return conversation(plan, intent)
        answered = self.knowledge.answer(self, plan, intent, k) or self._verse_before_remark(plan, intent, k)
        if answered is not None:
            return answered
        result = self._hybrid(plan, k, intent, exclude)
        if (described := self.knowledge.described_person(self, plan, intent, result, k)) is not None:
            return described  # "quem negou Jesus três vezes?": Pedro, by the verses found
        if result.status == NO_EVIDENCE and (named := self.knowledge.mentioned(self, plan, intent)) is not None:
            return named
        if result.status == NO_EVIDENCE and intent is not None and intent.name == SMALLTALK:
            return conversation(plan, intent)  # "sou da wicca… queria conversar": welcomed, however long
        return replace(result, intent=intent.as_dict()) if intent is not None else result

    def search_positions(self, plan: QueryPlan, k: int) -> list[int]:
        """The positions of the verses the hybrid search leads its hits with, best first (read as a question)."""
        return [self.bible.position(*hit.verse.key) for hit in self._hybrid(plan, k).hits]

    def nearest_within(self, plan: QueryPlan, positions: list[int]) -> int:
        """The index, in ``positions``, of the verse nearest the question by its words and by its meaning, the two
        ranks fused (by its words alone without the stories' verse vectors)."""
        orders = [self.lexical.grouped_scores(plan.alternatives, self.params.equivalents_weight)[positions]]
        if self.stories is not None:
            vector = self.embed_query(plan.search_text)
            orders.append(np.asarray(self.stories.verse_vectors[positions], np.float32) @ vector)
        fused = sum(1.0 / (RRF_K + np.argsort(np.argsort(-scores, kind="stable"))) for scores in orders)
        return int(np.argmax(fused))

    def embed_query(self, text: str) -> np.ndarray:
        vector = self.embedding_cache.get(text)
        if vector is None:
            vector = self.embedder.embed([text])[0]
            self.embedding_cache.put(text, vector)
        return vector

    # -- explicit references ---------------------------------------------------------------
    def _references(self, query: str, refs) -> SearchResult:
        found = [r for r in refs if exists(r, self.bible)]
        missing = [r.osis() for r in refs if not exists(r, self.bible)]
        if not found:
            return SearchResult(query, REFERENCE_MISSING, [], None, missing)
        positions = sorted({self.bible.position(*v.key) for ref in found for v in verses_of(ref, self.bible)})
        hits = [self._hit(p, 1.0, {"reference": i + 1}) for i, p in enumerate(positions[:MAX_REFERENCE_VERSES])]
        return SearchResult(query, REFERENCE, hits, None, missing, total=len(positions))

    # -- hybrid ------------------------------------------------------------------------------
    def _hybrid(self, plan: QueryPlan, k: int, intent: Intent | None = None,
                exclude: str | None = None) -> SearchResult:
        if not plan.text.strip():
            return SearchResult(plan.original, NO_EVIDENCE, [], plan.scope)
        if plan.whole_book:
            return self._book_overview(plan, k)
        fusion = self.fuse(plan, intent, exclude)
        if fusion.turned_away:
            return SearchResult(plan.original, NO_EVIDENCE, [], plan.scope, signals=fusion.signals)
        fused, unfit, apt = fusion.fused, frozenset(), {}
        if fusion.care:  # a life told: ordered by what judges found apt for the person (aptness/ranker.py)
            if self.aptness is not None and self.aptness.model is not None:
                fused, unfit, apt = self.aptness.rerank(plan.text, fusion, self)
            fused = ahead(fused, list(fusion.remembered))  # the verse the teller asked where it is
        elif self.relevance is not None and orders(fusion):  # a question: by what answered questions like it
            fused = ahead(self.relevance.rerank(plan, fusion), list(fusion.remembered))  # a verse remembered: first
        if not fusion.care and (agreed := self._agreed(plan, fusion)) is not None:
            # a teaching asked keeps its best verse first; the line a question is about leads it otherwise
            fused = [*fused[:1], *ahead(fused[1:], [agreed])] if fusion.teaching and fused[0][0] != agreed else \
                ahead(fused, [agreed])
        if fusion.teaching and fusion.intent is not None and self.aptness is not None and \
                self.aptness.model is not None and \
                fusion.intent.probabilities.get(SITUATION, 0.0) >= self.params.life_in_question:
            unfit = self.aptness.unfit(fusion)  # a question inside a life told: nothing that wounds the teller
        guarded = not fusion.teaching and not fusion.quote and fusion.told is None and self.tones is not None
        # a tone the question names is what it asks for, unless a suffering person is telling their life
        asked = self.tones.named_in(plan.text) if guarded and not fusion.recognised else frozenset()
        hits, demoted = self._select(fused, fusion.ranks, fusion.similarity, k, fusion.need, guarded, asked,
                                     unfit)
        if apt:  # of the three shown, the one judges would find most apt leads
            hits = led(hits, {self.bible.verses[p].id: a for p, a in apt.items()},
                       frozenset(self.bible.verses[p].id for p in fusion.remembered))
        mode = "historia" if fusion.told is not None else "citacao" if fusion.quote else \
            "ensino" if fusion.teaching else "cuidado" if fusion.care else ""
        return SearchResult(plan.original, OK if hits else NO_EVIDENCE, hits, plan.scope, signals=fusion.signals,
                            mode=mode, situations=fusion.situations, demoted=demoted,
                            named=self.stories.names[fusion.told] if fusion.told is not None else None)

    def fuse(self, plan: QueryPlan, intent: Intent | None = None, exclude: str | None = None,
             story: StoryGuess | None = None) -> Fusion:
        """Every channel's ranking fused by RRF, with what the ranker and the guard need to know (``exclude``
        leaves one graded situation out of the judges' memory: training)."""
        mask = None if plan.scope is None else np.isin(self.book_of, list(plan.scope.books))
        vector = self.embed_query(plan.search_text)
        # the store searches while the words are read (asked already when the search started with this message)
        soon = self.dense_ahead.take(self._dense_key(plan)) or self._dense_soon(plan, vector)
        # a teaching asked in so many words, unless the classifier surely reads a life told around it ("tenho 16
        # anos e me acho horrível… oq a bíblia fala sobre isso?"): the person is cared for, not taught
        teaching = asks_for_teaching(plan.text) and not life_surely_told(intent) or (
            intent is not None and intent.name == TEACHING and not life_told_too(intent))
        recognised = [] if teaching or self.pastoral is None else self.pastoral.recognise(vector, plan.text)
        if intent is not None and intent.name == OFFTOPIC and intent.confidence >= INTENT_SURE and \
                not any(r.said for r in recognised):  # "meu celular tá travando": a problem, not a life to care for
            recognised = []
        story = story if story is not None else self._story_guess(plan)  # a story told
        if recognised and intent is not None and intent.name == KNOWLEDGE and intent.confidence >= INTENT_SURE and (
                self.knowledge.people is not None and self.knowledge.people.find(words_of(plan.text).split())
                or story.rows):
            recognised = []  # "Sansão morreu derrubando o templo? como foi": a story asked about, not a grief told
        situations = [{"id": r.situation.id, "tom": r.situation.tone, "score": r.score, "palavras": r.said,
                       "necessidades": list(r.situation.needs)} for r in recognised]
        own_scores = self.lexical.grouped_scores(plan.alternatives, self.params.equivalents_weight, mask)
        lexical, lexical_best = self._lexical(plan, own_scores, mask)
        dense, similarity = self._dense(plan, vector, soon)
        topical = self._topical(plan, mask)
        signals = self._signals(plan, lexical_best, similarity, dense, len(topical), mask)
        said = self.lexical_verbatim(plan, own_scores, dense, mask)  # a verse held word for word
        if said and intent is not None and intent.name == SITUATION and intent.confidence >= LIFE_SURE_PHRASE:
            # "ela disse que eu não devia falar mal de um homem de Deus, que…": the teller's phrase, not a verse
            said = [p for p in said if shares_run(plan.text, self.bible.verses[p].text, RUN + 1)]
        remembered = self._remembered(plan, intent, vector, mask) if len(said) != 1 else []  # or said from memory
        # a verse asked for inside a life surely told leads the care, which stays care: no quotation mode
        verbatim = said or ([] if sure_life(intent) else remembered)
        if said and remembered and remembered[0] not in said:  # words several verses hold: the saying remembered
            verbatim = [remembered[0], *said]  # tells which ("este é o dia que o senhor fez…": Psalm 118:24)
        told = self._told(plan, intent, story, bool(verbatim))
        if told is not None:  # a story asked for: not a life to care for, a teaching to explain, a verse quoted
            recognised, situations, teaching = [], [], False
        # the classifier alone never turns a life told into a quotation: a family without food is no verse
        # a question about a teaching ("o que a Bíblia ensina sobre o Espírito Santo?") holds words one verse
        # may hold too ("a ressurreição dos mortos"); it is a quotation only when it quotes in marks (the verse it
        # holds word for word still comes first)
        asks = teaching and (intent is None or intent.name == TEACHING)
        quote = told is None and (plan.quoted or (bool(verbatim) and not asks) or (
            signals.looks_like_a_quote and not asks) or (intent is not None and intent.name == QUOTATION and (
                signals.quote_like or (intent.confidence >= INTENT_SURE and not recognised))))
        # a life told is never turned away
        if told is None and not recognised and not verbatim and not self._evidence(signals, intent, plan,
                                                                                     story.nearness):
            return Fusion([], {}, similarity, None, [], [], signals, vector, teaching, quote, turned_away=True)
        if quote:  # looking for one verse, not for care
            recognised, situations = [], []
            lexical = self.lexical.by_coordination(plan.alternatives, own_scores, self.params.candidates, mask)
            lexical = [*verbatim, *(p for p in lexical if p not in verbatim)]  # the verse it quotes word for word
            topical = []
        p = self.params
        if getattr(self.store, "hybrid", False):  # the store fuses dense and sparse BM25 itself (Qdrant)
            channels = {"hybrid": self._server_fused(plan), "topical": topical}
            weights = {"hybrid": p.lexical_weight + p.dense_weight, "topical": p.topical_weight}
        else:
            channels = {"lexical": lexical, "dense": dense, "topical": topical}
            weights = {"lexical": p.lexical_weight, "dense": p.dense_weight, "topical": p.topical_weight}
        if quote and self.topics is not None and p.famous_weight:  # memory keeps the verses most people know
            near = list(dict.fromkeys([*lexical[:p.famous_pool], *dense[:p.famous_pool]]))
            channels["famosos"], weights["famosos"] = self.topics.best_known(near, p.famous_pool), p.famous_weight
        need = None
        if recognised:
            need = self.pastoral.ranking(recognised, p.candidates)
            weights = {name: w * p.care_words_weight for name, w in weights.items()}
            channels["need"] = [q for q in need.positions if mask is None or mask[q]]
            weights["need"] = p.need_weight
        care = told is None and not quote and not teaching and (bool(recognised) or (  # a life told, surely,
            sure_life(intent)  # no map entry
            and plan.scope is None))
        # a life told is cared for by its needs, not by the most-voted verses of a topic its words are near
        if not quote and not care and not (intent is not None and intent.name == SITUATION):
            if meant := self._meant_topics(vector, mask):
                channels["temas"], weights["temas"] = meant, p.meaning_topics_weight
        if self.answered is not None and not quote and not care and told is None and \
                intent is not None and intent.name == TEACHING:  # what Scripture teaches: questions like it answered
            channels["respondidas"] = self.answered.channel(vector, p.memory_candidates, mask, exclude,
                                                            floor=p.answered_floor)
            weights["respondidas"] = p.answered_weight
        if not quote and not care and intent is not None and intent.name == KNOWLEDGE and plan.scope is None:
            if named := self._named(plan, own_scores, mask):  # a story of someone the Bible names
                channels["nomeados"], weights["nomeados"] = named, p.named_weight
        if retold := self._story(plan, intent, vector, story, care, bool(verbatim), mask, told):  # own words
            channels["historias"], weights["historias"] = retold, p.story_weight
        if care and self.aptness is not None:  # verses blind judges found apt for messages like this one
            memory = self.aptness.features.memory
            channels["memory"] = memory.channel(vector, p.memory_candidates, mask, memory.situations.get(exclude))
            weights["memory"] = p.memory_weight
        fused = rrf(channels, weights, ks={"need": p.need_k, "memory": p.need_k, "respondidas": p.need_k})
        if verbatim:  # the verse quoted word for word comes first, whatever else the message says
            fused = ahead(fused, verbatim)
        if told is not None:  # the story retold comes first, its verses nearest the message leading
            own = set(self.stories.positions[told])
            fused = ahead(fused, [q for q in retold if q in own][:STORY_LEAD])
        ranks = {name: {pos: i + 1 for i, pos in enumerate(ranked)} for name, ranked in channels.items()}
        return Fusion(fused, ranks, similarity, need, recognised, situations, signals, vector, teaching, quote,
                      care=care, intent=intent, lexical_scores=own_scores, told=told, remembered=tuple(remembered))

    def _remembered(self, plan: QueryPlan, intent: Intent | None, vector, mask) -> list[int]:
        """A well-known verse typed from memory in one's own words, as if quoted word for word, however the
        intent model reads it ("se Deus tá do nosso lado, quem vai ser contra?" reads as a teaching asked); never
        inside a life surely told (its care comes first), unless the teller asks where the verse is ("o senhor é o meu
        pastor e nada me faltará, é salmo q número? minha vó repetia todo dia")."""
        if self.remembered is None or plan.scope is not None:
            return []
        if sure_life(intent):
            if not asks_where_a_verse_is(plan.text):
                return []
            # the verse is said in one sentence, the life in another: each read alone
            return next((found for sentence in sentences(plan.text, shortest=2) if (found := self.remembered.verses(
                sentence, self.embed_query(sentence), mask, near=True))), [])
        return self.remembered.verses(plan.text, vector, mask, near=intent is not None)

    def _evidence(self, signals: EvidenceSignals, intent: Intent | None, plan: QueryPlan | None = None,
                  story_nearness: float = 0.0) -> bool:
        """The evidence floor, with the intent as one more signal: a question clearly off the subject
        (a bus timetable, income tax) is turned away, and a clear question about Scripture whose words one
        verse holds ("pérolas aos porcos") is not, nor a life clearly told when the judges' memory can answer it."""
        sure = intent is not None and intent.confidence >= INTENT_SURE
        if sure and intent.name == OFFTOPIC:  # unless one verse holds every word it says
            return 3 <= signals.lexical_terms <= signals.lexical_best
        if sure and intent.name in (QUOTATION, TEACHING, KNOWLEDGE) and signals.lexical_best >= 2:
            return True
        if intent is not None and intent.name in (QUOTATION, KNOWLEDGE) and plan is not None \
                and plan.scope is None and story_nearness >= stories.SURE:
            return True  # a story, or a passage's best-known verse, in other words: "no princípio era o verbo"
        if intent is not None and intent.name == KNOWLEDGE and signals.lexical_best >= 2 and plan is not None \
                and self.knowledge.people is not None and self.knowledge.people.find(words_of(plan.text).split()):
            return True  # a story of someone in Scripture ("como Davi fugiu de Saul"), whatever its distance in meaning
        near = self.floor.calibrated and signals.dense_top >= self.floor.dense_pastoral
        if intent is not None and intent.name == TEACHING and near and \
                (sure or intent.probabilities.get(OFFTOPIC, 0.0) <= UNLIKELY_OFFTOPIC):
            return True  # what Scripture teaches, asked with nothing of another subject, near verses in meaning
        if sure and intent.name == SITUATION and self.aptness is not None:  # a life told: the judges' memory answers
            return True
        return self.floor.has_evidence(signals)
