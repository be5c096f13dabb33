"""Opening the index at startup: complete, current and consistent, or a clear reason why not."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from corpus.bible import load, sha256_of
from retrieval.evidence import EvidenceFloor
from retrieval.index.config import IndexConfig
from retrieval.index.embedders import Embedder, create_embedder
from retrieval.index.lexical import LexicalIndex
from retrieval.index.manifest import IndexCorrupt
from retrieval.index.shared import SharedIndexError
from retrieval.index.store import StoreError, VectorStore
from retrieval.knowledge import people_cache
from retrieval.knowledge.passages import NamedPassages, PassagesError, words_of
from retrieval.knowledge.people import PeopleError
from retrieval.knowledge.questions import Knowledge
from retrieval.knowledge.verbatim import VerbatimIndex
from retrieval.retriever import Retriever
from retrieval.understand.intent import IntentModel, intent_model
from retrieval.understand.pastoral import PastoralMap, PastoralMapError, PastoralReader
from retrieval.understand.thesaurus import Thesaurus
from retrieval.understand.tone import ToneLabels
from retrieval.understand.topic_meaning import TopicMeanings
from retrieval.understand.topics import TopicIndex, TopicsError

log = logging.getLogger(__name__)


class IndexNotReady(RuntimeError):
    """The index is missing, unfinished, stale or corrupt; the message says which."""


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Log how long one start-up stage took (`python -m bot` at INFO shows where the start goes)."""
    began = time.perf_counter()
    yield
    log.info("início: %s em %.2f s", name, time.perf_counter() - began)


def open_retriever(config: IndexConfig, embedder: Embedder | None = None,
                   store: VectorStore | None = None) -> Retriever:
    """Open a complete, current index; IndexNotReady says exactly what is wrong otherwise."""
    from retrieval.index.builder import current_manifest, open_store, probe_store
    from retrieval.index.embedders import one_blas_thread

    one_blas_thread()  # searches run side by side on the bot's CPU threads, one core each
    try:
        manifest = current_manifest(config, config.shared_index())
    except (IndexCorrupt, SharedIndexError) as error:
        raise IndexNotReady(str(error)) from error
    where = f"compartilhado em {config.store_location}" if config.shared else f"em {config.index_dir}"
    if manifest is None:
        raise IndexNotReady(f"índice inexistente {where}: rode `python -m retrieval build`")
    if not manifest.complete:
        raise IndexNotReady(f"a construção do índice {where} não terminou (ou está em andamento)")
    if manifest.corpus.get("sha256") != sha256_of(config.corpus_path):
        raise IndexNotReady(f"o corpus {config.corpus_path} mudou desde a construção do índice")
    key = config.embedder_key()
    if {k: manifest.embedder.get(k) for k in key} != key:
        raise IndexNotReady(f"o índice foi construído com outro embedder ({manifest.embedder})")
    with stage("corpus lido"):
        bible = load(config.corpus_path)
    if not config.lexical_dir.exists():
        raise IndexNotReady(f"índice BM25 ausente em {config.lexical_dir}")
    try:
        with stage("BM25 carregado"):
            lexical = LexicalIndex.load(config.lexical_dir)
    except Exception as error:
        raise IndexNotReady(f"índice BM25 corrompido em {config.lexical_dir}: {error}") from error
    if lexical.documents != len(bible):
        raise IndexNotReady(f"índice BM25 com {lexical.documents} documentos para {len(bible)} versículos")
    with stage("embedder carregado"):
        embedder = embedder or create_embedder(config.embedding_backend, config.embedding_model)
    if embedder.identity.as_dict() != manifest.embedder:
        raise IndexNotReady(f"embedder {embedder.identity.as_dict()} difere do índice {manifest.embedder}")
    if store is None:
        try:
            store = open_store(config)
        except StoreError as error:
            raise IndexNotReady(str(error)) from error
    if store.identity() != manifest.embedder:
        raise IndexNotReady(f"a coleção de vetores em {store.location} foi feita com outro embedder")
    try:
        with stage("vetores verificados"):
            probe_store(config, store, embedder.identity.dimension)
    except StoreError as error:
        raise IndexNotReady(str(error)) from error
    if store.count() != len(bible):
        raise IndexNotReady(f"{store.count()} vetores em {store.location} para {len(bible)} versículos")
    thesaurus = Thesaurus()
    try:
        pastoral_map = PastoralMap.load()
    except PastoralMapError as error:
        raise IndexNotReady(f"mapa pastoral inválido: {error}") from error
    topics = None
    if config.topics_path is not None:
        wanted = {t for c in thesaurus.concepts for t in c.topics} | pastoral_map.topics
        try:
            with stage("tópicos carregados"):
                topics = TopicIndex.load(config.topics_path, bible)  # every topic: the meaning channel reads them all
        except TopicsError as error:
            raise IndexNotReady(f"{error} (TOPICS_PATH vazio desativa o canal de tópicos)") from error
        if unknown := topics.missing(sorted(wanted)):
            log.warning("tópicos do tesauro ou do mapa pastoral ausentes em %s (ignorados): %s",
                        config.topics_path, ", ".join(unknown))
    meanings = None
    if topics is not None:
        with stage("tópicos pelo sentido"):
            meanings = TopicMeanings.cached(topics, embedder.embed, embedder.identity.slug,
                                            config.intent_model_dir or config.index_dir / "understanding")
    floor = EvidenceFloor.for_embedder(manifest.embedder)
    with stage("mapa pastoral e tons"):
        pastoral = PastoralReader(pastoral_map, bible, embedder, topics)
        tones = ToneLabels.cached(bible, manifest.corpus.get("sha256", ""), config.topics_path, config.index_dir)
    with stage("classificador de intenções"):
        intents = _intents(config, embedder, bible, topics)
    with stage("passagens e pessoas"):
        knowledge = _knowledge(config, bible, manifest.corpus.get("sha256", ""))
        verbatim = VerbatimIndex.cached([v.text for v in bible.verses], manifest.corpus.get("sha256", ""),
                                        config.index_dir)
    with stage("ranqueador pastoral"):
        aptness, problem = _aptness(config, bible, embedder, thesaurus, topics, tones)
    retriever = Retriever(bible, lexical, embedder, store, manifest, topics=topics, thesaurus=thesaurus, floor=floor,
                          pastoral=pastoral, tones=tones, intents=intents, knowledge=knowledge, aptness=aptness,
                          topic_meanings=meanings, verbatim=verbatim)
    retriever.aptness_problem = problem
    if topics is not None:
        with stage("ranqueador de relevância"):
            retriever.relevance, retriever.relevance_problem = _relevance(config, retriever)
    if retriever.relevance is not None:  # the ranker was trained with this memory as one of its channels
        with stage("perguntas respondidas"):
            retriever.answered = _answered(config, retriever)
    with stage("passagens pelo sentido"):
        retriever.stories = _stories(config, retriever)
    with stage("versículos lembrados"):
        retriever.remembered = _remembered(config, retriever)
    with stage("pessoas descritas"):
        retriever.knowledge.described = _described_people(config, retriever)
    _share_rivals(retriever)
    return retriever


def _understanding(config: IndexConfig):
    """Where the models and caches of understanding are kept beside the index."""
    return config.intent_model_dir or config.index_dir / "understanding"


def _verse_vectors(config: IndexConfig, retriever, what: str):
    """The index's verse vectors aligned to the corpus, or None (said in the log: ``what`` is off without them)."""
    from retrieval.aptness.memory import VerseVectors

    try:
        return VerseVectors.of_index(retriever.bible, retriever.embedder.identity.slug, config.index_dir,
                                     _understanding(config))
    except (OSError, ValueError) as error:
        log.warning("%s desativadas: %s", what, error)
        return None


def _stories(config: IndexConfig, retriever):
    """Named passages by meaning, or None (said in the log) when the index's verse vectors cannot be read."""
    from retrieval.knowledge.stories import StoryMeanings, load_exemplars, other_kinds
    from retrieval.understand.topic_meaning import read_frames

    if retriever.knowledge.passages is None:
        return None
    try:
        exemplars = load_exemplars()
    except (OSError, ValueError) as error:
        raise IndexNotReady(f"recontos das passagens inválidos: {error}") from error
    verses = _verse_vectors(config, retriever, "passagens pelo sentido")
    if verses is None:
        return None
    return StoryMeanings.cached(retriever.knowledge.passages, retriever.bible, verses, retriever.embedder.embed,
                                retriever.embedder.identity.slug, _understanding(config), read_frames(), exemplars,
                                other_kinds())


def _remembered(config: IndexConfig, retriever):
    """Well-known verses as people type them from memory (retrieval/data/verses_remembered.jsonl)."""
    from retrieval.knowledge.remembered import RememberedVerses, load_sayings
    from retrieval.knowledge.stories import load_exemplars, other_kinds

    try:
        sayings, retold = load_sayings(), [text for _, text in load_exemplars()]
    except (OSError, ValueError) as error:
        raise IndexNotReady(f"versículos lembrados inválidos: {error}") from error
    return RememberedVerses.cached(retriever.bible, sayings, other_kinds(), retold, retriever.embedder.embed,
                                   retriever.embedder.identity.slug, _understanding(config))


def _share_rivals(retriever) -> None:
    """The retellings', the remembered verses' and the descriptions' banks hold the same messages of other kinds:
    read them once."""
    stories, remembered = retriever.stories, retriever.remembered
    if stories is None or stories.retellings is None or remembered is None:
        return
    rivals = stories.retellings.trailing_rivals()
    retriever.stories = replace(stories, retellings=stories.retellings.sharing(rivals))
    retriever.remembered = replace(remembered, retellings=remembered.retellings.sharing(rivals))
    described = retriever.knowledge.described
    if described is not None and described.asking is not None:
        retriever.knowledge.described = replace(described, asking=described.asking.sharing(rivals))


def _described_people(config: IndexConfig, retriever):
    """Bible people as askers describe them without the name (retrieval/data/people_described.jsonl)."""
    from retrieval.index.lexical import STOPWORDS
    from retrieval.knowledge.described import described_settings
    from retrieval.knowledge.described_people import DescribedPeople, load_descriptions, load_named
    from retrieval.knowledge.stories import load_exemplars, other_kinds, quotations

    people = retriever.knowledge.people
    if people is None:
        return None
    try:
        descriptions, named = load_descriptions(), load_named()
        contrasts = [*named, *(text for _, text in load_exemplars()), *quotations()]
    except (OSError, ValueError) as error:
        raise IndexNotReady(f"pessoas descritas inválidas: {error}") from error
    known = {p.id for same in people.by_name.values() for p in same}
    frame = described_settings().frame
    embed, slug, directory = retriever.embedder.embed, retriever.embedder.identity.slug, _understanding(config)
    described = DescribedPeople.build(descriptions, known, STOPWORDS | frame, embed, slug, directory)
    if described is None:
        return None
    names = tuple(people.everyone_named(words_of(text).split()) for text in described.texts)  # ~0.4 s
    return replace(described, names=names).gated(other_kinds(), contrasts, embed, slug, directory)


def _answered(config: IndexConfig, retriever):
    """The questions answered before (retrieval/data/relevance), or None (said in the log) without verse vectors."""
    from retrieval.relevance.answered import answered_questions
    from retrieval.relevance.train import load_questions, training_files
    from retrieval.understand.query import plan_query
    from retrieval.understand.topic_meaning import read_frames

    try:
        questions = load_questions(training_files())
    except (OSError, ValueError) as error:
        raise IndexNotReady(f"perguntas respondidas inválidas: {error}") from error
    verses = _verse_vectors(config, retriever, "perguntas respondidas")
    if verses is None:
        return None
    return answered_questions(questions, read_frames(), retriever.bible, retriever.embedder.embed, verses,
                              _understanding(config), retriever.embedder.identity.slug,
                              lambda q: plan_query(q, retriever.thesaurus).search_text)


def _relevance(config: IndexConfig, retriever):
    """The learned order of a question's candidates, or (None, why not): said loudly, never skipped in silence."""
    from retrieval.aptness.memory import VerseVectors
    from retrieval.relevance.model import RelevanceModelError, open_relevance

    try:
        if getattr(retriever.store, "hybrid", False):
            raise RelevanceModelError("o ranqueador de relevância não lê a busca fundida pelo Qdrant")
        verses = VerseVectors.of_index(retriever.bible, retriever.embedder.identity.slug, config.index_dir,
                                       config.intent_model_dir or config.index_dir / "understanding")
        return open_relevance(retriever, verses), ""
    except (RelevanceModelError, OSError, ValueError) as error:
        log.warning("ranqueador de relevância desativado: %s (as perguntas seguem a ordem da fusão)", error)
        return None, str(error)


def _aptness(config: IndexConfig, bible, embedder: Embedder, thesaurus, topics, tones):
    """The learned ranker of care candidates, or (None, why not): said loudly, never skipped in silence."""
    from retrieval.aptness.ranker import AptnessModelError, open_ranker

    try:
        return open_ranker(bible, embedder, thesaurus, topics, tones, config.index_dir,
                           config.intent_model_dir or config.index_dir / "understanding"), ""
    except AptnessModelError as error:
        log.warning("ranqueador pastoral desativado: %s (as situações seguem a ordem do mapa pastoral)", error)
        return None, str(error)


def _intents(config: IndexConfig, embedder: Embedder, bible, topics) -> IntentModel:
    """The intent classifier, trained from the bank on first use and kept beside the index."""
    try:
        return intent_model(embedder.embed, embedder.identity.slug,
                            config.intent_model_dir or config.index_dir / "understanding", bible, topics)
    except ValueError as error:
        raise IndexNotReady(f"banco de intenções inválido: {error}") from error


def _knowledge(config: IndexConfig, bible, corpus_sha: str) -> Knowledge:
    """Named passages and Bible people; the people kept beside the intent model (restarts skip ~2 s)."""
    try:
        passages = NamedPassages.load(bible)
    except PassagesError as error:
        raise IndexNotReady(f"passagens nomeadas inválidas: {error}") from error
    people = None
    if config.people_path is not None:
        try:
            people = people_cache.cached(config.people_path, bible, corpus_sha,
                                         config.intent_model_dir or config.index_dir / "understanding")
        except PeopleError as error:
            raise IndexNotReady(f"{error} (PEOPLE_PATH vazio desativa as pessoas bíblicas)") from error
    return Knowledge(passages, people)
