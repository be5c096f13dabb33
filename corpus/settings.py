"""The corpus's own settings (environment and `.env`); the bot's settings extend these."""

from __future__ import annotations

from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_CORPUS = Path("../shared/corpus/por-blivre.usfx.xml")


class CorpusSettings(BaseSettings):
    """Where the Bible is and where it comes from."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    corpus_path: Path = DEFAULT_CORPUS
    corpus_url: str = "https://ebible.org/Scriptures/porbr2018_usfx.zip"
    data_dir: Path = Path("data")
