"""Index health for `/status` and `python -m retrieval status`."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from corpus.editions import edition_for
from retrieval.index.config import IndexConfig
from retrieval.index.manifest import IndexCorrupt, read_manifest
from retrieval.understand.topics import ATTRIBUTION


@dataclass
class IndexStatus:
    ready: bool
    translation: str = ""
    attribution: str = ""
    verses: int = 0
    bm25_documents: int = 0
    vectors: int = 0
    embedder: dict = field(default_factory=dict)
    store: str = ""
    built_at: str = ""
    build_seconds: float = 0.0
    topics: str = ""  # the topical prior in use, or why there is none
    pastoral: str = ""  # the pastoral map in use: situations, needs, references missing from this corpus
    ranker: str = ""  # the learned aptness ranker in use, or why it is off
    relevance: str = ""  # the learned relevance ranker of questions in use, or why it is off
    evidence_floor: str = ""
    caches: dict = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)

    def lines(self) -> list[str]:
        """Human-readable lines in Portuguese."""
        embedder = self.embedder
        lines = [
            f"índice: {'pronto' if self.ready else 'INDISPONÍVEL'}",
            f"tradução: {self.translation or '?'}",
            f"atribuição: {self.attribution or '?'}",
            f"versículos indexados: {self.verses} · documentos BM25: {self.bm25_documents} · vetores: {self.vectors}",
            f"embedder: {embedder.get('backend', '?')} ({embedder.get('model', '?')}, "
            f"{embedder.get('dimension', '?')} dim.)",
            f"repositório de vetores: {self.store}",
            f"última construção: {self.built_at or 'nunca'} ({self.build_seconds:.1f} s)",
            f"tópicos: {self.topics or '?'}",
            f"mapa pastoral: {self.pastoral or '?'}",
            f"ranqueador pastoral: {self.ranker or '?'}",
            f"ranqueador de perguntas: {self.relevance or '?'}",
            f"piso de evidência: {self.evidence_floor or '?'}",
        ]
        for name, stats in self.caches.items():
            lines.append(f"cache {name}: {stats['hits']} acertos, {stats['misses']} faltas, {stats['size']} itens")
        lines += [f"erro: {e}" for e in self.errors]
        return lines


def index_status(config: IndexConfig, retriever=None, errors: list[str] | None = None) -> IndexStatus:
    """What the index holds and what is wrong with it; never raises."""
    store = f"{'Qdrant' if config.qdrant_url else 'Chroma'} em {config.store_location}"
    status = IndexStatus(ready=retriever is not None, store=store, errors=list(errors or []))
    try:
        manifest = retriever.manifest if retriever else read_manifest(config.manifest_path)
    except IndexCorrupt as error:
        status.errors.append(str(error))
        manifest = None
    if manifest is not None:
        edition = edition_for(manifest.corpus.get("path", config.corpus_path), manifest.corpus.get("name", ""))
        status.translation, status.attribution = edition.name, edition.attribution
        status.verses = manifest.corpus.get("verses", 0)
        status.bm25_documents = manifest.lexical.get("documents", 0)
        status.vectors = manifest.store.get("vectors", 0)
        status.embedder = manifest.embedder
        status.build_seconds = manifest.build_seconds
        if manifest.built_at:
            status.built_at = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(manifest.built_at))
    if retriever is not None:
        status.bm25_documents = retriever.lexical.documents
        status.vectors = retriever.store.count()
        status.embedder = retriever.embedder.identity.as_dict()
        status.store = f"{'Qdrant' if config.qdrant_url else 'Chroma'} em {retriever.store.location}"
        if retriever.topics is not None:
            status.topics = f"{ATTRIBUTION} ({len(retriever.topics.topics)} tópicos de {retriever.topics.path})"
        else:
            status.topics = "desativado (TOPICS_PATH vazio)"
        if retriever.pastoral is not None:
            reader = retriever.pastoral
            missing = sum(len(n.references) - len(reader.need_passages[k]) for k, n in reader.map.needs.items())
            status.pastoral = (f"{len(reader.map.situations)} situações, {len(reader.map.needs)} necessidades"
                               + (f"; {missing} referências ausentes deste corpus" if missing else ""))
        if retriever.aptness is not None:
            memory = retriever.aptness.features.memory
            status.ranker = (f"aprendido de {len(memory.pair_grade)} pares avaliados às cegas "
                             f"(modelo {retriever.aptness.model.data_sha})")
        else:
            status.ranker = f"DESATIVADO: {getattr(retriever, 'aptness_problem', '') or 'sem modelo'}"
        if getattr(retriever, "relevance", None) is not None:
            model = retriever.relevance.model
            answered = getattr(retriever, "answered", None)
            memory = (f"; memória de {len(answered.memory.situations)} perguntas respondidas" if answered is not None
                      else "; SEM a memória das perguntas respondidas (vetores dos versículos ausentes)")
            status.relevance = (f"aprendido de {model.report.get('questions', '?')} perguntas respondidas às cegas "
                                f"(modelo {model.data_sha}){memory}")
        else:
            status.relevance = f"DESATIVADO: {getattr(retriever, 'relevance_problem', '') or 'sem tópicos'}"
        status.evidence_floor = ("calibrado para este embedder" if retriever.floor.calibrated else
                                 "NÃO calibrado para este embedder: decide só pelas palavras da pergunta")
        status.caches = {"resultados": retriever.result_cache.stats(),
                         "embeddings de perguntas": retriever.embedding_cache.stats()}
    elif not status.errors:
        status.errors.append("índice não carregado")
    return status
