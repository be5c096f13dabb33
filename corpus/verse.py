"""The typed verse every loader yields."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Verse:
    """One verse of one translation."""

    book: str  # USFM code, e.g. "JHN"
    chapter: int
    verse: int
    text: str
    heading: str | None = None  # the section heading the verse stands under, if any

    @property
    def id(self) -> str:
        """Stable id such as ``JHN.3.16``."""
        return f"{self.book}.{self.chapter}.{self.verse}"

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.book, self.chapter, self.verse)
