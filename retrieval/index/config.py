"""The index configuration, derived once from Settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_WINDOW = 0
DEFAULT_NEIGHBOUR_WEIGHT = 0.5
DEFAULT_STEMMER = "snowball-pt"


@dataclass(frozen=True)
class IndexConfig:
    """Everything that decides what the index contains and where it lives."""

    corpus_path: Path
    data_dir: Path
    embedding_backend: str = "use-m3"
    embedding_model: str = ""
    chroma_url: str = ""
    qdrant_url: str = ""  # http(s)://host:6333, or "local" for qdrant-client's embedded mode in the data dir
    window: int = DEFAULT_WINDOW
    neighbour_weight: float = DEFAULT_NEIGHBOUR_WEIGHT
    stemmer: str = DEFAULT_STEMMER
    topics_path: Path | None = None  # OpenBible topical data; None disables the topical channel
    intent_model_dir: Path | None = None  # the intent classifier's cache; None: DATA_DIR/index/understanding
    people_path: Path | None = None  # Theographic people and events; None: no "quem foi X" by person
    database_url: str = field(default="", repr=False)  # PostgreSQL: with a vector server, the index is shared

    @classmethod
    def from_settings(cls, settings, **overrides) -> IndexConfig:
        values = dict(corpus_path=Path(settings.corpus_path), data_dir=Path(settings.data_dir),
                      embedding_backend=settings.embedding_backend, embedding_model=settings.embedding_model,
                      chroma_url=settings.chroma_url, qdrant_url=settings.qdrant_url,
                      topics_path=Path(settings.topics_path) if settings.topics_path else None,
                      people_path=Path(settings.people_path) if getattr(settings, "people_path", "") else None,
                      intent_model_dir=Path(settings.intent_model_dir) if getattr(settings, "intent_model_dir", "")
                      else None,
                      database_url=settings.database_url.get_secret_value())
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"

    @property
    def manifest_path(self) -> Path:
        return self.index_dir / "manifest.json"

    @property
    def lexical_dir(self) -> Path:
        return self.index_dir / "bm25"

    @property
    def chroma_dir(self) -> Path:
        return self.index_dir / "chroma"

    @property
    def store_kind(self) -> str:
        return "qdrant" if self.qdrant_url else "chroma"

    def manifest_location(self) -> str:
        """The store's location as the manifest keeps it: relative to the data directory when inside it, so a
        data directory restored elsewhere is still the same index."""
        location = self.store_location
        if "://" in location:
            return location
        try:
            return Path(location).resolve().relative_to(self.data_dir.resolve()).as_posix()
        except ValueError:
            return location

    def same_location(self, recorded: str | None) -> bool:
        """Whether a manifest's recorded location is this configuration's store (older manifests kept it
        absolute, or relative to the working directory they were built from)."""
        if recorded is None:
            return False
        if recorded == self.manifest_location():
            return True
        if "://" in recorded or "://" in self.store_location:
            return recorded == self.store_location
        here = Path(self.store_location).resolve()
        return any((base / recorded).resolve() == here for base in (self.data_dir, Path.cwd()))

    @property
    def store_location(self) -> str:
        if self.qdrant_url:
            return str(self.index_dir / "qdrant") if self.qdrant_url == "local" else self.qdrant_url
        return self.chroma_url or str(self.chroma_dir)

    @property
    def shared(self) -> bool:
        """Replicas share this index: its vectors are on a server and its manifest in PostgreSQL."""
        remote = bool(self.chroma_url) or (bool(self.qdrant_url) and self.qdrant_url != "local")
        return remote and self.database_url.startswith(("postgresql://", "postgres://"))

    def shared_index(self):
        """The shared manifest and build lock (retrieval.index.shared), or None for an index of this machine only."""
        from retrieval.index.shared import SharedIndex

        return SharedIndex(self.database_url, self.store_location) if self.shared else None

    def embedder_key(self) -> dict:
        """The configured embedder, before loading it (the dimension comes from the model)."""
        model = self.embedding_model if self.embedding_backend == "sentence-transformers" else \
            "universal-sentence-encoder-multilingual-3"
        return {"backend": self.embedding_backend, "model": model}
