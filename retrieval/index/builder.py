"""`python -m retrieval build`: build what changed, atomically, one build at a time."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from corpus.bible import Bible, load, sha256_of
from retrieval.index import documents
from retrieval.index.config import IndexConfig
from retrieval.index.embedders import Embedder, create_embedder
from retrieval.index.hnsw_files import ensure_searchable
from retrieval.index.lexical import LexicalIndex, analyzer
from retrieval.index.manifest import COMPLETE, IndexCorrupt, Manifest, read_manifest, write_json_atomic, write_manifest
from retrieval.index.store import HNSW, ChromaStore, VectorStore, chroma_client, forget_chroma_clients, probe

COLLECTION = "verses"
Log = Callable[[str], None]


class BuildInProgress(RuntimeError):
    """Another process holds the build lock."""


@dataclass
class BuildReport:
    skipped: bool = False
    lexical_built: bool = False
    vectors_upserted: int = 0
    vectors_deleted: int = 0
    texts_embedded: int = 0
    seconds: float = 0.0
    reasons: list[str] = field(default_factory=list)


@contextmanager
def build_lock(index_dir: Path):
    """An exclusive, non-blocking lock; a second concurrent build is refused."""
    index_dir.mkdir(parents=True, exist_ok=True)
    path = index_dir / ".build.lock"
    handle = path.open("a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "?"
        handle.close()
        raise BuildInProgress(f"outra construção do índice já está em andamento (pid {holder}); "
                              "aguarde ela terminar") from None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    try:
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()


def open_store(config: IndexConfig) -> VectorStore:
    """The configured store: Qdrant when QDRANT_URL is set, else Chroma (embedded or server)."""
    if config.qdrant_url:
        from retrieval.index.qdrant_store import QdrantStore, qdrant_client

        return QdrantStore(qdrant_client(config.qdrant_url, config.index_dir / "qdrant"), COLLECTION,
                           config.store_location)
    client = chroma_client(path=config.chroma_dir, url=config.chroma_url)
    return ChromaStore(client, COLLECTION, config.store_location)


def probe_store(config: IndexConfig, store: VectorStore, dimension: int) -> None:
    """`probe` the store; local Chroma files are first searched by a child process (a corrupt HNSW file
    can kill the process that reads it)."""
    if not (config.chroma_url or config.qdrant_url):
        ensure_searchable(config.chroma_dir, COLLECTION, dimension, config.index_dir / "vectors-proven.json")
    probe(store, dimension)


def _open_or_reset(config: IndexConfig, log: Log) -> tuple[VectorStore, str]:
    """The store, and a reason to rebuild it: a local directory that cannot be read is removed and made anew
    (it holds only derived data); a server that cannot be used is an error for the operator."""
    try:
        store = open_store(config)
        if store.count() and (identity := store.identity()) and identity.get("dimension"):
            probe_store(config, store, int(identity.get("dimension") or 0))
        return store, ""
    except Exception as error:
        local = config.chroma_dir if not (config.chroma_url or config.qdrant_url) else None
        if local is None or not local.exists():
            raise
        problem = f"repositório de vetores ilegível ({type(error).__name__}: {str(error)[:120]})"
        log(f"{problem}: apagando {local} e reconstruindo")
        shutil.rmtree(local)
        forget_chroma_clients()  # chromadb caches one client per path, bound to the removed files
        return open_store(config), problem


@contextmanager
def _one_build(config: IndexConfig, shared, log: Log):
    """This machine's build lock; for a shared index, first the lock every replica shares (waited for)."""
    if shared is None:
        with build_lock(config.index_dir):
            yield
        return
    with shared.build_lock(on_wait=lambda: log("outra réplica está construindo o índice compartilhado: aguardando")):
        with build_lock(config.index_dir):
            yield


def current_manifest(config: IndexConfig, shared=None) -> Manifest | None:
    """The manifest that describes the index: the shared one (in the database) or this machine's file."""
    return shared.read() if shared is not None else read_manifest(config.manifest_path)


def build_index(config: IndexConfig, embedder: Embedder | None = None, store: VectorStore | None = None,
                log: Log = lambda _: None) -> BuildReport:
    """Bring the index in ``config.index_dir`` up to date with the corpus and embedder.

    A shared index (``config.shared``) is joined when complete: only the BM25 part is built here.
    """
    started = time.perf_counter()
    report = BuildReport()
    shared = config.shared_index()
    with _one_build(config, shared, log):
        bible = load(config.corpus_path)
        corpus_sha = sha256_of(config.corpus_path)
        try:
            old = current_manifest(config, shared)
        except IndexCorrupt as error:
            log(str(error))
            old = None
        lexical_reasons = _lexical_reasons(config, old, corpus_sha, len(bible))
        vector_reasons = _vector_reasons(config, old, corpus_sha)
        report.reasons = list(dict.fromkeys(lexical_reasons + vector_reasons))
        if store is None:
            store, problem = _open_or_reset(config, log)
            if problem:
                report.reasons.append(problem)
                vector_reasons.append(problem)
        if old is not None and not vector_reasons and not (store.count() == old.store.get("vectors") == len(bible)):
            report.reasons.append("o número de vetores no repositório não confere com o manifesto")
            vector_reasons.append("contagem")
        if old is not None and not lexical_reasons and not vector_reasons:
            if shared is not None and not config.manifest_path.exists():
                write_manifest(config.manifest_path, old)  # this machine's copy, for `retrieval status`
            report.skipped = True
            report.seconds = time.perf_counter() - started
            return report
        for reason in report.reasons:
            log(f"reconstruir: {reason}")
        manifest = old if old is not None else Manifest()
        manifest.status = "building"
        write_manifest(config.manifest_path, manifest)
        if shared is not None and vector_reasons:
            shared.write(manifest)  # the other replicas wait instead of serving half a collection

        if lexical_reasons:
            _build_lexical(config, bible, log)
            report.lexical_built = True
        embedder = embedder or (create_embedder(config.embedding_backend, config.embedding_model)
                                if vector_reasons else None)
        if vector_reasons:
            _build_vectors(config, bible, embedder, store, report, log, _Prints(config, shared))
        identity = embedder.identity.as_dict() if embedder else old.embedder

        manifest = Manifest(
            status=COMPLETE,
            corpus={"path": config.corpus_path.name, "sha256": corpus_sha, "name": bible.name,
                    "format": bible.format, "verses": len(bible)},
            embedder=identity,
            chunking={"window": config.window, "neighbour_weight": config.neighbour_weight},
            lexical={"stemmer": config.stemmer, "documents": len(bible)},
            store={"kind": config.store_kind, "location": config.manifest_location(), "collection": COLLECTION,
                   "vectors": store.count(), "hnsw": HNSW},
            built_at=time.time(),
            build_seconds=round(time.perf_counter() - started, 2),
        )
        write_manifest(config.manifest_path, manifest)
        if shared is not None and (vector_reasons or old is None or not old.complete):
            shared.write(manifest)
    report.seconds = time.perf_counter() - started
    return report


class _Prints:
    """Where the fingerprints of the stored vectors are kept: beside the shared manifest, or in a local file."""

    def __init__(self, config: IndexConfig, shared):
        self.path, self.shared = config.index_dir / "vectors.json", shared

    def read(self) -> dict[str, str]:
        return self.shared.read_prints() if self.shared is not None else _read_prints(self.path)

    def write(self, prints: dict[str, str]) -> None:
        if self.shared is not None:
            self.shared.write_prints(prints)
        else:
            write_json_atomic(self.path, prints)


def _common_reasons(old: Manifest | None, corpus_sha: str) -> list[str]:
    """Reasons that invalidate both halves of the index."""
    if old is None:
        return ["índice inexistente"]
    reasons = []
    if not old.complete:
        reasons.append("a última construção não terminou")
    if old.corpus.get("sha256") != corpus_sha:
        reasons.append("o corpus mudou")
    return reasons


def _lexical_reasons(config: IndexConfig, old: Manifest | None, corpus_sha: str, verses: int) -> list[str]:
    reasons = _common_reasons(old, corpus_sha)
    if old is None:
        return reasons
    if old.lexical.get("stemmer") != config.stemmer:
        reasons.append("o stemmer mudou")
    if not reasons:
        try:
            if LexicalIndex.load(config.lexical_dir).documents != verses:
                reasons.append("índice BM25 com número errado de documentos")
        except Exception:
            reasons.append("índice BM25 ausente ou corrompido")
    return reasons


def _vector_reasons(config: IndexConfig, old: Manifest | None, corpus_sha: str) -> list[str]:
    reasons = _common_reasons(old, corpus_sha)
    if old is None:
        return reasons
    key = config.embedder_key()
    if {k: old.embedder.get(k) for k in key} != key:
        reasons.append("o embedder mudou")
    if old.chunking != {"window": config.window, "neighbour_weight": config.neighbour_weight}:
        reasons.append("os parâmetros de janela mudaram")
    if not config.same_location(old.store.get("location")):
        reasons.append("o repositório de vetores mudou")
    if old.store.get("hnsw") != HNSW:
        reasons.append("os parâmetros HNSW mudaram")
    if config.qdrant_url and old.lexical.get("stemmer") != config.stemmer:
        reasons.append("o stemmer dos vetores esparsos mudou")
    return reasons


def _build_lexical(config: IndexConfig, bible: Bible, log: Log) -> None:
    log("BM25: indexando versículos isolados")
    index = LexicalIndex.build([v.text for v in bible.verses], analyzer(config.stemmer))
    staging = config.index_dir / "bm25.new"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    index.save(staging)
    shutil.rmtree(config.lexical_dir, ignore_errors=True)
    staging.rename(config.lexical_dir)


def _build_vectors(config: IndexConfig, bible: Bible, embedder: Embedder, store: VectorStore,
                   report: BuildReport, log: Log, prints: _Prints) -> None:
    identity = embedder.identity
    cache_dir = config.index_dir / "embeddings"
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache = documents.EmbeddingCache(cache_dir / f"{identity.slug}.npz", identity.dimension)
    report.texts_embedded = cache.ensure([v.text for v in bible.verses], embedder, log=log)
    if report.texts_embedded:
        cache.save()

    hybrid = getattr(store, "hybrid", False)
    slug = f"{identity.slug}|{config.stemmer}" if hybrid else identity.slug  # sparse vectors follow the stemmer
    new_prints = dict(zip(
        (documents.verse_uuid(bible.name, *v.key) for v in bible.verses),
        documents.fingerprints(bible, config.window, config.neighbour_weight, slug)))
    old_prints = prints.read()
    if store.identity() != identity.as_dict() or set(old_prints) != store.all_ids():
        log(f"vetores: coleção recriada para {identity.slug}")
        store.reset(identity)
        old_prints = {}
    prints.write({})  # until the store matches again, trust nothing in it
    position = {documents.verse_uuid(bible.name, *v.key): i for i, v in enumerate(bible.verses)}
    changed = [uid for uid, fp in new_prints.items() if old_prints.get(uid) != fp]
    removed = [uid for uid in old_prints if uid not in new_prints]
    if removed:
        store.delete(removed)
    sparse = _SparseDocuments(bible, config.stemmer) if hybrid else None
    for start in range(0, len(changed), 4000):
        chunk = changed[start:start + 4000]
        positions = [position[uid] for uid in chunk]
        vectors = documents.window_vectors(bible, positions, cache, config.window, config.neighbour_weight)
        metadatas = [documents.metadata(bible, p) for p in positions]
        if sparse is None:
            store.upsert(chunk, vectors, metadatas)
        else:
            store.upsert(chunk, vectors, metadatas, sparse=[sparse.vector(p) for p in positions])
        log(f"vetores: {start + len(chunk)}/{len(changed)} gravados")
    prints.write(new_prints)
    report.vectors_upserted, report.vectors_deleted = len(changed), len(removed)


class _SparseDocuments:
    """BM25 sparse vectors of the isolated verses, for stores that fuse server-side."""

    def __init__(self, bible: Bible, stemmer: str):
        from retrieval.index import sparse

        self._sparse = sparse
        analyze = analyzer(stemmer)
        self.bible = bible
        self.stems = [analyze(v.text) for v in bible.verses]
        self.average = sum(len(s) for s in self.stems) / max(len(self.stems), 1)

    def vector(self, position: int) -> tuple[list[int], list[float]]:
        return self._sparse.document_vector(self.stems[position], self.average)


def _read_prints(path: Path) -> dict[str, str]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
