"""The corpus's own settings (environment and `.env`); the bot's settings extend these."""

from __future__ import annotations

from pathlib import Path

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT = Path(__file__).resolve().parents[1]  # relative paths in settings are relative to the project
DEFAULT_CORPUS = Path("../shared/corpus/por-blivre.usfx.xml")


def in_project(path: str | Path) -> str:
    """A relative setting path resolved against the project, whatever the working directory ("" stays "")."""
    if not str(path):
        return ""
    return str(path) if Path(path).is_absolute() else str((PROJECT / path).resolve())


class CorpusSettings(BaseSettings):
    """Where the Bible is and where it comes from."""

    model_config = SettingsConfigDict(env_file=(PROJECT / ".env", ".env"), env_file_encoding="utf-8",
                                      extra="ignore")

    corpus_path: Path = DEFAULT_CORPUS
    corpus_url: str = "https://ebible.org/Scriptures/porbr2018_usfx.zip"
    data_dir: Path = Path("data")

    @field_validator("corpus_path", "data_dir", mode="after")
    @classmethod
    def _corpus_paths_in_project(cls, value: Path) -> Path:
        return Path(in_project(value))
