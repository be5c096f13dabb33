"""Qdrant as the vector store: dense and sparse (BM25) vectors per verse, fused server-side by RRF."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from retrieval.index.embedders import EmbedderIdentity
from retrieval.index.store import DenseMatch, StoreError

DENSE, SPARSE = "dense", "bm25"
META_COLLECTION = "pastor_meta"


def qdrant_client(url: str, local_path=None):
    """A client for ``url``: http(s)://host:port, or "local" for qdrant-client's embedded mode at ``local_path``."""
    try:
        from qdrant_client import QdrantClient
    except ImportError:
        raise StoreError("QDRANT_URL definido, mas o pacote qdrant-client não está instalado "
                         "(pip install 'pastor-online[qdrant]')") from None
    try:
        if url == "local":
            local_path.mkdir(parents=True, exist_ok=True)
            return QdrantClient(path=str(local_path))
        if url == ":memory:":
            return QdrantClient(":memory:")
        client = QdrantClient(url=url, timeout=30)
        client.get_collections()
        return client
    except Exception as error:
        raise StoreError(f"não foi possível abrir o Qdrant em {url}: {type(error).__name__}: {error}") from error


class QdrantStore:
    """One Qdrant collection; the embedder identity is kept in a small metadata collection."""

    hybrid = True  # the Retriever sends sparse queries and lets the server fuse
    BATCH = 1000

    def __init__(self, client, name: str, location: str):
        from qdrant_client import models

        self._m = models
        self.client, self.name, self.location = client, name, location
        if not self.client.collection_exists(META_COLLECTION):
            self.client.create_collection(META_COLLECTION, vectors_config={})

    # -- identity ---------------------------------------------------------------------------------
    def _meta_id(self) -> str:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"pastor-online/{self.name}"))

    def identity(self) -> dict | None:
        if not self.client.collection_exists(self.name):
            return None
        found = self.client.retrieve(META_COLLECTION, [self._meta_id()], with_payload=True)
        return dict(found[0].payload["identity"]) if found else None

    def reset(self, identity: EmbedderIdentity) -> None:
        m = self._m
        if self.client.collection_exists(self.name):
            self.client.delete_collection(self.name)
        self.client.create_collection(
            self.name,
            vectors_config={DENSE: m.VectorParams(size=identity.dimension, distance=m.Distance.COSINE)},
            sparse_vectors_config={SPARSE: m.SparseVectorParams(modifier=m.Modifier.IDF)},
        )
        self.client.upsert(META_COLLECTION, [m.PointStruct(id=self._meta_id(), vector={},
                                                           payload={"identity": identity.as_dict()})])

    # -- contents -----------------------------------------------------------------------------------
    def count(self) -> int:
        if not self.client.collection_exists(self.name):
            return 0
        return self.client.count(self.name, exact=True).count

    def all_ids(self) -> set[str]:
        ids, offset = set(), None
        while self.client.collection_exists(self.name):
            points, offset = self.client.scroll(self.name, limit=10_000, offset=offset, with_payload=False,
                                                with_vectors=False)
            ids.update(str(p.id) for p in points)
            if offset is None:
                break
        return ids

    def sample(self) -> tuple[str, np.ndarray] | None:
        if not self.client.collection_exists(self.name):
            return None
        points, _ = self.client.scroll(self.name, limit=2, with_payload=False, with_vectors=[DENSE])
        for point in points:
            vector = point.vector.get(DENSE) if isinstance(point.vector, dict) else point.vector
            if str(point.id) != self._meta_id() and vector:
                return str(point.id), np.asarray(vector, dtype=np.float32)
        return None

    def upsert(self, ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[Mapping[str, Any]],
               sparse: Sequence[tuple[list[int], list[float]]] | None = None) -> None:
        m = self._m
        for start in range(0, len(ids), self.BATCH):
            points = []
            for i in range(start, min(start + self.BATCH, len(ids))):
                vector: dict = {DENSE: np.asarray(vectors[i], dtype=np.float32).tolist()}
                if sparse is not None and sparse[i][0]:
                    vector[SPARSE] = m.SparseVector(indices=sparse[i][0], values=sparse[i][1])
                points.append(m.PointStruct(id=ids[i], vector=vector, payload=dict(metadatas[i])))
            self.client.upsert(self.name, points)

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self.client.delete(self.name, points_selector=self._m.PointIdsList(points=list(ids)))

    # -- search -----------------------------------------------------------------------------------
    def query(self, vector, k, where=None) -> list[DenseMatch]:
        result = self.client.query_points(self.name, query=np.asarray(vector, dtype=np.float32).tolist(), using=DENSE,
                                          limit=k, query_filter=self._filter(where), with_payload=False)
        return [DenseMatch(str(p.id), float(p.score)) for p in result.points]

    def query_hybrid(self, vector, sparse: tuple[list[int], list[float]], k: int,
                     where=None) -> list[DenseMatch]:
        """Dense and sparse candidates fused by the server with reciprocal rank fusion (scores are RRF)."""
        m = self._m
        query_filter = self._filter(where)
        prefetch = [m.Prefetch(query=np.asarray(vector, dtype=np.float32).tolist(), using=DENSE, limit=k,
                               filter=query_filter)]
        if sparse[0]:
            prefetch.append(m.Prefetch(query=m.SparseVector(indices=sparse[0], values=sparse[1]), using=SPARSE,
                                       limit=k, filter=query_filter))
        result = self.client.query_points(self.name, prefetch=prefetch, query=m.FusionQuery(fusion=m.Fusion.RRF),
                                          limit=k, query_filter=query_filter, with_payload=False)
        return [DenseMatch(str(p.id), float(p.score)) for p in result.points]

    def _filter(self, where):
        """Chroma-style {"book": "PSA"} or {"book": {"$in": [...]}} as a Qdrant filter."""
        if not where:
            return None
        m = self._m
        conditions = []
        for key, value in where.items():
            if isinstance(value, dict) and "$in" in value:
                conditions.append(m.FieldCondition(key=key, match=m.MatchAny(any=list(value["$in"]))))
            else:
                conditions.append(m.FieldCondition(key=key, match=m.MatchValue(value=value)))
        return m.Filter(must=conditions)
