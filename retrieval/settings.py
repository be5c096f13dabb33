"""The index's settings (environment and `.env`); the bot's settings extend these."""

from __future__ import annotations

from typing import Literal

from pydantic import SecretStr, field_validator

from corpus.settings import CorpusSettings, in_project


class RetrievalSettings(CorpusSettings):
    """Topic data, embedder and vector store."""

    topics_path: str = "../shared/data/openbible-topic-votes.tsv"
    intent_model_dir: str = ""  # where the intent classifier trained from the bank is kept (default: beside the index)
    people_path: str = "../shared/data/theographic"  # Theographic People.csv and Events.csv; empty disables
    topics_url: str = "https://a.openbible.info/data/topic-votes.zip"
    embedding_backend: Literal["use-m3", "sentence-transformers"] = "use-m3"
    embedding_model: str = ""
    chroma_url: str = ""
    qdrant_url: str = ""
    database_url: SecretStr = SecretStr("")  # postgresql://…: state and the shared index's manifest and lock

    @field_validator("topics_path", "intent_model_dir", "people_path", mode="after")
    @classmethod
    def _retrieval_paths_in_project(cls, value: str) -> str:
        return in_project(value)
