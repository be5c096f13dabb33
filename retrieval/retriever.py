"""Hybrid retrieval: explicit references first, else bm25s + dense vectors fused by RRF."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from corpus.bible import Bible, load, sha256_of
from corpus.canon import BY_CODE
from corpus.references import exists, find_references, verses_of
from corpus.verse import Verse
from retrieval import documents
from retrieval.config import IndexConfig
from retrieval.embedders import Embedder, create_embedder
from retrieval.fusion import rrf
from retrieval.lexical import LexicalIndex
from retrieval.manifest import IndexCorrupt, Manifest, read_manifest
from retrieval.results import NO_EVIDENCE, OK, REFERENCE, REFERENCE_MISSING, Hit, SearchResult
from retrieval.scope import Scope
from retrieval.store import VectorStore

MAX_REFERENCE_VERSES = 200


class IndexNotReady(RuntimeError):
    """The index is missing, unfinished, stale or corrupt; the message says which."""


@dataclass(frozen=True)
class FusionParams:
    candidates: int = 100  # per channel, before fusion
    lexical_weight: float = 1.0
    dense_weight: float = 1.0


def label(verse: Verse) -> str:
    return f"{BY_CODE[verse.book].name} {verse.chapter}:{verse.verse}"


class Retriever:
    """Searches one translation; built by `open_retriever` at the wiring point."""

    def __init__(self, bible: Bible, lexical: LexicalIndex, embedder: Embedder, store: VectorStore,
                 manifest: Manifest, params: FusionParams = FusionParams()):
        self.bible = bible
        self.lexical = lexical
        self.embedder = embedder
        self.store = store
        self.manifest = manifest
        self.params = params
        self._uuid_pos = {documents.verse_uuid(bible.name, *v.key): i for i, v in enumerate(bible.verses)}
        self._book_of = np.array([v.book for v in bible.verses])
        self.opened_at = time.time()

    def search(self, query: str, k: int = 10, scope: Scope | None = None) -> SearchResult:
        """The best ``k`` verses for ``query``; explicit references are answered deterministically."""
        refs = find_references(query)
        if refs:
            return self._references(query, refs)
        if not self.lexical.analyzer.words(query) and not query.strip():
            return SearchResult(query, NO_EVIDENCE, [], scope)
        return self._hybrid(query, k, scope)

    def _references(self, query: str, refs) -> SearchResult:
        found = [r for r in refs if exists(r, self.bible)]
        missing = [r.osis() for r in refs if not exists(r, self.bible)]
        if not found:
            return SearchResult(query, REFERENCE_MISSING, [], None, missing)
        positions: list[int] = []
        for ref in found:
            for verse in verses_of(ref, self.bible):
                positions.append(self.bible.position(*verse.key))
        ordered = sorted(dict.fromkeys(positions))[:MAX_REFERENCE_VERSES]
        hits = [self._hit(p, 1.0, {"reference": i + 1}) for i, p in enumerate(ordered)]
        return SearchResult(query, REFERENCE, hits, None, missing)

    def _hybrid(self, query: str, k: int, scope: Scope | None) -> SearchResult:
        n = self.params.candidates
        mask = None if scope is None else np.isin(self._book_of, list(scope.books))
        scores = self.lexical.scores(query, mask)
        top = np.argpartition(-scores, min(n, len(scores) - 1))[:n]
        lexical = [int(p) for p in top[np.argsort(-scores[top])] if scores[p] > 0]
        vector = self.embedder.embed([query])[0]
        matches = self.store.query(vector, n, scope.where() if scope else None)
        dense = [self._uuid_pos[m.id] for m in matches if m.id in self._uuid_pos]
        similarity = {self._uuid_pos[m.id]: m.similarity for m in matches if m.id in self._uuid_pos}
        fused = rrf({"lexical": lexical, "dense": dense},
                    {"lexical": self.params.lexical_weight, "dense": self.params.dense_weight})
        lex_rank = {p: i + 1 for i, p in enumerate(lexical)}
        dense_rank = {p: i + 1 for i, p in enumerate(dense)}
        hits = []
        for position, score in fused[:k]:
            ranks = {name: r[position] for name, r in (("lexical", lex_rank), ("dense", dense_rank))
                     if position in r}
            hits.append(self._hit(position, score, ranks, similarity.get(position)))
        return SearchResult(query, OK if hits else NO_EVIDENCE, hits, scope)

    def _hit(self, position: int, score: float, ranks: dict, similarity: float | None = None) -> Hit:
        verse = self.bible.verses[position]
        return Hit(verse.id, label(verse), verse.text, score, ranks, verse, similarity)


def open_retriever(config: IndexConfig, embedder: Embedder | None = None,
                   store: VectorStore | None = None) -> Retriever:
    """Open a complete, current index; IndexNotReady says exactly what is wrong otherwise."""
    from retrieval.builder import open_store

    try:
        manifest = read_manifest(config.manifest_path)
    except IndexCorrupt as error:
        raise IndexNotReady(str(error)) from error
    if manifest is None:
        raise IndexNotReady(f"índice inexistente em {config.index_dir}: rode `python -m retrieval build`")
    if not manifest.complete:
        raise IndexNotReady("a última construção do índice não terminou: rode `python -m retrieval build`")
    if manifest.corpus.get("sha256") != sha256_of(config.corpus_path):
        raise IndexNotReady(f"o corpus {config.corpus_path} mudou desde a construção do índice")
    key = config.embedder_key()
    if {k: manifest.embedder.get(k) for k in key} != key:
        raise IndexNotReady(f"o índice foi construído com outro embedder ({manifest.embedder})")
    bible = load(config.corpus_path)
    try:
        lexical = LexicalIndex.load(config.lexical_dir)
    except Exception as error:
        raise IndexNotReady(f"índice BM25 corrompido em {config.lexical_dir}: {error}") from error
    if lexical.documents != len(bible):
        raise IndexNotReady(f"índice BM25 com {lexical.documents} documentos para {len(bible)} versículos")
    embedder = embedder or create_embedder(config.embedding_backend, config.embedding_model)
    if embedder.identity.as_dict() != manifest.embedder:
        raise IndexNotReady(f"embedder {embedder.identity.as_dict()} difere do índice {manifest.embedder}")
    store = store or open_store(config)
    if store.identity() != manifest.embedder:
        raise IndexNotReady(f"a coleção de vetores em {store.location} foi feita com outro embedder")
    if store.count() != len(bible):
        raise IndexNotReady(f"{store.count()} vetores em {store.location} para {len(bible)} versículos")
    return Retriever(bible, lexical, embedder, store, manifest)
