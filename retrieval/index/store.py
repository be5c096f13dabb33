"""The vector store seam and its Chroma adapter (embedded or server)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse

import numpy as np

from retrieval.index.embedders import EmbedderIdentity


class StoreError(RuntimeError):
    """The configured vector store cannot be used."""


@dataclass(frozen=True, slots=True)
class DenseMatch:
    id: str
    similarity: float


class VectorStore(Protocol):
    """Stores one vector per verse id with metadata, and answers nearest-neighbour queries.

    Vectors are always computed by our `Embedder` and passed in; a store never embeds.
    ``where`` is a metadata filter in Chroma's syntax ({"book": {"$in": [...]}}).
    """

    location: str  # a path or a server URL, for /status

    def count(self) -> int: ...

    def identity(self) -> dict | None: ...

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[Mapping[str, Any]]) -> None: ...

    def delete(self, ids: Sequence[str]) -> None: ...

    def all_ids(self) -> set[str]: ...

    def sample(self) -> tuple[str, np.ndarray] | None:
        """One stored id and the vector stored for it (None when empty)."""

    def query(self, vector: np.ndarray, k: int, where: Mapping[str, Any] | None = None) -> list[DenseMatch]: ...

    def reset(self, identity: EmbedderIdentity) -> None: ...


PROBE_K = 100  # as many neighbours as a real search reads


def probe(store: VectorStore, dimension: int) -> None:
    """Raise `StoreError` unless the store answers real nearest-neighbour queries: a broad one, and one for a
    stored vector that must find itself (a corrupt HNSW index still counts its rows; only searches read it)."""
    try:
        store.query(np.full(dimension, 1 / np.sqrt(dimension), dtype=np.float32), PROBE_K)
        sample = store.sample()
        found = [] if sample is None else [m.id for m in store.query(sample[1], 10)]
    except Exception as error:
        raise StoreError(f"o repositório de vetores em {store.location} não responde a uma busca: "
                         f"{type(error).__name__}: {str(error)[:200]}") from error
    if sample is not None and sample[0] not in found:
        raise StoreError(f"o repositório de vetores em {store.location} não encontra nem um vetor que ele mesmo "
                         "guarda: índice corrompido")


def _chroma_settings():
    from chromadb.config import Settings as ChromaSettings

    return ChromaSettings(anonymized_telemetry=False, allow_reset=False)


def forget_chroma_clients() -> None:
    """Drop chromadb's cache of clients per path (after the files under one were removed)."""
    from chromadb.api.client import SharedSystemClient

    SharedSystemClient.clear_system_cache()


def chroma_client(path: Path | None = None, url: str = ""):
    """An embedded PersistentClient at ``path``, or an HttpClient for ``url``."""
    import chromadb

    try:
        if url:
            parsed = urlparse(url)
            if not parsed.hostname:
                raise StoreError(f"CHROMA_URL inválida: {url!r}")
            port = parsed.port or (443 if parsed.scheme == "https" else 8000)
            client = chromadb.HttpClient(host=parsed.hostname, port=port, ssl=parsed.scheme == "https",
                                         settings=_chroma_settings())
            client.heartbeat()
            return client
        path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(path), settings=_chroma_settings())
    except StoreError:
        raise
    except Exception as error:
        where = url or str(path)
        raise StoreError(f"não foi possível abrir o Chroma em {where}: {type(error).__name__}: {error}") from error


# Chroma's default graph (M 16) missed up to a fifth of the exact top 100 on dev queries over 31k verses;
# M 32 holds 0.90 of it at search ef 100 (0.965 at 200), and no eval set reads the difference (204 of 7,500
# items reorder, 4 gain a hit in the top 5 and 2 lose it), while a search takes ~1.7 ms less (docs/performance.md).
HNSW = {"hnsw:space": "cosine", "hnsw:search_ef": 100, "hnsw:construction_ef": 200, "hnsw:M": 32}


class ChromaStore:
    """One Chroma collection of verse vectors (cosine space, no embedding function)."""

    BATCH = 2000

    def __init__(self, client, name: str, location: str):
        self._client = client
        self.name = name
        self.location = location
        self._collection = self._open()

    def _open(self, identity: EmbedderIdentity | None = None):
        metadata = dict(HNSW)
        if identity is not None:
            metadata.update({f"embedder_{k}": str(v) for k, v in identity.as_dict().items()})
        # embedding_function=None: Chroma must never run its own (downloading) default model.
        return self._client.get_or_create_collection(self.name, embedding_function=None, metadata=metadata)

    def identity(self) -> dict | None:
        meta = self._collection.metadata or {}
        if "embedder_backend" not in meta or any(meta.get(k) != v for k, v in HNSW.items()):
            return None  # unlabelled, or built with other HNSW settings: to be rebuilt
        return {"backend": meta["embedder_backend"], "model": meta["embedder_model"],
                "dimension": int(meta["embedder_dimension"])}

    def reset(self, identity: EmbedderIdentity) -> None:
        """Drop every vector and label the collection with the embedder that will fill it."""
        try:
            self._client.delete_collection(self.name)
        except Exception:  # absent already
            pass
        self._collection = self._open(identity)

    def count(self) -> int:
        return self._collection.count()

    def all_ids(self) -> set[str]:
        ids: set[str] = set()
        offset = 0
        while True:
            page = self._collection.get(include=[], limit=10_000, offset=offset)["ids"]
            ids.update(page)
            if len(page) < 10_000:
                return ids
            offset += len(page)

    def upsert(self, ids, vectors, metadatas) -> None:
        for start in range(0, len(ids), self.BATCH):
            end = start + self.BATCH
            self._collection.upsert(ids=list(ids[start:end]), embeddings=np.asarray(vectors[start:end]),
                                    metadatas=[dict(m) for m in metadatas[start:end]])

    def delete(self, ids) -> None:
        for start in range(0, len(ids), self.BATCH):
            self._collection.delete(ids=list(ids[start:start + self.BATCH]))

    def sample(self) -> tuple[str, np.ndarray] | None:
        got = self._collection.get(limit=1, include=["embeddings"])
        if not got["ids"]:
            return None
        return got["ids"][0], np.asarray(got["embeddings"][0], dtype=np.float32)

    def query(self, vector, k, where=None) -> list[DenseMatch]:
        result = self._collection.query(query_embeddings=np.asarray(vector, dtype=np.float32)[None, :],
                                        n_results=k, where=where or None, include=["distances"])
        return [DenseMatch(i, 1.0 - float(d)) for i, d in zip(result["ids"][0], result["distances"][0])]
